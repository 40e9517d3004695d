//! Where a conversation's history is scrolled (issue 51 §2): it opens at the newest text; a new
//! text is followed when the person was already reading the newest, and always after they sent
//! one; a picture that loads later does not push the newest out of sight; and "Show earlier
//! messages" keeps the text the person was looking at where it was.
use dioxus::prelude::*;
use uuid::Uuid;

/// The history's scroller, `#history`. The script keeps what it needs on the element itself
/// (`data-*`), so a conversation opened in place of another starts afresh. `g()`: the person was
/// at the newest text, measured against the height the history had before the change. A picture
/// that loads grows the history: it stays at the newest if that is where the person was.
/// (Written short: it is part of the first load.)
const FOLLOW: &str = "const[c,f]=await dioxus.recv(),h=document.getElementById('history');\
if(h){const d=h.dataset,g=()=>+(d.height||0)-h.scrollTop-h.clientHeight<160,s=()=>{d.height=h.scrollHeight};\
if(d.contact!==c||f||g())h.scrollTop=h.scrollHeight;d.contact=c;s();\
if(!d.watching){d.watching=1;h.addEventListener('load',()=>{if(g())h.scrollTop=h.scrollHeight;s()},true);\
h.addEventListener('scroll',s,{passive:true})}}";

/// Keeps the history where a person expects it. `newest` is the newest text shown; `sent` is
/// set when the person sent one (the next newest is followed whatever they were reading) and
/// cleared here.
pub fn use_history_scroll(contact_id: Uuid, newest: Memo<Option<Uuid>>, mut sent: Signal<bool>) {
    use_effect(move || {
        let _ = newest();
        let force = *sent.peek();
        if force {
            sent.set(false);
        }
        let follow = document::eval(FOLLOW);
        let _ = follow.send((contact_id.to_string(), force));
    });
}

/// Before older texts are put above: for three seconds, each frame, the text the person was
/// looking at (the first shown, found again by its id should the list be drawn anew) is kept
/// where it was on the screen, the older ones above it, whatever moves it meanwhile: the texts
/// arriving in as many changes as it takes, or the history itself moving on the page (a phone's
/// tab bar coming back once the composer loses focus). Scrolling, a touch or a key hands the
/// history back to the person at once.
pub fn keep_place_for_earlier() {
    document::eval(
        "const h=document.getElementById('history'),a=h&&h.querySelector('.message');if(a){const t=a.getBoundingClientRect().top,\
k='[data-message-id=\"'+a.dataset.messageId+'\"]',end=Date.now()+3000;let s=0;\
for(const n of['wheel','touchstart','keydown'])h.addEventListener(n,()=>s=1,{once:true,passive:true});\
const f=()=>{const e=h.querySelector(k);if(e){const d=e.getBoundingClientRect().top-t;if(d){h.scrollTop+=d;h.dataset.height=h.scrollHeight}}\
if(!s&&Date.now()<end)requestAnimationFrame(f)};requestAnimationFrame(f)}",
    );
}
