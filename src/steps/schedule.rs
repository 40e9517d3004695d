//! The step scheduler: which steps may start, what a failure blocks, and an event-driven run
//! loop. Eager runs every ready step at once up to a bound; lazy runs one step per Continue.
//! Steps that need a person's confirmation pause there; every transition goes to `save`.
use super::graph::Graph;
use super::model::{PlanStep, StepMode, StepOn, StepStatus};
use super::reference::{error_key, resolve};
use chrono::{DateTime, Utc};
use futures::stream::{FuturesUnordered, StreamExt};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::future::Future;

/// Whether step `i` may start: ready, and everything it reads has completed (for an
/// `on: failure` step: has failed).
pub fn is_runnable(steps: &[PlanStep], graph: &Graph, i: usize) -> bool {
    let wanted = if steps[i].on == Some(StepOn::Failure) {
        StepStatus::Failed
    } else {
        StepStatus::Completed
    };
    steps[i].status == StepStatus::Ready && graph.deps[i].iter().all(|&d| steps[d].status == wanted)
}

/// Whether step `k` runs only if step `i`, which it reads, fails.
fn handles_failure_of(steps: &[PlanStep], graph: &Graph, k: usize, i: usize) -> bool {
    steps[k].on == Some(StepOn::Failure) && graph.deps[k].contains(&i)
}

/// The steps that may start now, in layer order.
pub fn runnable(steps: &[PlanStep], graph: &Graph) -> Vec<usize> {
    graph
        .layers
        .iter()
        .flatten()
        .copied()
        .filter(|&i| is_runnable(steps, graph, i))
        .collect()
}

/// How a step blocked by a failure says so, before the failed step's id.
pub const BLOCKED_BY_FAILURE: &str = "depends on failed step ";

/// Marks everything downstream of a failed or skipped step `blocked`, saying why; independent
/// steps are left to go on, and so are the steps that handle a failure (`on: failure`) and
/// what follows them. Answers the steps it blocked.
pub fn block_downstream(steps: &mut [PlanStep], graph: &Graph, cause: usize) -> Vec<usize> {
    let why = match steps[cause].status {
        StepStatus::Skipped => format!("depends on skipped step {}", steps[cause].id),
        _ => format!("{BLOCKED_BY_FAILURE}{}", steps[cause].id),
    };
    let failed = steps[cause].status == StepStatus::Failed;
    let mut blocked = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut stack: Vec<usize> = graph.dependents[cause]
        .iter()
        .copied()
        .filter(|&k| !(failed && handles_failure_of(steps, graph, k, cause)))
        .collect();
    while let Some(k) = stack.pop() {
        if !seen.insert(k) {
            continue;
        }
        stack.extend(graph.dependents[k].iter().copied());
        let s = &mut steps[k];
        if matches!(
            s.status,
            StepStatus::Ready | StepStatus::AwaitingConfirmation
        ) {
            s.status = StepStatus::Blocked;
            s.error = Some(why.clone());
            blocked.push(k);
        }
    }
    blocked
}

/// Skips step `i` and everything downstream of it that has not run, each saying why: a
/// condition that did not hold, or a failure handler whose step completed.
pub fn skip_with_downstream(
    steps: &mut [PlanStep],
    graph: &Graph,
    i: usize,
    why: String,
    at: DateTime<Utc>,
) -> Vec<usize> {
    let mut skipped = vec![i];
    let s = &mut steps[i];
    s.status = StepStatus::Skipped;
    s.error = Some(why);
    s.ended_at = Some(at);
    let because = format!("its input {} was skipped", steps[i].id);
    for k in graph.downstream(i) {
        let s = &mut steps[k];
        if matches!(
            s.status,
            StepStatus::Ready | StepStatus::AwaitingConfirmation
        ) {
            s.status = StepStatus::Skipped;
            s.error = Some(because.clone());
            s.ended_at = Some(at);
            skipped.push(k);
        }
    }
    skipped
}

/// The results a step's references may name: completed steps' results by id, and failed
/// steps' errors by `error_key` (for `on: failure` steps).
fn inputs(steps: &[PlanStep], among: impl Iterator<Item = usize>) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    for d in among {
        let s = &steps[d];
        match s.status {
            StepStatus::Completed => {
                if let Some(r) = &s.result {
                    out.insert(s.id.clone(), r.clone());
                }
            }
            StepStatus::Failed => {
                out.insert(
                    error_key(&s.id),
                    Value::String(s.error.clone().unwrap_or_default()),
                );
            }
            _ => {}
        }
    }
    out
}

