//! `start_campaign`: a campaign (the bulk engine: drafts, the review sheet, compliant sending) as
//! one step of a plan. The step starts the drafting; nothing is sent until an owner approves the
//! review sheet, as with any campaign. One campaign per plan, so a step run again after a crash
//! finds the campaign it made.
use super::tags::{contact_ids, contacts_schema};
use crate::ai_agent::llm::ToolDef;
use crate::ai_agent::tools::output::{schema_of, to_json, CampaignPreview, CampaignStarted};
use crate::ai_agent::tools::{AgentTool, EffectKey, ToolCtx, ToolError};
use crate::campaign::engines::{start, Engine};
use crate::contacts::entity::contact;
use crate::contacts::opt_out;
use crate::error::AppError;
use crate::plans::edit::MAX_CONCEPT_CHARS;
use crate::plans::model::{ContactDecision, CAMPAIGN_TOOL};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use uuid::Uuid;

/// Contacts one campaign step may reach.
pub const CAMPAIGN_MAX: usize = 5_000;

pub struct StartCampaign;

/// The audience (checked to be the organisation's), the concept and the from-number.
struct Campaign {
    contacts: Vec<contact::Model>,
    concept: String,
    number: crate::phone_numbers::entity::Model,
}

/// Contacts one campaign step over an audience (a segment or a filter) may reach.
pub const AUDIENCE_MAX: u64 = 50_000;

async fn checked(ctx: &ToolCtx, args: &Value) -> Result<Campaign, ToolError> {
    let by_audience = args.get("audience").is_some_and(|a| !a.is_null());
    if by_audience == args.get("contacts").is_some_and(|c| !c.is_null()) {
        return Err(ToolError::BadArguments(
            "give either `contacts` (a list) or `audience` ({\"segment\": …} or {\"filter\": …})"
                .into(),
        ));
    }
    let ids = if by_audience {
        Vec::new()
    } else {
        contact_ids(args, "contacts")?
    };
    if !by_audience && (ids.is_empty() || ids.len() > CAMPAIGN_MAX) {
        return Err(ToolError::BadArguments(format!(
            "a campaign reaches 1 to {CAMPAIGN_MAX} listed contacts; more is an audience"
        )));
    }
    let concept = args
        .get("message_concept")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|c| !c.is_empty() && c.chars().count() <= MAX_CONCEPT_CHARS)
        .ok_or_else(|| {
            ToolError::BadArguments(format!(
                "message_concept is 1 to {MAX_CONCEPT_CHARS} characters"
            ))
        })?
        .to_owned();
    // Merge fields ({{contact.first_name|there}}) are filled in per contact as drafts are
    // written; an unknown or unclosed one is refused now.
    crate::messaging::merge::check(&concept)
        .map_err(|e| ToolError::BadArguments(format!("message_concept: {e}")))?;
    let number_id: Uuid = args
        .get("phone_number_id")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ToolError::BadArguments("phone_number_id is required".into()))?;
    let number =
        crate::phone_numbers::service::find_in_org(&ctx.state.db, ctx.organization_id, number_id)
            .await
            .map_err(|_| {
                ToolError::Refused("That number is not one of this organisation's numbers.".into())
            })?;
    if by_audience {
        let (contacts, total) = crate::plans::steps::items::audience_contacts(
            &ctx.state,
            ctx.organization_id,
            &args["audience"],
            AUDIENCE_MAX,
        )
        .await?;
        if total == 0 || total > AUDIENCE_MAX {
            return Err(ToolError::BadArguments(format!(
                "the audience holds {total} contacts; a campaign reaches 1 to {AUDIENCE_MAX}"
            )));
        }
        return Ok(Campaign {
            contacts,
            concept,
            number,
        });
    }
    let mut contacts = Vec::with_capacity(ids.len());
    for part in ids.chunks(1_000) {
        contacts.extend(
            contact::Entity::find()
                .filter(contact::Column::OrganizationId.eq(ctx.organization_id))
                .filter(contact::Column::Id.is_in(part.iter().copied()))
                .all(&ctx.state.db)
                .await
                .map_err(|e| ToolError::Failed(e.to_string()))?,
        );
    }
    if contacts.len() != ids.len() {
        return Err(ToolError::from(AppError::not_found("Contact")));
    }
    Ok(Campaign {
        contacts,
        concept,
        number,
    })
}

