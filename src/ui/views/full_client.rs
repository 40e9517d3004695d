//! The web client comes in two builds (scripts/build_web.sh). The first-load client, built with
//! the feature `first-load`, leaves out the pages a person opens seldom (settings, the team, the
//! agents' set-up, numbers, invitations, the knowledge, the Assistant with its plans, the plans
//! list and a plan's own page) to keep the first visit small (issue 28's budget): the front desk
//! opens on its conversations and contacts, and the Assistant's plan cards are the largest part
//! of the client an owner's first planning visit loads once, then keeps cached. The full client
//! carries every page. The server answers a seldom-opened page's address with the full
//! client (`Route::in_full_client_only`, `server::full_client`), and the first-load client, asked
//! to show one of them in place, loads it from the server at the same address.
use dioxus::prelude::*;

/// Declares the seldom-opened pages once: in the full client (and on the server, the desktop and
/// the phone) each is its module's page; in the first-load client each is a page of the same name
/// and props that fetches the full client. `Route::in_full_client_only` lists the same pages;
/// a unit test there holds the two lists together.
macro_rules! seldom_opened {
    ($($module:ident: $($page:ident { $($arg:ident: $ty:ty),* }),+;)*) => {
        $(
            #[cfg(not(feature = "first-load"))]
            mod $module;
            #[cfg(not(feature = "first-load"))]
            pub use $module::{$($page),+};
        )*
        #[cfg(feature = "first-load")]
        mod seldom_opened_pages {
            use dioxus::prelude::*;
            $($(
                #[component]
                pub fn $page($($arg: $ty),*) -> Element {
                    $(let _ = $arg;)*
                    super::full_client::load_full_client()
                }
            )+)*
        }
        #[cfg(feature = "first-load")]
        pub use seldom_opened_pages::*;
        /// The seldom-opened pages' names, as `Route` spells its variants.
        #[cfg(test)]
        pub const SELDOM_OPENED: &[&str] = &[$($(stringify!($page)),+),*];
    };
}
pub(crate) use seldom_opened;

/// In the first-load client: loads the current address from the server, which answers it with the
/// full client. `replace`, so that Back goes to the page before, not to this one.
#[allow(dead_code)]
pub fn load_full_client() -> Element {
    let route = use_route::<crate::ui::app::Route>();
    use_effect(move || {
        let path = serde_json::to_string(&route.to_string()).unwrap_or_default();
        document::eval(&format!(
            "delete document.body.dataset.hydrated; location.replace({path});"
        ));
    });
    rsx! {
        p { class: "muted", "Loading…" }
    }
}
