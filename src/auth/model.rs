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
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignInForm {
    pub email: String,
    pub password: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewMemberForm {
    pub name: String,
    pub email: String,
    pub password: String,
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
    if password.chars().count() < MIN_PASSWORD_LEN {
        return Err(format!(
            "The password must have at least {MIN_PASSWORD_LEN} characters."
        ));
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
