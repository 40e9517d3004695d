//! Settings → Sending's sender profiles: the organisation's profiles with today's use of each
//! daily cap, and which profile each number sends under. Owners add, change and remove
//! profiles and move numbers (`POST /settings/sending/profiles`, `…/profiles/delete`,
//! `…/numbers`); a refusal shows the page again with why and the form as typed.
// A handler's early exit is a whole response; boxing it would only move the size elsewhere.
#![allow(clippy::result_large_err)]
use crate::auth::session::Member;
use crate::campaign::sending_page::{page, Trouble};
use crate::error::{AppError, AppResult};
use crate::platform::AppState;
use crate::sender_profiles::model::{thousands, Kind, Unit};
use crate::sender_profiles::pacing::pacific_day;
use crate::sender_profiles::service;
use crate::server_page::Poster;
use axum::extract::{Form, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::Router;
use dioxus::prelude::*;
use uuid::Uuid;

/// Numbers listed with their profile; past it, the page says how many more there are.
const NUMBERS_SHOWN: u64 = 200;

pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/settings/sending/profiles", post(save))
        .route("/settings/sending/profiles/delete", post(delete))
        .route("/settings/sending/numbers", post(assign))
        .with_state(state)
}

/// The profile form as typed.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct ProfileForm {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub rate: String,
    #[serde(default)]
    pub rate_unit: String,
    #[serde(default)]
    pub daily_cap: String,
}

#[derive(serde::Deserialize)]
struct Pick {
    #[serde(default)]
    id: String,
    #[serde(default)]
    number_id: String,
    #[serde(default)]
    profile_id: String,
}

fn uuid_or(s: &str, what: &str) -> AppResult<Uuid> {
    Uuid::parse_str(s.trim()).map_err(|_| AppError::not_found(what))
}

async fn save(
    State(state): State<AppState>,
    Poster(m): Poster,
    Form(f): Form<ProfileForm>,
) -> Response {
    let id = Some(f.id.as_str());
    match service::save_typed(
        &state,
        &m,
        id,
        &f.name,
        &f.kind,
        &f.rate,
        &f.rate_unit,
        &f.daily_cap,
    )
    .await
    {
        Ok(_) => Redirect::to("/settings/sending?saved=profile").into_response(),
        Err(e) => page(&state, &m, Some(Trouble::Profile(e, f)), None).await,
    }
}

async fn delete(State(state): State<AppState>, Poster(m): Poster, Form(f): Form<Pick>) -> Response {
    let done = match uuid_or(&f.id, "Sender profile") {
        Ok(id) => service::delete(&state, &m, id).await,
        Err(e) => Err(e),
    };
    match done {
        Ok(()) => Redirect::to("/settings/sending?saved=removed").into_response(),
        Err(e) => page(&state, &m, Some(Trouble::Numbers(e)), None).await,
    }
}

async fn assign(State(state): State<AppState>, Poster(m): Poster, Form(f): Form<Pick>) -> Response {
    let done = async {
        let number = uuid_or(&f.number_id, "Phone number")?;
        let profile = match f.profile_id.trim() {
            "" => None,
            p => Some(uuid_or(p, "Sender profile")?),
        };
        service::assign(&state, &m, number, profile).await
    };
    match done.await {
        Ok(()) => Redirect::to("/settings/sending?saved=number").into_response(),
        Err(e) => page(&state, &m, Some(Trouble::Numbers(e)), None).await,
    }
}

