//! Step plans against LangGraph (issue 11): the same DAGs (chains of 10, 100 and 1,000 steps,
//! 1→W→1 fan-outs with W = 5, 50 and 500, a layered grid whose steps read a parent's result)
//! with a no-op tool answering about 1 KB of JSON, run through Herald's step executor in memory
//! and, in the same run, through LangGraph (`scripts/langgraph_bench.py`, the PyPI `langgraph`
//! package) without a checkpointer and with its SQLite checkpointer. Prints each run's time per
//! step, the overhead per step (the slope against N), the per-step cost of a wide layer (the
//! slope against W), and peak memory, beside the goal (10× less overhead per step than LangGraph
//! in memory), and each DAG again through the plan runner's persistence (every transition
//! written through to its step's row) on SQLite and on PostgreSQL, beside LangGraph's SQLite
//! checkpointer (goal: no slower) and beside the old way in the same run (the plan's whole JSON
//! rewritten per batch of transitions, as before migration 56).
//!
//! `scripts/bench_steps.sh` installs LangGraph into the tools cache and runs this.
#[path = "common.rs"]
mod common;

use herald::plans::entity::plan;
use herald::plans::model::PlanAction;
use herald::steps::graph::Graph;
use herald::steps::model::{PlanStep, StepMode};
use herald::steps::schedule::{run_steps, RunHooks, RunOutcome};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

const CHAINS: [usize; 3] = [10, 100, 1000];
const WIDTHS: [usize; 3] = [5, 50, 500];
const GRID: (usize, usize) = (10, 10);
const REPEATS: usize = 5;
const PERSISTED_REPEATS: usize = 3;
/// Chains run again with a tool that takes this long, as real tools do: each transition is then
/// written on its own, and what one write costs shows.
const SLOW_TOOL: Duration = Duration::from_millis(2);
const SLOW_CHAINS: [usize; 2] = [100, 1000];

fn step(id: &str, arguments: Value) -> PlanStep {
    PlanStep::new(id, id, "noop", arguments)
}

fn chain(n: usize) -> Vec<PlanStep> {
    (0..n)
        .map(|i| match i {
            0 => step("s0", json!({})),
            _ => step(
                &format!("s{i}"),
                json!({"in": format!("{{{{s{}.result.v}}}}", i - 1)}),
            ),
        })
        .collect()
}

fn fan_out(w: usize) -> Vec<PlanStep> {
    let mut steps = vec![step("src", json!({}))];
    steps.extend((0..w).map(|i| step(&format!("m{i}"), json!({"in": "{{src.result.v}}"}))));
    let all: Vec<String> = (0..w).map(|i| format!("{{{{m{i}.result.v}}}}")).collect();
    steps.push(step("sink", json!({ "in": all })));
    steps
}

fn grid(layers: usize, width: usize) -> Vec<PlanStep> {
    let mut steps = Vec::new();
    for l in 0..layers {
        for j in 0..width {
            let args = match l {
                0 => json!({}),
                _ => json!({"in": format!("{{{{g{}_{j}.result.v}}}}", l - 1)}),
            };
            steps.push(step(&format!("g{l}_{j}"), args));
        }
    }
    steps
}

/// The no-op tool: adds one to what it reads and answers about 1 KB of JSON.
fn noop(args: &Value, pad: &str) -> Value {
    let v = match args.get("in") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_u64).sum::<u64>() + 1,
        Some(v) => v.as_u64().unwrap_or(0) + 1,
        None => 1,
    };
    json!({"v": v, "pad": pad})
}

/// A running Herald (SQLite or PostgreSQL) and the organisation's assistant, to own the plans.
struct Persisted {
    state: herald::platform::AppState,
    org: uuid::Uuid,
    agent: uuid::Uuid,
}

async fn persisted_herald(postgres: bool) -> Persisted {
    let (_, state, org) = common::start_herald(postgres, &["+14155550100"]).await;
    use herald::ai_agent::entity::ai_agent;
    let agent = ai_agent::Entity::find()
        .filter(ai_agent::Column::OrganizationId.eq(org))
        .filter(ai_agent::Column::Name.eq("Assistant"))
        .one(&state.db)
        .await
        .unwrap()
        .expect("the assistant");
    Persisted {
        state,
        org,
        agent: agent.id,
    }
}

