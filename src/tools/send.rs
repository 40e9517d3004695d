//! `send_sms`: autonomous agents only, curried to the number the contact texted. In a turn a
//! contact's text started, it reaches only that contact, from that number, a few times at most,
//! and never carries another contact's phone number or email.
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::output::{schema_of, to_json, TextPreview, TextSent};
use crate::ai_agent::tools::{contact_arg, AgentTool, EffectKey, ToolCtx, ToolError, TurnScope};
use crate::compliance::model::Purpose;
use crate::contacts::entity::contact;
use crate::messaging::entity as message;
use crate::messaging::outbound::{check_sendable, send, Outgoing, Sendable};
use crate::messaging::quiet;
use crate::phone_numbers::service as numbers;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use uuid::Uuid;

pub struct SendSms;

/// Phone-number-like runs (7 to 15 digits, with the usual separators) and email-like words.
pub fn contact_details_in(body: &str, region: &str) -> (Vec<String>, Vec<String>) {
    let mut phones = Vec::new();
    let mut run = String::new();
    let flush = |run: &mut String, phones: &mut Vec<String>| {
        let digits = run.chars().filter(char::is_ascii_digit).count();
        if (7..=15).contains(&digits) {
            if let Ok(p) = crate::contacts::phone::normalize_phone(run.trim(), region) {
                phones.push(p.into_string());
            }
        }
        run.clear();
    };
    for ch in body.chars() {
        if ch.is_ascii_digit()
            || (!run.is_empty() && " -().".contains(ch))
            || (run.is_empty() && ch == '+')
        {
            run.push(ch);
        } else {
            flush(&mut run, &mut phones);
            if ch == '+' {
                run.push(ch);
            }
        }
    }
    flush(&mut run, &mut phones);
    let emails = body
        .split(|c: char| c.is_whitespace() || ",;<>()\"'".contains(c))
        .map(|w| {
            w.trim_matches(|c: char| c == '.' || c == ':')
                .to_lowercase()
        })
        .filter(|w| w.contains('@') && w.contains('.') && !w.starts_with('@'))
        .collect();
    (phones, emails)
}

impl SendSms {
    /// The reply-turn rules; the operator's turns skip them.
    async fn contain(
        &self,
        ctx: &ToolCtx,
        scope: &TurnScope,
        contact_id: Uuid,
        number_id: Uuid,
        body: &str,
    ) -> Result<(), ToolError> {
        let TurnScope::Reply {
            reply, sends_left, ..
        } = scope
        else {
            return Ok(());
        };
        if contact_id != reply.contact_id {
            return Err(ToolError::Refused(
                "In a reply you can text only the contact who texted you.".into(),
            ));
        }
        if number_id != reply.phone_number_id {
            return Err(ToolError::Refused(
                "A reply leaves from the number the contact texted, and no other.".into(),
            ));
        }
        // A person took this conversation over (the handoff): the agent stays silent.
        let now = ctx.state.clock.now();
        if let Some(until) =
            crate::inbox::handoff::paused_until(&ctx.state.db, ctx.organization_id, contact_id, now)
                .await?
        {
            tracing::info!(%contact_id, "refused a reply in a conversation a person took over");
            return Err(ToolError::Refused(format!(
                "A person on the team is handling this conversation: agents are paused here until \
                 {} UTC. Do not text; escalate if a person must see something.",
                until.format("%b %-d, %H:%M")
            )));
        }
        let limit = ctx.state.runtime().replies_per_contact_day;
        if !crate::ai_agent::pacing::over_limit(&ctx.state.db, &[contact_id], now, limit)
            .await?
            .is_empty()
        {
            return Err(ToolError::Refused(format!(
                "This contact has had {limit} automated replies in 24 hours. Escalate instead."
            )));
        }
        let (phones, emails) = contact_details_in(body, &ctx.state.config.default_region);
        if !phones.is_empty() || !emails.is_empty() {
            let others = contact::Entity::find()
                .filter(contact::Column::OrganizationId.eq(ctx.organization_id))
                .filter(contact::Column::Id.ne(reply.contact_id))
                .filter(
                    sea_orm::Condition::any()
                        .add(contact::Column::Phone.is_in(phones))
                        .add(contact::Column::Email.is_in(emails)),
                )
                .one(&ctx.state.db)
                .await
                .map_err(|e| ToolError::Failed(e.to_string()))?;
            if others.is_some() {
                tracing::warn!("refused a reply carrying another contact's details");
                return Err(ToolError::Refused(
                    "That text carries another contact's phone number or email; it was not sent."
                        .into(),
                ));
            }
        }
        crate::ai_agent::grounding::refuse_invented(ctx, body).await?;
        // Counted last, so a refused attempt does not use up the allowance.
        sends_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .map(|_| ())
            .map_err(|_| ToolError::Refused("You have sent as many texts as one reply may.".into()))
    }
}