/// The profile form's fields, filled with `f`.
fn fields(f: &ProfileForm, disabled: bool) -> Element {
    let kind = f.kind.clone();
    let unit = if f.rate_unit.is_empty() {
        "second".to_owned()
    } else {
        f.rate_unit.clone()
    };
    rsx! {
        input { r#type: "hidden", name: "id", value: "{f.id}" }
        label { "Name"
            input { name: "name", class: "profile-name", value: "{f.name}", maxlength: "80", disabled }
        }
        label { "Kind"
            select { name: "kind", class: "profile-kind", disabled,
                for k in Kind::ALL {
                    option { value: k.as_str(), selected: k.as_str() == kind, "{k.label()}" }
                }
            }
        }
        div { class: "row",
            label { "Rate (empty: the kind's usual)"
                input { name: "rate", class: "profile-rate", inputmode: "numeric", value: "{f.rate}", disabled }
            }
            label { "per"
                select { name: "rate_unit", class: "profile-unit", disabled,
                    for u in [Unit::Second, Unit::Minute] {
                        option { value: u.as_str(), selected: u.as_str() == unit, "{u.as_str()}" }
                    }
                }
            }
        }
        label { "Daily cap, 10DLC only (the brand's T-Mobile cap; empty: none known)"
            input { name: "daily_cap", class: "profile-cap", inputmode: "numeric", value: "{f.daily_cap}", disabled }
        }
    }
}

/// The sections: profiles, then numbers. `trouble` is a refused profile form (shown again as
/// typed) or a refused change to the numbers.
pub async fn sections(
    state: &AppState,
    m: &Member,
    profile_trouble: Option<(String, ProfileForm)>,
    numbers_trouble: Option<String>,
) -> AppResult<Element> {
    let org = m.organization_id;
    let owner = m.require_owner().is_ok();
    let profiles = service::list(state, org).await?;
    let per_profile = service::numbers_per_profile(state, org).await?;
    let (numbers, all_numbers) = service::numbers(state, org, NUMBERS_SHOWN).await?;
    let more = all_numbers.saturating_sub(numbers.len() as u64);
    let today = pacific_day(state.clock.now());
    let default_rate =
        crate::sender_profiles::model::per_second_words(state.engine().sends_per_second);
    let (error, typed) = match profile_trouble {
        Some((e, f)) => (Some(e), Some(f)),
        None => (None, None),
    };
    let typed_id = typed.as_ref().map(|f| f.id.clone());
    let new_form = match &typed {
        Some(f) if f.id.is_empty() => f.clone(),
        _ => ProfileForm {
            kind: Kind::TenDlc.as_str().into(),
            rate_unit: "minute".into(),
            ..Default::default()
        },
    };
    let rows: Vec<(String, String, String, String, String, u64, ProfileForm)> = profiles
        .iter()
        .map(|p| {
            let cap = p.daily_cap();
            let used = p.used_on(&today);
            let form = match &typed {
                Some(f) if f.id == p.id.to_string() => f.clone(),
                _ => ProfileForm {
                    id: p.id.to_string(),
                    name: p.name.clone(),
                    kind: p.kind.clone(),
                    rate: p.rate.to_string(),
                    rate_unit: p.rate_unit.clone(),
                    daily_cap: p.daily_cap.map(|c| c.to_string()).unwrap_or_default(),
                },
            };
            (
                p.id.to_string(),
                p.name.clone(),
                p.kind().label().to_owned(),
                p.rate().words(),
                match cap {
                    Some(c) => format!("{} of {}", thousands(used), thousands(c)),
                    None => "no cap".to_owned(),
                },
                per_profile.get(&Some(p.id)).copied().unwrap_or(0),
                form,
            )
        })
        .collect();
    let names: Vec<(String, String)> = profiles
        .iter()
        .map(|p| (p.id.to_string(), p.name.clone()))
        .collect();
    Ok(rsx! {
        section { class: "card", id: "sender-profiles",
            h2 { "Sender profiles" }
            p { "Carriers set how fast you may text per 10DLC campaign and brand, per toll-free number or per short code, not per number: adding numbers to a campaign does not raise its limit, and spreading texts across numbers to get round one is banned. The numbers in a profile share its rate, across every Herald instance. A 10DLC brand's T-Mobile daily cap counts from midnight Pacific; texts over it wait in Herald for the next day, then for each recipient's hours." }
            p { class: "muted small", id: "default-profile", "A number in no profile sends as an unregistered long code at {default_rate}, on its own." }
            if let Some(e) = &error { p { class: "error", role: "alert", id: "profile-error", "{e}" } }
            if rows.is_empty() {
                p { class: "muted", id: "no-profiles", "No sender profiles yet." }
            } else {
                table { class: "table", id: "profiles-table",
                    thead { tr { th { "Profile" } th { "Kind" } th { "Rate" } th { "Sent today (Pacific) of the daily cap" } th { "Numbers" } } }
                    tbody {
                        for (_, name, kind, rate, cap, n, _) in rows.iter() {
                            tr { "data-profile": "{name}",
                                td { "data-label": "Profile", "{name}" }
                                td { "data-label": "Kind", "{kind}" }
                                td { "data-label": "Rate", class: "profile-rate-words", "{rate}" }
                                td { "data-label": "Daily cap", class: "profile-cap-words", "{cap}" }
                                td { "data-label": "Numbers", class: "num", "{n}" }
                            }
                        }
                    }
                }
            }
            if owner {
                for (id, name, _, _, _, _, form) in rows.iter() {
                    details { class: "profile-edit", "data-profile": "{name}", open: typed_id.as_deref() == Some(id.as_str()),
                        summary { "Change or remove “{name}”" }
                        form { method: "post", action: "/settings/sending/profiles", class: "stack",
                            {fields(form, false)}
                            button { r#type: "submit", class: "profile-save", "Save" }
                        }
                        form { method: "post", action: "/settings/sending/profiles/delete",
                            input { r#type: "hidden", name: "id", value: "{id}" }
                            button { r#type: "submit", class: "danger profile-delete", "Remove (its numbers go back to no profile)" }
                        }
                    }
                }
                details { id: "add-profile", open: typed_id.as_deref() == Some(""),
                    summary { "Add a sender profile" }
                    form { method: "post", action: "/settings/sending/profiles", class: "stack",
                        {fields(&new_form, false)}
                        button { r#type: "submit", id: "profile-add", "Add the profile" }
                    }
                }
            } else {
                p { class: "muted small", "Only an owner changes these." }
            }
        }
        section { class: "card", id: "number-profiles",
            h2 { "Which profile each number sends under" }
            if let Some(e) = &numbers_trouble { p { class: "error", role: "alert", id: "numbers-error", "{e}" } }
            if numbers.is_empty() {
                p { class: "muted", "No numbers yet." }
            } else {
                table { class: "table",
                    thead { tr { th { "Number" } th { "Sender profile" } } }
                    tbody {
                        for (id, number, current) in numbers.iter() {
                            tr { "data-number": "{number}",
                                td { "data-label": "Number", "{number}" }
                                td { "data-label": "Sender profile",
                                    form { method: "post", action: "/settings/sending/numbers", class: "row",
                                        input { r#type: "hidden", name: "number_id", value: "{id}" }
                                        select { name: "profile_id", class: "number-profile", disabled: !owner,
                                            option { value: "", selected: current.is_none(), "None (unregistered, on its own)" }
                                            for (pid, pname) in names.iter() {
                                                option { value: "{pid}", selected: current.map(|c| c.to_string()).as_deref() == Some(pid.as_str()), "{pname}" }
                                            }
                                        }
                                        if owner {
                                            button { r#type: "submit", class: "secondary number-profile-save", "Save" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                if more > 0 {
                    p { class: "muted small", "and {more} more numbers, not shown." }
                }
            }
        }
    })
}