#[async_trait::async_trait]
impl AgentTool for StartCampaign {
    fn def(&self) -> ToolDef {
        ToolDef {
            name: CAMPAIGN_TOOL.into(),
            description: "Start a campaign: a draft for each contact from the message concept, a review sheet an owner approves, then compliant sending. Give `contacts` (contact ids, or the contacts another step found) or, for any number, `audience`: {\"segment\": \"name\"} or {\"filter\": {…}}, which the server resolves.".into(),
            parameters: json!({"type": "object", "required": ["message_concept"], "properties": {
                "contacts": contacts_schema(CAMPAIGN_MAX),
                "audience": {"type": "object", "properties": {
                    "segment": {"type": "string", "minLength": 1},
                    "filter": {"type": "object"}
                }, "additionalProperties": false},
                "message_concept": {"type": "string", "minLength": 1, "maxLength": MAX_CONCEPT_CHARS},
                "phone_number_id": {"type": "string", "format": "uuid"}
            }}),
        }
    }
    fn output_schema(&self) -> Value {
        schema_of::<CampaignStarted>()
    }
    fn mutates(&self) -> bool {
        true
    }
    fn reads_org_wide(&self) -> bool {
        true
    }
    async fn call(&self, ctx: &ToolCtx, _key: &EffectKey, args: Value) -> Result<Value, ToolError> {
        let plan_id = ctx.plan_id.ok_or_else(|| {
            ToolError::Refused("A campaign starts only as an approved plan's step.".into())
        })?;
        let c = checked(ctx, &args).await?;
        let p =
            crate::plans::service::find_in_org(&ctx.state.db, ctx.organization_id, plan_id).await?;
        let audience: Vec<ContactDecision> = c
            .contacts
            .iter()
            .map(|x| ContactDecision {
                contact_id: x.id,
                include: true,
                reason: "chosen by the plan".into(),
                add_tags: vec![],
                remove_tags: vec![],
                kind: String::new(),
            })
            .collect();
        // One campaign per plan: a step run again after a crash answers the one it made.
        let op = crate::plans::campaign_start::create_campaign(
            &ctx.state,
            &p,
            &audience,
            &c.concept,
            Some(c.number.id),
        )
        .await?;
        start(&ctx.state, op, Engine::Draft);
        Ok(to_json(&CampaignStarted {
            operation_id: op,
            contacts: audience.len(),
            status: "drafting".into(),
        }))
    }
    /// Who it would reach (the opted out and those without marketing consent are left out, as
    /// the engine does) and what it costs.
    async fn simulate(&self, ctx: &ToolCtx, args: Value) -> Result<Value, ToolError> {
        let c = checked(ctx, &args).await?;
        let ids: Vec<Uuid> = c.contacts.iter().map(|x| x.id).collect();
        let outs = opt_out::sms_opt_outs(&ctx.state.db, &ids)
            .await
            .map_err(ToolError::from)?;
        // Left out as the engine leaves them out: opted out, or no marketing consent on record.
        let texts = c
            .contacts
            .iter()
            .filter(|x| !outs.contains_key(&x.id))
            .filter(|x| {
                crate::compliance::model::ConsentSource::parse(&x.consent_source)
                    .unwrap_or_default()
                    .allows_marketing()
            })
            .count();
        let per = crate::campaign::segments::segments(&c.concept).count.max(1);
        Ok(to_json(&CampaignPreview {
            started: CampaignStarted {
                operation_id: Uuid::nil(),
                contacts: c.contacts.len(),
                status: "simulated".into(),
            },
            from: c.number.number.into_string(),
            texts,
            left_out: ids.len() - texts,
            segments: texts * per,
            cost_usd: (texts * per) as f64 * crate::campaign::segments::COST_PER_SEGMENT,
        }))
    }
}
