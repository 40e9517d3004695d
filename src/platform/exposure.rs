//! Whether the server can be reached beyond this machine, and what that demands of the
//! webhooks: unsigned webhooks let anyone forge STOP, START, delivery callbacks and texts to
//! agents, so Herald refuses to start that way unless a person explicitly asks for it.
use super::config::TransportKind;
use std::net::IpAddr;

/// True when the server listens beyond loopback, or says (through `PUBLIC_URL`) that it is
/// reached through another host, such as a proxy or a tunnel.
pub fn reachable_beyond_loopback(ip: IpAddr, public_url: Option<&str>) -> bool {
    !ip.is_loopback() || public_url.is_some_and(|u| !is_loopback_url(u))
}

fn is_loopback_url(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        // Unparseable: assume the worst.
        return false;
    };
    match parsed.host_str() {
        Some(h) if h.eq_ignore_ascii_case("localhost") => true,
        Some(h) => h
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|a| a.is_loopback()),
        None => false,
    }
}

/// What the webhook settings allow. `Ok(true)` means unsigned webhooks were allowed on purpose
/// (the caller logs it loudly); `Ok(false)` means every webhook is checked or none can be
/// forged from outside.
pub fn check_webhook_signing(
    transport: TransportKind,
    exposed: bool,
    token_set: bool,
    allow_unsigned: bool,
) -> Result<bool, String> {
    if token_set {
        return Ok(false);
    }
    if transport == TransportKind::Twilio {
        return Err(
            "SMS_TRANSPORT=twilio needs TWILIO_AUTH_TOKEN: Herald checks every webhook's \
             X-Twilio-Signature with it (and it is the REST API's password)"
                .into(),
        );
    }
    if exposed {
        if allow_unsigned {
            return Ok(true);
        }
        return Err(
            "TWILIO_AUTH_TOKEN is not set and the server is reachable beyond loopback \
             (IP or PUBLIC_URL): anyone could forge texts, STOP and START to its webhooks. Set \
             TWILIO_AUTH_TOKEN, or ALLOW_UNSIGNED_WEBHOOKS=true for a local experiment only"
                .into(),
        );
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOPBACK: [u8; 4] = [127, 0, 0, 1];

    #[test]
    fn loopback_is_judged_by_the_address_and_the_public_url() {
        assert!(!reachable_beyond_loopback(LOOPBACK.into(), None));
        assert!(!reachable_beyond_loopback(
            LOOPBACK.into(),
            Some("http://localhost:8080")
        ));
        assert!(!reachable_beyond_loopback(
            LOOPBACK.into(),
            Some("http://[::1]:8080/")
        ));
        assert!(reachable_beyond_loopback([0, 0, 0, 0].into(), None));
        assert!(reachable_beyond_loopback(
            LOOPBACK.into(),
            Some("https://crm.example.com")
        ));
        assert!(reachable_beyond_loopback(
            LOOPBACK.into(),
            Some("not a url")
        ));
    }

    #[test]
    fn webhooks_fail_closed() {
        use TransportKind::*;
        // Local default: outbox on loopback needs no token.
        assert_eq!(
            check_webhook_signing(Outbox, false, false, false),
            Ok(false)
        );
        // A token makes everything safe.
        assert_eq!(check_webhook_signing(Twilio, true, true, false), Ok(false));
        // Twilio without a token: never, even when asked.
        for (exposed, allow) in [(false, false), (true, true), (false, true)] {
            let e = check_webhook_signing(Twilio, exposed, false, allow).unwrap_err();
            assert!(e.contains("TWILIO_AUTH_TOKEN"), "{e}");
        }
        // Reachable from outside without a token: refused unless explicitly allowed.
        let e = check_webhook_signing(Outbox, true, false, false).unwrap_err();
        assert!(e.contains("ALLOW_UNSIGNED_WEBHOOKS"), "{e}");
        assert_eq!(check_webhook_signing(Outbox, true, false, true), Ok(true));
    }
}
