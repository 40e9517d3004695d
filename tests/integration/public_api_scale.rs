//! The public API at a real business's size (issue 31 §2, issue 27): an organisation of 25,000
//! contacts with a text each (`inbox_scale::seeded_org`), read through `/v1` with a key. Totals are exact, keyset pages join
//! without a gap or a repeat, and a segment filter is counted by the server, whatever the size.
//! Every answer is checked against the OpenAPI document (`api_client`).
use crate::api_client::*;
use crate::helpers::*;
use crate::on_both_databases;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::HashSet;

on_both_databases!(twenty_five_thousand_contacts_page_and_count_exactly_through_the_api);

const N: usize = 25_000;

/// The ids of a page, and its cursor to the next.
fn ids(page: &Value) -> (Vec<String>, Option<String>) {
    let data = page["data"].as_array().expect("a page");
    let key = if data.first().is_some_and(|d| d.get("contact_id").is_some()) {
        "contact_id"
    } else {
        "id"
    };
    (
        data.iter()
            .map(|d| d[key].as_str().unwrap().to_owned())
            .collect(),
        page["next_cursor"].as_str().map(str::to_owned),
    )
}

async fn twenty_five_thousand_contacts_page_and_count_exactly_through_the_api(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let org = crate::inbox_scale::seeded_org(&app, N).await;
    let (token, _) = new_key(&app, &org, "Warehouse", &ALL_SCOPES, Some((1000, 1000))).await;
    let api = Api::new(&app, &token).await;

    // Every contact, exactly, in pages of 200 that join: five pages, no repeat.
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    for _ in 0..5 {
        let path = match &cursor {
            Some(c) => format!("/contacts?limit=200&cursor={c}"),
            None => "/contacts?limit=200".to_owned(),
        };
        let page = api.get(&path).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        assert_eq!(page.body["total"], N, "the exact total on every page");
        let (got, next) = ids(&page.body);
        assert_eq!(got.len(), 200);
        for id in got {
            assert!(seen.insert(id), "a contact twice across pages");
        }
        cursor = Some(next.expect("more pages"));
    }

    // Filters counted by the server: the tag, and a segment filter in the body.
    let vip = api.get("/contacts?tags=vip&limit=1").await;
    assert_eq!(vip.body["total"], N / 10, "{}", vip.body);
    let found = api
        .post(
            "/contacts/search",
            json!({"filter": {"tags_any": ["vip"], "replied_within_days": 365}, "limit": 200}),
        )
        .await;
    assert_eq!(found.status, StatusCode::OK, "{}", found.body);
    assert_eq!(found.body["total"], N / 10, "{}", found.body);
    assert_eq!(ids(&found.body).0.len(), 200);
    let none = api
        .post(
            "/contacts/search",
            json!({"filter": {"tags_none": ["vip"]}, "limit": 1}),
        )
        .await;
    assert_eq!(none.body["total"], N - N / 10, "{}", none.body);

    // Conversations: the exact total of each view, pages that join, and a history.
    let all = api.get("/conversations").await;
    assert_eq!(all.status, StatusCode::OK, "{}", all.body);
    assert_eq!(all.body["total"], N);
    let (first, next) = ids(&all.body);
    let second = api
        .get(&format!(
            "/conversations?cursor={}",
            next.expect("a next page")
        ))
        .await;
    let (second, _) = ids(&second.body);
    assert!(!second.is_empty());
    assert!(
        first.iter().all(|id| !second.contains(id)),
        "pages do not overlap"
    );
    let unread = api.get("/conversations?view=unread").await;
    assert_eq!(unread.body["total"], N / 4, "{}", unread.body);
    let history = api
        .get(&format!("/conversations/{}/messages", first[0]))
        .await;
    assert_eq!(history.status, StatusCode::OK, "{}", history.body);
    assert_eq!(history.body["data"].as_array().unwrap().len(), 1);
}
