//! The team page: the organisation's members; owners invite people by link, change roles,
//! issue reset links and remove members.
use crate::auth::model::{CurrentUser, InvitationCreated, MemberView, Role};
use crate::team::api::{
    create_invitation, list_invitations, list_members, member_reset_link, remove_member,
    revoke_invitation, set_member_role,
};
use crate::ui::components::{use_act, Act, ErrorBanner};
use dioxus::prelude::*;

#[component]
pub fn Team() -> Element {
    let me = use_context::<CurrentUser>();
    let mut members = use_resource(list_members);
    let act = use_act();
    let note = use_signal(|| None::<String>);
    let owner = me.role == Role::Owner;
    let list = members.read().clone();
    rsx! {
        div { class: "page",
            header { class: "page-head", h1 { "Team" }
                if owner { a { href: "/audit", class: "button", id: "open-audit", "Audit log" } }
            }
            ErrorBanner { message: act.error() }
            if let Some(n) = note() { p { class: "notice", id: "team-note", "{n}" } }
            match list {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok(rows)) => {
                    let owners = rows.iter().filter(|m| m.role == Role::Owner).count();
                    rsx! {
                    table { class: "table", id: "members",
                        thead { tr { th { "Name" } th { "Email" } th { "Role" } if owner { th { "" } } } }
                        tbody {
                            for m in rows {
                                MemberRow { key: "{m.user_id}", m: m.clone(), owner, me: m.user_id == me.user_id,
                                    last_owner: m.role == Role::Owner && owners == 1,
                                    on_change: move |_| members.restart(), act, note }
                            }
                        }
                    }
                    }
                }
            }
            if owner { Invitations {} }
        }
    }
}

#[component]
fn MemberRow(
    m: MemberView,
    owner: bool,
    me: bool,
    /// The organisation's only owner: neither demoted nor removed.
    last_owner: bool,
    on_change: EventHandler<()>,
    act: Act,
    note: Signal<Option<String>>,
) -> Element {
    let mut confirming = use_signal(|| false);
    let id = m.user_id;
    let name = m.name.clone();
    let other = if m.role == Role::Owner {
        Role::Member
    } else {
        Role::Owner
    };
    let toggle_role = move |_| async move {
        if act.run(set_member_role(id, other)).await.is_some() {
            on_change.call(());
        }
    };
    let reset = move |_| async move {
        if let Some(link) = act.run(member_reset_link(id)).await {
            note.set(Some(format!(
                "A one-time reset link (give it to them yourself; it works once, for a day): {}",
                link.url
            )));
        }
    };
    let remove = move |_| async move {
        confirming.set(false);
        if let Some(r) = act.run(remove_member(id)).await {
            let agents = if r.agents_reassigned.is_empty() {
                "They directed no agents.".to_owned()
            } else {
                format!(
                    "Their agents are paused (suggest mode) and now yours: {}.",
                    r.agents_reassigned.join(", ")
                )
            };
            note.set(Some(format!(
                "{} was removed: {} session(s) ended at once. {agents} Their Assistant conversation is archived.",
                r.name, r.sessions_ended
            )));
            on_change.call(());
        }
    };
    rsx! {
        tr { class: "member-row", "data-email": "{m.email}",
            td { class: "cell-title", "{m.name}" if me { span { class: "badge", " you" } } }
            td { "data-label": "Email", "{m.email}" }
            td { "data-label": "Role", "{m.role.as_str()}" }
            if owner {
                td { class: "row-actions",
                    if last_owner {
                        span { class: "muted", "The only owner" }
                    } else {
                        button { class: "link-button", onclick: toggle_role,
                            if other == Role::Owner { "Make owner" } else { "Make member" } }
                    }
                    if !me {
                        button { class: "link-button", onclick: reset, "Reset link" }
                        if confirming() {
                            span { class: "confirm",
                                "Remove {name}? "
                                button { class: "danger remove-confirm", onclick: remove, "Remove" }
                                button { class: "link-button", onclick: move |_| confirming.set(false), "Keep" }
                            }
                        } else {
                            button { class: "link-button danger-text remove-member", onclick: move |_| confirming.set(true), "Remove" }
                        }
                    }
                }
            }
        }
    }
}

