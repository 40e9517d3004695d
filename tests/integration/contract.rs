//! Herald's Twilio transport against Twilio's own OpenAPI description, served by a
//! spec-validating mock (Prism): every request Herald makes (a create with a status callback,
//! one through a Messaging Service, the list lookups with `To`, `From` and `DateSent>`) must
//! pass the spec; a request that breaks it would get a 422 and fail the test.
use herald::platform::config::TwilioConfig;
use herald::platform::sms::twilio::TwilioTransport;
use herald::platform::sms::{Lookup, OutboundSms, SmsTransport};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Prism(Child);

impl Drop for Prism {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

const SPEC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/contracts/twilio_api_v2010.json"
);
const ACCOUNT: &str = "AC0123456789abcdef0123456789abcdef";

/// Prism on a free port, or None (skipped) when it is not installed outside CI.
async fn prism() -> Option<(Prism, String)> {
    let port = crate::binary::free_port();
    let child = match Command::new("prism")
        .args(["mock", "-h", "127.0.0.1", "-p", &port.to_string(), SPEC])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true needs prism (scripts/setup.sh --test installs it): {e}")
        }
        Err(e) => {
            eprintln!("skipping the contract test: prism is not installed ({e})");
            return None;
        }
    };
    let prism = Prism(child);
    let base = format!("http://127.0.0.1:{port}");
    // Loading the 1.8 MB description takes Prism about half a minute.
    for _ in 0..1800 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Some((prism, base));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("prism never started listening");
}

fn config(base: &str, messaging_service: Option<&str>) -> TwilioConfig {
    TwilioConfig {
        account_sid: ACCOUNT.into(),
        auth_token: "0123456789abcdef0123456789abcdef".into(),
        messaging_service_sid: messaging_service.map(str::to_owned),
        status_callback_url: Some("https://herald.example/webhooks/twilio/status".into()),
        api_base: base.into(),
        timeout: Duration::from_secs(20),
    }
}

#[tokio::test]
async fn every_twilio_request_passes_the_spec() {
    let Some((_prism, base)) = prism().await else {
        return;
    };
    // The mock validates: a create without To is refused with 422.
    let refused = reqwest::Client::new()
        .post(format!(
            "{base}/2010-04-01/Accounts/{ACCOUNT}/Messages.json"
        ))
        .basic_auth(ACCOUNT, Some("x"))
        .form(&[("From", "+14155550100"), ("Body", "hi")])
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 422, "the mock checks requests");
    let sms = OutboundSms {
        from: crate::helpers::num("+14155550100"),
        to: crate::helpers::num("+14155552671"),
        body: "Hello from Herald".into(),
        idempotency_key: uuid::Uuid::new_v4().to_string(),
        account: None,
        media_urls: vec![],
    };
    for service in [None, Some("MG0123456789abcdef0123456789abcdef")] {
        let t = TwilioTransport::new(config(&base, service)).unwrap();
        let sent = t.send(&sms).await.unwrap_or_else(|e| panic!("create: {e}"));
        assert!(sent.provider_sid.starts_with("SM") || sent.provider_sid.starts_with("MM"));
        t.find(&Lookup {
            to: sms.to.clone(),
            from: sms.from.clone(),
            body: sms.body.clone(),
            since: chrono::Utc::now(),
            account: None,
        })
        .await
        .unwrap_or_else(|e| panic!("list: {e}"));
        // The account's numbers: the request passes the spec, and the answer decodes.
        t.ownership(&sms.from, None)
            .await
            .unwrap_or_else(|e| panic!("IncomingPhoneNumbers: {e}"));
    }
}
