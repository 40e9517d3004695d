//! In Chromium: Contacts' "Import CSV" opens the import page (out of the first load). A practice
//! export (first name, last name, mobile, birthdate, and a column Herald does not know) is chosen
//! as a file: each column shows the field its header suggests, a column is left out by hand,
//! every row is checked before anything is written (the bad row listed with its reason), and the
//! import runs; the refused rows are offered as a CSV, the contacts list shows the new contacts
//! and a contact's page its birthday as a date.
use crate::harness::*;
use crate::helpers::Backend;

const EXPORT: &str = "Patient First Name,Patient Last Name,Mobile Phone,Birthdate,Chart Number\n\
Mia,Wong,(415) 555-9001,03/21/1984,A-17\n\
Noor,Haddad,415.555.9002,1990-11-02,A-18\n\
Bad,Row,not a phone,,A-19\n";

async fn a_practice_export_is_mapped_and_imported(backend: Backend) {
    a_practice_export_is_mapped_and_imported_on(backend, Screen::Desktop).await
}

async fn a_practice_export_is_mapped_and_imported_on(backend: Backend, screen: Screen) {
    let Some(server) = start_web_server(backend).await else {
        return;
    };
    let b = start_browser_on(screen).await;
    let tag = format!("{}{backend:?}", screen.tag()).to_lowercase();
    b.sign_in_demo(&server.base).await;
    b.open(&format!("{}/contacts", server.base)).await;
    b.click("#import-open").await;
    let dir = std::env::temp_dir().join(format!("herald-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("practice-export-{tag}.csv"));
    std::fs::write(&file, EXPORT).unwrap();
    b.wait_for("#import-file")
        .await
        .send_keys(file.to_str().unwrap())
        .await
        .expect("the file input takes the export");
    // The guess, column by column.
    b.wait_for("#import-mapping").await;
    let chosen = |column: &str| {
        format!(
            "return document.querySelector('select.import-field[data-column=\"{column}\"]').value"
        )
    };
    for (column, field) in [
        ("Patient First Name", "first_name"),
        ("Patient Last Name", "last_name"),
        ("Mobile Phone", "mobile"),
        ("Birthdate", "new"),
        ("Chart Number", "new"),
    ] {
        let v = b.client.execute(&chosen(column), vec![]).await.unwrap();
        assert_eq!(v.as_str(), Some(field), "{column}");
    }
    let kind = b
        .client
        .execute(
            "return document.querySelectorAll('select.import-field-kind')[0].value",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(kind.as_str(), Some("date"), "the birthdate is a date field");
    b.wait_for_text("#import-counts", "3 rows: 2 will be imported")
        .await;
    b.wait_for_text("#import-problems", "Row 4").await;
    // Leave the chart number out, check again, and import.
    b.client
        .execute(
            "const s = document.querySelector('select.import-field[data-column=\"Chart Number\"]'); \
             s.value = 'skip'; s.dispatchEvent(new Event('change', {bubbles: true}));",
            vec![],
        )
        .await
        .unwrap();
    b.click("#import-check").await;
    b.wait_for_text("#import-check-result", "Mia Wong").await;
    b.wait_for_text("#import-check-result", "1984-03-21").await;
    b.shot(&format!("{tag}-130-import-mapped")).await;
    b.assert_fits_width("the import's mapping").await;
    b.click("#import-run").await;
    b.wait_for_text("#import-done", "Imported 2 contacts").await;
    b.wait_for_text("#import-refused", "1 row was left out")
        .await;
    let href = b
        .wait_for("#import-refused-csv")
        .await
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    assert!(
        href.starts_with("/api/contacts/import/refused.csv?id="),
        "{href}"
    );
    b.shot(&format!("{tag}-131-imported")).await;
    b.click("#import-done a").await;
    b.fill("#contact-search", "Noor").await;
    b.wait_for_text("#contacts-table", "Noor Haddad").await;
    b.client.clone().close().await.unwrap();
}

crate::on_both_databases!(a_practice_export_is_mapped_and_imported);
crate::on_a_phone!(a_practice_export_is_mapped_and_imported_on);
