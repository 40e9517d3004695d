//! The root component and the router: every page of Herald and the signed-in shell around them.
use crate::views::*;
use dioxus::prelude::*;
use uuid::Uuid;

#[derive(Routable, Clone, Debug, PartialEq)]
#[rustfmt::skip]
pub enum Route {
    #[route("/signin")]
    SignIn {},
    #[route("/signup")]
    SignUp {},
    #[route("/join/:token")]
    Join { token: String },
    #[route("/reset/:token")]
    Reset { token: String },
    #[layout(Shell)]
        #[route("/")]
        Home {},
        #[route("/messaging")]
        Inbox {},
        #[route("/messaging/:contact_id")]
        Conversation { contact_id: Uuid },
        #[route("/contacts")]
        Contacts {},
        #[route("/contacts/:contact_id")]
        ContactPage { contact_id: Uuid },
        #[route("/numbers")]
        PhoneNumbers {},
        #[route("/simulator")]
        Simulator {},
        #[route("/team")]
        Team {},
        #[route("/account")]
        Account {},
        #[route("/settings")]
        Settings {},
        #[route("/agents")]
        Agents {},
        #[route("/agents/:agent_id")]
        AgentDetail { agent_id: Uuid },
        #[route("/threads/:thread_id")]
        AgentThread { thread_id: Uuid },
        #[route("/notifications")]
        Notifications {},
        #[route("/assistant")]
        Assistant {},
        #[route("/plans")]
        Plans {},
        #[route("/plans/:plan_id")]
        PlanDetail { plan_id: Uuid },
        #[route("/operations")]
        Operations {},
        #[route("/operations/:operation_id")]
        OperationReview { operation_id: Uuid },
}

/// The desktop and mobile apps load the stylesheet from the source tree. The web build links its
/// minified, hashed copy from index.html (scripts/build_web.sh), so neither the server nor the
/// wasm client carries an asset record for it.
#[cfg(not(any(feature = "web", feature = "server")))]
fn stylesheet() -> Element {
    rsx! { document::Stylesheet { href: asset!("/assets/main.css") } }
}

#[cfg(any(feature = "web", feature = "server"))]
fn stylesheet() -> Element {
    rsx! {}
}

#[allow(non_snake_case)]
pub fn App() -> Element {
    // Effects run only in the client: mark the page interactive once hydrated, and when (in ms
    // since navigation began); browser tests wait for the mark, the first-load budget reads the time.
    use_effect(|| {
        document::eval(
            "document.body.dataset.hydratedAt = String(Math.round(performance.now()));\n\
             document.body.dataset.hydrated = 'true';",
        );
    });
    rsx! {
        document::Title { "Herald" }
        {stylesheet()}
        Router::<Route> {}
    }
}
