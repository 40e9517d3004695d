//! Sealing secrets at rest with XChaCha20-Poly1305 under the server's key (`HERALD_SECRET_KEY`).
//! Each sealed value is bound to its organisation (associated data), so a ciphertext copied to
//! another organisation's row does not open.
use base64::Engine;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use uuid::Uuid;

#[derive(thiserror::Error, Debug, PartialEq)]
pub enum SealError {
    #[error("HERALD_SECRET_KEY is not set: this server cannot store provider credentials")]
    NoKey,
    #[error("stored credentials do not open with this HERALD_SECRET_KEY (was the key changed?)")]
    WrongKey,
}

pub use crate::platform::config::key_from_setting;

/// Seals `secret` for `org`: base64 of nonce ‖ ciphertext.
pub fn seal(key: Option<&[u8; 32]>, org: Uuid, secret: &str) -> Result<String, SealError> {
    let key = key.ok_or(SealError::NoKey)?;
    let cipher = XChaCha20Poly1305::new(key.into());
    let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
    let sealed = cipher
        .encrypt(
            &nonce,
            Payload {
                msg: secret.as_bytes(),
                aad: org.as_bytes(),
            },
        )
        .expect("encryption with a valid key cannot fail");
    let mut out = nonce.to_vec();
    out.extend(sealed);
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

pub fn open(key: Option<&[u8; 32]>, org: Uuid, sealed: &str) -> Result<String, SealError> {
    let key = key.ok_or(SealError::NoKey)?;
    let raw = base64::engine::general_purpose::STANDARD
        .decode(sealed)
        .map_err(|_| SealError::WrongKey)?;
    if raw.len() < 24 {
        return Err(SealError::WrongKey);
    }
    let (nonce, body) = raw.split_at(24);
    let plain = XChaCha20Poly1305::new(key.into())
        .decrypt(
            XNonce::from_slice(nonce),
            Payload {
                msg: body,
                aad: org.as_bytes(),
            },
        )
        .map_err(|_| SealError::WrongKey)?;
    String::from_utf8(plain).map_err(|_| SealError::WrongKey)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_secrets_open_only_with_their_key_and_organisation() {
        let key = key_from_setting("a long random passphrase for tests");
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let sealed = seal(Some(&key), a, "token-123").unwrap();
        assert!(!sealed.contains("token-123"));
        assert_ne!(
            sealed,
            seal(Some(&key), a, "token-123").unwrap(),
            "a fresh nonce each time"
        );
        assert_eq!(open(Some(&key), a, &sealed).unwrap(), "token-123");
        assert_eq!(open(Some(&key), b, &sealed), Err(SealError::WrongKey));
        let other = key_from_setting("another key");
        assert_eq!(open(Some(&other), a, &sealed), Err(SealError::WrongKey));
        assert_eq!(seal(None, a, "x"), Err(SealError::NoKey));
        let b64 = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        assert_eq!(key_from_setting(&b64), [7u8; 32]);
    }
}
