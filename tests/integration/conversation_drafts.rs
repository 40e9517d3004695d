//! A conversation opens with the suggested replies waiting on its inbound texts counted (issue
//! 51 §2): one call gives the page and, for each inbound text with drafts, how many, so the
//! bubble can say "3 suggested replies" and the newest text's drafts open by themselves.
use crate::agent_support::*;
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};

on_both_databases!(a_conversation_opens_with_its_drafts_counted);

async fn a_conversation_opens_with_its_drafts_counted(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    text_in(
        &s,
        "SMdraftscount000000000000000000a",
        "+14155552790",
        "+14155550100",
        "Are you open on Saturday?",
    )
    .await;
    let (summary, message) = first_message(&s).await;
    let sets: Value = eventually(20, "the agent's suggestions", || async {
        let v: Value = s
            .app
            .ok_as(
                &s.org.client,
                "/api/suggestions",
                json!({"message_id": message["id"]}),
            )
            .await;
        (!v.as_array().unwrap().is_empty()).then_some(v)
    })
    .await;
    let options = sets[0]["options"].as_array().unwrap().len();
    assert!(options >= 2, "{sets}");
    let open = || async {
        let v: Value = s
            .app
            .ok_as(
                &s.org.client,
                "/api/conversations/open",
                json!({"contact_id": summary["contact_id"]}),
            )
            .await;
        v
    };
    let opened = open().await;
    assert_eq!(opened["conversation"]["messages"][0]["id"], message["id"]);
    assert_eq!(
        opened["suggested"],
        json!([{"message_id": message["id"], "replies": options}]),
        "the inbound text's drafts, counted"
    );
    // A text with no drafts is not listed: the business's own reply.
    let _: Value = s
        .app
        .ok_as(
            &s.org.client,
            "/api/messages/send",
            json!({"request": {"contact_id": summary["contact_id"], "body": "Yes, 9 to 1.", "phone_number_id": s.numbers[0]}}),
        )
        .await;
    let again = open().await;
    assert_eq!(
        again["conversation"]["messages"].as_array().unwrap().len(),
        2
    );
    assert_eq!(again["suggested"].as_array().unwrap().len(), 1);
}