/// Whether step `i`'s `when` holds, from its inputs; Ok(None) when it has none.
pub fn condition_of(steps: &[PlanStep], graph: &Graph, i: usize) -> Result<Option<String>, String> {
    let Some(when) = steps[i].when.as_deref() else {
        return Ok(None);
    };
    let c = super::condition::parse(when).map_err(|e| e.to_string())?;
    let known = inputs(steps, graph.deps[i].iter().copied());
    let (holds, value) = c
        .holds(&|id: &str| known.get(id))
        .map_err(|e| format!("its condition {when}: {e}"))?;
    Ok((!holds).then(|| {
        format!(
            "not run: its condition {when} did not hold ({} was {})",
            c.reference,
            super::condition::short(&value)
        )
    }))
}

/// Every result the plan's references may name so far (completed results, failed errors).
pub fn known_results(steps: &[PlanStep]) -> HashMap<String, Value> {
    inputs(steps, 0..steps.len())
}

/// Step `i`'s arguments with its references resolved from completed steps' results (for a
/// `for_each` step, its template and items: see `each`).
pub fn resolved_arguments(steps: &[PlanStep], i: usize) -> Result<Value, String> {
    let known = inputs(steps, 0..steps.len());
    let of = |id: &str| known.get(id);
    if steps[i].for_each.is_some() {
        return super::each::resolved_each(&steps[i], steps, &of);
    }
    resolve(&steps[i].arguments, &of).map_err(|e| e.to_string())
}

/// How a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every step reached an end: completed, failed, blocked or skipped.
    Finished,
    /// Waiting for a person: a confirmation, or (lazy) the next Continue.
    Paused,
}

/// What the loop needs from its caller.
pub struct RunHooks<'a, Run, Fut>
where
    Run: Fn(usize, Value) -> Fut,
    Fut: Future<Output = Result<Value, String>>,
{
    pub mode: StepMode,
    /// At most this many steps run at once (eager).
    pub concurrency: usize,
    /// Whether the step, with these resolved arguments, must wait for a person's confirmation.
    pub needs_confirmation: &'a (dyn Fn(&PlanStep, &Value) -> bool + Sync),
    /// Runs the step's tool with its resolved arguments.
    pub run: Run,
    /// Called after every transition, with the step as it now is.
    pub save: &'a mut (dyn FnMut(&PlanStep) + Send),
    pub now: &'a (dyn Fn() -> DateTime<Utc> + Sync),
    /// Whether a person stopped the plan: running steps finish, and nothing new starts.
    pub stopped: &'a (dyn Fn() -> bool + Sync),
}

/// Step `i`'s arguments resolved from the results of the steps it reads (its dependencies
/// only: no scan of the whole plan).
fn arguments_for(steps: &[PlanStep], graph: &Graph, i: usize) -> Result<Value, String> {
    let known = inputs(steps, graph.deps[i].iter().copied());
    let lookup = |id: &str| known.get(id);
    if steps[i].for_each.is_some() {
        return super::each::resolved_each(&steps[i], steps, &lookup);
    }
    resolve(&steps[i].arguments, &lookup).map_err(|e| e.to_string())
}

