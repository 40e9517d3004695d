//! Dates and counts in words for people, shared by the pages and the server-rendered ones: written
//! out by hand, because chrono's `format` would bring its strftime machinery into the web client.
/// A timestamp as "Mar 4, 09:05" (UTC). Written out by hand: chrono's `format` would bring its
/// whole strftime machinery into the web client for one pattern.
pub fn short_time(at: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::{Datelike, Timelike};
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS[at.month0() as usize % 12];
    format!("{month} {}, {:02}:{:02}", at.day(), at.hour(), at.minute())
}

/// A date as "2026-11-26" (UTC), written out by hand like `short_time`.
pub fn day(at: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::Datelike;
    format!("{:04}-{:02}-{:02}", at.year(), at.month(), at.day())
}

/// A timestamp as "2026-11-26 05:43 UTC".
pub fn day_time_utc(at: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::Timelike;
    format!("{} {:02}:{:02} UTC", day(at), at.hour(), at.minute())
}

/// A count with thousands separators: 25000 → "25,000".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count and its noun in agreement, grouped: (1, "row", "rows") → "1 row", 2500 → "2,500 rows".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n as u64), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    #[test]
    fn days_and_times_match_the_old_patterns() {
        let at = chrono::Utc.with_ymd_and_hms(2026, 3, 4, 9, 5, 7).unwrap();
        assert_eq!(super::day(at), at.format("%Y-%m-%d").to_string());
        assert_eq!(
            super::day_time_utc(at),
            at.format("%Y-%m-%d %H:%M UTC").to_string()
        );
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(super::grouped(0), "0");
        assert_eq!(super::grouped(999), "999");
        assert_eq!(super::grouped(1000), "1,000");
        assert_eq!(super::grouped(25_000), "25,000");
        assert_eq!(super::grouped(1_000_000), "1,000,000");
        assert_eq!(super::count(1, "row", "rows"), "1 row");
        assert_eq!(super::count(2500, "row", "rows"), "2,500 rows");
    }

    #[test]
    fn short_time_matches_the_old_pattern() {
        for (y, mo, d, h, mi) in [
            (2026, 3, 4, 9, 5),
            (2026, 12, 31, 23, 59),
            (2027, 1, 1, 0, 0),
        ] {
            let at = chrono::Utc.with_ymd_and_hms(y, mo, d, h, mi, 7).unwrap();
            assert_eq!(
                super::short_time(at),
                at.format("%b %-d, %H:%M").to_string()
            );
        }
    }
}
