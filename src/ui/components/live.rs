//! `use_live`: a page's own live subscription, over a WebSocket that opens with the page and
//! closes when the page goes away. The tick it answers goes up on every event of the topic (and
//! after a reconnect, so nothing missed meanwhile stays stale); resources read it to re-load.
use crate::messaging::model::LiveTopic;
use dioxus::prelude::*;
use std::time::Duration;

/// The page's tick, for the components on it (a plan card's operation, the suggestions panel).
#[derive(Clone, Copy)]
pub struct PageTick(pub Signal<u64>);

/// The tick of the page this component is on (it never moves outside a live page).
pub fn use_page_tick() -> Signal<u64> {
    let fallback = use_signal(|| 0u64);
    try_use_context::<PageTick>()
        .map(|p| p.0)
        .unwrap_or(fallback)
}

/// The shell's tick: the navigation's counts re-load when it goes up. Every live event of the
/// page moves it, and a page that changes what is unread (a conversation read) moves it too.
#[derive(Clone, Copy)]
pub struct AttentionTick(pub Signal<u64>);

impl AttentionTick {
    /// Asks the shell to count again.
    pub fn bump(self) {
        let mut t = self.0;
        t += 1;
    }
}

/// The shell's tick, where there is a signed-in shell.
pub fn use_attention() -> Option<AttentionTick> {
    try_use_context::<AttentionTick>()
}

pub fn use_live(topic: LiveTopic) -> Signal<u64> {
    let tick = use_signal(|| 0u64);
    let attention = use_attention();
    use_context_provider(|| PageTick(tick));
    // The topic follows the page's props (a conversation page shows another contact).
    let mut current = use_signal(|| topic.clone());
    if *current.peek() != topic {
        current.set(topic);
    }
    connect(current, tick, attention);
    tick
}

/// One event of the page: the tick goes up, and so does the shell's.
fn ticked(mut tick: Signal<u64>, attention: Option<AttentionTick>) {
    tick += 1;
    if let Some(a) = attention {
        a.bump();
    }
}

/// The next wait before reconnecting: doubling from half a second, at most ten.
fn next_backoff(backoff: Duration) -> Duration {
    (backoff * 2).min(Duration::from_secs(10))
}

/// In the browser: the page's own WebSocket. Only the arrival of an event matters (resources
/// re-load on the tick), so the events are counted, never decoded: no decoder for them, nor
/// Dioxus's socket client, in the first load.
#[cfg(target_arch = "wasm32")]
fn connect(current: Signal<LiveTopic>, tick: Signal<u64>, attention: Option<AttentionTick>) {
    use futures::StreamExt;
    use gloo_net::websocket::futures::WebSocket;
    // Reading the topic subscribes: another topic drops this socket and opens the new one.
    let _socket = use_resource(move || async move {
        let path = format!("/api/live/ws?topic={}", current().to_param());
        let mut backoff = Duration::from_millis(500);
        loop {
            if let Ok(mut socket) = WebSocket::open(&path) {
                while let Some(Ok(_)) = socket.next().await {
                    backoff = Duration::from_millis(500);
                    ticked(tick, attention);
                }
            }
            // Closed or never opened: wait, reconnect, and read everything again (the shell
            // too: a socket the server closed may mean the session ended).
            futures_timer::Delay::new(backoff).await;
            backoff = next_backoff(backoff);
            ticked(tick, attention);
        }
    });
}

/// Desktop, mobile and the server's render: Dioxus's WebSocket client to `live_socket`.
#[cfg(not(target_arch = "wasm32"))]
fn connect(current: Signal<LiveTopic>, tick: Signal<u64>, attention: Option<AttentionTick>) {
    use crate::messaging::api::live_socket;
    use dioxus::fullstack::{use_websocket, WebSocketOptions};
    let mut generation = use_signal(|| 0u32);
    let mut socket = use_websocket(move || {
        let _ = generation();
        live_socket(current().to_param(), WebSocketOptions::new())
    });
    use_future(move || async move {
        let mut backoff = Duration::from_millis(500);
        loop {
            if socket.connect().await == dioxus::fullstack::WebsocketState::Open {
                backoff = Duration::from_millis(500);
            }
            while socket.recv().await.is_ok() {
                ticked(tick, attention);
            }
            // Closed or never opened: wait, reconnect, and read everything again (the shell
            // too: a socket the server closed may mean the session ended).
            futures_timer::Delay::new(backoff).await;
            backoff = next_backoff(backoff);
            generation += 1;
            ticked(tick, attention);
        }
    });
}