/// Runs the plan until it finishes or pauses. Event-driven: each step counts the dependencies
/// it still waits for, and starts the moment the last one completes; nothing polls or rescans.
pub async fn run_steps<Run, Fut>(
    steps: &mut [PlanStep],
    graph: &Graph,
    hooks: RunHooks<'_, Run, Fut>,
) -> RunOutcome
where
    Run: Fn(usize, Value) -> Fut,
    Fut: Future<Output = Result<Value, String>>,
{
    let RunHooks {
        mode,
        concurrency,
        needs_confirmation,
        run,
        save,
        now,
        stopped,
    } = hooks;
    let limit = match mode {
        StepMode::Eager => concurrency.max(1),
        StepMode::Lazy => 1,
    };
    // How many of each step's dependencies have not completed yet.
    let mut waiting: Vec<usize> = graph
        .deps
        .iter()
        .map(|d| {
            d.iter()
                .filter(|&&j| steps[j].status != StepStatus::Completed)
                .count()
        })
        .collect();
    // Ready steps whose dependencies are all done, in layer order.
    let mut ready: VecDeque<usize> = runnable(steps, graph).into();
    let mut started = 0usize;
    let mut in_flight = FuturesUnordered::new();
    loop {
        while in_flight.len() < limit && !(mode == StepMode::Lazy && started >= 1) && !stopped() {
            let Some(i) = ready.pop_front() else { break };
            if steps[i].status != StepStatus::Ready {
                continue; // blocked or skipped since it was queued
            }
            match condition_of(steps, graph, i) {
                Err(e) => {
                    for k in fail(steps, graph, i, e, now(), save) {
                        ready.push_back(k);
                    }
                    continue;
                }
                Ok(Some(why)) => {
                    for k in skip_with_downstream(steps, graph, i, why, now()) {
                        save(&steps[k]);
                    }
                    continue;
                }
                Ok(None) => {}
            }
            match arguments_for(steps, graph, i) {
                Err(e) => {
                    for k in fail(steps, graph, i, e, now(), save) {
                        ready.push_back(k);
                    }
                }
                Ok(args) if needs_confirmation(&steps[i], &args) => {
                    if steps[i].status != StepStatus::AwaitingConfirmation {
                        steps[i].status = StepStatus::AwaitingConfirmation;
                        save(&steps[i]);
                    }
                }
                Ok(args) => {
                    steps[i].status = StepStatus::Executing;
                    steps[i].started_at = Some(now());
                    save(&steps[i]);
                    started += 1;
                    let fut = run(i, args);
                    in_flight.push(async move { (i, fut.await) });
                }
            }
        }
        let Some((i, outcome)) = in_flight.next().await else {
            break;
        };
        match outcome {
            Ok(result) => {
                let s = &mut steps[i];
                s.status = StepStatus::Completed;
                s.result = Some(result);
                s.error = None;
                s.ended_at = Some(now());
                save(s);
                for &k in &graph.dependents[i] {
                    if handles_failure_of(steps, graph, k, i) {
                        if steps[k].status == StepStatus::Ready {
                            let why = format!("not run: it runs only if {} fails", steps[i].id);
                            for j in skip_with_downstream(steps, graph, k, why, now()) {
                                save(&steps[j]);
                            }
                        }
                        continue;
                    }
                    waiting[k] -= 1;
                    if waiting[k] == 0 && steps[k].status == StepStatus::Ready {
                        ready.push_back(k);
                    }
                }
            }
            Err(e) => {
                for k in fail(steps, graph, i, e, now(), save) {
                    ready.push_back(k);
                }
            }
        }
    }
    if steps.iter().all(|s| s.status.is_final()) {
        RunOutcome::Finished
    } else {
        RunOutcome::Paused
    }
}

