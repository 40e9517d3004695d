//! The dry run ("Simulate" on the card): the plan's steps go through the same scheduler as a
//! real run, but each write goes through its tool's simulator (the checks the write makes, a
//! preview shaped like its result) while reads run for real. Steps that already ran keep their
//! real results. Nothing is written: no effect, no audit, no plan update.
use super::run::tool_ctx;
use crate::auth::session::Member;
use crate::error::{AppError, AppResult};
use crate::plans::model::{texts_people, PlanAction, CAMPAIGN_TOOL, SEND_TOOL};
use crate::platform::AppState;
use crate::steps::catalog::step_catalog;
use crate::steps::graph::Graph;
use crate::steps::model::{PlanStep, Simulation, StepMode, StepPrediction, StepStatus};
use crate::steps::schedule::{run_steps, RunHooks};
use crate::steps::validate::check_resolved;
use serde_json::Value;
use uuid::Uuid;

/// Steps simulated at once.
const CONCURRENCY: usize = 8;

/// A step as the simulation starts it: one that has not reached an end starts afresh.
fn fresh(s: &PlanStep) -> PlanStep {
    if s.status.is_final() {
        s.clone()
    } else {
        PlanStep::as_planned(s)
    }
}

pub async fn simulate(state: &AppState, m: &Member, plan_id: Uuid) -> AppResult<Simulation> {
    let p = crate::plans::access::find_visible(state, m, plan_id).await?;
    let PlanAction::Steps { steps, .. } = super::store::action(&state.db, &p).await? else {
        return Err(AppError::Conflict("This plan has no steps.".into()));
    };
    let graph = Graph::of(&steps).map_err(|e| {
        AppError::Validation(format!("The plan's steps do not form a graph: {e:?}"))
    })?;
    let tools = state.tools().for_steps();
    let catalog = step_catalog(&tools);
    let ctx = tool_ctx(state, &p).await?;
    let mut sim: Vec<PlanStep> = steps.iter().map(fresh).collect();
    let run = |i: usize, args: Value| {
        let (tools, catalog, ctx, step, p) = (&tools, &catalog, &ctx, &steps[i], &p);
        async move {
            let name = &step.tool;
            let spec = catalog
                .get(name)
                .ok_or_else(|| format!("`{name}` is not a step tool"))?;
            let tool = tools
                .iter()
                .find(|t| &t.def().name == name)
                .ok_or_else(|| format!("`{name}` is not a step tool"))?;
            if step.for_each.is_some() {
                return super::items::simulate_each(ctx, p, step, &args, tool.as_ref(), spec).await;
            }
            check_resolved(spec, &args)?;
            tool.simulate(ctx, args).await.map_err(|e| e.to_string())
        }
    };
    let now = || state.clock.now();
    run_steps(
        &mut sim,
        &graph,
        RunHooks {
            mode: StepMode::Eager,
            concurrency: CONCURRENCY,
            needs_confirmation: &|_, _| false,
            run,
            save: &mut |_| {},
            now: &now,
            stopped: &|| false,
        },
    )
    .await;
    let mutates = |s: &PlanStep| catalog.get(&s.tool).is_some_and(|t| t.mutates);
    Ok(predictions(&steps, &sim, &mutates))
}

/// Each step's prediction and the totals.
fn predictions(
    before: &[PlanStep],
    after: &[PlanStep],
    mutates: &dyn Fn(&PlanStep) -> bool,
) -> Simulation {
    let mut out = Simulation::default();
    for (was, s) in before.iter().zip(after) {
        let already = was.status.is_final();
        let writes = mutates(s);
        let each = s.for_each.is_some();
        if writes && !already {
            match (s.status, s.result.as_ref()) {
                // A for_each step counts its items.
                (StepStatus::Completed, Some(r)) if each => {
                    out.writes += r["completed"].as_u64().unwrap_or(0) as usize;
                    out.refused += r["failed"].as_u64().unwrap_or(0) as usize;
                }
                (StepStatus::Completed, _) => out.writes += 1,
                (StepStatus::Failed, _) => out.refused += 1,
                _ => out.blocked += 1,
            }
        }
        let effect = (s.status == StepStatus::Completed)
            .then(|| {
                s.result.as_ref().map(|r| match r["line"].as_str() {
                    Some(line) if each && writes => line.to_owned(),
                    _ if writes => effect_of(&s.tool, r),
                    // A read says what it found, in words.
                    _ => format!("Reads: {}", crate::plans::result_words::result_in_words(r)),
                })
            })
            .flatten();
        if texts_people(&s.tool) && s.status == StepStatus::Completed && !already {
            let r = s.result.as_ref();
            // A text is one; a campaign says how many it would send.
            out.texts += r.and_then(|r| r["texts"].as_u64()).unwrap_or(1) as usize;
            out.segments += r.and_then(|r| r["segments"].as_u64()).unwrap_or(1) as usize;
            out.cost_usd += r.and_then(|r| r["cost_usd"].as_f64()).unwrap_or(0.0);
        }
        out.steps.push(StepPrediction {
            id: s.id.clone(),
            status: s.status,
            already,
            effect,
            result: s.result.clone(),
            error: s.error.clone(),
        });
    }
    out.summary = out.summary();
    out
}

