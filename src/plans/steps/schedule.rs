//! The step scheduler: which steps may start, what a failure blocks, and an event-driven run
//! loop. Eager runs every ready step at once up to a bound; lazy runs one step per Continue.
//! Steps that need a person's confirmation pause there; every transition goes to `save`.
use super::graph::Graph;
use super::model::{PlanStep, StepMode, StepStatus};
use super::reference::resolve;
use chrono::{DateTime, Utc};
use futures::stream::{FuturesUnordered, StreamExt};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::future::Future;

/// Whether step `i` may start: ready, and everything it reads has completed.
pub fn is_runnable(steps: &[PlanStep], graph: &Graph, i: usize) -> bool {
    steps[i].status == StepStatus::Ready
        && graph.deps[i]
            .iter()
            .all(|&d| steps[d].status == StepStatus::Completed)
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

/// Marks everything downstream of a failed or skipped step `blocked`, saying why; independent
/// steps are left to go on. Answers the steps it blocked.
pub fn block_downstream(steps: &mut [PlanStep], graph: &Graph, cause: usize) -> Vec<usize> {
    let why = match steps[cause].status {
        StepStatus::Skipped => format!("depends on skipped step {}", steps[cause].id),
        _ => format!("depends on failed step {}", steps[cause].id),
    };
    let mut blocked = Vec::new();
    for k in graph.downstream(cause) {
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

/// Step `i`'s arguments with its references resolved from completed steps' results (for a
/// `for_each` step, its template and items: see `each`).
pub fn resolved_arguments(steps: &[PlanStep], i: usize) -> Result<Value, String> {
    let results: HashMap<&str, &Value> = steps
        .iter()
        .filter(|s| s.status == StepStatus::Completed)
        .filter_map(|s| s.result.as_ref().map(|r| (s.id.as_str(), r)))
        .collect();
    let of = |id: &str| results.get(id).copied();
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
    let deps = &graph.deps[i];
    let lookup = |id: &str| {
        deps.iter()
            .map(|&d| &steps[d])
            .find(|s| s.id == id && s.status == StepStatus::Completed)
            .and_then(|s| s.result.as_ref())
    };
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
            match arguments_for(steps, graph, i) {
                Err(e) => fail(steps, graph, i, e, now(), save),
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
                    waiting[k] -= 1;
                    if waiting[k] == 0 && steps[k].status == StepStatus::Ready {
                        ready.push_back(k);
                    }
                }
            }
            Err(e) => fail(steps, graph, i, e, now(), save),
        }
    }
    if steps.iter().all(|s| s.status.is_final()) {
        RunOutcome::Finished
    } else {
        RunOutcome::Paused
    }
}

fn fail(
    steps: &mut [PlanStep],
    graph: &Graph,
    i: usize,
    error: String,
    at: DateTime<Utc>,
    save: &mut (dyn FnMut(&PlanStep) + Send),
) {
    let s = &mut steps[i];
    s.status = StepStatus::Failed;
    s.error = Some(error);
    s.ended_at = Some(at);
    save(s);
    for k in block_downstream(steps, graph, i) {
        save(&steps[k]);
    }
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
        steps[2].confirmation = Some(crate::plans::steps::model::StepConfirmation {
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
