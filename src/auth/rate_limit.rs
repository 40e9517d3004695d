//! Sign-in and sign-up attempts limited per (email, client address) and per client address,
//! counted in the database so every instance shares one limit (a per-process counter would give
//! an attacker one allowance per instance). Fixed one-minute windows per key, advanced by one
//! atomic upsert. Not per email alone: a stranger who tries someone's email from their own address
//! uses up their own allowance, never the person's (issue 49 §9). Wrong passwords for one
//! (email, address) also make each next try wait longer, doubling from one second after five.
use crate::error::AppResult;
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};

const WINDOW_MS: i64 = 60_000;

/// Attempts of one kind (signing in, signing up) per email and per client address.
pub struct SignInLimiter {
    kind: &'static str,
    per_minute: u32,
}

impl SignInLimiter {
    /// Sign-in attempts.
    pub fn new(per_minute: u32) -> Self {
        Self::of("signin", per_minute)
    }

    /// Attempts of `kind`, counted apart from every other kind.
    pub fn of(kind: &'static str, per_minute: u32) -> Self {
        Self {
            kind,
            per_minute: per_minute.max(1),
        }
    }

    /// Counts one attempt for this email and this address; `Err(seconds)` when either is over.
    /// The email is normalised exactly as accounts store it, so case and spaces buy nothing.
    pub async fn check(
        &self,
        db: &DatabaseConnection,
        now: DateTime<Utc>,
        email: &str,
        address: &str,
    ) -> AppResult<Result<(), u64>> {
        for key in [
            pair_key(self.kind, email, address),
            format!("{}:addr:{}", self.kind, address_key(address)),
        ] {
            let (hits, start) = hit(db, &key, now.timestamp_millis()).await?;
            if hits > self.per_minute as i64 {
                let wait_ms = (start + WINDOW_MS - now.timestamp_millis()).max(1000);
                return Ok(Err((wait_ms as u64).div_ceil(1000)));
            }
        }
        Ok(Ok(()))
    }
}

/// Wrong passwords for one (email, address) before each next try waits.
pub const FREE_FAILURES: i64 = 5;
/// The longest wait after wrong passwords.
pub const MAX_DELAY_SECS: i64 = 900;

fn pair_key(kind: &str, email: &str, address: &str) -> String {
    format!(
        "{kind}:pair:{}|{}",
        crate::auth::service::normalize_email(email),
        address_key(address)
    )
}

fn failures_key(email: &str, address: &str) -> String {
    pair_key("signin-failed", email, address)
}

/// The wait after `failures` wrong passwords in a row: none for the first five, then one second,
/// doubling each time, fifteen minutes at most.
pub fn delay_after(failures: i64) -> i64 {
    if failures < FREE_FAILURES {
        return 0;
    }
    let doublings = (failures - FREE_FAILURES).min(20) as u32;
    (1i64 << doublings).min(MAX_DELAY_SECS)
}

/// `Err(seconds)` while wrong passwords from this address for this email make the next try wait.
pub async fn wait_after_failures(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    email: &str,
    address: &str,
) -> AppResult<Result<(), u64>> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => "SELECT hits, window_start_ms FROM rate_limit WHERE key = $1",
        _ => "SELECT hits, window_start_ms FROM rate_limit WHERE key = ?",
    };
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [failures_key(email, address).into()],
        ))
        .await?;
    let Some(row) = row else { return Ok(Ok(())) };
    let failures = i64::from(row.try_get::<i32>("", "hits")?);
    let last_ms = row.try_get::<i64>("", "window_start_ms")?;
    let until_ms = last_ms + delay_after(failures) * 1000;
    let now_ms = now.timestamp_millis();
    Ok(if now_ms < until_ms {
        Err(((until_ms - now_ms) as u64).div_ceil(1000))
    } else {
        Ok(())
    })
}

/// Counts a wrong password for this email from this address (kept an hour past the last one).
pub async fn failed(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    email: &str,
    address: &str,
) -> AppResult<()> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "INSERT INTO rate_limit (key, window_start_ms, hits) VALUES ($1, $2, 1) \
             ON CONFLICT (key) DO UPDATE SET hits = rate_limit.hits + 1, window_start_ms = $2"
        }
        _ => {
            "INSERT INTO rate_limit (key, window_start_ms, hits) VALUES (?1, ?2, 1) \
             ON CONFLICT (key) DO UPDATE SET hits = rate_limit.hits + 1, window_start_ms = ?2"
        }
    };
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        sql,
        [
            failures_key(email, address).into(),
            now.timestamp_millis().into(),
        ],
    ))
    .await?;
    Ok(())
}

