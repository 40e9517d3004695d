//! Secret link tokens (sessions, invitations, password resets): 256 random bits, of which only a
//! SHA-256 hash is stored, so a copy of the database opens nothing.
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A fresh token and the hash to store for it.
pub fn new_token() -> (String, String) {
    let mut raw = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut raw);
    let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw);
    let hash = hash_token(&token);
    (token, hash)
}

pub fn hash_token(token: &str) -> String {
    let digest = Sha256::digest(token.trim().as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_fresh_and_only_their_hash_matches() {
        let (a, ha) = super::new_token();
        let (b, hb) = super::new_token();
        assert_ne!(a, b);
        assert_eq!(super::hash_token(&a), ha);
        assert_ne!(ha, hb);
        assert_ne!(a, ha, "the stored hash is not the token");
    }
}
