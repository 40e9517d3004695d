//! Two Herald instances on one PostgreSQL database: a page open on one instance shows, live, a
//! text that arrived through the other (LISTEN/NOTIFY relays the event; the page reads the
//! shared tables). Both directions.
use crate::harness::*;
use crate::helpers::{fresh_database, sms_params, Backend};

async fn post_text(base: &str, sid: &str, body: &str) {
    let res = reqwest::Client::new()
        .post(format!("{base}/webhooks/twilio/sms"))
        .form(&sms_params(sid, "+14155552671", "+14155550100", body))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_to_one_instance_shows_live_on_the_other() {
    let Some((url, _guard)) = fresh_database(Backend::Postgres).await else {
        return;
    };
    // The first instance seeds the demo organisation; the second joins the same database.
    let (a, _pa) = start_web_server_at(&url, true, "instance-a").await;
    let (b_base, _pb) = start_web_server_at(&url, false, "instance-b").await;
    let b = start_browser().await;
    b.sign_in_demo(&a).await;
    open_conversation(&b, "Ada Lovelace").await;
    let on_a = b.client.window().await.unwrap();
    let tab = b.client.new_window(true).await.unwrap();
    b.client.switch_to_window(tab.handle.clone()).await.unwrap();
    b.sign_in_demo(&b_base).await;
    open_conversation(&b, "Ada Lovelace").await;
    // Into B, shown on A.
    b.client.switch_to_window(on_a.clone()).await.unwrap();
    post_text(
        &b_base,
        "SMtwoinstances0000000000000000001",
        "Sent to instance B",
    )
    .await;
    b.wait_for_text(".message.inbound", "Sent to instance B")
        .await;
    b.shot("postgres-41-live-across-instances").await;
    // Into A, shown on B.
    b.client.switch_to_window(tab.handle).await.unwrap();
    post_text(
        &a,
        "SMtwoinstances0000000000000000002",
        "Sent to instance A",
    )
    .await;
    b.wait_for_text(".message.inbound", "Sent to instance A")
        .await;
    b.client.clone().close().await.unwrap();
}