#[component]
fn Invitations() -> Element {
    let mut invitations = use_resource(list_invitations);
    let mut role = use_signal(|| Role::Member);
    let mut email = use_signal(String::new);
    let mut created = use_signal(|| None::<InvitationCreated>);
    let mut copied = use_signal(|| false);
    let act = use_act();
    let create = move |e: FormEvent| async move {
        e.prevent_default();
        let to = Some(email()).filter(|e| !e.trim().is_empty());
        if let Some(c) = act.run(create_invitation(role(), to)).await {
            email.set(String::new());
            created.set(Some(c));
            copied.set(false);
            invitations.restart();
        }
    };
    let list = invitations.read().clone();
    rsx! {
        form { class: "card inline-form", id: "invite-form", onsubmit: create,
            h2 { "Invite someone" }
            p { class: "muted", "An invitation is a link for one person, valid for 7 days. They choose their own password." }
            ErrorBanner { message: act.error() }
            input { id: "invite-email", r#type: "email", "aria-label": "Their email (optional)", placeholder: "Their email (optional)", value: "{email}", oninput: move |e| email.set(e.value()) }
            select { id: "invite-role", "aria-label": "Role", onchange: move |e| role.set(Role::parse(&e.value()).unwrap_or(Role::Member)),
                option { value: "member", selected: role() == Role::Member, "Member" }
                option { value: "owner", selected: role() == Role::Owner, "Owner" }
            }
            button { class: "primary", r#type: "submit", id: "invite-create", "Create invitation link" }
            if let Some(c) = created() {
                div { class: "notice invite-link", id: "invite-link",
                    if c.emailed {
                        p { id: "invite-emailed", "Emailed to {c.email.clone().unwrap_or_default()}. You can also copy the link:" }
                    } else if !c.email_set_up {
                        p { class: "muted small", id: "invite-no-email", "Email is not set up on this server (SMTP_URL), so copy the link to them." }
                    } else if c.email.is_some() {
                        p { class: "muted small", id: "invite-not-emailed", "The email could not be sent; copy the link to them." }
                    }
                    p { {format!("Send this link to the person you invite. It is shown only now, and works once, until {} UTC.", crate::ui::components::day_time_utc(c.expires_at).trim_end_matches(" UTC"))} }
                    input { readonly: true, id: "invite-url", value: "{c.url}", onfocus: move |_| { document::eval("document.getElementById('invite-url').select()"); } }
                    button { r#type: "button", id: "invite-copy", onclick: move |_| {
                        let url = c.url.clone();
                        async move {
                            let js = format!("navigator.clipboard && navigator.clipboard.writeText({:?})", url);
                            let _ = document::eval(&js).await;
                            copied.set(true);
                        }
                    }, if copied() { "Copied" } else { "Copy link" } }
                }
            }
        }
        section { class: "card",
            h2 { "Invitations" }
            match list {
                None => rsx! { p { class: "muted", "Loading…" } },
                Some(Err(e)) => rsx! { ErrorBanner { message: Some(e.to_string()) } },
                Some(Ok((rows, total))) => rsx! {
                    if rows.is_empty() { p { class: "muted", "No invitations yet." } }
                    if (rows.len() as u64) < total { p { class: "muted", "Showing the newest {rows.len()} of {total}." } }
                    table { class: "table", id: "invitations",
                        tbody {
                            for i in rows {
                                tr { key: "{i.id}", class: "invitation-{i.status}",
                                    td { class: "cell-title", "{i.role.as_str()}" }
                                    td { "data-label": "For", class: "invitation-email", "{whom(&i.email)}" }
                                    td { "data-label": "By", "{i.invited_by}" }
                                    td { "data-label": "Status",
                                        "{i.status}"
                                        if let Some(by) = i.accepted_by.clone() { " by {by}" }
                                        if i.status == "pending" { {format!(" · expires {}", crate::ui::components::day(i.expires_at))} }
                                    }
                                    td {
                                        if i.status == "pending" {
                                            button { class: "link-button", onclick: move |_| async move {
                                                act.run(revoke_invitation(i.id)).await;
                                                invitations.restart();
                                            }, "Revoke" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                },
            }
        }
    }
}

/// Whom an invitation was for.
fn whom(email: &Option<String>) -> String {
    email
        .clone()
        .unwrap_or_else(|| "anyone with the link".into())
}