/// Marks step `i` failed and blocks what depends on it; answers the steps that handle its
/// failure (`on: failure`) and may now start.
fn fail(
    steps: &mut [PlanStep],
    graph: &Graph,
    i: usize,
    error: String,
    at: DateTime<Utc>,
    save: &mut (dyn FnMut(&PlanStep) + Send),
) -> Vec<usize> {
    let s = &mut steps[i];
    s.status = StepStatus::Failed;
    s.error = Some(error);
    s.ended_at = Some(at);
    save(s);
    for k in block_downstream(steps, graph, i) {
        save(&steps[k]);
    }
    graph.dependents[i]
        .iter()
        .copied()
        .filter(|&k| handles_failure_of(steps, graph, k, i) && is_runnable(steps, graph, k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::oneshot;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use serde_json::json;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Virtual time: a latency tool waits on a timer; the test advances time only when every
    /// task is stalled, so wall time is measured exactly and never depends on the machine.
    #[derive(Default)]
    struct Timers {
        now: u64,
        pending: Vec<(u64, oneshot::Sender<()>)>,
    }

    fn step(id: &str, args: Value) -> PlanStep {
        PlanStep::new(id, id, "wait", args)
    }

    /// find → (tag, text, note) → report, and `alone`; `text` fails when told to.
    fn fan_out(text_fails: bool) -> Vec<PlanStep> {
        vec![
            step("find", json!({"ms": 100, "out": {"ids": ["a", "b"]}})),
            step("tag", json!({"ms": 100, "ids": "{{find.result.ids}}"})),
            step(
                "text",
                json!({"ms": 100, "to": "{{find.result.ids[0]}}", "fail": text_fails}),
            ),
            step(
                "note",
                json!({"ms": 100, "about": "{{find.result.ids[1]}}"}),
            ),
            step(
                "report",
                json!({"ms": 100, "a": "{{tag.result}}", "b": "{{text.result}}"}),
            ),
            step("alone", json!({"ms": 100})),
        ]
    }

    type Confirm = fn(&PlanStep, &Value) -> bool;

    /// Runs the plan on virtual time; answers the outcome, the virtual ms it took, the saves.
    fn go(
        steps: Vec<PlanStep>,
        mode: StepMode,
        confirm: Confirm,
    ) -> (Vec<PlanStep>, RunOutcome, u64, Vec<String>) {
        let timers = Rc::new(RefCell::new(Timers::default()));
        let out = Rc::new(RefCell::new(None));
        let mut pool = LocalPool::new();
        let (t, o) = (timers.clone(), out.clone());
        pool.spawner()
            .spawn_local(async move {
                let mut steps = steps;
                let graph = Graph::of(&steps).unwrap();
                let mut saved = Vec::new();
                let mut save = |s: &PlanStep| saved.push(format!("{}:{:?}", s.id, s.status));
                let run = |_: usize, args: Value| {
                    let (tx, rx) = oneshot::channel();
                    let mut tm = t.borrow_mut();
                    let at = tm.now + args["ms"].as_u64().unwrap();
                    tm.pending.push((at, tx));
                    async move {
                        rx.await.unwrap();
                        if args["fail"] == true {
                            return Err("the contact has no phone".to_string());
                        }
                        Ok(args.get("out").cloned().unwrap_or(json!({"echo": args})))
                    }
                };
                let outcome = run_steps(
                    &mut steps,
                    &graph,
                    RunHooks {
                        mode,
                        concurrency: 8,
                        needs_confirmation: &confirm,
                        run,
                        save: &mut save,
                        now: &Utc::now,
                        stopped: &|| false,
                    },
                )
                .await;
                *o.borrow_mut() = Some((steps, outcome, saved));
            })
            .unwrap();
        loop {
            pool.run_until_stalled();
            let mut tm = timers.borrow_mut();
            let Some(next) = tm.pending.iter().map(|(at, _)| *at).min() else {
                break;
            };
            tm.now = next;
            let (due, rest): (Vec<_>, Vec<_>) =
                tm.pending.drain(..).partition(|(at, _)| *at == next);
            tm.pending = rest;
            for (_, tx) in due {
                let _ = tx.send(());
            }
        }
        let (steps, outcome, saved) = out.borrow_mut().take().expect("the run ended");
        let elapsed = timers.borrow().now;
        (steps, outcome, elapsed, saved)
    }

    fn status(steps: &[PlanStep], id: &str) -> StepStatus {
        steps.iter().find(|s| s.id == id).unwrap().status
    }

    #[test]
    fn eager_wall_time_is_the_critical_path() {
        let (steps, outcome, elapsed, _) = go(fan_out(false), StepMode::Eager, |_, _| false);
        assert_eq!(outcome, RunOutcome::Finished);
        // Three layers of 100 ms each, not six steps one after another.
        assert_eq!(elapsed, 300);
        assert_eq!(
            steps[1].result.as_ref().unwrap()["echo"]["ids"],
            json!(["a", "b"])
        );
        assert_eq!(
            steps[2].result.as_ref().unwrap()["echo"]["to"],
            "a",
            "typed through an array path"
        );
    }

    #[test]
    fn a_failure_blocks_its_dependents_and_the_rest_go_on() {
        let (steps, outcome, _, saved) = go(fan_out(true), StepMode::Eager, |_, _| false);
        assert_eq!(outcome, RunOutcome::Finished);
        assert_eq!(status(&steps, "text"), StepStatus::Failed);
        assert_eq!(status(&steps, "report"), StepStatus::Blocked);
        assert_eq!(
            steps[4].error.as_deref(),
            Some("depends on failed step text")
        );
        for id in ["find", "tag", "note", "alone"] {
            assert_eq!(status(&steps, id), StepStatus::Completed, "{id}");
        }
        assert!(saved.contains(&"report:Blocked".to_string()), "{saved:?}");
    }

    /// check → gated (when) → after; `alone` beside them.
    fn gated(count: i64) -> Vec<PlanStep> {
        let mut gated = step("gated", json!({"ms": 100, "n": "{{check.result.count}}"}));
        gated.when = Some("{{check.result.count}} > 0".into());
        vec![
            step("check", json!({"ms": 100, "out": {"count": count}})),
            gated,
            step("after", json!({"ms": 100, "x": "{{gated.result}}"})),
            step("alone", json!({"ms": 100})),
        ]
    }

    #[test]
    fn a_condition_that_does_not_hold_skips_the_step_and_what_reads_it() {
        let (steps, outcome, _, _) = go(gated(0), StepMode::Eager, |_, _| false);
        assert_eq!(outcome, RunOutcome::Finished);
        assert_eq!(status(&steps, "gated"), StepStatus::Skipped);
        assert_eq!(
            steps[1].error.as_deref(),
            Some("not run: its condition {{check.result.count}} > 0 did not hold ({{check.result.count}} was 0)")
        );
        assert_eq!(status(&steps, "after"), StepStatus::Skipped);
        assert_eq!(
            steps[2].error.as_deref(),
            Some("its input gated was skipped")
        );
        assert_eq!(status(&steps, "alone"), StepStatus::Completed);
        // When it holds, the step and what follows run.
        let (steps, _, _, _) = go(gated(2), StepMode::Eager, |_, _| false);
        assert!(steps.iter().all(|s| s.status == StepStatus::Completed));
    }

    /// text → note (on failure, with text's error) and receipt (on success).
    fn receipt_or_error(fails: bool) -> Vec<PlanStep> {
        let mut note = step(
            "note",
            json!({"ms": 100, "why": "could not text: {{text.error}}"}),
        );
        note.on = Some(StepOn::Failure);
        vec![
            step("text", json!({"ms": 100, "fail": fails})),
            note,
            step("receipt", json!({"ms": 100, "r": "{{text.result}}"})),
            step("after_note", json!({"ms": 100, "n": "{{note.result}}"})),
        ]
    }

    #[test]
    fn a_failure_handler_runs_only_when_its_step_fails() {
        let (steps, outcome, _, _) = go(receipt_or_error(true), StepMode::Eager, |_, _| false);
        assert_eq!(outcome, RunOutcome::Finished);
        assert_eq!(status(&steps, "text"), StepStatus::Failed);
        assert_eq!(status(&steps, "note"), StepStatus::Completed);
        assert_eq!(
            steps[1].result.as_ref().unwrap()["echo"]["why"],
            "could not text: the contact has no phone"
        );
        assert_eq!(status(&steps, "receipt"), StepStatus::Blocked);
        assert_eq!(status(&steps, "after_note"), StepStatus::Completed);

        let (steps, outcome, _, _) = go(receipt_or_error(false), StepMode::Eager, |_, _| false);
        assert_eq!(outcome, RunOutcome::Finished);
        assert_eq!(status(&steps, "receipt"), StepStatus::Completed);
        assert_eq!(status(&steps, "note"), StepStatus::Skipped);
        assert_eq!(
            steps[1].error.as_deref(),
            Some("not run: it runs only if text fails")
        );
        assert_eq!(status(&steps, "after_note"), StepStatus::Skipped);
    }

    #[test]
    fn lazy_runs_one_step_per_continue() {
        let mut steps = fan_out(false);
        let mut continues = 0;
        loop {
            let (next, outcome, elapsed, _) = go(steps, StepMode::Lazy, |_, _| false);
            steps = next;
            continues += 1;
            assert_eq!(elapsed, 100, "one step's time per Continue");
            let done = steps
                .iter()
                .filter(|s| s.status == StepStatus::Completed)
                .count();
            assert_eq!(done, continues, "one more step per Continue");
            if outcome == RunOutcome::Finished {
                break;
            }
        }
        assert_eq!(continues, 6);
    }

    #[test]
    fn a_step_that_needs_confirmation_pauses_only_itself_and_its_dependents() {
        let confirm: Confirm = |s, _| s.id == "text" && s.confirmation.is_none();
        let (mut steps, outcome, _, _) = go(fan_out(false), StepMode::Eager, confirm);
        assert_eq!(outcome, RunOutcome::Paused);
        assert_eq!(status(&steps, "text"), StepStatus::AwaitingConfirmation);
        assert_eq!(status(&steps, "report"), StepStatus::Ready);
        assert_eq!(status(&steps, "note"), StepStatus::Completed);
        // A person confirms; the run resumes where it stopped.
        steps[2].status = StepStatus::Ready;
        steps[2].confirmation = Some(crate::steps::model::StepConfirmation {
            by: uuid::Uuid::nil(),
            at: Utc::now(),
            arguments_hash: String::new(),
        });
        let (_, outcome, elapsed, saved) = go(steps, StepMode::Eager, confirm);
        assert_eq!(outcome, RunOutcome::Finished);
        assert_eq!(elapsed, 200, "text, then report");
        assert!(
            !saved.iter().any(|s| s.starts_with("find:")),
            "completed steps never run again: {saved:?}"
        );
    }
}
