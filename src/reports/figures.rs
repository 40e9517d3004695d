//! Reading a report from the rollups: each day's figures in a date range (all numbers, or one),
//! their totals, and the failures grouped by their reason in words. A range is at most
//! `MAX_DAYS` long; the read touches only the rollup rows of those days.
use crate::error::{AppError, AppResult};
use crate::reports::entity as report_daily;
use crate::reports::rollup::metric;
use chrono::{Duration, NaiveDate};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use std::collections::BTreeMap;
use uuid::Uuid;

/// The longest range a report covers, in days.
pub const MAX_DAYS: i64 = 366;

/// What a report covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// One number, or all of the organisation's.
    pub number: Option<Uuid>,
}

impl Range {
    /// The range from two dates as typed (`YYYY-MM-DD`), or why not.
    pub fn parse(from: &str, to: &str, number: Option<Uuid>) -> AppResult<Self> {
        let date = |s: &str, what: &str| {
            NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").map_err(|_| {
                AppError::Validation(format!(
                    "The {what} date \"{s}\" is not a date (YYYY-MM-DD)."
                ))
            })
        };
        let (from, to) = (date(from, "start")?, date(to, "end")?);
        if to < from {
            return Err(AppError::validation(
                "The end date is before the start date.",
            ));
        }
        if (to - from).num_days() >= MAX_DAYS {
            return Err(AppError::Validation(format!(
                "A report covers at most {MAX_DAYS} days."
            )));
        }
        Ok(Self { from, to, number })
    }

    pub fn days(&self) -> impl Iterator<Item = NaiveDate> + '_ {
        (0..=(self.to - self.from).num_days()).map(|d| self.from + Duration::days(d))
    }
}

/// One day's figures (or a range's totals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Day {
    pub texts_in: i64,
    pub texts_out: i64,
    /// Texts out that answered the contact.
    pub replies: i64,
    pub segments: i64,
    pub mms: i64,
    pub cost_micros: i64,
    pub delivered: i64,
    pub undelivered: i64,
    pub failed: i64,
}

impl Day {
    fn add(&mut self, metric: &str, n: i64) {
        let slot = match metric {
            metric::IN => &mut self.texts_in,
            metric::OUT => &mut self.texts_out,
            metric::REPLIES => &mut self.replies,
            metric::SEGMENTS => &mut self.segments,
            metric::MMS => &mut self.mms,
            metric::COST_MICROS => &mut self.cost_micros,
            metric::DELIVERED => &mut self.delivered,
            metric::UNDELIVERED => &mut self.undelivered,
            metric::FAILED => &mut self.failed,
            _ => return,
        };
        *slot += n;
    }

    /// Texts with a final delivery outcome.
    pub fn outcomes(&self) -> i64 {
        self.delivered + self.undelivered + self.failed
    }

    /// Delivered, in percent of the texts with an outcome (None without any).
    pub fn delivery_pct(&self) -> Option<f64> {
        let n = self.outcomes();
        (n > 0).then(|| self.delivered as f64 * 100.0 / n as f64)
    }
}

/// A report: each day of the range in order, the totals, and failures by reason (most first).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub days: Vec<(NaiveDate, Day)>,
    pub total: Day,
    /// (reason in words, its code or "herald", how many).
    pub failures: Vec<(String, String, i64)>,
}

/// A failure's reason in words, from its rollup code.
pub fn reason(code: &str) -> String {
    match code {
        "herald" => "Not sent: Herald or the provider refused it before it left".into(),
        "none" => "The carrier gave no reason".into(),
        c => crate::platform::carrier_errors::lookup(c)
            .map(|e| e.words.to_owned())
            .unwrap_or_else(|| format!("Carrier error {c}")),
    }
}

pub async fn read<C: ConnectionTrait>(db: &C, org: Uuid, range: Range) -> AppResult<Report> {
    let mut q = report_daily::Entity::find()
        .select_only()
        .column(report_daily::Column::Day)
        .column(report_daily::Column::Metric)
        // PostgreSQL sums a BIGINT as NUMERIC: cast back.
        .column_as(Expr::cust("CAST(SUM(value) AS BIGINT)"), "n")
        .filter(report_daily::Column::OrganizationId.eq(org))
        .filter(report_daily::Column::Day.gte(range.from.format("%Y-%m-%d").to_string()))
        .filter(report_daily::Column::Day.lte(range.to.format("%Y-%m-%d").to_string()));
    if let Some(n) = range.number {
        q = q.filter(report_daily::Column::PhoneNumberId.eq(n));
    }
    let rows: Vec<(String, String, Option<i64>)> = q
        .group_by(report_daily::Column::Day)
        .group_by(report_daily::Column::Metric)
        .order_by_asc(report_daily::Column::Day)
        .into_tuple()
        .all(db)
        .await?;
    let mut by_day: BTreeMap<NaiveDate, Day> = range.days().map(|d| (d, Day::default())).collect();
    let mut total = Day::default();
    let mut failures: BTreeMap<String, i64> = BTreeMap::new();
    for (day, m, n) in rows {
        let n = n.unwrap_or(0);
        let Ok(d) = NaiveDate::parse_from_str(&day, "%Y-%m-%d") else {
            continue;
        };
        if let Some(code) = m.strip_prefix(metric::FAIL_PREFIX) {
            *failures.entry(code.to_owned()).or_default() += n;
            continue;
        }
        by_day.entry(d).or_default().add(&m, n);
        total.add(&m, n);
    }
    let mut failures: Vec<(String, String, i64)> = failures
        .into_iter()
        .map(|(code, n)| (reason(&code), code, n))
        .collect();
    failures.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    Ok(Report {
        days: by_day.into_iter().collect(),
        total,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_two_dates_in_order_and_at_most_a_year() {
        let r = Range::parse("2026-11-01", "2026-11-03", None).unwrap();
        assert_eq!(r.days().count(), 3);
        assert!(Range::parse("2026-11-03", "2026-11-01", None).is_err());
        assert!(Range::parse("yesterday", "2026-11-01", None).is_err());
        assert!(Range::parse("2025-01-01", "2026-11-01", None).is_err());
        assert!(Range::parse("2025-11-01", "2026-10-31", None).is_ok());
    }

    #[test]
    fn failures_read_in_words() {
        assert!(
            reason("30007").to_lowercase().contains("filter"),
            "{}",
            reason("30007")
        );
        assert_eq!(reason("12345"), "Carrier error 12345");
        assert!(reason("herald").starts_with("Not sent"));
    }

    #[test]
    fn the_delivery_rate_counts_only_texts_with_an_outcome() {
        let d = Day {
            delivered: 3,
            undelivered: 1,
            texts_out: 10,
            ..Default::default()
        };
        assert_eq!(d.delivery_pct(), Some(75.0));
        assert_eq!(Day::default().delivery_pct(), None);
    }
}
