//! What a sender profile is: its kind, its rate and, for 10DLC, the brand's daily cap; read
//! from Settings → Sending's form with a clear word for anything wrong.
use crate::error::{AppError, AppResult};

/// The kinds of sender carriers know, each with its own limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A long code with no 10DLC registration: carriers filter it, about a text a second.
    Unregistered,
    /// A registered 10DLC campaign: AT&T sets its texts a minute (4,500 down to 75 by class),
    /// T-Mobile its brand's daily cap (2,000 to 200,000 by trust score).
    TenDlc,
    /// A verified toll-free number: about 3 texts a second.
    TollFree,
    /// A short code: about 100 texts a second.
    ShortCode,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Unregistered,
        Kind::TenDlc,
        Kind::TollFree,
        Kind::ShortCode,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Unregistered => "unregistered",
            Kind::TenDlc => "10dlc",
            Kind::TollFree => "toll_free",
            Kind::ShortCode => "short_code",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    pub fn label(self) -> &'static str {
        match self {
            Kind::Unregistered => "Unregistered long code",
            Kind::TenDlc => "10DLC campaign",
            Kind::TollFree => "Toll-free",
            Kind::ShortCode => "Short code",
        }
    }

    /// The rate carriers give the kind unless told otherwise (10DLC: AT&T's lowest class).
    pub fn default_rate(self) -> Rate {
        match self {
            Kind::Unregistered => Rate::new(1, Unit::Second),
            Kind::TenDlc => Rate::new(75, Unit::Minute),
            Kind::TollFree => Rate::new(3, Unit::Second),
            Kind::ShortCode => Rate::new(100, Unit::Second),
        }
    }

    /// Only a 10DLC brand has T-Mobile's daily cap.
    pub fn has_daily_cap(self) -> bool {
        self == Kind::TenDlc
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Second,
    Minute,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Second => "second",
            Unit::Minute => "minute",
        }
    }

    pub fn parse(s: &str) -> Option<Unit> {
        [Unit::Second, Unit::Minute]
            .into_iter()
            .find(|u| u.as_str() == s)
    }

    fn micros(self) -> i64 {
        match self {
            Unit::Second => 1_000_000,
            Unit::Minute => 60_000_000,
        }
    }
}

/// Texts per second or per minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub n: u32,
    pub unit: Unit,
}

/// The most texts a profile may send per unit (above any carrier's class).
pub const MAX_RATE: u32 = 100_000;
/// The largest daily cap taken (T-Mobile's top tier is 200,000; some brands are uncapped).
pub const MAX_DAILY_CAP: u64 = 10_000_000;

impl Rate {
    pub const fn new(n: u32, unit: Unit) -> Self {
        Self { n, unit }
    }

    /// The time between two sends, in microseconds, rounded up so the rate is never exceeded.
    pub fn gap_us(self) -> i64 {
        let n = i64::from(self.n.max(1));
        (self.unit.micros() + n - 1) / n
    }

    /// Texts a second.
    pub fn per_second(self) -> f64 {
        f64::from(self.n) * 1_000_000.0 / self.unit.micros() as f64
    }

    /// "1 text a second", "4,500 texts a minute".
    pub fn words(self) -> String {
        let texts = if self.n == 1 { "text" } else { "texts" };
        format!(
            "{} {texts} a {}",
            thousands(u64::from(self.n)),
            self.unit.as_str()
        )
    }
}

/// A rate given in texts a second (the default profile's setting) in words.
pub fn per_second_words(per_second: f64) -> String {
    if per_second >= 1.0 && per_second.fract() == 0.0 && per_second <= f64::from(MAX_RATE) {
        Rate::new(per_second as u32, Unit::Second).words()
    } else {
        format!("{per_second} texts a second")
    }
}

/// 4500 → "4,500".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A profile as a person sets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub name: String,
    pub kind: Kind,
    pub rate: Rate,
    pub daily_cap: Option<u64>,
}