/// An operator's turn whose context holds contacts' words (`ai_agent::taint`) does not text anyone
/// but the contact whose words they are: the text becomes a plan that waits for a person (a plan
/// that texts is always reviewed), and the call answers that it was not sent. A plan's own steps,
/// which a person approved, and reply turns (held to their contact already) pass.
async fn hold_after_contact_text(
    ctx: &ToolCtx,
    key: &EffectKey,
    ok: &Sendable,
    number_id: Uuid,
) -> Result<(), ToolError> {
    use crate::plans::model::{ApprovalPolicy, PlanAction, SEND_TOOL};
    use crate::steps::model::{PlanStep, StepMode};
    if ctx.plan_id.is_some()
        || !matches!(ctx.scope, TurnScope::Operator)
        || ctx.taint().allows_text_to(ok.contact.id)
    {
        return Ok(());
    }
    let name = ok.contact.name.clone();
    let step = PlanStep::new(
        "text",
        &format!("Text {name}"),
        SEND_TOOL,
        json!({"contact_id": ok.contact.id, "phone_number_id": number_id, "body": ok.body}),
    );
    let plan = crate::plans::service::present_plan(
        &ctx.state,
        &ctx.agent,
        crate::plans::service::Presented {
            thread_id: Some(ctx.thread_id),
            title: &format!("Text {name}"),
            summary: "Held for a person: this turn read contacts' own words, so a text to anyone \
                      else waits for approval.",
            action: PlanAction::Steps {
                mode: StepMode::Eager,
                steps: vec![step],
            },
            policy_override: Some(ApprovalPolicy::HumanReview),
            source_key: Some(key.as_str().to_owned()),
            revises: None,
        },
    )
    .await?;
    tracing::warn!(plan = %plan.id, "a text after contacts' words was held for approval");
    Err(ToolError::Refused(format!(
        "Not sent. This turn has read contacts' own words, so a text to {name} waits for a \
         person: it is plan {} (awaiting approval).",
        plan.id
    )))
}

