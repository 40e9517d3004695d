//! Knowledge with an embedding model (issue 52 §2, §6), through an OpenAI-shaped fake that keeps
//! the contract (`fake_embeddings`): every passage gets a vector in the background, in batches,
//! retried after the provider fails; a question worded unlike any passage ("Can I bring my
//! puppy?") finds the FAQ about pets by meaning, fused with what words find; another
//! organisation's vectors are never found; a passage not embedded yet, or a model that is down
//! or stalls, still leaves every passage found by its words, without waiting on the model again;
//! a change of model re-embeds every passage.
use crate::fake_embeddings::{self, Fail, FakeEmbeddings};
use crate::helpers::*;
use crate::knowledge::{ask, faq};
use crate::on_both_databases;
use std::time::Duration;

on_both_databases!(passages_are_embedded_and_found_by_meaning);

const DIMS: usize = 64;

async fn app_with(
    backend: Backend,
    fake: &FakeEmbeddings,
    model: &str,
    db: Option<String>,
) -> Option<TestApp> {
    spawn_app_with(
        backend,
        Options {
            embedding: Some(fake.settings(model, DIMS)),
            database: db,
            ..Default::default()
        },
    )
    .await
}

/// Waits until every passage has a vector from `model`'s label.
async fn all_embedded(app: &TestApp, fake: &FakeEmbeddings, model: &str) {
    let label = fake.settings(model, DIMS).label().replace('\'', "''");
    eventually(20, "every passage embedded", || async {
        herald::knowledge::embed::sweep::kick(&app.state);
        let passages = app.count("knowledge_passage").await;
        let embedded = app
            .count_where("knowledge_embedding", &format!("model = '{label}'"))
            .await;
        (passages > 0 && embedded == passages).then_some(())
    })
    .await;
}

fn titles(hits: &[serde_json::Value]) -> Vec<&str> {
    hits.iter()
        .map(|h| h["source_title"].as_str().unwrap())
        .collect()
}

async fn passages_are_embedded_and_found_by_meaning(backend: Backend) {
    let fake = fake_embeddings::start().await;
    // The provider fails twice: the batch is tried again after a pause, and goes in.
    fake.fail_next(Fail::Status(500))
        .fail_next(Fail::Status(429));
    let Some(app) = app_with(backend, &fake, "text-embedding-3-small", None).await else {
        return;
    };
    let org = app.new_org("Embed Clinic").await;
    faq(
        &app,
        &org,
        "Are pets allowed?",
        "Only service animals may come in.",
        &[],
    )
    .await;
    faq(
        &app,
        &org,
        "Do you offer sedation?",
        "Yes: we calm nervous patients with gentle sedation.",
        &[],
    )
    .await;
    faq(
        &app,
        &org,
        "Where do I park?",
        "The garage behind the clinic is free.",
        &[],
    )
    .await;
    all_embedded(&app, &fake, "text-embedding-3-small").await;
    assert!(
        fake.request_count() >= 3,
        "the failed batch was tried again"
    );
    assert!(
        fake.refused.lock().unwrap().is_empty(),
        "{:?}",
        fake.refused.lock().unwrap()
    );
    for (dims, model) in fake.asked.lock().unwrap().iter() {
        assert_eq!(
            (*dims, model.as_str()),
            (Some(DIMS as u64), "text-embedding-3-small")
        );
    }
    assert!(fake
        .inputs
        .lock()
        .unwrap()
        .iter()
        .all(|b| b.len() <= herald::knowledge::embed::BATCH));

    // Worded unlike any passage: words alone find nothing, meaning finds the pets FAQ.
    let words_alone = herald::knowledge::retrieve::search(
        &app.state.db,
        org.org_id,
        "Can I bring my puppy?",
        None,
        5,
    )
    .await
    .unwrap();
    assert!(words_alone.is_empty(), "{words_alone:?}");
    let hits = ask(&app, &org, "Can I bring my puppy?").await;
    assert_eq!(
        titles(&hits).first(),
        Some(&"Are pets allowed?"),
        "{hits:?}"
    );
    assert!(hits[0]["similarity"].as_f64().unwrap() > 0.3, "{hits:?}");
    assert!(
        hits[0]["score"].as_f64().unwrap() < 0.6,
        "meaning alone does not make it an answer"
    );
    // Words and meaning together: the question words find keeps its place first.
    let hits = ask(
        &app,
        &org,
        "I get scared at the dentist, do you offer sedation?",
    )
    .await;
    assert_eq!(
        titles(&hits).first(),
        Some(&"Do you offer sedation?"),
        "{hits:?}"
    );

    // Another organisation's passages are never found by their vectors.
    let other = app.new_org("Pet Vets").await;
    faq(
        &app,
        &other,
        "Puppy vaccinations",
        "Puppies get their first shots at eight weeks.",
        &[],
    )
    .await;
    all_embedded(&app, &fake, "text-embedding-3-small").await;
    let hits = ask(&app, &org, "Can I bring my puppy?").await;
    assert!(!titles(&hits).contains(&"Puppy vaccinations"), "{hits:?}");
    assert_eq!(
        titles(&ask(&app, &other, "my dog").await),
        vec!["Puppy vaccinations"]
    );

    // The model stalls: the question is answered by words alone, and the model rests, so the
    // next question does not wait on it.
    fake.fail_next(Fail::Stall(Duration::from_secs(3)));
    let hits = ask(&app, &org, "Where do I park my car?").await;
    assert_eq!(titles(&hits).first(), Some(&"Where do I park?"));
    assert!(hits[0]["similarity"].is_null(), "{hits:?}");
    let before = fake.request_count();
    let hits = ask(&app, &org, "Is the garage free?").await;
    assert_eq!(titles(&hits).first(), Some(&"Where do I park?"));
    assert_eq!(fake.request_count(), before, "a resting model is not asked");

    // Down for good: a new FAQ is found by its words at once, without a vector.
    for _ in 0..20 {
        fake.fail_next(Fail::Status(503));
    }
    faq(
        &app,
        &org,
        "Do you take walk-ins?",
        "Walk-ins are welcome before noon.",
        &[],
    )
    .await;
    let hits = ask(&app, &org, "walk-ins?").await;
    assert_eq!(titles(&hits).first(), Some(&"Do you take walk-ins?"));
    assert!(app.count("knowledge_embedding").await < app.count("knowledge_passage").await);

    // A new model (as after changing EMBEDDING_MODEL and restarting) embeds every passage again.
    fake.failures_clear();
    app.stop().await;
    let upgraded = app_with(
        backend,
        &fake,
        "text-embedding-3-large",
        Some(app.db_url.clone()),
    )
    .await
    .unwrap();
    all_embedded(&upgraded, &fake, "text-embedding-3-large").await;
    let hits = ask(&upgraded, &org, "Can I bring my puppy?").await;
    assert_eq!(
        titles(&hits).first(),
        Some(&"Are pets allowed?"),
        "{hits:?}"
    );
    assert!(fake.refused.lock().unwrap().is_empty());
}
