//! Types the sign-in pages and the server exchange.
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Member,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Member => "member",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "owner" => Some(Role::Owner),
            "member" => Some(Role::Member),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignUpForm {
    pub organization_name: String,
    pub name: String,
    pub email: String,
    pub password: String,
    /// The one-time set-up token a production Herald's first sign-up needs.
    #[serde(default)]
    pub setup_token: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignInForm {
    pub email: String,
    pub password: String,
    /// Which of the account's organisations to open; needed when it belongs to several.
    #[serde(default)]
    pub organization_id: Option<Uuid>,
}

/// One organisation an account belongs to, to choose after signing in or to switch to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrganizationChoice {
    pub id: Uuid,
    pub name: String,
    pub role: Role,
}

/// What signing in did: a session in the one organisation, or (for an account in several, when
/// none was named) the list to choose from. No session starts until one is chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SignInResult {
    SignedIn(CurrentUser),
    Choose(Vec<OrganizationChoice>),
}

/// How this instance lets people in, for the sign-up page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignUpState {
    /// "invite" or "open".
    pub mode: String,
    /// No organisation yet: the first visitor sets Herald up and becomes its owner.
    pub first_run: bool,
    /// The first sign-up needs the set-up token printed at the server's start (production).
    #[serde(default)]
    pub needs_setup_token: bool,
}

impl SignUpState {
    pub fn allowed(&self) -> bool {
        self.first_run || self.mode == "open"
    }
}

/// What an invitation link says before it is accepted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvitationInfo {
    pub organization_name: String,
    pub role: Role,
    pub invited_by: String,
}

/// A new invitation: the link is shown once, to the owner who made it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvitationCreated {
    pub id: Uuid,
    pub token: String,
    pub url: String,
    pub expires_at: chrono::DateTime<chrono::Utc>,
    /// Whom it is for (when given).
    #[serde(default)]
    pub email: Option<String>,
    /// The link went to them by email; false: copy it to them (email is not set up, or no
    /// address was given).
    #[serde(default)]
    pub emailed: bool,
    /// Whether this server sends email at all (`SMTP_URL`).
    #[serde(default)]
    pub email_set_up: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvitationView {
    pub id: Uuid,
    pub role: Role,
    pub invited_by: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub expires_at: chrono::DateTime<chrono::Utc>,
    /// "pending", "accepted", "revoked" or "expired".
    pub status: String,
    /// Who accepted it, once accepted.
    pub accepted_by: Option<String>,
    /// Whom it was for.
    #[serde(default)]
    pub email: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AcceptInvitationForm {
    pub token: String,
    pub name: String,
    pub email: String,
    pub password: String,
}

/// What removing a member did, for the page to say.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemberRemoved {
    pub name: String,
    pub sessions_ended: u64,
    /// Their agents, now paused (suggest mode) and owned by the owner who removed them.
    pub agents_reassigned: Vec<String>,
    pub assistant_threads_archived: u64,
}

/// One signed-in browser or app of the current user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    pub id: Uuid,
    pub device: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub last_seen_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The session this page is using.
    pub current: bool,
}

/// An API key the current user made, still in force: listed with their sessions, since a key
/// keeps acting for them after they sign out everywhere.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MyApiKey {
    pub id: Uuid,
    pub name: String,
    pub prefix: String,
    pub organization_name: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub last_used_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResetLink {
    pub url: String,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// Who is signed in, and where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurrentUser {
    pub user_id: Uuid,
    pub name: String,
    pub email: String,
    pub organization_id: Uuid,
    pub organization_name: String,
    pub role: Role,
    /// Whether the phone simulator page is on for this server.
    pub simulator_enabled: bool,
    /// Every organisation the account belongs to (this one too), for the switcher.
    #[serde(default)]
    pub organizations: Vec<OrganizationChoice>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemberView {
    pub user_id: Uuid,
    pub name: String,
    pub email: String,
    pub role: Role,
}

pub const MIN_PASSWORD_LEN: usize = 8;

/// Checks an email and password the same way on both sides, so the form can say what is wrong.
pub fn validate_credentials(email: &str, password: &str) -> Result<(), String> {
    let email = email.trim();
    let at = email.find('@');
    if email.len() > 254 || at.is_none_or(|i| i == 0 || !email[i + 1..].contains('.')) {
        return Err("Enter a valid email address.".into());
    }
    validate_password(password)
}

/// A new password: long enough, and not absurdly long (Argon2 reads all of it).
pub fn validate_password(password: &str) -> Result<(), String> {
    let n = password.chars().count();
    if n < MIN_PASSWORD_LEN {
        return Err(format!(
            "The password must have at least {MIN_PASSWORD_LEN} characters."
        ));
    }
    if n > 1024 {
        return Err("The password may have at most 1024 characters.".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_checked() {
        assert!(validate_credentials("a@b.co", "longenough").is_ok());
        assert!(validate_credentials("nobody", "longenough").is_err());
        assert!(validate_credentials("a@b", "longenough").is_err());
        assert!(validate_credentials("a@b.co", "short").is_err());
    }
}

/// A person's email settings (Your account): their address, whether their notifications are
/// emailed to them too, and whether this server sends email at all (`SMTP_URL`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmailPreference {
    pub email: String,
    pub notifications: bool,
    pub email_set_up: bool,
}
