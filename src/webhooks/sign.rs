//! Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256(secret, id.ts.body)>`
//! with a `whsec_<base64>` secret, which any Standard Webhooks library verifies.
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// A fresh secret: 24 random bytes.
pub fn new_secret() -> String {
    use rand::RngCore;
    let mut raw = [0u8; 24];
    rand::thread_rng().fill_bytes(&mut raw);
    format!("whsec_{}", B64.encode(raw))
}

/// The `webhook-signature` header's value.
pub fn signature(secret: &str, id: &str, timestamp: i64, body: &str) -> String {
    let key = B64
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .unwrap_or_default();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key");
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    format!("v1,{}", B64.encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn signs_as_the_specification_example() {
        // The example in the Standard Webhooks specification.
        let s = super::signature(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(s, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(super::new_secret().starts_with("whsec_"));
    }
}