#[async_trait::async_trait]
impl AgentTool for SendSms {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: "send_sms".into(),
            description: "Send a text to the contact. It leaves from the number they texted unless you name another of our numbers.".into(),
            parameters: json!({"type": "object", "required": ["body"], "properties": {
                "body": {"type": "string"},
                "contact_id": {"type": "string"},
                "phone_number_id": {"type": "string"}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<TextSent>()
    }
    fn mutates(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let (ok, number_id, quiet) = self.prepare(ctx, &args).await?;
        hold_after_contact_text(ctx, key, &ok, number_id).await?;
        // A plan's text in the recipient's quiet hours waits for the window, as a campaign's
        // does: scheduled once under the step's key, sent through the same check when due.
        if let Some((until, waits)) = quiet {
            let body = disclosed(ctx, ok.contact.id, number_id, &ok.body).await?;
            let row = crate::messaging::scheduled::schedule(
                &ctx.state,
                key.uuid(),
                ctx.organization_id,
                ok.contact.id,
                number_id,
                &body,
                until,
                ctx.plan_id,
                None,
            )
            .await?;
            return Ok(to_json(&TextSent {
                sent: false,
                message_id: row.id,
                status: "scheduled".into(),
                from_number_id: number_id,
                waits: Some(waits),
            }));
        }
        let origin = if ctx.state.model.is_offline() {
            "agent (offline model)"
        } else {
            "agent"
        };
        // A reply in a conversation the contact started; anything else the business starts.
        let purpose = match ctx.reply {
            Some(_) => Purpose::Reply,
            None => Purpose::Outreach,
        };
        let body = disclosed(ctx, ok.contact.id, number_id, &ok.body).await?;
        let cites = crate::ai_agent::grounding::cites(ctx, &ok.body);
        let out = Outgoing::new(ctx.organization_id, ok.contact.id, number_id, &body)
            .by_agent(origin, ctx.agent.id)
            .citing(&cites)
            .keyed(Some(key.uuid()))
            .purpose(purpose);
        let sent = send(&ctx.state, out).await?;
        Ok(to_json(&TextSent {
            sent: true,
            message_id: sent.id,
            status: sent.status,
            from_number_id: number_id,
            waits: None,
        }))
    }
    /// The text it would send: recipient, from-number, segments and cost, after the same
    /// checks a send makes (opt-out, quiet hours, the reply's containment), sending nothing.
    async fn simulate(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        let (ok, number_id, quiet) = self.prepare(ctx, &args).await?;
        let seg = crate::campaign::segments::segments(&ok.body);
        Ok(to_json(&TextPreview {
            text: TextSent {
                sent: false,
                message_id: Uuid::nil(),
                status: "simulated".into(),
                from_number_id: number_id,
                waits: quiet.map(|(_, w)| w),
            },
            to_name: ok.contact.name,
            to: ok.contact.phone.unwrap_or_default(),
            from: ok.number.number.into_string(),
            segments: seg.count.max(1),
            cost_usd: seg.count.max(1) as f64 * crate::campaign::segments::COST_PER_SEGMENT,
        }))
    }
}

/// The body with the organisation's AI disclosure in front when this is the agent's first text in
/// the conversation (the contact and this number), or its first after 30 days (California's BOT
/// Act, the Utah and Colorado AI laws). The organisation can turn it off in Settings.
async fn disclosed(
    ctx: &ToolCtx,
    contact_id: Uuid,
    number_id: Uuid,
    body: &str,
) -> Result<String, ToolError> {
    let fail = |e: sea_orm::DbErr| ToolError::Failed(e.to_string());
    let w = crate::compliance::wording::load(&ctx.state.db, ctx.organization_id).await?;
    if !w.disclose {
        return Ok(body.to_owned());
    }
    let since = ctx.state.clock.now() - chrono::Duration::days(DISCLOSE_AGAIN_AFTER_DAYS);
    let recent = message::Entity::find()
        .filter(message::Column::OrganizationId.eq(ctx.organization_id))
        .filter(message::Column::ContactId.eq(contact_id))
        .filter(message::Column::PhoneNumberId.eq(number_id))
        .filter(message::Column::Direction.eq("outbound"))
        .filter(message::Column::AiOrigin.starts_with("agent"))
        .filter(message::Column::SendState.ne(crate::messaging::ledger::SendState::Failed))
        .filter(message::Column::CreatedAt.gt(since))
        .one(&ctx.state.db)
        .await
        .map_err(fail)?;
    Ok(match recent {
        Some(_) => body.to_owned(),
        None => format!("{} {body}", w.disclosure),
    })
}

/// What a send checked: the text, its number, and for a plan's text in quiet hours when it may go.
type Prepared = (
    Sendable,
    Uuid,
    Option<(chrono::DateTime<chrono::Utc>, String)>,
);

/// A conversation the agent has not texted in for this long is disclosed to again.
pub const DISCLOSE_AGAIN_AFTER_DAYS: i64 = 30;

impl SendSms {
    /// Everything a send checks before it records the text, shared by the send and its
    /// simulation: the arguments, the number, the reply's containment, the rules every text
    /// obeys and, for a text the business starts (not a reply), the recipient's quiet hours.
    /// A plan's step in the recipient's quiet hours is not refused: it answers when the window
    /// opens and why, and the text waits for it.
    async fn prepare(&self, ctx: &ToolCtx, args: &Value) -> Result<Prepared, ToolError> {
        let body = args
            .get("body")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::BadArguments("body is required".into()))?;
        let contact_id = contact_arg(ctx, args)?;
        let number_id: Uuid = match args.get("phone_number_id").and_then(Value::as_str) {
            Some(s) => {
                let id: Uuid = s
                    .parse()
                    .map_err(|_| ToolError::BadArguments("phone_number_id is not a uuid".into()))?;
                // Another of the organisation's numbers may be named; anything else is refused.
                numbers::find_in_org(&ctx.state.db, ctx.organization_id, id)
                    .await
                    .map_err(|_| {
                        ToolError::Refused(
                            "That number is not one of this organisation's numbers.".into(),
                        )
                    })?;
                id
            }
            None => ctx
                .reply
                .as_ref()
                .map(|r| r.phone_number_id)
                .ok_or_else(|| {
                    ToolError::BadArguments("phone_number_id is required outside a reply".into())
                })?,
        };
        self.contain(ctx, &ctx.scope, contact_id, number_id, body)
            .await?;
        let ok =
            check_sendable(&ctx.state, ctx.organization_id, contact_id, number_id, body).await?;
        let mut waits = None;
        if ctx.reply.is_none() {
            let zone = quiet::org_zone(&ctx.state.db, ctx.organization_id).await?;
            if let Some(until) = quiet::quiet_until(ctx.state.clock.now(), &ok.contact, &zone) {
                let reason = quiet::held_reason(until, &ok.contact, &zone);
                if ctx.plan_id.is_none() {
                    return Err(ToolError::Refused(reason));
                }
                waits = Some((until, format!("Waits: {reason}")));
            }
        }
        Ok((ok, number_id, waits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contact_details_are_found_in_any_shape() {
        let (p, e) = contact_details_in(
            "Call Grace at (415) 555-2672 or +1 415 555 2673, or mail GRACE@example.com.",
            "US",
        );
        assert_eq!(p, vec!["+14155552672", "+14155552673"]);
        assert_eq!(e, vec!["grace@example.com"]);
        let (p, e) = contact_details_in("See you at 3:30 on 12/4, room 101.", "US");
        assert!(p.is_empty() && e.is_empty(), "{p:?}");
    }
}
