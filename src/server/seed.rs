//! The demo organisation, created on an empty database so Herald can be tried at once.
use crate::auth::entity::organization;
use crate::contacts::model::ContactInput;
use crate::contacts::service as contacts;
use crate::error::{AppError, AppResult};
use crate::messaging::inbound::{persist_inbound, InboundSms};
use crate::phone_numbers::model::PhoneNumberInput;
use crate::phone_numbers::service as numbers;
use crate::platform::AppState;
use crate::team::sign_up::create_organization_with_owner;
use sea_orm::{EntityTrait, PaginatorTrait};
use uuid::Uuid;

pub const DEMO_EMAIL: &str = "demo@herald.test";
pub const DEMO_PASSWORD: &str = "herald-demo";

/// Seeds when there is no organisation at all; answers the new organisation's id.
pub async fn seed_demo_if_empty(state: &AppState) -> AppResult<Option<Uuid>> {
    if organization::Entity::find().count(&state.db).await? > 0 {
        return Ok(None);
    }
    let (org, owner_id) = create_organization_with_owner(
        state,
        "Bright Smile Dental",
        "Dana Demo",
        DEMO_EMAIL,
        DEMO_PASSWORD,
        // The operator's own start sets Herald up: it holds the set-up token, if any.
        state.config.setup_token.as_deref(),
    )
    .await?;
    let mut number_ids = Vec::new();
    for (number, name) in [
        ("+14155550100", "Front desk"),
        ("+14155550101", "Reminders line"),
    ] {
        let n = numbers::create(
            state,
            org,
            &PhoneNumberInput {
                number: number.into(),
                friendly_name: name.into(),
                provider_sid: String::new(),
                auto_assign: false,
            },
        )
        .await?;
        number_ids.push(n.id);
    }
    // The owner's Text Reply agent (suggest mode) answers the front desk.
    let owner = crate::auth::session::member_for(state, owner_id, org).await?;
    if let Some(agent) = crate::ai_agent::service::list(state, &owner)
        .await?
        .into_iter()
        .next()
    {
        crate::ai_agent::service::assign_numbers(state, &owner, agent.id, &number_ids[..1]).await?;
    }
    // What the clinic tells its agents: hours, address, prices and the questions patients ask.
    crate::knowledge::demo::seed(state, &owner).await?;
    // The reminders line has no AI agent: the legacy suggester answers it.
    let suggester = crate::ai_agent::text_agents::create(
        state,
        &owner,
        &crate::ai_agent::model::TextAgentInput {
            name: "Reminders suggester".into(),
            persona: "You confirm and move dental appointments for Bright Smile Dental. Be brief and warm.".into(),
            auto_reply: false,
            confidence_threshold: 0.9,
        },
    )
    .await?;
    crate::ai_agent::text_agents::bind(state, &owner, suggester.id, &number_ids[1..], &[]).await?;
    for (name, phone, email, tags) in [
        (
            "Ada Lovelace",
            "+14155552671",
            "ada@example.com",
            "patient, vip",
        ),
        (
            "Grace Hopper",
            "+14155552672",
            "grace@example.com",
            "patient",
        ),
        ("Alan Turing", "+14155552673", "", "lead, quote"),
        (
            "Katherine Johnson",
            "+14155552674",
            "katherine@example.com",
            "lead, quote",
        ),
        ("Boris Becker", "+14155552675", "", "lead, quote"),
        ("Linus Torvalds", "+14155552676", "", "lead, quote"),
    ] {
        let created = contacts::create(
            state,
            org,
            &ContactInput {
                name: name.into(),
                phone: phone.into(),
                email: email.into(),
                tags: vec![tags.into()],
                // The demo's customers signed up on the business's web form.
                consent: Some(crate::compliance::model::ConsentInput {
                    source: crate::compliance::model::ConsentSource::WebForm,
                    note: "demo: signed up on the booking form".into(),
                }),
                ..Default::default()
            },
        )
        .await?;
        // Boris opted out: plans and campaigns must leave him out.
        if name == "Boris Becker" {
            contacts::set_opted_out(state, &owner, created.id, true, None).await?;
        }
    }
    for (i, (from, to, body)) in [
        (
            "+14155552671",
            "+14155550100",
            "Hi! Could I move my cleaning to next week?",
        ),
        (
            "+14155552673",
            "+14155550101",
            "How much would whitening cost?",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let sms = InboundSms {
            message_sid: format!("SMdemo{i:028}"),
            from: from.into(),
            to: to.into(),
            body: body.into(),
            media_urls: vec![],
            media_types: vec![],
            opt_out_type: None,
        };
        persist_inbound(state, sms)
            .await
            .map_err(|e| AppError::Internal(e.to_string()))?;
    }
    Ok(Some(org))
}
