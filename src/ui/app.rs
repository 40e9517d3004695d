//! The root component and the router: every page of Herald and the signed-in shell around them.
use crate::ui::views::*;
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
        #[route("/contacts/import")]
        ContactImport {},
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
        #[route("/campaigns/new?:audience")]
        NewCampaign { audience: String },
        #[route("/knowledge")]
        Knowledge {},
}

impl Route {
    /// The pages only the full web client carries (`views::full_client`): the server answers these
    /// addresses with it, and the first-load client, asked to show one, fetches it from there.
    pub fn in_full_client_only(&self) -> bool {
        matches!(
            self,
            Route::Account {}
                | Route::AgentThread { .. }
                | Route::Assistant {}
                | Route::Agents {}
                | Route::AgentDetail { .. }
                | Route::ContactPage { .. }
                | Route::ContactImport {}
                | Route::Join { .. }
                | Route::Reset { .. }
                | Route::Notifications {}
                | Route::PhoneNumbers {}
                | Route::Operations {}
                | Route::OperationReview { .. }
                | Route::NewCampaign { .. }
                | Route::Knowledge {}
                | Route::Plans {}
                | Route::PlanDetail { .. }
                | Route::Settings {}
                | Route::SignUp {}
                | Route::Simulator {}
                | Route::Team {}
        )
    }
}

/// The desktop and mobile apps load the stylesheets (the seldom pages' too) from the source tree. The web build links its
/// minified, hashed copy from index.html (scripts/build_web.sh), so neither the server nor the
/// wasm client carries an asset record for it.
#[cfg(not(any(feature = "web", feature = "server")))]
fn stylesheet() -> Element {
    rsx! {
        document::Stylesheet { href: asset!("/assets/main.css") }
        document::Stylesheet { href: asset!("/assets/full.css") }
    }
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

#[cfg(test)]
mod tests {
    use super::Route;
    use uuid::Uuid;

    /// Every page, with made-up parameters.
    fn every_route() -> Vec<Route> {
        let (id, token) = (Uuid::nil(), "t".to_owned());
        vec![
            Route::SignIn {},
            Route::SignUp {},
            Route::Join {
                token: token.clone(),
            },
            Route::Reset { token },
            Route::Home {},
            Route::Inbox {},
            Route::Conversation { contact_id: id },
            Route::Contacts {},
            Route::ContactPage { contact_id: id },
            Route::PhoneNumbers {},
            Route::Simulator {},
            Route::Team {},
            Route::Account {},
            Route::Settings {},
            Route::Agents {},
            Route::AgentDetail { agent_id: id },
            Route::AgentThread { thread_id: id },
            Route::Notifications {},
            Route::Assistant {},
            Route::Plans {},
            Route::PlanDetail { plan_id: id },
            Route::Operations {},
            Route::OperationReview { operation_id: id },
            Route::ContactImport {},
            Route::Knowledge {},
            Route::NewCampaign {
                audience: r#"{"kind":"tag","tag":"vip co"}"#.into(),
            },
        ]
    }

    /// The server answers with the full client exactly the pages the first-load client leaves
    /// out: a page it left out but the server did not would load itself for ever.
    #[test]
    fn the_server_and_the_first_load_client_agree_on_the_seldom_opened_pages() {
        let routes = every_route();
        use dioxus::prelude::Routable;
        assert_eq!(
            routes.len(),
            Route::flatten_site_map().count(),
            "every page is listed here"
        );
        for route in routes {
            let name = format!("{route:?}");
            let name = name.split([' ', '{']).next().unwrap();
            assert_eq!(
                route.in_full_client_only(),
                crate::ui::views::SELDOM_OPENED.contains(&name),
                "{name}"
            );
            assert_eq!(route.to_string().parse::<Route>().ok(), Some(route.clone()));
        }
    }
}