/// A plan of these steps, claimed by the bench as its runner.
async fn insert_plan(h: &Persisted, steps: &[PlanStep]) -> plan::Model {
    let now = h.state.clock.now();
    let action = PlanAction::Steps {
        mode: StepMode::Eager,
        steps: steps.to_vec(),
    };
    plan::ActiveModel {
        id: Set(uuid::Uuid::new_v4()),
        organization_id: Set(h.org),
        agent_id: Set(h.agent),
        thread_id: Set(None),
        title: Set("bench".into()),
        summary: Set(String::new()),
        action_type: Set("steps".into()),
        action_payload: Set(serde_json::to_value(&action).unwrap()),
        approval_policy: Set("auto".into()),
        status: Set(herald::plans::model::PlanStatus::Executing),
        decision: Set(Some("proceed".into())),
        decision_reason: Set(None),
        created_by: Set(None),
        approved_by: Set(None),
        approved_at: Set(Some(now)),
        executed_ref: Set(None),
        error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        source_key: Set(None),
        lease_owner: Set(Some("bench".into())),
        lease_expires_at: Set(Some(now + chrono::Duration::minutes(10))),
        revision_of: Set(None),
        revision: Set(1),
        request: Set(None),
        paused_at: Set(None),
        waiting_steps: Set(0),
        step_policy: Set(None),
    }
    .insert(&h.state.db)
    .await
    .unwrap()
}

/// One run through the plan runner's persistence: a plan row claimed by this runner, every
/// transition written through to its step's row. Answers its seconds.
async fn persisted_once(h: &Persisted, steps: &[PlanStep], tool: Duration) -> f64 {
    let mut steps = steps.to_vec();
    let graph = Graph::of(&steps).expect("a valid DAG");
    let p = insert_plan(h, &steps).await;
    let pad = "x".repeat(1000);
    let needs = |_: &PlanStep, _: &Value| false;
    let started = Instant::now();
    let outcome = herald::plans::steps::run::run_written_through(
        &h.state,
        &p,
        "bench",
        StepMode::Eager,
        &mut steps,
        &graph,
        &needs,
        &|| false,
        |_, args: Value| {
            let out = noop(&args, &pad);
            async move {
                if !tool.is_zero() {
                    tokio::time::sleep(tool).await;
                }
                Ok(out)
            }
        },
    )
    .await
    .expect("the run");
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(outcome, RunOutcome::Finished);
    let Ok(PlanAction::Steps { steps: saved, .. }) =
        herald::plans::steps::store::action(&h.state.db, &p).await
    else {
        panic!("the plan's steps read back");
    };
    let done = saved
        .iter()
        .filter(|s| s.status == herald::steps::model::StepStatus::Completed)
        .count();
    assert_eq!(done, steps.len(), "every step saved completed");
    secs
}

/// The baseline, the runner's persistence before migration 56: each batch of transitions
/// rewrote the plan's whole JSON, every step with its result. Answers its seconds.
async fn whole_json_once(h: &Persisted, steps: &[PlanStep], tool: Duration) -> f64 {
    use sea_orm::sea_query::Expr;
    let mut steps = steps.to_vec();
    let p = insert_plan(h, &steps).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PlanStep>();
    let (db, id, mut all) = (h.state.db.clone(), p.id, steps.clone());
    let writer = tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            let mut batch = vec![first];
            while let Ok(more) = rx.try_recv() {
                batch.push(more);
            }
            for s in batch {
                if let Some(slot) = all.iter_mut().find(|x| x.id == s.id) {
                    *slot = s;
                }
            }
            let action = PlanAction::Steps {
                mode: StepMode::Eager,
                steps: all.clone(),
            };
            plan::Entity::update_many()
                .col_expr(
                    plan::Column::ActionPayload,
                    Expr::value(serde_json::to_value(&action).unwrap()),
                )
                .filter(plan::Column::Id.eq(id))
                .exec(&db)
                .await
                .unwrap();
        }
    });
    let mut save = |s: &PlanStep| {
        let _ = tx.send(s.clone());
    };
    // Timed until the last write is done, as the runner's own run is.
    let started = Instant::now();
    execute(&mut steps, 8, tool, &mut save).await;
    drop(tx);
    writer.await.unwrap();
    started.elapsed().as_secs_f64()
}

