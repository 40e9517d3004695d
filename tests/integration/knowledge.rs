//! Knowledge (issue 52 §1, §2, §6): FAQ entries and facts become passages that a question finds
//! by its meaning's words ("how much" finds a price), scored by how much of the question they
//! cover; an unanswerable question finds nothing that answers; a change or a deletion shows in
//! the next answer; another organisation's knowledge is never found; bad input is refused by
//! name; deleting is for who added it or an owner; the list pages exactly.
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_databases!(knowledge_answers_from_the_organisations_own_words);
on_both_databases!(knowledge_lists_page_exactly);

pub(crate) async fn faq(app: &TestApp, who: &Org, q: &str, a: &str, alts: &[&str]) -> Value {
    let (status, body) = app
        .call_as(
            &who.client,
            "/api/knowledge/faq",
            json!({"id": null, "input": {"question": q, "answer": a, "alternatives": alts}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn fact(app: &TestApp, who: &Org, label: &str, value: &str) -> Value {
    let (status, body) = app
        .call_as(
            &who.client,
            "/api/knowledge/fact",
            json!({"id": null, "input": {"label": label, "value": value}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

pub(crate) async fn ask(app: &TestApp, who: &Org, question: &str) -> Vec<Value> {
    let (status, body) = app
        .call_as(
            &who.client,
            "/api/knowledge/try",
            json!({"question": question}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["hits"].as_array().unwrap().clone()
}

/// The best hit's source title and score, when one answers.
fn best(hits: &[Value]) -> Option<(String, f64)> {
    let h = hits.first()?;
    let score = h["score"].as_f64().unwrap();
    (score >= 0.6).then(|| (h["source_title"].as_str().unwrap().to_owned(), score))
}

async fn knowledge_answers_from_the_organisations_own_words(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let clinic = app.new_org("Bright Smiles").await;
    let other = app.new_org("Other Dental").await;
    let dana = app.add_member(&clinic, "Dana").await;
    let whitening = faq(
        &app,
        &dana,
        "What does teeth whitening cost?",
        "In-office whitening is $350; take-home trays are $180.",
        &["Price of whitening"],
    )
    .await;
    assert_eq!(whitening["status"], "ready");
    assert_eq!(whitening["passages"], 1);
    assert_eq!(whitening["added_by"], "Dana");
    faq(
        &app,
        &clinic,
        "Do you take insurance?",
        "We accept Delta Dental and Cigna.",
        &[],
    )
    .await;
    let saturday = fact(&app, &clinic, "Saturday hours", "9am to 1pm").await;
    fact(&app, &clinic, "Address", "12 Harbour Street, Springfield").await;
    // The other clinic's own price, worded alike: never found for the first.
    faq(
        &app,
        &other,
        "How much is whitening?",
        "Whitening is $999.",
        &[],
    )
    .await;

    let hits = ask(&app, &clinic, "How much is whitening?").await;
    assert_eq!(
        best(&hits).map(|b| b.0),
        Some("What does teeth whitening cost?".into()),
        "{hits:?}"
    );
    assert_eq!(
        hits[0]["answer"],
        "In-office whitening is $350; take-home trays are $180."
    );
    assert!(
        hits.iter()
            .all(|h| !h["text"].as_str().unwrap().contains("$999")),
        "another organisation's knowledge is never found: {hits:?}"
    );
    let hits = ask(&app, &clinic, "Are you open on Saturday?").await;
    assert_eq!(
        best(&hits).map(|b| b.0),
        Some("Saturday hours".into()),
        "{hits:?}"
    );
    let hits = ask(&app, &clinic, "where are you located?").await;
    assert_eq!(best(&hits).map(|b| b.0), Some("Address".into()), "{hits:?}");
    let hits = ask(&app, &clinic, "does my Cigna insurance cover it").await;
    assert_eq!(
        best(&hits).map(|b| b.0),
        Some("Do you take insurance?".into()),
        "{hits:?}"
    );
    // Questions the knowledge does not answer find nothing that answers them.
    for q in [
        "Do you do hair transplants?",
        "How much is a hair transplant?",
        "hello?",
    ] {
        let hits = ask(&app, &clinic, q).await;
        assert_eq!(best(&hits), None, "{q}: {hits:?}");
    }
    let hits = ask(&app, &other, "How much is whitening?").await;
    assert_eq!(hits.len(), 1, "only its own: {hits:?}");
    assert_eq!(hits[0]["answer"], "Whitening is $999.");

    // A change shows in the next answer.
    let (status, changed) = app
        .call_as(
            &clinic.client,
            "/api/knowledge/fact",
            json!({"id": saturday["id"], "input": {"label": "Saturday hours", "value": "Closed on Saturdays"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    let hits = ask(&app, &clinic, "Are you open on Saturday?").await;
    assert_eq!(hits[0]["answer"], "Closed on Saturdays");
    // A fact cannot be changed as an FAQ entry, nor another organisation's at all.
    let (status, body) = app
        .call_as(
            &clinic.client,
            "/api/knowledge/faq",
            json!({"id": saturday["id"], "input": {"question": "Open?", "answer": "Yes"}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/knowledge/fact",
            json!({"id": saturday["id"], "input": {"label": "Saturday hours", "value": "Open all day"}}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Bad input is refused by name and saves nothing.
    for (input, says) in [
        (json!({"question": " ", "answer": "x"}), "question"),
        (json!({"question": "Q?", "answer": ""}), "answer"),
        (
            json!({"question": "Q?", "answer": "A", "alternatives": vec!["again"; 11]}),
            "at most 10",
        ),
        (
            json!({"question": "Q".repeat(201), "answer": "A"}),
            "longer than 200",
        ),
    ] {
        let (status, body) = app
            .call_as(
                &clinic.client,
                "/api/knowledge/faq",
                json!({"id": null, "input": input}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.to_string().contains(says), "{says}: {body}");
    }

    // Deleting: a member cannot delete an owner's source; the owner can delete Dana's, and its
    // passage is gone from every later answer.
    let (status, _) = app
        .call_as(
            &dana.client,
            "/api/knowledge/delete",
            json!({"id": saturday["id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = app
        .call_as(
            &other.client,
            "/api/knowledge/delete",
            json!({"id": whitening["id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = app
        .call_as(
            &clinic.client,
            "/api/knowledge/delete",
            json!({"id": whitening["id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let hits = ask(&app, &clinic, "How much is whitening?").await;
    assert!(
        hits.iter().all(|h| h["source_id"] != whitening["id"]),
        "a deleted source is never found: {hits:?}"
    );
    assert_eq!(best(&hits), None, "{hits:?}");
}

async fn knowledge_lists_page_exactly(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let clinic = app.new_org("Many Facts").await;
    for i in 0..120 {
        fact(&app, &clinic, &format!("Fact {i}"), &format!("Value {i}")).await;
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut after = Value::Null;
    let mut pages = 0;
    loop {
        let (status, page) = app
            .call_as(
                &clinic.client,
                "/api/knowledge",
                json!({"kind": "fact", "after": after}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{page}");
        assert_eq!(page["total"], 120);
        for s in page["items"].as_array().unwrap() {
            assert!(seen.insert(s["id"].to_string()), "listed twice: {s}");
        }
        pages += 1;
        after = page["next"].clone();
        if after.is_null() {
            break;
        }
    }
    assert_eq!((seen.len(), pages), (120, 3));
    let (status, body) = app
        .call_as(
            &clinic.client,
            "/api/knowledge",
            json!({"kind": null, "after": "nonsense"}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[path = "../../benches/knowledge_labelled.rs"]
mod labelled;

on_both_databases!(the_labelled_questions_find_their_answers);

/// The labelled questions (issue 52 §2) against the demo clinic's knowledge, added through the
/// API: recall@3 at least 0.9 and at most one unanswerable question in ten taken as answered.
async fn the_labelled_questions_find_their_answers(backend: Backend) {
    use herald::knowledge::demo::{FACTS, FAQS};
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let clinic = app.new_org("Labelled Clinic").await;
    for (label, value) in FACTS {
        fact(&app, &clinic, label, value).await;
    }
    for (q, a, alts) in FAQS {
        faq(&app, &clinic, q, a, alts).await;
    }
    let (status, guide) = crate::knowledge_reading::upload(
        &app,
        &clinic,
        herald::knowledge::demo::GUIDE_NAME,
        "text/markdown",
        herald::knowledge::demo::GUIDE.as_bytes().to_vec(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{guide}");
    let guide = crate::knowledge_reading::settled(&app, &clinic, &guide["id"]).await;
    assert_eq!(guide["status"], "ready", "{guide}");
    let mut missed = vec![];
    for (q, want) in labelled::ANSWERABLE {
        let hits = ask(&app, &clinic, q).await;
        if !hits.iter().take(3).any(|h| h["source_title"] == *want) {
            missed.push(*q);
        }
    }
    let recall = 1.0 - missed.len() as f64 / labelled::ANSWERABLE.len() as f64;
    assert!(recall >= 0.9, "recall@3 {recall:.2}; missed {missed:?}");
    let mut answered = vec![];
    for q in labelled::UNANSWERABLE {
        if best(&ask(&app, &clinic, q).await).is_some() {
            answered.push(*q);
        }
    }
    assert!(
        answered.len() as f64 / labelled::UNANSWERABLE.len() as f64 <= 0.1,
        "taken as answered: {answered:?}"
    );
}
