//! In Chromium, on a desktop (both databases) and a 390 px phone: the contact page (issue 28 §5).
//! From the contacts list to Ada's page, a custom field added and kept (one typed but not added
//! is saved with the rest; leaving with unsaved typing asks first), then a duplicate found,
//! previewed and merged into her, with its number said to be dropped; then she is deleted from
//! the server-rendered page her page links to.
use crate::harness::*;
use crate::helpers::Backend;

async fn the_contact_page(backend: Backend, screen: Screen) {
    let Some((server, b)) = signed_in(backend, screen).await else {
        return;
    };
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    // A duplicate of Ada, made as a person would.
    b.open(&format!("{}/contacts", server.base)).await;
    b.click("#new-contact").await;
    b.fill("#contact-name", "Ada L.").await;
    b.fill("#contact-phone", "+1 415 555 2699").await;
    b.click("#contact-save").await;
    b.wait_for_text("#contacts-table", "Ada L.").await;
    // Its id, from its page's link, for its old conversation link after the merge.
    b.fill("#contact-search", "Ada L.").await;
    b.wait_for("#contacts-table[data-query='Ada L.']").await;
    b.click("#contacts-table .contact-row").await;
    let dup_link = b
        .wait_for("#contact-open")
        .await
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    let dup_id = dup_link.rsplit('/').next().unwrap().to_owned();
    b.click("#contact-close").await;

    b.fill("#contact-search", "Lovelace").await;
    b.wait_for("#contacts-table[data-query='Lovelace']").await;
    b.click("#contacts-table .contact-row").await;
    b.click("#contact-open").await;
    b.wait_for_text("#contact-title", "Ada Lovelace").await;
    b.wait_for_text("#contact-conversation", "1 text").await;
    b.wait_for("#notes").await;

    // A custom field, saved and read back from the server.
    b.fill("#field-new-name", "plan").await;
    b.fill("#field-new-value", "gold").await;
    b.click("#field-add").await;
    b.wait_for("#contact-fields [data-field='plan']").await;
    // A second field typed but not added goes in with the save.
    b.fill("#field-new-name", "referred by").await;
    b.fill("#field-new-value", "Grace").await;
    b.click("#contact-save").await;
    b.wait_for("#contact-saved").await;
    b.open(&format!("{}{}", server.base, current_path(&b).await))
        .await;
    b.wait_for("#contact-fields [data-field='plan']").await;
    b.wait_for("#contact-fields [data-field='referred by']")
        .await;
    // Typed and not saved: following a link asks first, and staying keeps what was typed.
    b.fill("#contact-email", "ada@analytical.test").await;
    b.client
        .execute(
            "setTimeout(() => document.querySelector('a[href=\"/contacts\"]').click(), 0)",
            vec![],
        )
        .await
        .unwrap();
    let mut asked = None;
    for _ in 0..50 {
        if let Ok(text) = b.client.get_alert_text().await {
            asked = Some(text);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let asked = asked.expect("leaving asks first");
    assert!(asked.contains("without saving"), "{asked}");
    b.client.dismiss_alert().await.unwrap();
    b.wait_for("#contact-title").await;
    let kept = b
        .client
        .execute(
            "return document.querySelector('#contact-email').value",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(kept.as_str(), Some("ada@analytical.test"));
    b.click("#contact-save").await;
    b.wait_for("#contact-saved").await;
    b.shot(&format!("{tag}-96-contact-page")).await;
    b.assert_fits_width("the contact page").await;

    // Merge the duplicate into her: find, preview, merge.
    b.click("#contact-merge summary").await;
    b.fill("#merge-search", "Ada L").await;
    b.click("#merge-find").await;
    b.click(".merge-candidates .merge-preview").await;
    b.wait_for_text("#merge-report", "Merging Ada L. into Ada Lovelace")
        .await;
    b.wait_for_text("#merge-report", "+14155552699 will no longer belong")
        .await;
    b.shot(&format!("{tag}-97-merge-preview")).await;
    b.assert_fits_width("the merge preview").await;
    b.click("#merge-apply").await;
    b.wait_for_text("#contact-merged-count", "1 duplicate")
        .await;
    b.shot(&format!("{tag}-98-merged")).await;
    let ada_path = current_path(&b).await;
    // The duplicate's old conversation link opens Ada's conversation.
    b.open(&format!("{}/messaging/{dup_id}", server.base)).await;
    b.wait_for_text("#conversation-title", "Ada Lovelace").await;
    let path = current_path(&b).await;
    assert_eq!(
        path.rsplit('/').next(),
        ada_path.rsplit('/').next(),
        "redirected to the kept contact's conversation"
    );

    // Deleting her: the page says what goes and that an opt-out stays; confirming goes back to
    // Contacts, where nobody matches her name.
    b.open(&format!("{}{ada_path}", server.base)).await;
    b.click("#contact-delete-link").await;
    b.wait_for_text("#contact-delete-what", "scheduled texts")
        .await;
    b.wait_for_text("#contact-delete-keeps", "+14155552671")
        .await;
    b.shot(&format!("{tag}-99-delete-contact")).await;
    b.assert_fits_width("the delete-a-contact page").await;
    b.click("#contact-delete-confirm").await;
    b.fill("#contact-search", "Lovelace").await;
    b.wait_for_text("#contacts-count", "No contacts match.")
        .await;
    b.client.clone().close().await.unwrap();
}

async fn current_path(b: &Browser) -> String {
    let url = b.client.current_url().await.unwrap();
    url.path().to_owned()
}

async fn contact_page_on_a_desktop(backend: Backend) {
    the_contact_page(backend, Screen::Desktop).await
}

crate::on_both_databases!(contact_page_on_a_desktop);
crate::on_a_phone!(the_contact_page);
