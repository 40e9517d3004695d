//! The audit log page, `/audit`, rendered by the server: owners read it a page of 50 at a time,
//! newest first, with the exact total, and "Older entries" walks back through every entry once;
//! a member is refused; another organisation's entries never show.
use crate::helpers::*;
use crate::on_both_databases;
use herald::audit::model::AuditAction;
use herald::audit::service::{record, Entry};
use reqwest::StatusCode;

on_both_databases!(owners_page_through_the_audit_log);

async fn owners_page_through_the_audit_log(backend: Backend) {
    let Some(app) = spawn_app(backend).await else {
        return;
    };
    let owner = app.new_org("Bright Smiles").await;
    let other = app.new_org("Other Co").await;
    let start = app.state.clock.now();
    for i in 0..120 {
        let org = if i % 10 == 9 { &other } else { &owner };
        let at = start + chrono::Duration::seconds(i);
        let target = format!("Contact {i:03} <b>");
        let entry = Entry {
            organization_id: Some(org.org_id),
            actor: None,
            action: AuditAction::ContactDeleted,
            target: &target,
            detail: None,
        };
        record(&app.state.db, entry, at).await.unwrap();
    }
    let ours = {
        use herald::audit::entity::audit_log;
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        audit_log::Entity::find()
            .filter(audit_log::Column::OrganizationId.eq(owner.org_id))
            .count(&app.state.db)
            .await
            .unwrap()
    };
    let mut seen = Vec::new();
    let mut path = "/audit".to_owned();
    for _ in 0..5 {
        let res = owner.client.get(app.url(&path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let html = res.text().await.unwrap();
        assert!(
            html.contains(&format!(" of {ours}")),
            "exact total {ours}: {}",
            &html[300..700]
        );
        assert!(!html.contains("<b>"), "escaped");
        for part in html.split("Contact ").skip(1) {
            seen.push(part[..3].to_owned());
        }
        match html.split("id=\"audit-older\"").next().and_then(|h| {
            h.rsplit("href=\"")
                .next()
                .map(|s| s.split('"').next().unwrap().to_owned())
        }) {
            Some(next) if html.contains("id=\"audit-older\"") => {
                path = next.replace("&amp;", "&").replace("&#38;", "&");
            }
            _ => break,
        }
        assert!(seen.len() <= 120, "paging went round: {path}");
    }
    let expected: Vec<String> = (0..120)
        .rev()
        .filter(|i| i % 10 != 9)
        .map(|i| format!("{i:03}"))
        .collect();
    assert_eq!(
        seen, expected,
        "every entry once, newest first, none of theirs"
    );

    let dana = app.add_member(&owner, "Dana").await;
    let res = dana.client.get(app.url("/audit")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(!res.text().await.unwrap().contains("Contact 000"));
}
