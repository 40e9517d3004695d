//! axe-core over every page of Herald (issue 51 §7), signed in, and over the pages before signing
//! in, on a desktop and a phone: no serious or critical violation anywhere. axe-core is Deque's
//! own rule engine (npm `axe-core`, installed by `scripts/setup.sh --test`), injected into the
//! page; what it finds is written to test-output/screenshots/axe-*.json as well.
use crate::harness::*;
use crate::helpers::Backend;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use std::time::Duration;

/// axe's source: the tools cache `scripts/setup.sh --test` fills, or `HERALD_TOOLS`.
fn axe_source() -> String {
    let tools = std::env::var("HERALD_TOOLS")
        .unwrap_or_else(|_| format!("{}/.cache/herald-tools", std::env::var("HOME").unwrap()));
    let path = format!("{tools}/node/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (scripts/setup.sh --test installs axe-core)"))
}

/// Runs axe over the page as it stands; answers each serious or critical violation as one line
/// naming the rule, the page and the first elements it found.
async fn serious_violations(b: &Browser, axe: &str, page: &str) -> Vec<String> {
    b.client
        .execute(&format!("{axe}\n;return true;"), vec![])
        .await
        .expect("axe-core loads");
    let found = b
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, { resultTypes: ['violations'] })
               .then(r => done(r.violations
                 .filter(v => v.impact === 'serious' || v.impact === 'critical')
                 .map(v => v.impact + ' ' + v.id + ' (' + v.help + '): ' + v.nodes.slice(0, 4)
                   .map(n => n.target.join(' ') + ' — ' + (n.failureSummary || '').split('\\n').slice(1, 2).join(''))
                   .join(' | '))))
               .catch(e => done(['axe failed: ' + e]));",
            vec![],
        )
        .await
        .expect("axe runs");
    found
        .as_array()
        .unwrap()
        .iter()
        .map(|v| format!("{page}: {}", v.as_str().unwrap()))
        .collect()
}

/// Opens a page and waits until it has settled: a client page once hydrated, a page the server
/// renders (reports, developers, the audit log) once its heading is there.
async fn visit(b: &Browser, url: &str, client_page: bool) {
    b.client.goto(url).await.unwrap();
    if client_page {
        b.wait_for("body[data-hydrated='true']").await;
    }
    b.wait_for("h1").await;
    // Lists and counts fill in after the first paint.
    tokio::time::sleep(Duration::from_millis(700)).await;
}

async fn every_page_passes_axe(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    let axe = axe_source();
    let base = server.base.clone();
    let mut found = Vec::new();
    // Before signing in.
    for path in [
        "/signin",
        "/signup",
        "/reset/not-a-token",
        "/join/not-a-token",
    ] {
        visit(&b, &format!("{base}{path}"), true).await;
        found.extend(serious_violations(&b, &axe, path).await);
    }
    b.sign_in_demo(&base).await;
    // A plan and a campaign waiting for review, so that their pages have something on them.
    b.ask_for_a_plan(&base, "follow up with quiet quote leads")
        .await;
    b.wait_for(".plan-card[data-status='awaiting_approval']")
        .await;
    found.extend(serious_violations(&b, &axe, "/assistant with a plan").await);
    b.click(".plan-approve").await;
    b.wait_for(".operation-card[data-status='awaiting_approval']")
        .await;
    let ids = Ids::of(&server).await;
    let client_pages = [
        "/messaging".to_string(),
        format!("/messaging/{}", ids.contact),
        "/contacts".into(),
        "/contacts/import".into(),
        "/knowledge".into(),
        format!("/contacts/{}", ids.contact),
        "/numbers".into(),
        "/simulator".into(),
        "/team".into(),
        "/account".into(),
        "/settings".into(),
        "/agents".into(),
        format!("/agents/{}", ids.agent),
        format!("/threads/{}", ids.thread),
        "/notifications".into(),
        "/assistant".into(),
        "/plans".into(),
        format!("/plans/{}", ids.plan),
        "/operations".into(),
        format!("/operations/{}", ids.operation),
        "/campaigns/new?audience=%7B%22kind%22%3A%22tag%22%2C%22tag%22%3A%22quote%22%7D".into(),
    ];
    for path in &client_pages {
        visit(&b, &format!("{base}{path}"), true).await;
        found.extend(serious_violations(&b, &axe, path).await);
    }
    for path in ["/reports", "/developers", "/audit"] {
        visit(&b, &format!("{base}{path}"), false).await;
        // They keep the app's navigation (issue 51 §6): the sidebar, or a phone's two bars.
        b.wait_for("#sidebar #nav-inbox").await;
        b.wait_for("#tabbar #tab-inbox").await;
        found.extend(serious_violations(&b, &axe, path).await);
    }
    std::fs::write(
        screenshot_dir().join(format!("axe-{tag}.json")),
        serde_json::to_string_pretty(&found).unwrap(),
    )
    .unwrap();
    b.client.clone().close().await.unwrap();
    assert!(
        found.is_empty(),
        "axe-core found {} serious or critical violations:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The rows the detail pages show: the demo's first contact, its agent and thread, the plan and
/// the campaign this test made.
struct Ids {
    contact: uuid::Uuid,
    agent: uuid::Uuid,
    thread: uuid::Uuid,
    plan: uuid::Uuid,
    operation: uuid::Uuid,
}

impl Ids {
    async fn of(server: &WebServer) -> Ids {
        use herald::ai_agent::entity::{ai_agent, ai_thread};
        use herald::contacts::entity::contact;
        let db = server.db().await;
        let ada = contact::Entity::find()
            .filter(contact::Column::Name.eq("Ada Lovelace"))
            .one(&db)
            .await
            .unwrap()
            .expect("the demo's Ada");
        let agent = ai_agent::Entity::find()
            .order_by_asc(ai_agent::Column::CreatedAt)
            .one(&db)
            .await
            .unwrap()
            .expect("the demo's agent");
        let thread = ai_thread::Entity::find()
            .order_by_asc(ai_thread::Column::CreatedAt)
            .one(&db)
            .await
            .unwrap()
            .expect("a thread (the assistant's, at least)");
        let plan = herald::plans::entity::plan::Entity::find()
            .one(&db)
            .await
            .unwrap()
            .expect("the plan this test asked for");
        let operation = herald::campaign::entity::operation::Entity::find()
            .one(&db)
            .await
            .unwrap()
            .expect("the campaign its approval started");
        Ids {
            contact: ada.id,
            agent: agent.id,
            thread: thread.id,
            plan: plan.id,
            operation: operation.id,
        }
    }
}

async fn every_page_passes_axe_on_a_desktop(backend: Backend) {
    every_page_passes_axe(backend, Screen::Desktop).await
}

crate::on_both_databases!(every_page_passes_axe_on_a_desktop);
crate::on_a_phone!(every_page_passes_axe);
