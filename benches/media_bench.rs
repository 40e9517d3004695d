//! A burst of pictures texted in (issue 49 §7): 30 MMS, each a 9000×9000 PNG, through the real
//! webhook and copier, with the process's peak resident memory printed beside the 512 MB goal.
//! Pictures that are decoded (6000×6000, under the pixel limit) are sent in a second burst. The
//! baseline, in the same run, is the way before: every picture decoded at once on its own blocking
//! thread with the old limits (10,000 px a side, 256 MB).
//!
//! `cargo run --release --features server --bin media_bench -- [--pictures 30] [--postgres]`
mod common;

use common::*;
use std::time::{Duration, Instant};

const TO: &str = "+14155550100";

fn png(side: u32) -> Vec<u8> {
    let img = image::GrayImage::from_pixel(side, side, image::Luma([128]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// Forgets the peak so far: the next `peak_rss_mib` is the peak from now on (Linux 4.0+).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The way before: one blocking thread per picture, all at once, 256 MB each at most.
fn old_way(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(10_000);
    limits.max_image_height = Some(10_000);
    limits.max_alloc = Some(256 * 1024 * 1024);
    reader.limits(limits);
    let img = reader.decode().ok()?.thumbnail(320, 320).to_rgb8();
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80)
        .encode_image(&img)
        .ok()?;
    Some(out)
}

async fn serve(big: Vec<u8>, ok: Vec<u8>) -> String {
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/big.png",
            get(move || async move { ([("content-type", "image/png")], big) }),
        )
        .route(
            "/ok.png",
            get(move || async move { ([("content-type", "image/png")], ok) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// Posts `n` signed MMS with `url` at once and waits until every copy is done.
async fn burst(
    base: &str,
    state: &herald::platform::AppState,
    label: &str,
    url: &str,
    n: usize,
) -> Duration {
    use herald::messaging::signature::compute_signature;
    let client = reqwest::Client::new();
    let started = Instant::now();
    let posts = (0..n).map(|i| {
        let params: Vec<(String, String)> = [
            ("MessageSid", format!("MM{label}{i:024}")),
            ("From", format!("+1415555{:04}", 2000 + i)),
            ("To", TO.into()),
            ("Body", String::new()),
            ("NumMedia", "1".into()),
            ("MediaUrl0", url.into()),
            ("MediaContentType0", "image/png".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let sig = compute_signature(TOKEN, &format!("{PUBLIC_URL}/webhooks/twilio/sms"), &params);
        let req = client
            .post(format!("{base}/webhooks/twilio/sms"))
            .header("X-Twilio-Signature", sig)
            .form(&params);
        async move { req.send().await.map(|r| r.status().is_success()) }
    });
    let ok = futures::future::join_all(posts).await;
    assert!(
        ok.iter().all(|r| matches!(r, Ok(true))),
        "every MMS accepted"
    );
    loop {
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        let pending = herald::media::entity::Entity::find()
            .filter(herald::media::entity::Column::Status.eq("pending"))
            .count(&state.db)
            .await
            .unwrap();
        if pending == 0 {
            return started.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn main() {
    let n: usize = arg("--pictures", 30);
    let postgres = flag("--postgres");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (big, ok) = (png(9000), png(6000));
        let sizes = (big.len() / 1024, ok.len() / 1024);
        let (base, state, _) = start_herald(postgres, &[TO]).await;
        let files = serve(big.clone(), ok.clone()).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let idle = rss_mib();
        println!(
            "media_bench: {n} MMS a burst, {} build, {}, {} cores; PNG files {} KiB (9000²) and {} KiB (6000²)",
            build_kind(),
            if postgres { "PostgreSQL" } else { "SQLite" },
            std::thread::available_parallelism().map(|c| c.get()).unwrap_or(1),
            sizes.0,
            sizes.1
        );
        println!("idle RSS before the bursts: {idle:.0} MiB");
        println!("{:<48} {:>14} {:>10}", "burst", "peak RSS MiB", "seconds");
        let row = |what: &str, peak: f64, took: Duration| {
            println!("{what:<48} {peak:>14.0} {:>10.2}", took.as_secs_f64());
        };
        for (label, path, what) in [
            ("big", "/big.png", "Herald: 30 × 9000×9000 (past the limits)"),
            ("ok", "/ok.png", "Herald: 30 × 6000×6000 (decoded, 2 at a time)"),
        ] {
            reset_peak();
            let took = burst(&base, &state, label, &format!("{files}{path}"), n).await;
            row(&what.replace("30", &n.to_string()), peak_rss_mib(), took);
        }
        for (bytes, what) in [(&big, "before: 9000×9000, all at once"), (&ok, "before: 6000×6000, all at once")] {
            reset_peak();
            let started = Instant::now();
            let all = (0..n).map(|_| {
                let b = bytes.clone();
                tokio::task::spawn_blocking(move || old_way(&b))
            });
            futures::future::join_all(all).await;
            row(what, peak_rss_mib(), started.elapsed());
        }
        println!("goal: Herald's peak RSS during a burst of {n} 9000×9000 PNGs ≤ 512 MiB");
    });
}
