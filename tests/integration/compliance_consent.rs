//! Issue 25's marketing consent on both databases: outreach needs prior express written consent.
use crate::agent_support::{setup, text_in};
use crate::campaign_support::{assistant_agent, operation_for};
use crate::helpers::*;
use crate::on_both_databases;
use serde_json::{json, Value};

async fn marketing_needs_written_consent(backend: Backend) {
    let Some(s) = setup(backend, "suggest", None).await else {
        return;
    };
    let app = &s.app;
    let without: Value = app
        .ok_as(&s.org.client, "/api/contacts/create", json!({"input": {"name": "No Consent", "phone": "+14155552680", "email": "", "tags": []}}))
        .await;
    assert_eq!(without["consent_source"], "none");
    let no = without["id"].as_str().unwrap().parse().unwrap();
    let yes = app.add_contact(&s.org, "Has Consent", "+14155552681").await;
    // A first text from the composer is outreach: refused without consent, with the reason.
    let refused = herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, no, s.numbers[0], "Hello!")
            .origin(None),
    )
    .await;
    assert!(
        format!("{refused:?}").contains("no marketing consent"),
        "{refused:?}"
    );
    herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, yes, s.numbers[0], "Hello!")
            .origin(None),
    )
    .await
    .unwrap();
    // A campaign leaves the one without consent out, with the reason.
    let agent = assistant_agent(app, s.org.org_id).await;
    let audience = crate::campaign_support::include_all(&[no, yes]);
    let op = operation_for(app, &agent, &audience, "Consent").await;
    let skipped = {
        use herald::campaign::entity::item;
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        item::Entity::find()
            .filter(item::Column::OperationId.eq(op))
            .filter(item::Column::SkipReason.eq("no marketing consent on record"))
            .count(&app.state.db)
            .await
            .unwrap()
    };
    assert_eq!(skipped, 1);
    // Once the person texts first, a reply needs no marketing consent.
    text_in(
        &s,
        "SMfirst",
        "+14155552680",
        "+14155550100",
        "Hi, do you have time Friday?",
    )
    .await;
    herald::messaging::outbound::send(
        &app.state,
        herald::messaging::outbound::Outgoing::new(s.org.org_id, no, s.numbers[0], "We do!")
            .origin(None),
    )
    .await
    .unwrap();
}

on_both_databases!(marketing_needs_written_consent,);