/// A right password: the wrong ones before it are forgotten.
pub async fn succeeded(db: &DatabaseConnection, email: &str, address: &str) -> AppResult<()> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => "DELETE FROM rate_limit WHERE key = $1",
        _ => "DELETE FROM rate_limit WHERE key = ?",
    };
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        sql,
        [failures_key(email, address).into()],
    ))
    .await?;
    Ok(())
}

/// The address an attempt counts against: an IPv4 address, or an IPv6 address's /64 (one
/// subscriber's network: a single client holds all of it, and could otherwise take a fresh
/// address for every attempt).
pub fn address_key(address: &str) -> String {
    match address.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
        _ => address.to_owned(),
    }
}

/// Counts a hit on `key`: answers the hits in its current window and when the window began.
async fn hit(db: &DatabaseConnection, key: &str, now_ms: i64) -> AppResult<(i64, i64)> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "INSERT INTO rate_limit (key, window_start_ms, hits) VALUES ($1, $2, 1) \
             ON CONFLICT (key) DO UPDATE SET \
             hits = CASE WHEN rate_limit.window_start_ms <= $3 THEN 1 ELSE rate_limit.hits + 1 END, \
             window_start_ms = CASE WHEN rate_limit.window_start_ms <= $3 THEN $2 ELSE rate_limit.window_start_ms END \
             RETURNING hits, window_start_ms"
        }
        _ => {
            "INSERT INTO rate_limit (key, window_start_ms, hits) VALUES (?1, ?2, 1) \
             ON CONFLICT (key) DO UPDATE SET \
             hits = CASE WHEN rate_limit.window_start_ms <= ?3 THEN 1 ELSE rate_limit.hits + 1 END, \
             window_start_ms = CASE WHEN rate_limit.window_start_ms <= ?3 THEN ?2 ELSE rate_limit.window_start_ms END \
             RETURNING hits, window_start_ms"
        }
    };
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [key.into(), now_ms.into(), (now_ms - WINDOW_MS).into()],
        ))
        .await?
        .ok_or_else(|| crate::error::AppError::Internal("rate limit".into()))?;
    Ok((
        row.try_get::<i32>("", "hits").map(i64::from)?,
        row.try_get::<i64>("", "window_start_ms")?,
    ))
}

/// Forgets windows that ended long ago (the sweeper calls it).
pub async fn forget_old(db: &DatabaseConnection, now: DateTime<Utc>) -> AppResult<()> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => "DELETE FROM rate_limit WHERE window_start_ms < $1",
        _ => "DELETE FROM rate_limit WHERE window_start_ms < ?",
    };
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        sql,
        [(now.timestamp_millis() - 3_600_000).into()],
    ))
    .await?;
    Ok(())
}

/// The sign-in and sign-up limiters of one server.
pub struct Limiters {
    pub sign_in: SignInLimiter,
    pub sign_up: SignInLimiter,
}

impl crate::platform::AppState {
    pub fn sign_in_limiter(&self) -> &SignInLimiter {
        &self.part::<std::sync::Arc<Limiters>>().sign_in
    }
    pub fn sign_up_limiter(&self) -> &SignInLimiter {
        &self.part::<std::sync::Arc<Limiters>>().sign_up
    }
}

#[cfg(test)]
mod tests {
    use super::{address_key, delay_after};

    #[test]
    fn wrong_passwords_wait_longer_and_longer() {
        assert_eq!((0..5).map(delay_after).max(), Some(0));
        assert_eq!(delay_after(5), 1);
        assert_eq!(delay_after(6), 2);
        assert_eq!(delay_after(10), 32);
        assert_eq!(delay_after(100), 900);
    }

    #[test]
    fn ipv6_addresses_count_by_their_64() {
        assert_eq!(address_key("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
        assert_eq!(
            address_key("2001:db8:1:2:ffff:ffff:ffff:ffff"),
            address_key("2001:db8:1:2::9")
        );
        assert_ne!(
            address_key("2001:db8:1:3::1"),
            address_key("2001:db8:1:2::1")
        );
        assert_eq!(address_key("10.1.2.3"), "10.1.2.3");
        assert_eq!(address_key("::ffff:10.1.2.3"), "10.1.2.3");
        assert_eq!(address_key("unknown"), "unknown");
    }
}
