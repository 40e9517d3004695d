//! A hosted model with vision sees the pictures contacts send (issue 28 §3), only when the agent's
//! owner turned it on: through rig against the fake OpenAI and Anthropic servers, which check each
//! picture as the providers do. On: the turn's picture goes with its caption, shrunk to 1568 px
//! on its long side, as a JPEG, in every call of that turn and never again in a later turn. Off
//! (the default): no picture leaves Herald, and the model reads "[photo: image/png]".
use crate::agent_support::*;
use crate::fake_llm::{self, images_of, Dialect, Step};
use crate::helpers::*;
use crate::on_both_databases;
use herald::ai_agent::llm::rig::RigModel;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Serves one 3000 × 2000 PNG on loopback (the local outbox fetches media from there).
async fn picture_server() -> String {
    let img = image::RgbImage::from_fn(3000, 2000, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let png = png.into_inner();
    let app = axum::Router::new().route(
        "/crack.png",
        axum::routing::get(move || {
            let png = png.clone();
            async move { ([(axum::http::header::CONTENT_TYPE, "image/png")], png) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/crack.png")
}

async fn sees_pictures(backend: Backend, dialect: Dialect, allowed: bool) {
    let llm = fake_llm::start(dialect).await;
    let reply = || {
        Step::call(
            "propose_sms_replies",
            json!({"options": ["Thanks, that looks like a chip.", "Can you come in today?"]}),
        )
    };
    llm.push(Step::call("get_contact", json!({})));
    llm.push(reply());
    llm.push(Step::text("Done."));
    llm.push(reply());
    llm.push(Step::text("Done."));
    let model = Arc::new(RigModel::new(&llm.settings(Duration::from_secs(10))).unwrap());
    let Some(s) = setup_with(backend, "suggest", Some(model), |o| o).await else {
        return;
    };
    let agent = &s.agent;
    assert_eq!(agent["sees_pictures"], false, "off unless an owner says so");
    if allowed {
        let input = json!({"name": agent["name"], "persona": agent["persona"], "goals": agent["goals"],
            "rules": agent["rules"], "send_mode": "suggest", "sees_pictures": true});
        let saved: Value = s
            .app
            .ok_as(
                &s.org.client,
                "/api/agents/update",
                json!({"id": agent["id"], "input": input}),
            )
            .await;
        assert_eq!(saved["sees_pictures"], true);
    }
    let url = picture_server().await;
    let mut params = sms_params(
        "SMvision00000000000000000000000001",
        "+14155552671",
        "+14155550100",
        "Is this tooth cracked?",
    );
    params.retain(|(k, _)| *k != "NumMedia");
    params.extend([
        ("NumMedia", "1"),
        ("MediaUrl0", url.as_str()),
        ("MediaContentType0", "image/png"),
    ]);
    assert!(s
        .app
        .post_webhook(&params, None)
        .await
        .status()
        .is_success());
    s.app.settle().await;
    // A later text in the same thread: its turn shows no picture again.
    text_in(
        &s,
        "SMvision00000000000000000000000002",
        "+14155552671",
        "+14155550100",
        "Thanks!",
    )
    .await;
    assert!(
        llm.refused.lock().unwrap().is_empty(),
        "{:?}",
        llm.refused.lock().unwrap()
    );
    assert_eq!(llm.remaining(), 0);
    let requests = llm.requests.lock().unwrap().clone();
    assert_eq!(
        requests.len(),
        5,
        "three calls in the first turn, two in the second"
    );
    for (n, body) in requests.iter().enumerate() {
        let text = body.to_string();
        assert!(
            text.contains("Is this tooth cracked?"),
            "the caption goes with it"
        );
        assert!(
            text.contains("[photo: image/png]"),
            "the picture's line is always there"
        );
        let images = images_of(dialect, body).unwrap();
        if !allowed || n >= 3 {
            assert!(
                images.is_empty(),
                "request {n}: no picture (allowed: {allowed})"
            );
            continue;
        }
        assert_eq!(images.len(), 1, "request {n}");
        assert_eq!(images[0].role, "user");
        assert_eq!(images[0].media_type, "image/jpeg");
        let seen = image::load_from_memory(&images[0].bytes).unwrap();
        assert_eq!(
            (seen.width(), seen.height()),
            (1568, 1045),
            "shrunk, in proportion"
        );
    }
    // The stored thread never holds the picture's bytes: only the turn's calls carry them.
    let threads = threads_of(&s).await;
    let events = events_of(&s, &threads[0]).await.to_string();
    assert!(events.contains("[photo: image/png]"));
    assert!(!events.contains("base64"));
}

async fn openai_sees_an_allowed_picture(backend: Backend) {
    sees_pictures(backend, Dialect::OpenAi, true).await
}
async fn anthropic_sees_an_allowed_picture(backend: Backend) {
    sees_pictures(backend, Dialect::Anthropic, true).await
}
async fn no_picture_leaves_by_default(backend: Backend) {
    sees_pictures(backend, Dialect::OpenAi, false).await
}

on_both_databases!(
    openai_sees_an_allowed_picture,
    anthropic_sees_an_allowed_picture,
    no_picture_leaves_by_default,
);
