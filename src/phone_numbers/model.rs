//! Phone-number types shared by the numbers page and the server.
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhoneNumberView {
    pub id: Uuid,
    pub number: String,
    pub friendly_name: String,
    pub provider_sid: Option<String>,
    /// New conversations here go to the members online, in turn.
    #[serde(default)]
    pub auto_assign: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhoneNumberInput {
    pub number: String,
    pub friendly_name: String,
    #[serde(default)]
    pub provider_sid: String,
    /// Assign each new inbound conversation to the next member online (round-robin).
    #[serde(default)]
    pub auto_assign: bool,
}

/// Which provider sends, and whether it checks that the account has a number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NumberProvider {
    pub name: String,
    /// False for the local outbox: numbers are free-form, for demos.
    pub checks_ownership: bool,
}
