//! The import benchmark (issue 51 §4): a practice export of 100,000 rows (first and last name,
//! mobile, home phone, birthdate, next appointment, insurance; one row in a hundred with a date
//! that is not one) mapped by its headers, every row checked as the page checks it (a preview a
//! chunk at a time), then imported a chunk at a time. The goal: within 60 s in all. The baseline,
//! from the same run: the all-or-nothing import the API keeps, one insert a row, on its largest
//! file (20,000 rows), scaled to the same number of rows.
//!
//! `cargo run --release --features server --bin import_bench -- [--rows 100000] [--postgres]`
#[path = "common.rs"]
mod common;

use common::*;
use herald::auth::session::Member;
use herald::contacts::import_job;
use herald::contacts::import_map::{fingerprint, split_records, CHUNK_ROWS};
use std::time::{Duration, Instant};

/// Area codes in service: ten of them give 100,000 distinct numbers.
const AREAS: [u16; 10] = [415, 628, 650, 510, 408, 212, 646, 718, 917, 305];
const GOAL: Duration = Duration::from_secs(60);
const HEADER: &str =
    "Patient First Name,Patient Last Name,Mobile Phone,Home Phone,Birthdate,Next Appointment,Insurance";

fn export(rows: usize, offset: usize) -> String {
    let mut s = String::with_capacity(rows * 90);
    s.push_str(HEADER);
    for i in 0..rows {
        let n = i + offset;
        let birth = if i % 100 == 99 {
            "soon".to_owned()
        } else {
            format!("{}/{}/19{:02}", 1 + n % 12, 1 + n % 28, n % 100)
        };
        s.push_str(&format!(
            "\nPat{n},Smith{},({}) 555-{:04},,{birth},2027-0{}-1{} 09:30,Plan {}",
            n % 97,
            AREAS[(n / 10_000) % AREAS.len()],
            n % 10_000,
            1 + n % 9,
            n % 10,
            n % 5
        ));
    }
    s
}

#[tokio::main]
async fn main() {
    let postgres = flag("--postgres");
    let rows: usize = arg("--rows", 100_000);
    let (_, state, org) = start_herald(postgres, &[]).await;
    let m = Member {
        user_id: uuid::Uuid::new_v4(),
        organization_id: org,
        role: herald::auth::model::Role::Owner,
    };
    let text = export(rows, 0);
    let (header, records) = split_records(&text);
    let chunks: Vec<(usize, String)> = records
        .chunks(CHUNK_ROWS)
        .enumerate()
        .map(|(i, c)| (i * CHUNK_ROWS + 2, c.join("\n")))
        .collect();
    let t0 = Instant::now();
    let first = import_job::preview(&state, &m, &format!("{header}\n{}", chunks[0].1), 2, None)
        .await
        .unwrap();
    let mut refused = 0;
    for (first_row, rows) in &chunks {
        let p = import_job::preview(
            &state,
            &m,
            &format!("{header}\n{rows}"),
            *first_row,
            Some(first.mapping.clone()),
        )
        .await
        .unwrap();
        refused += p.refused;
    }
    let checked = t0.elapsed();
    let key = fingerprint(&text, &first.mapping);
    let mut p = import_job::start(
        &state,
        &m,
        "export.csv",
        header,
        first.mapping.clone(),
        records.len(),
        &key,
    )
    .await
    .unwrap();
    for (first_row, rows) in &chunks {
        p = import_job::chunk(&state, &m, p.id, *first_row, rows)
            .await
            .unwrap();
    }
    let all = t0.elapsed();
    assert!(p.done);
    assert_eq!(p.imported + p.refused, rows);
    // The baseline: the API's all-or-nothing import (a row an insert), on its largest file.
    let base_rows = rows.min(herald::contacts::import::MAX_ROWS);
    let old: String = std::iter::once("name,phone,email,tags".to_owned())
        .chain(
            (0..base_rows)
                .map(|i| format!("Base {i},+1707{}{:04},,", 200 + i / 10_000, i % 10_000)),
        )
        .collect::<Vec<_>>()
        .join("\n");
    let t1 = Instant::now();
    let r = herald::contacts::import::import_csv(&state, org, &old)
        .await
        .unwrap();
    let base = t1.elapsed();
    assert_eq!(r.imported, base_rows, "{:?}", r.errors.first());
    let scaled = base.mul_f64(rows as f64 / base_rows as f64);
    println!(
        "import_bench on {} ({} build): {rows} rows mapped by their headers",
        if postgres { "PostgreSQL" } else { "SQLite" },
        build_kind()
    );
    println!(
        "  checked every row (no writes):  {:>8.0} ms ({refused} refused)",
        ms(checked)
    );
    println!(
        "  checked and imported:           {:>8.0} ms ({} imported, {} refused)   goal ≤ {} s: {}",
        ms(all),
        p.imported,
        p.refused,
        GOAL.as_secs(),
        if all <= GOAL { "met" } else { "MISSED" }
    );
    println!("  baseline, a row an insert:      {:>8.0} ms for {base_rows} rows, {:.0} ms scaled to {rows}", ms(base), ms(scaled));
    println!("  peak memory: {:.0} MiB", peak_rss_mib());
}
