//! The settings that decide who may come in: the sign-up mode, the demo seed, and the metrics
//! token. Read from the environment by `Config::from_env`.
use crate::platform::config::TransportKind;

/// Where Twilio posts texts and status callbacks (`messaging::webhook` serves them; the status
/// callback URL Herald gives Twilio is checked against it here).
pub const SMS_PATH: &str = "/webhooks/twilio/sms";
pub const STATUS_PATH: &str = "/webhooks/twilio/status";

/// Who may create an organisation (`SIGN_UP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignUpMode {
    /// The default: the first visitor of an empty instance sets it up; after that, people join
    /// by an owner's invitation only.
    Invite,
    /// Anyone may create an organisation (a hosted, multi-organisation service).
    Open,
}

impl SignUpMode {
    pub fn parse(v: Option<&str>) -> Result<Self, String> {
        match v.map(str::trim) {
            None | Some("invite") => Ok(Self::Invite),
            Some("open") => Ok(Self::Open),
            Some(other) => Err(format!("SIGN_UP must be invite or open, not {other}")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Invite => "invite",
            Self::Open => "open",
        }
    }
}

/// Whether to seed the demo organisation (`SEED_DEMO`). The demo owner's password is public, so
/// it never seeds in production or where texts reach real phones (the Twilio transport): asked
/// for there, start-up is refused with a message naming the setting.
pub fn seed_demo(
    setting: Option<&str>,
    production: bool,
    transport: TransportKind,
) -> Result<bool, String> {
    let asked = setting.map(|v| v.trim() != "false" && v.trim() != "0");
    match asked {
        Some(true) if production => Err(
            "SEED_DEMO=true is refused when HERALD_ENV=production: the demo owner's password is \
             public. Unset SEED_DEMO: the first visitor of an empty Herald sets it up and becomes \
             its owner."
                .into(),
        ),
        Some(true) if transport == TransportKind::Twilio => Err(
            "SEED_DEMO=true is refused with SMS_TRANSPORT=twilio: the demo's contacts would be \
             texted for real. Unset SEED_DEMO."
                .into(),
        ),
        Some(v) => Ok(v),
        None => Ok(!production && transport == TransportKind::Outbox),
    }
}

/// The one-time token the first sign-up of a production Herald needs (`HERALD_SETUP_TOKEN`, else
/// a random one printed once at start-up while no organisation exists). Outside production the
/// first visitor sets Herald up without one, as on a developer's machine.
pub fn setup_token(setting: Option<String>, production: bool) -> Option<String> {
    match (setting, production) {
        (Some(t), _) => Some(t.trim().to_owned()),
        (None, true) => {
            use rand::Rng;
            let bytes: [u8; 18] = rand::thread_rng().gen();
            use base64::Engine;
            Some(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
        }
        (None, false) => None,
    }
}

/// Whether organisations without a Twilio account of their own text through the operator's
/// (`SHARE_OPERATOR_ACCOUNT`): by default yes on a developer's single-organisation install, and
/// never unless the operator says so in production or on an open service.
pub fn share_operator_account(
    setting: Option<&str>,
    production: bool,
    sign_up: SignUpMode,
) -> Result<bool, String> {
    match setting.map(str::trim) {
        None => Ok(!production && sign_up == SignUpMode::Invite),
        Some("true" | "1") => Ok(true),
        Some("false" | "0") => Ok(false),
        Some(other) => Err(format!(
            "SHARE_OPERATOR_ACCOUNT must be true or false, not {other}"
        )),
    }
}

/// `TWILIO_STATUS_CALLBACK_URL`, when set, must be Herald's own status address under
/// `PUBLIC_URL`: Twilio signs each callback over the address it was given, and Herald checks the
/// signature over `PUBLIC_URL`, so callbacks sent anywhere else would all be refused.
pub fn check_status_callback(url: Option<&str>, public_url: &str) -> Result<(), String> {
    let Some(url) = url else { return Ok(()) };
    let ours = format!("{}{}", public_url.trim_end_matches('/'), STATUS_PATH);
    let (address, _query) = url.trim().split_once('?').unwrap_or((url.trim(), ""));
    if address == ours {
        return Ok(());
    }
    Err(format!(
        "TWILIO_STATUS_CALLBACK_URL is {url}, but it must be {ours} (optionally with a query): \
         Twilio signs each delivery callback over the address it was given, and Herald checks \
         the signature over PUBLIC_URL, so callbacks to any other address would all be refused."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_up_is_by_invitation_unless_opened() {
        assert_eq!(SignUpMode::parse(None), Ok(SignUpMode::Invite));
        assert_eq!(SignUpMode::parse(Some("open")), Ok(SignUpMode::Open));
        assert!(SignUpMode::parse(Some("anyone"))
            .unwrap_err()
            .contains("SIGN_UP"));
    }

    #[test]
    fn production_sets_up_with_a_token_and_lends_no_account_unasked() {
        assert_eq!(setup_token(None, false), None);
        let made = setup_token(None, true).unwrap();
        assert!(made.len() >= 24, "{made}");
        assert_ne!(Some(made), setup_token(None, true), "random each start");
        assert_eq!(
            setup_token(Some(" given ".into()), false).as_deref(),
            Some("given")
        );
        use SignUpMode::*;
        assert_eq!(share_operator_account(None, false, Invite), Ok(true));
        assert_eq!(share_operator_account(None, true, Invite), Ok(false));
        assert_eq!(share_operator_account(None, false, Open), Ok(false));
        assert_eq!(share_operator_account(Some("true"), true, Open), Ok(true));
        assert!(share_operator_account(Some("yes"), true, Open).is_err());
    }

    #[test]
    fn the_status_callback_is_herald_s_own_under_the_public_url() {
        let public = "https://sms.example.com/";
        assert!(check_status_callback(None, public).is_ok());
        assert!(check_status_callback(
            Some("https://sms.example.com/webhooks/twilio/status"),
            public
        )
        .is_ok());
        assert!(check_status_callback(
            Some("https://sms.example.com/webhooks/twilio/status?region=us"),
            public
        )
        .is_ok());
        for wrong in [
            "http://sms.example.com/webhooks/twilio/status",
            "https://other.example.com/webhooks/twilio/status",
            "https://sms.example.com/webhooks/twilio/sms",
        ] {
            let e = check_status_callback(Some(wrong), public).unwrap_err();
            assert!(
                e.contains("must be https://sms.example.com/webhooks/twilio/status"),
                "{e}"
            );
        }
    }

    #[test]
    fn the_demo_never_seeds_in_production_or_on_twilio() {
        use TransportKind::*;
        assert_eq!(seed_demo(None, false, Outbox), Ok(true));
        assert_eq!(seed_demo(None, true, Outbox), Ok(false));
        assert_eq!(seed_demo(None, false, Twilio), Ok(false));
        assert!(seed_demo(Some("true"), true, Outbox)
            .unwrap_err()
            .contains("SEED_DEMO=true is refused when HERALD_ENV=production"));
        assert!(seed_demo(Some("1"), false, Twilio).is_err());
        assert_eq!(seed_demo(Some("false"), true, Twilio), Ok(false));
        assert_eq!(seed_demo(Some("true"), false, Outbox), Ok(true));
    }
}
