//! Sign-in attempts limited per email and per client address (governor's keyed limiter).
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::num::NonZeroU32;

pub struct SignInLimiter {
    limiter: DefaultKeyedRateLimiter<String>,
}

impl SignInLimiter {
    pub fn new(per_minute: u32) -> Self {
        let n = NonZeroU32::new(per_minute.max(1)).expect("non-zero");
        Self {
            limiter: RateLimiter::keyed(Quota::per_minute(n)),
        }
    }

    /// Counts one attempt for this email and this address; `Err(seconds)` when either is over.
    pub fn check(&self, email: &str, address: &str) -> Result<(), u64> {
        let now = DefaultClock::default().now();
        for key in [
            format!("email:{}", email.to_lowercase()),
            format!("addr:{address}"),
        ] {
            if let Err(not_until) = self.limiter.check_key(&key) {
                return Err(not_until.wait_time_from(now).as_secs().max(1));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_applies_per_email_and_per_address() {
        let l = SignInLimiter::new(3);
        for _ in 0..3 {
            assert!(l.check("a@b.co", "1.1.1.1").is_ok());
        }
        assert!(
            l.check("a@b.co", "2.2.2.2").is_err(),
            "same email, other address"
        );
        assert!(
            l.check("c@d.co", "1.1.1.1").is_err(),
            "same address, other email"
        );
        assert!(l.check("c@d.co", "3.3.3.3").is_ok());
    }
}
