//! In Chromium, on a desktop (both databases) and a 390 px phone (issue 52 §4): the Knowledge
//! page, from the navigation, lists the demo clinic's facts and FAQ entries; a question tried
//! there finds the whitening price with its source; an FAQ entry added there answers the next
//! question asked; deleting it takes it out of the answers again.
use crate::harness::*;
use crate::helpers::Backend;

async fn the_knowledge_page_answers_from_what_it_holds(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.open(&format!("{}/knowledge", server.base)).await;
    b.wait_for_text("#fact-list", "Saturday hours").await;
    b.wait_for_text("#faq-list", "How much does teeth whitening cost?")
        .await;
    b.fill("#try-question", "how much is whitening?").await;
    b.click("#try-ask").await;
    b.wait_for_text(
        "#try-hits .try-hit[data-answers='true']",
        "In-office whitening is $350",
    )
    .await;
    b.wait_for_text(
        "#try-hits .try-hit .try-source",
        "How much does teeth whitening cost?",
    )
    .await;
    b.shot(&format!("{tag}-95-knowledge-try")).await;
    b.assert_fits_width("the knowledge page").await;

    // Something the knowledge does not say: it says it would check.
    b.fill("#try-question", "do you offer Botox?").await;
    b.click("#try-ask").await;
    b.wait_for_text("#try-none", "check with the team").await;

    // An FAQ entry added here answers the next question.
    b.fill("#faq-title", "Do you offer Botox?").await;
    b.fill("#faq-body", "Yes: Botox for jaw pain is $300 a session.")
        .await;
    b.fill("#faq-alternatives", "Can I get Botox?").await;
    b.click("#faq-save").await;
    b.wait_for_text("#faq-list", "Botox for jaw pain").await;
    b.click("#try-ask").await;
    b.wait_for_text(
        "#try-hits .try-hit[data-answers='true']",
        "Botox for jaw pain is $300",
    )
    .await;
    b.shot(&format!("{tag}-96-knowledge-added")).await;

    // Deleted, it answers no more.
    let row = b
        .client
        .find_all(fantoccini::Locator::Css("#faq-list .knowledge-row"))
        .await
        .unwrap();
    let mut botox = None;
    for r in row {
        if r.text().await.unwrap_or_default().contains("Botox") {
            botox = Some(r);
        }
    }
    let botox = botox.expect("the new entry is listed");
    let delete = botox
        .find(fantoccini::Locator::Css("button[id^='delete-knowledge-']"))
        .await
        .unwrap();
    b.tap(&delete).await;
    b.click("button[id$='-confirm']").await;
    b.wait_until_gone_text("#faq-list", "Botox for jaw pain")
        .await;
    b.click("#try-ask").await;
    b.wait_for_text("#try-none", "check with the team").await;
    b.client.clone().close().await.unwrap();
}

async fn the_knowledge_page_on_a_desktop(backend: Backend) {
    the_knowledge_page_answers_from_what_it_holds(backend, Screen::Desktop).await
}

crate::on_both_databases!(the_knowledge_page_on_a_desktop);
crate::on_a_phone!(the_knowledge_page_answers_from_what_it_holds);
