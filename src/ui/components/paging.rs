//! Lists read a page at a time: the pages after the first ("Show more"), where the next one
//! starts, whether one is loading and why the last one failed, and the button that reads it.
//! One hook and one button for every such list, instead of a copy in each page.
use dioxus::prelude::*;
use std::future::Future;

/// The state of a list's later pages.
pub struct Pages<T: 'static, C: 'static> {
    /// Items of the pages after the first, in order.
    pub later: Signal<Vec<T>>,
    /// Where the page after them starts (None before the first "Show more").
    pub next: Signal<Option<C>>,
    pub loading: Signal<bool>,
    /// Why the last page could not be read.
    pub error: Signal<Option<String>>,
}

impl<T, C> Clone for Pages<T, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, C> Copy for Pages<T, C> {}

/// The same pages (their signals), so that a component may take them as a prop.
impl<T, C> PartialEq for Pages<T, C> {
    fn eq(&self, other: &Self) -> bool {
        self.later == other.later
            && self.next == other.next
            && self.loading == other.loading
            && self.error == other.error
    }
}

/// A list's later pages, empty to begin with.
pub fn use_pages<T: 'static, C: 'static>() -> Pages<T, C> {
    Pages {
        later: use_signal(Vec::new),
        next: use_signal(|| None),
        loading: use_signal(|| false),
        error: use_signal(|| None),
    }
}

impl<T: Clone + 'static, C: Clone + 'static> Pages<T, C> {
    /// Forgets the later pages: the first page is being read again.
    pub fn reset(mut self) {
        self.later.set(Vec::new());
        self.next.set(None);
    }

    /// The first page's items with the later pages' after them, and where the next page starts.
    pub fn join(self, mut first: Vec<T>, first_next: Option<C>) -> (Vec<T>, Option<C>) {
        let later = self.later.read();
        let cursor = if later.is_empty() {
            first_next
        } else {
            (self.next)()
        };
        first.extend(later.iter().cloned());
        (first, cursor)
    }

    /// Reads the next page with `fetch`; `split` answers its items and where the one after starts.
    pub fn more<P: 'static, E: std::fmt::Display + 'static>(
        mut self,
        fetch: impl Future<Output = Result<P, E>> + 'static,
        split: impl FnOnce(P) -> (Vec<T>, Option<C>) + 'static,
    ) {
        self.loading.set(true);
        spawn(async move {
            match fetch.await {
                Ok(page) => {
                    let (items, next) = split(page);
                    self.later.write().extend(items);
                    self.next.set(next);
                    self.error.set(None);
                }
                Err(e) => self.error.set(Some(e.to_string())),
            }
            self.loading.set(false);
        });
    }
}

/// The "Show more" button under a list, "Loading…" while a page is read.
#[component]
pub fn ShowMore(id: String, loading: bool, onclick: EventHandler<MouseEvent>) -> Element {
    rsx! {
        button {
            id: "{id}",
            class: "secondary show-more",
            disabled: loading,
            onclick: move |e| onclick.call(e),
            if loading { "Loading…" } else { "Show more" }
        }
    }
}

/// Under a list: how many of how many are shown ("None yet." when there are none), why the last
/// page could not be read, and "Show more" while there is more.
#[component]
pub fn ListFooter(
    shown: usize,
    total: u64,
    none: String,
    error: Option<String>,
    id: String,
    loading: bool,
    has_more: bool,
    onmore: EventHandler<MouseEvent>,
) -> Element {
    rsx! {
        p { class: "muted small",
            if total == 0 { "{none}" } else { "{shown} of {total} shown." }
        }
        crate::ui::components::ErrorBanner { message: error }
        if has_more {
            ShowMore { id, loading, onclick: move |e| onmore.call(e) }
        }
    }
}
