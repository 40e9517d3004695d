//! Reading one numeric setting: a number within its range, or a span of seconds, hours or
//! days. Unset, it takes its default; set badly, the problem is named (and the default stands
//! in, so that one bad setting hides no other).
use super::config::{var, Problems};
use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::Duration;

/// A span's unit, in seconds, and its word.
#[derive(Clone, Copy)]
pub enum Unit {
    Seconds,
    Hours,
    Days,
}

impl Unit {
    fn seconds(self) -> f64 {
        match self {
            Unit::Seconds => 1.0,
            Unit::Hours => 3600.0,
            Unit::Days => 86_400.0,
        }
    }
    fn word(self) -> &'static str {
        match self {
            Unit::Seconds => "seconds",
            Unit::Hours => "hours",
            Unit::Days => "days",
        }
    }
}

/// The setting `name` read from `raw`: `default` when unset, else a number within `range`.
pub fn number_from<T>(
    name: &str,
    raw: Option<&str>,
    default: T,
    range: &RangeInclusive<T>,
) -> Result<T, String>
where
    T: FromStr + PartialOrd + Display,
{
    let Some(raw) = raw else {
        return Ok(default);
    };
    match raw.trim().parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(format!(
            "{name} must be a number from {} to {}, not {raw:?}",
            range.start(),
            range.end()
        )),
    }
}

/// A span in `unit`s read from `raw`: `default` units when unset; above 0 (or 0 itself when
/// `zero` is allowed) and at most `max` units.
pub fn span_from(
    name: &str,
    raw: Option<&str>,
    default: f64,
    max: f64,
    zero: bool,
    unit: Unit,
) -> Result<Duration, String> {
    let units = match raw {
        None => default,
        Some(raw) => match raw.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v <= max && (v > 0.0 || (zero && v == 0.0)) => v,
            _ => {
                let least = if zero { "0" } else { "above 0" };
                return Err(format!(
                    "{name} must be a number of {} {least} and at most {max}, not {raw:?}",
                    unit.word()
                ));
            }
        },
    };
    Ok(Duration::from_secs_f64(units * unit.seconds()))
}

impl Problems {
    /// The number setting `name` within `range` (see `number_from`).
    pub fn number<T>(&mut self, name: &str, default: T, range: RangeInclusive<T>) -> T
    where
        T: FromStr + PartialOrd + Display + Copy,
    {
        let read = number_from(name, var(name).as_deref(), default, &range);
        self.or(read, default)
    }

    /// The span setting `name`, above 0 and at most `max` units (see `span_from`).
    pub fn span(&mut self, name: &str, default: f64, max: f64, unit: Unit) -> Duration {
        let read = span_from(name, var(name).as_deref(), default, max, false, unit);
        self.or(read, Duration::from_secs_f64(default * unit.seconds()))
    }

    /// As `span`, where 0 is allowed too (off).
    pub fn span_or_zero(&mut self, name: &str, default: f64, max: f64, unit: Unit) -> Duration {
        let read = span_from(name, var(name).as_deref(), default, max, true, unit);
        self.or(read, Duration::from_secs_f64(default * unit.seconds()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_its_default_unset_and_named_when_bad() {
        assert_eq!(number_from("N", None, 4usize, &(1..=256)), Ok(4));
        assert_eq!(number_from("N", Some(" 12 "), 4usize, &(1..=256)), Ok(12));
        for bad in ["0", "257", "-1", "four", ""] {
            let e = number_from("N", Some(bad), 4usize, &(1..=256)).unwrap_err();
            assert!(e.starts_with("N must be a number from 1 to 256"), "{e}");
        }
        assert!(number_from("R", Some("NaN"), 1.0f64, &(0.001..=1000.0)).is_err());
        assert_eq!(
            number_from("R", Some("2.5"), 1.0f64, &(0.001..=1000.0)),
            Ok(2.5)
        );
    }

    #[test]
    fn a_span_is_read_in_its_unit_and_zero_only_where_allowed() {
        let hours = span_from("H", Some("1.5"), 168.0, 1000.0, false, Unit::Hours);
        assert_eq!(hours, Ok(Duration::from_secs(5400)));
        assert_eq!(
            span_from("D", None, 30.0, 36_500.0, false, Unit::Days),
            Ok(Duration::from_secs(30 * 86_400))
        );
        let zero = span_from("S", Some("0"), 5.0, 600.0, false, Unit::Seconds).unwrap_err();
        assert!(zero.contains("above 0 and at most 600"), "{zero}");
        assert_eq!(
            span_from("S", Some("0"), 5.0, 600.0, true, Unit::Seconds),
            Ok(Duration::ZERO)
        );
        for bad in ["inf", "-3", "601", "soon"] {
            assert!(span_from("S", Some(bad), 5.0, 600.0, true, Unit::Seconds).is_err());
        }
    }
}
