//! What the card shows of a `for_each` step: what it runs over, how many items (exact), a few
//! rendered, what its texts would cost, and once it has items, its progress from SQL.
use super::items::{audience_contacts, contact_item, progress};
use crate::error::AppResult;
use crate::plans::entity::plan;
use crate::platform::AppState;
use crate::steps::each::{item_arguments, source_of, Source};
use crate::steps::model::{EachView, PlanStep};
use serde_json::Value;

/// How many items the card renders as a sample.
const SAMPLE: usize = 3;

/// What the card shows of a `for_each` step: what it runs over, how many, a sample rendered,
/// the cost of texts, and (once it has items) its progress.
pub async fn each_view(
    state: &AppState,
    p: &plan::Model,
    steps: &[PlanStep],
    i: usize,
    resolved: Option<&Value>,
) -> AppResult<EachView> {
    let step = &steps[i];
    let source = source_of(step, steps).ok().flatten();
    let mut view = EachView {
        over: match &source {
            Some(Source::List(r)) => format!("each item of {r}"),
            Some(Source::Items { step }) => {
                format!("each item step `{step}` completes")
            }
            Some(Source::Audience(a)) => match a["segment"].as_str() {
                Some(s) => format!("each contact in segment \"{s}\""),
                None => "each contact the filter finds".into(),
            },
            None => "its items".into(),
        },
        ..Default::default()
    };
    let done = progress(state, p.id, &step.id).await?;
    if done.total > 0 {
        view.count = Some(done.total);
        view.progress = Some(done.line(&step.tool));
        return Ok(view);
    }
    let Some(resolved) = resolved else {
        return Ok(view);
    };
    let over = &resolved["for_each"];
    let sample: Vec<Value> = if let Some(list) = over.as_array() {
        view.count = Some(list.len() as u64);
        list.iter().take(SAMPLE).cloned().collect()
    } else if over["items_of"].is_string() {
        view.count = over["completed"].as_u64();
        Vec::new()
    } else {
        let (first, total) =
            audience_contacts(state, p.organization_id, over, SAMPLE as u64).await?;
        view.count = Some(total);
        first.iter().map(contact_item).collect()
    };
    view.sample = sample
        .iter()
        .filter_map(|it| item_arguments(&resolved["arguments"], it, None).ok())
        .collect();
    // The same items as a person reads them: each contact item carries its name.
    let names = crate::steps::readable::Names {
        contact: &|_| None,
        number: &|_| None,
        intent: &|_| None,
    };
    view.readable = sample
        .iter()
        .filter_map(|it| crate::steps::readable::item_line(&resolved["arguments"], it, &names))
        .collect();
    if step.tool == crate::plans::model::SEND_TOOL {
        let n = view.count.unwrap_or(0);
        let per = view
            .sample
            .iter()
            .filter_map(|a| a["body"].as_str())
            .map(|b| crate::campaign::segments::segments(b).count as u64)
            .max()
            .unwrap_or(1);
        let cost = (n * per) as f64 * crate::campaign::segments::COST_PER_SEGMENT;
        view.cost = Some(format!(
            "About {} × {} · about ${cost:.2}",
            crate::format::count(n as usize, "text", "texts"),
            crate::format::count(per as usize, "segment", "segments")
        ));
    }
    Ok(view)
}