/// The same chain through the executor in memory, nothing saved, with a tool of `tool`: what the
/// persisted runs are measured beyond. Answers its seconds.
async fn in_memory_once(steps: &[PlanStep], tool: Duration) -> f64 {
    execute(&mut steps.to_vec(), 8, tool, &mut |_: &PlanStep| {}).await
}

/// Runs the steps through the executor in memory, eager, `concurrency` at once, with the no-op
/// tool taking `tool` (none when zero), handing each transition to `save`; answers its seconds.
async fn execute(
    steps: &mut [PlanStep],
    concurrency: usize,
    tool: Duration,
    save: &mut (dyn FnMut(&PlanStep) + Send),
) -> f64 {
    let graph = Graph::of(steps).expect("a valid DAG");
    let pad = "x".repeat(1000);
    let confirm = |_: &PlanStep, _: &Value| false;
    let now = chrono::Utc::now;
    let started = Instant::now();
    let outcome = run_steps(
        steps,
        &graph,
        RunHooks {
            mode: StepMode::Eager,
            concurrency,
            needs_confirmation: &confirm,
            run: |_, args: Value| {
                let out = noop(&args, &pad);
                async move {
                    if !tool.is_zero() {
                        tokio::time::sleep(tool).await;
                    }
                    Ok(out)
                }
            },
            save,
            now: &now,
            stopped: &|| false,
        },
    )
    .await;
    assert_eq!(outcome, RunOutcome::Finished);
    started.elapsed().as_secs_f64()
}

fn whole_json(rt: &tokio::runtime::Runtime, h: &Persisted, steps: &[PlanStep]) -> f64 {
    rt.block_on(whole_json_once(h, steps, Duration::ZERO))
}

fn persisted(rt: &tokio::runtime::Runtime, h: &Persisted, steps: &[PlanStep]) -> f64 {
    rt.block_on(persisted_once(h, steps, Duration::ZERO)); // warm-up
    median(
        (0..PERSISTED_REPEATS)
            .map(|_| rt.block_on(persisted_once(h, steps, Duration::ZERO)))
            .collect(),
    )
}