/// A write's predicted effect in a line, from its preview.
fn effect_of(tool: &str, r: &Value) -> String {
    let list = |v: &Value| {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    match tool {
        SEND_TOOL => format!(
            "Would text {} ({}) from {}: {} segment(s), ${:.4}{}",
            r["to_name"].as_str().unwrap_or("?"),
            r["to"].as_str().unwrap_or("?"),
            r["from"].as_str().unwrap_or("?"),
            r["segments"].as_u64().unwrap_or(1),
            r["cost_usd"].as_f64().unwrap_or(0.0),
            r["waits"]
                .as_str()
                .map(|w| format!(". {w}"))
                .unwrap_or_default()
        ),
        CAMPAIGN_TOOL => format!(
            "Would start a campaign from {}: {} text(s), {} left out (opted out), {} segment(s), ${:.4}; sending waits for the review sheet",
            r["from"].as_str().unwrap_or("?"),
            r["texts"].as_u64().unwrap_or(0),
            r["left_out"].as_u64().unwrap_or(0),
            r["segments"].as_u64().unwrap_or(0),
            r["cost_usd"].as_f64().unwrap_or(0.0)
        ),
        crate::plans::model::SCHEDULE_TOOL => format!(
            "Would schedule the text for {} (held to the recipient's daytime hours)",
            r["send_at"].as_str().unwrap_or("?")
        ),
        "tag_contacts" => {
            let first = &r["contacts"][0]["tags"];
            format!(
                "Would retag {} contact(s); the first would carry: {}",
                r["changed"].as_u64().unwrap_or(0),
                list(first)
            )
        }
        "set_custom_field" => format!(
            "Would set {} to \"{}\"",
            r["field"].as_str().unwrap_or("?"),
            r["value"].as_str().unwrap_or("")
        ),
        "add_note" => {
            let last = r["notes"]
                .as_str()
                .unwrap_or("")
                .lines()
                .last()
                .unwrap_or("");
            format!("Would add the note \"{last}\"")
        }
        other => format!("Would run {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(id: &str, tool: &str, status: StepStatus, result: Option<Value>) -> PlanStep {
        let mut s = PlanStep::new(id, id, tool, json!({}));
        s.status = status;
        s.result = result;
        s
    }

    #[test]
    fn totals_count_what_would_happen_not_what_already_did() {
        let text = json!({"to_name": "Kat", "to": "+1415", "from": "+1416", "segments": 2, "cost_usd": 0.0158});
        let before = vec![
            step(
                "find",
                "find_contacts",
                StepStatus::Completed,
                Some(json!({})),
            ),
            step("a", SEND_TOOL, StepStatus::Ready, None),
            step("b", SEND_TOOL, StepStatus::Ready, None),
            step("c", "add_note", StepStatus::Ready, None),
            step("old", SEND_TOOL, StepStatus::Completed, Some(text.clone())),
        ];
        let mut after = before.clone();
        after[1] = step("a", SEND_TOOL, StepStatus::Completed, Some(text.clone()));
        after[2] = step("b", SEND_TOOL, StepStatus::Failed, None);
        after[3] = step("c", "add_note", StepStatus::Blocked, None);
        let sim = predictions(&before, &after, &|s| s.tool != "find_contacts");
        assert_eq!((sim.texts, sim.segments), (1, 2));
        assert_eq!((sim.writes, sim.refused, sim.blocked), (1, 1, 1));
        assert!((sim.cost_usd - 0.0158).abs() < 1e-9);
        assert!(sim.steps[4].already && sim.steps[4].effect.is_some());
        assert_eq!(
            sim.steps[1].effect.as_deref(),
            Some("Would text Kat (+1415) from +1416: 2 segment(s), $0.0158")
        );
        assert!(
            sim.summary()
                .contains("1 text · 2 segments · $0.0158 · 1 write · 1 refused · 1 would not run"),
            "{}",
            sim.summary()
        );
    }
}
