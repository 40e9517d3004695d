//! "From: Pricing FAQ" under a reply an agent drafted or sent from the business's knowledge;
//! opening it shows the passage the reply used.
use crate::messaging::model::MessageSource;
use dioxus::prelude::*;

#[component]
pub fn Cited(sources: Vec<MessageSource>) -> Element {
    rsx! {
        for s in sources {
            details { class: "cite", key: "{s.passage_id}",
                summary { "From: {s.title}" }
                p { "{s.excerpt}" }
            }
        }
    }
}
