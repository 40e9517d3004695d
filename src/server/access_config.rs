//! The settings that decide who may come in: the sign-up mode, the demo seed, and the metrics
//! token. Read from the environment by `Config::from_env`.
use crate::server::config::TransportKind;

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
