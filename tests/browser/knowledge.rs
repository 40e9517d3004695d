//! In Chromium, on a desktop (both databases) and a 390 px phone (issue 52 §4): the Knowledge
//! page, from the navigation, lists the demo clinic's facts and FAQ entries; a question tried
//! there finds the whitening price with its source; an FAQ entry added there answers the next
//! question asked; deleting it takes it out of the answers again. The front desk's agent, tried
//! there, answers from the knowledge with its source, and so do its drafts for a text sent from
//! the simulator: "From: …", opened to the passage. The demo's guide is listed as a document
//! read; a Markdown file uploaded there is read and answers the next question, and so does a
//! website served on loopback, with its page's address.
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

    // Tried, the front desk's agent would answer from the knowledge, citing it.
    b.fill("#try-question", "how much is whitening?").await;
    b.click("#try-ask").await;
    b.wait_for_text(
        "#try-replies .try-reply-text",
        "In-office whitening is $350",
    )
    .await;
    b.wait_for_text(
        "#try-replies .cite",
        "From: How much does teeth whitening cost?",
    )
    .await;
    b.shot(&format!("{tag}-97-knowledge-agent-reply")).await;

    // Documents: the demo's guide is there, read; one uploaded here is read and answers.
    b.wait_for_text("#document-list", "New patient guide.md")
        .await;
    b.wait_for_text("#document-list .knowledge-meta", "ready")
        .await;
    let dir = std::env::temp_dir().join(format!("herald-knowledge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("waiting-room-{tag}.md"));
    std::fs::write(
        &file,
        "# Waiting room\n\nOur waiting room has a play corner for children and free coffee.",
    )
    .unwrap();
    b.wait_for("#document-file")
        .await
        .send_keys(file.to_str().unwrap())
        .await
        .expect("the file input takes the document");
    b.wait_for_text("#document-list", &format!("waiting-room-{tag}.md"))
        .await;
    b.wait_for_text(
        "#document-list [data-status='ready'] .knowledge-title",
        &format!("waiting-room-{tag}.md"),
    )
    .await;
    b.fill("#try-question", "is there a play corner for my kids?")
        .await;
    b.click("#try-ask").await;
    b.wait_for_text(
        "#try-hits .try-hit .try-source",
        &format!("waiting-room-{tag}.md"),
    )
    .await;
    // A website (served here; the test server allows loopback addresses) is read and answers.
    let site = serve_site().await;
    b.fill("#web-url", &format!("{site}/")).await;
    b.click("#web-save").await;
    b.wait_for_text(
        "#web-list [data-status='ready'] .knowledge-meta",
        "1 page read",
    )
    .await;
    b.fill("#try-question", "what is the clinic cat called?")
        .await;
    b.click("#try-ask").await;
    b.wait_for_text("#try-hits .try-hit", "Our clinic cat is called Molar")
        .await;
    b.wait_for_text("#try-hits .try-hit .try-locator", &site)
        .await;
    b.shot(&format!("{tag}-97a-knowledge-website-answer")).await;
    b.client
        .execute(
            "document.querySelector('#document-card').scrollIntoView()",
            vec![],
        )
        .await
        .unwrap();
    b.shot(&format!("{tag}-97a-knowledge-documents")).await;
    b.assert_fits_width("the knowledge page's documents").await;

    // Its page has "Answer only from knowledge", on.
    b.open(&format!("{}/agents", server.base)).await;
    b.click(".agent-link").await;
    b.wait_for("#agent-answer-only:checked").await;
    b.wait_for_text("#agent-answer-only-hint", "holding reply")
        .await;
    // And its knowledge: all of it, or the sources ticked.
    b.click("#agent-sources-all").await;
    b.click("input.agent-source[data-title='Saturday hours']")
        .await;
    b.click("#agent-sources-save").await;
    b.wait_for_text("#agent-sources .ok", "from 1 source only")
        .await;
    b.shot(&format!("{tag}-97b-agent-knowledge")).await;
    b.click("#agent-sources-all").await;
    b.click("#agent-sources-save").await;
    b.wait_for_text("#agent-sources .ok", "from all of the knowledge")
        .await;

    // Texted from the simulator, the agent's drafts answer from the knowledge, with the source.
    b.open(&format!("{}/simulator", server.base)).await;
    b.fill("#sim-from", "+14155552699").await;
    b.fill("#sim-body", "Hi, how much is teeth whitening?")
        .await;
    b.click("#sim-send").await;
    b.wait_for_text("#sim-log", "whitening").await;
    b.open(&format!("{}/messaging", server.base)).await;
    b.wait_for_text(".conversation-item", "+14155552699").await;
    let items = b
        .client
        .find_all(fantoccini::Locator::Css(".conversation-item"))
        .await
        .unwrap();
    for item in items {
        if item
            .text()
            .await
            .unwrap_or_default()
            .contains("+14155552699")
        {
            b.tap(&item).await;
            break;
        }
    }
    b.wait_for_text(
        ".suggestion-card .suggestion-body",
        "In-office whitening is $350",
    )
    .await;
    b.wait_for_text(
        ".suggestion-card .cite summary",
        "From: How much does teeth whitening cost?",
    )
    .await;
    b.click(".suggestion-card .cite summary").await;
    b.wait_for_text(".suggestion-card .cite p", "take-home trays are $180")
        .await;
    b.shot(&format!("{tag}-98-grounded-drafts")).await;
    b.client.clone().close().await.unwrap();
}

/// A one-page clinic website on loopback; answers its address.
async fn serve_site() -> String {
    let router = axum::Router::new().route(
        "/",
        axum::routing::get(|| async {
            axum::response::Html(
                "<html><head><title>About us</title></head><body><nav><a href='/'>Home</a></nav>\
                 <main><h1>About us</h1><p>Our clinic cat is called Molar.</p></main></body></html>",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

async fn the_knowledge_page_on_a_desktop(backend: Backend) {
    the_knowledge_page_answers_from_what_it_holds(backend, Screen::Desktop).await
}

crate::on_both_databases!(the_knowledge_page_on_a_desktop);
crate::on_a_phone!(the_knowledge_page_answers_from_what_it_holds);
