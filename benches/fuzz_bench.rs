//! Fuzzes every input parser for a given time and prints the cases run and the crashes found
//! (which must be 0).
//!
//!   cargo run --release --features fuzz --bin fuzz_bench -- --secs 600
use herald::fuzzing::{runner, targets};
use std::time::{Duration, Instant};

fn main() {
    let secs: u64 = std::env::args()
        .skip_while(|a| a != "--secs")
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let all = targets();
    let share = Duration::from_secs(secs) / all.len() as u32;
    let mut crashes = 0u64;
    println!("fuzzing {} targets for {secs} s", all.len());
    for t in &all {
        let until = (Instant::now() + share).min(deadline);
        let mut cases = 0u64;
        let mut failures = Vec::new();
        while Instant::now() < until {
            let mut r = runner(2_000);
            match (t.run)(&mut r) {
                Ok(()) => cases += 2_000,
                Err(e) => {
                    cases += 1;
                    failures.push(e.to_string());
                }
            }
        }
        crashes += failures.len() as u64;
        println!(
            "{:<20} {cases:>12} cases  {} failures (goal 0)",
            t.name,
            failures.len()
        );
        for f in failures.iter().take(3) {
            println!("    {f}");
        }
    }
    println!("total failures: {crashes} (goal 0)");
    if crashes > 0 {
        std::process::exit(1);
    }
}