impl Settings {
    /// From the form's fields as typed, or why not. An empty rate is the kind's usual one; a
    /// daily cap is for 10DLC only, and may be left empty (none known).
    pub fn parse(name: &str, kind: &str, rate: &str, unit: &str, cap: &str) -> AppResult<Self> {
        let bad = |s: String| Err(AppError::Validation(s));
        let name = name.trim();
        if name.is_empty() {
            return bad("Give the profile a name.".into());
        }
        if name.chars().count() > 80 {
            return bad("A profile's name is at most 80 characters.".into());
        }
        let Some(kind) = Kind::parse(kind) else {
            return bad(format!("\"{kind}\" is not a kind of sender."));
        };
        let Some(unit) = Unit::parse(unit) else {
            return bad("The rate is texts a second or texts a minute.".into());
        };
        let digits = |s: &str| s.trim().replace([',', '_', ' '], "");
        let rate = match digits(rate).as_str() {
            "" => kind.default_rate(),
            r => match r.parse::<u32>() {
                Ok(n) if (1..=MAX_RATE).contains(&n) => Rate::new(n, unit),
                _ => {
                    return bad(format!(
                        "The rate \"{}\" is not a whole number of texts from 1 to {}.",
                        rate.trim(),
                        thousands(MAX_RATE.into())
                    ))
                }
            },
        };
        let daily_cap = match (kind.has_daily_cap(), digits(cap).as_str()) {
            (_, "") => None,
            (false, _) => {
                return bad(format!(
                    "Only a 10DLC brand has a daily cap; a {} has none.",
                    kind.label().to_lowercase()
                ))
            }
            (true, c) => match c.parse::<u64>() {
                Ok(n) if (1..=MAX_DAILY_CAP).contains(&n) => Some(n),
                _ => {
                    return bad(format!(
                        "The daily cap \"{}\" is not a whole number of texts from 1 to {}.",
                        cap.trim(),
                        thousands(MAX_DAILY_CAP)
                    ))
                }
            },
        };
        Ok(Self {
            name: name.to_owned(),
            kind,
            rate,
            daily_cap,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_is_never_exceeded_and_reads_in_words() {
        assert_eq!(Rate::new(1, Unit::Second).gap_us(), 1_000_000);
        assert_eq!(Rate::new(3, Unit::Second).gap_us(), 333_334);
        assert_eq!(Rate::new(4500, Unit::Minute).gap_us(), 13_334);
        assert!(Rate::new(3, Unit::Second).per_second() <= 3.0);
        assert_eq!(
            Rate::new(4500, Unit::Minute).words(),
            "4,500 texts a minute"
        );
        assert_eq!(Rate::new(1, Unit::Second).words(), "1 text a second");
    }

    #[test]
    fn the_form_is_read_or_refused_with_a_reason() {
        let s = Settings::parse(" Spring ", "10dlc", "4,500", "minute", "2000").unwrap();
        assert_eq!(s.name, "Spring");
        assert_eq!(s.rate, Rate::new(4500, Unit::Minute));
        assert_eq!(s.daily_cap, Some(2000));
        let d = Settings::parse("TF", "toll_free", "", "second", "").unwrap();
        assert_eq!(d.rate, Rate::new(3, Unit::Second));
        for (args, why) in [
            (("", "10dlc", "1", "second", ""), "name"),
            (("A", "fax", "1", "second", ""), "kind"),
            (("A", "10dlc", "0", "second", ""), "rate"),
            (("A", "10dlc", "fast", "second", ""), "rate"),
            (("A", "10dlc", "1", "hour", ""), "second"),
            (("A", "toll_free", "3", "second", "500"), "daily cap"),
            (("A", "10dlc", "75", "minute", "-1"), "daily cap"),
        ] {
            let e = Settings::parse(args.0, args.1, args.2, args.3, args.4).unwrap_err();
            assert!(e.to_string().contains(why), "{args:?}: {e}");
        }
    }
}