/// One run of Herald's executor in memory, eager; answers its seconds.
fn herald_once(rt: &tokio::runtime::Runtime, steps: &[PlanStep]) -> f64 {
    let mut steps = steps.to_vec();
    let mut saves = 0usize;
    let mut save = |_: &PlanStep| saves += 1;
    let secs = rt.block_on(execute(&mut steps, 1024, Duration::ZERO, &mut save));
    assert_eq!(
        saves,
        steps.len() * 2,
        "every transition was handed to save"
    );
    secs
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn herald(rt: &tokio::runtime::Runtime, steps: &[PlanStep]) -> f64 {
    herald_once(rt, steps); // warm-up
    median((0..REPEATS).map(|_| herald_once(rt, steps)).collect())
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

type Key = (String, usize, String);

/// LangGraph's figures from the same DAG shapes, or why there are none.
fn langgraph() -> Result<(BTreeMap<Key, f64>, u64), String> {
    let python = std::env::var("LANGGRAPH_PYTHON").unwrap_or_else(|_| {
        format!(
            "{}/.cache/herald-tools/langgraph/bin/python",
            std::env::var("HOME").unwrap_or_default()
        )
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/langgraph_bench.py");
    let list = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    let out = Command::new(&python)
        .arg(script)
        .arg(list(&CHAINS))
        .arg(list(&WIDTHS))
        .arg(format!("{}x{}", GRID.0, GRID.1))
        .output()
        .map_err(|e| format!("{python}: {e} (run scripts/bench_steps.sh to install LangGraph)"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut figures = BTreeMap::new();
    let mut peak = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{e}: {line}"))?;
        let key = (
            v["shape"].as_str().unwrap_or_default().to_owned(),
            v["size"].as_u64().unwrap_or(0) as usize,
            v["mode"].as_str().unwrap_or_default().to_owned(),
        );
        figures.insert(key, v["seconds"].as_f64().unwrap_or(f64::NAN));
        peak = peak.max(v["peak_kib"].as_u64().unwrap_or(0));
    }
    Ok((figures, peak))
}

fn us(secs: f64, steps: usize) -> String {
    format!("{:>9.2} µs", secs * 1e6 / steps as f64)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut shapes: Vec<(String, usize, Vec<PlanStep>)> = Vec::new();
    for n in CHAINS {
        shapes.push(("chain".into(), n, chain(n)));
    }
    for w in WIDTHS {
        shapes.push(("fanout".into(), w, fan_out(w)));
    }
    shapes.push(("grid".into(), GRID.0 * GRID.1, grid(GRID.0, GRID.1)));

    let ours: Vec<f64> = shapes.iter().map(|(_, _, s)| herald(&rt, s)).collect();
    let herald_peak = peak_rss_kib();
    let mut saved: Vec<(&str, Vec<f64>)> = Vec::new();
    let mut whole: Vec<Vec<f64>> = Vec::new();
    let mut slow: Vec<(&str, usize, f64, f64, f64)> = Vec::new();
    for (name, postgres) in [("sqlite", false), ("postgres", true)] {
        let h = rt.block_on(persisted_herald(postgres));
        saved.push((
            name,
            shapes
                .iter()
                .map(|(_, _, s)| persisted(&rt, &h, s))
                .collect(),
        ));
        whole.push(
            shapes
                .iter()
                .map(|(_, _, s)| whole_json(&rt, &h, s))
                .collect(),
        );
        for n in SLOW_CHAINS {
            let steps = chain(n);
            slow.push((
                name,
                n,
                rt.block_on(persisted_once(&h, &steps, SLOW_TOOL)),
                rt.block_on(whole_json_once(&h, &steps, SLOW_TOOL)),
                rt.block_on(in_memory_once(&steps, SLOW_TOOL)),
            ));
        }
    }
    let theirs = langgraph();

    println!("step_plan_bench: no-op tool answering ~1 KB of JSON, eager, release build");
    println!(
        "  {:<14} {:>6}  {:>18}  {:>18}  {:>18}  {:>18}  {:>18}",
        "shape",
        "steps",
        "Herald, memory",
        "LangGraph, memory",
        "Herald, SQLite",
        "Herald, PostgreSQL",
        "LangGraph, SQLite"
    );
    let lg = |shape: &str, size: usize, mode: &str| -> Option<f64> {
        theirs
            .as_ref()
            .ok()
            .and_then(|(f, _)| f.get(&(shape.to_owned(), size, mode.to_owned())).copied())
    };
    for (k, ((shape, size, steps), secs)) in shapes.iter().zip(&ours).enumerate() {
        let n = steps.len();
        let cell = |v: Option<f64>| v.map(|s| us(s, n)).unwrap_or_else(|| "—".into());
        println!(
            "  {:<14} {:>6}  {:>15}/st  {:>15}/st  {:>15}/st  {:>15}/st  {:>15}/st",
            format!("{shape} {size}"),
            n,
            us(*secs, n),
            cell(lg(shape, *size, "memory")),
            us(saved[0].1[k], n),
            us(saved[1].1[k], n),
            cell(lg(shape, *size, "sqlite"))
        );
    }
    println!(
        "  the runner's persistence, a row per step (migration 56) beside the old way in the same run (the plan's whole JSON rewritten per batch of transitions), per step:"
    );
    for (k, (shape, size, steps)) in shapes.iter().enumerate() {
        let n = steps.len();
        println!(
            "  {:<14} {:>6}  SQLite {:>12}/st (old way {:>12}/st)  PostgreSQL {:>12}/st (old way {:>12}/st)",
            format!("{shape} {size}"),
            n,
            us(saved[0].1[k], n),
            us(whole[0][k], n),
            us(saved[1].1[k], n),
            us(whole[1][k], n),
        );
    }
    println!(
        "  the same with a tool that takes {} ms: the time beyond the same chain run in memory (a row per step; old way):",
        SLOW_TOOL.as_millis()
    );
    for (name, n, rows, old, memory) in &slow {
        let beyond = |t: f64| t - memory;
        println!(
            "  chain {n:<8} {name:<10} {:>12}/st (old way {:>12}/st)",
            us(beyond(*rows), *n),
            us(beyond(*old), *n)
        );
    }
    // Slopes: the cost of one more step, free of fixed costs.
    let slope = |a: (usize, f64), b: (usize, f64)| (b.1 - a.1) / (b.0 - a.0) as f64 * 1e6;
    let ours_at = |shape: &str, size: usize| {
        shapes
            .iter()
            .zip(&ours)
            .find(|((s, z, _), _)| s == shape && *z == size)
            .map(|((_, _, st), t)| (st.len(), *t))
            .unwrap()
    };
    let (c0, c1) = (CHAINS[0], CHAINS[CHAINS.len() - 1]);
    let (w0, w1) = (WIDTHS[0], WIDTHS[WIDTHS.len() - 1]);
    let ours_chain = slope(ours_at("chain", c0), ours_at("chain", c1));
    let ours_wide = slope(ours_at("fanout", w0), ours_at("fanout", w1));
    println!("  overhead per step (slope over chains {c0}→{c1}):   Herald {ours_chain:.2} µs");
    println!("  per step in a wide layer (slope over W {w0}→{w1}): Herald {ours_wide:.2} µs");
    let saved_slopes: Vec<(&str, f64, f64)> = saved
        .iter()
        .map(|(name, times)| {
            let at = |shape: &str, size: usize| {
                shapes
                    .iter()
                    .zip(times)
                    .find(|((s, z, _), _)| s == shape && *z == size)
                    .map(|((_, _, st), t)| (st.len(), *t))
                    .unwrap()
            };
            (
                *name,
                slope(at("chain", c0), at("chain", c1)),
                slope(at("fanout", w0), at("fanout", w1)),
            )
        })
        .collect();
    for (name, chain, wide) in &saved_slopes {
        println!(
            "  Herald persisted ({name}): per step {chain:.2} µs, per step in a wide layer {wide:.2} µs"
        );
    }
    match &theirs {
        Ok((_, lg_peak)) => {
            let at = |shape: &str, size: usize, mode: &str| {
                let n = shapes
                    .iter()
                    .find(|(s, z, _)| s == shape && *z == size)
                    .map(|(_, _, st)| st.len())
                    .unwrap();
                (n, lg(shape, size, mode).unwrap_or(f64::NAN))
            };
            for mode in ["memory", "sqlite"] {
                let chain = slope(at("chain", c0, mode), at("chain", c1, mode));
                let wide = slope(at("fanout", w0, mode), at("fanout", w1, mode));
                println!(
                    "  LangGraph ({mode}): per step {chain:.2} µs, per step in a wide layer {wide:.2} µs"
                );
                if mode == "memory" {
                    println!(
                        "  goal: ≥ 10× less overhead per step than LangGraph in memory — chains {:.1}×, wide layers {:.1}×",
                        chain / ours_chain,
                        wide / ours_wide
                    );
                } else {
                    for (name, ours_c, ours_w) in &saved_slopes {
                        println!(
                            "  goal: persisted no slower than LangGraph's SQLite checkpointer — Herald on {name}: chains {:.1}× faster, wide layers {:.1}× faster",
                            chain / ours_c,
                            wide / ours_w
                        );
                    }
                }
            }
            println!(
                "  peak RSS: Herald bench process {} MiB · LangGraph process {} MiB",
                herald_peak / 1024,
                lg_peak / 1024
            );
        }
        Err(why) => {
            println!("  LangGraph baseline not run: {why}");
            println!(
                "  peak RSS: Herald bench process {} MiB",
                herald_peak / 1024
            );
        }
    }
}
