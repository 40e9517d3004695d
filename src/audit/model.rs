//! Audit entries as the owners' page shows them.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// What was done. Stored by name; the page shows `label`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditAction {
    MemberInvited,
    InvitationRevoked,
    MemberJoined,
    MemberRemoved,
    RoleChanged,
    PasswordResetIssued,
    PasswordReset,
    CredentialsConnected,
    AgentWidened,
    OptOutCleared,
    SignUpRefused,
    ContactsExported,
    ContactsMerged,
    ContactDeleted,
    ApiKeyCreated,
    ApiKeyRevoked,
    ApiCall,
}

impl AuditAction {
    pub const ALL: [AuditAction; 17] = [
        Self::MemberInvited,
        Self::InvitationRevoked,
        Self::MemberJoined,
        Self::MemberRemoved,
        Self::RoleChanged,
        Self::PasswordResetIssued,
        Self::PasswordReset,
        Self::CredentialsConnected,
        Self::AgentWidened,
        Self::OptOutCleared,
        Self::SignUpRefused,
        Self::ContactsExported,
        Self::ContactsMerged,
        Self::ContactDeleted,
        Self::ApiKeyCreated,
        Self::ApiKeyRevoked,
        Self::ApiCall,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::MemberInvited => "member_invited",
            Self::InvitationRevoked => "invitation_revoked",
            Self::MemberJoined => "member_joined",
            Self::MemberRemoved => "member_removed",
            Self::RoleChanged => "role_changed",
            Self::PasswordResetIssued => "password_reset_issued",
            Self::PasswordReset => "password_reset",
            Self::CredentialsConnected => "credentials_connected",
            Self::AgentWidened => "agent_widened",
            Self::OptOutCleared => "opt_out_cleared",
            Self::SignUpRefused => "sign_up_refused",
            Self::ContactsExported => "contacts_exported",
            Self::ContactsMerged => "contacts_merged",
            Self::ContactDeleted => "contact_deleted",
            Self::ApiKeyCreated => "api_key_created",
            Self::ApiKeyRevoked => "api_key_revoked",
            Self::ApiCall => "api_call",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == s)
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::MemberInvited => "Invited a member",
            Self::InvitationRevoked => "Revoked an invitation",
            Self::MemberJoined => "Joined by invitation",
            Self::MemberRemoved => "Removed a member",
            Self::RoleChanged => "Changed a role",
            Self::PasswordResetIssued => "Issued a password reset link",
            Self::PasswordReset => "Password reset with a link",
            Self::CredentialsConnected => "Connected provider credentials",
            Self::AgentWidened => "Widened an autonomous agent",
            Self::OptOutCleared => "Cleared an opt-out",
            Self::SignUpRefused => "Refused a sign-up (invitation only)",
            Self::ContactsExported => "Exported contacts as CSV",
            Self::ContactsMerged => "Merged two contacts",
            Self::ContactDeleted => "Deleted a contact",
            Self::ApiKeyCreated => "Created an API key",
            Self::ApiKeyRevoked => "Revoked an API key",
            Self::ApiCall => "Called the API",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditEntryView {
    pub id: Uuid,
    pub at: DateTime<Utc>,
    /// The person who acted, or `API key "name"` for a call made with a key; None: the
    /// server or its operator.
    pub actor: Option<String>,
    pub action: String,
    pub label: String,
    pub target: String,
    pub detail: Option<String>,
}

/// One page of the log, newest first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditPage {
    pub entries: Vec<AuditEntryView>,
    /// The exact number of entries in the log.
    pub total: u64,
    /// Pass as `before` for the next (older) page; None: this is the last.
    pub next: Option<AuditCursor>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditCursor {
    pub at: DateTime<Utc>,
    pub id: Uuid,
}

pub const AUDIT_PAGE: u64 = 50;

#[cfg(test)]
mod tests {
    use super::AuditAction;

    #[test]
    fn every_action_reads_back_by_its_name() {
        for a in AuditAction::ALL {
            assert_eq!(AuditAction::parse(a.as_str()), Some(a));
            assert!(!a.label().is_empty());
        }
    }
}
