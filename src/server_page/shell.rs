//! The app's navigation around a page the server renders (issue 51 §6): the sidebar on a
//! desktop, the top bar and tab bar on a phone, as in the app's own shell, but plain links with
//! no wasm. On a phone the drawer opens from its anchor (`#sidebar`, CSS `:target`) and closes
//! from the scrim's.
use crate::auth::session::Member;
use crate::platform::AppState;
use dioxus::prelude::*;

/// The sidebar's pages: (address, id, words).
const PAGES: [(&str, &str, &str); 14] = [
    ("/messaging", "nav-inbox", "Inbox"),
    ("/assistant", "nav-assistant", "Assistant"),
    ("/contacts", "nav-contacts", "Contacts"),
    ("/numbers", "nav-numbers", "Phone numbers"),
    ("/agents", "nav-agents", "Agents"),
    ("/knowledge", "nav-knowledge", "Knowledge"),
    ("/plans", "nav-plans", "Plans"),
    ("/operations", "nav-operations", "Operations"),
    ("/campaigns/new", "nav-new-campaign", "New campaign"),
    ("/reports", "nav-reports", "Reports"),
    ("/notifications", "nav-notifications", "Notifications"),
    ("/team", "nav-team", "Team"),
    ("/settings", "nav-settings", "Settings"),
    ("/account", "nav-account", "Your account"),
];

/// The phone's tab bar: (address, id, icon, words), as the app's.
const TABS: [(&str, &str, &str, &str); 4] = [
    ("/messaging", "tab-inbox", "✉", "Inbox"),
    ("/assistant", "tab-assistant", "✦", "Assistant"),
    ("/contacts", "tab-contacts", "☺", "Contacts"),
    ("/plans", "tab-plans", "☑", "Plans"),
];

/// A whole HTML document for `member`: `body` (a `main`) inside the app's navigation, the link
/// to `active` marked as the page's own. The body comes rendered (`main_html`): an `Element` is
/// not `Send`, and this reads the organisation's name first.
pub async fn signed_in_document(
    state: &AppState,
    member: &Member,
    title: &str,
    active: &str,
    body: MainHtml,
) -> String {
    // The name is the only thing read; a page still renders should that read fail.
    let org = crate::auth::service::organization_name(state, member.organization_id).await;
    super::document(state, title, navigation(&org, active, body))
}

/// A page's `main`, rendered (Dioxus's renderer escapes every value in it).
pub struct MainHtml(String);

/// Renders a page's `main` for `signed_in_document`.
pub fn main_html(body: Element) -> MainHtml {
    MainHtml(dioxus::ssr::render_element(body))
}

/// The drawer opened from its anchor, and links dressed as the app's buttons and tabs: only
/// these pages need it, so it stays out of the app's stylesheet (the first-load budget).
const PHONE_DRAWER: &str = "@media (max-width: 480px) {\
.sidebar:target { transform: none; box-shadow: 0 0 40px rgba(0,0,0,.35); }\
.sidebar:target + .drawer-scrim { display: block; position: fixed; inset: 0; z-index: 30; background: rgba(10,14,30,.45); }\
a.menu-button { display: inline-flex; align-items: center; justify-content: center; border-radius: 8px; }\
a.tab { display: flex; flex-direction: column; text-decoration: none; } }";

fn navigation(org: &str, active: &str, body: MainHtml) -> Element {
    let class = |path: &str| {
        if path == active {
            "nav-link active"
        } else {
            "nav-link"
        }
    };
    rsx! {
        style { {PHONE_DRAWER} }
        div { class: "shell",
            header { class: "topbar", id: "topbar",
                span { class: "brand", "Herald" }
                span { class: "org-name", "{org}" }
                a { class: "menu-button", id: "menu-button", href: "#sidebar", "aria-label": "Menu", "☰" }
            }
            nav { class: "sidebar", id: "sidebar", "aria-label": "Herald",
                div { class: "brand", "Herald" }
                div { class: "org-name", "{org}" }
                for (path, id, words) in PAGES {
                    a { href: path, class: class(path), id, "aria-current": if path == active { "page" } else { "false" }, "{words}" }
                }
            }
            a { class: "drawer-scrim", href: "#", "aria-label": "Close the menu" }
            div { class: "content", dangerous_inner_html: "{body.0}" }
            nav { class: "tabbar", id: "tabbar", "aria-label": "Main pages",
                for (path, id, icon, words) in TABS {
                    a { href: path, class: if path == active { "tab active" } else { "tab" }, id,
                        span { class: "tab-icon", "aria-hidden": "true", "{icon}" } "{words}"
                    }
                }
                a { href: "#sidebar", class: "tab", id: "tab-more",
                    span { class: "tab-icon", "aria-hidden": "true", "☰" } "More"
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_s_own_link_is_marked() {
        use dioxus::prelude::*;
        let html = dioxus::ssr::render_element(super::navigation(
            "Bright Smile",
            "/reports",
            super::main_html(rsx! { main { "figures" } }),
        ));
        assert!(html.contains("id=\"nav-reports\""), "{html}");
        assert!(
            html.contains("class=\"nav-link active\" id=\"nav-reports\""),
            "{html}"
        );
        assert!(html.contains("Bright Smile"));
        assert!(html.contains("<main>figures</main>"));
        assert_eq!(html.matches("id=\"tab-").count(), 5, "four pages and More");
    }
}
