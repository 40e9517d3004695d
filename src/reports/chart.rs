//! Bar charts as SVG, laid out by the server: one group of bars a day, a bar a series, a few
//! gridlines with round values, and a date under every few days. The SVG scales to its box, so
//! it reads on a phone; each bar has its figure as a tooltip, and the chart a text alternative.
use chrono::NaiveDate;
use std::fmt::Write;

const W: f64 = 480.0;
const H: f64 = 200.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 28.0;
const TOP: f64 = 10.0;
/// Dates written under the axis, at most.
const LABELS: usize = 6;
/// Gridlines above the baseline.
const STEPS: usize = 5;

/// One series: its name (in the legend and tooltips) and its CSS class (its colour).
pub struct Series<'a> {
    pub name: &'a str,
    pub class: &'a str,
}

/// The smallest round number (1, 2 or 5 times a power of ten) at or above `n`.
fn round_up(n: f64) -> f64 {
    if n <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(n.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|k| k * p)
        .find(|v| *v >= n)
        .unwrap_or(10.0 * p)
}

/// A bar chart of `days` (each day's value per series, in the series' order); `fmt` writes a
/// value for the axis and the tooltips. Gridlines fall on round values at least `unit` apart
/// (1 for counts: no axis says 0, 1, 1, 2).
pub fn bars(
    label: &str,
    series: &[Series],
    days: &[(NaiveDate, Vec<f64>)],
    unit: f64,
    fmt: impl Fn(f64) -> String,
) -> String {
    let max = days
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max);
    let step = round_up(max / STEPS as f64).max(unit);
    let top = step * STEPS as f64;
    let (pw, ph) = (W - LEFT - 8.0, H - TOP - BOTTOM);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{label}" xmlns="http://www.w3.org/2000/svg">"#
    );
    for i in 0..=STEPS {
        let v = step * i as f64;
        let y = TOP + ph - ph * i as f64 / STEPS as f64;
        let _ = write!(
            s,
            r#"<line class="grid" x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/><text class="axis" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            W - 8.0,
            LEFT - 6.0,
            y + 4.0,
            fmt(v)
        );
    }
    let n = days.len().max(1);
    let slot = pw / n as f64;
    let k = series.len().max(1) as f64;
    let bar = (slot * 0.8 / k).max(0.5);
    let every = n.div_ceil(LABELS).max(1);
    for (i, (day, values)) in days.iter().enumerate() {
        let x0 = LEFT + slot * i as f64 + slot * 0.1;
        for (j, (v, se)) in values.iter().zip(series).enumerate() {
            let h = if top > 0.0 { ph * v / top } else { 0.0 };
            let _ = write!(
                s,
                r#"<rect class="{}" x="{:.2}" y="{:.2}" width="{bar:.2}" height="{h:.2}"><title>{}: {} {}</title></rect>"#,
                se.class,
                x0 + bar * j as f64,
                TOP + ph - h,
                day.format("%b %-d"),
                fmt(*v),
                se.name
            );
        }
        if i % every == 0 {
            let _ = write!(
                s,
                r#"<text class="axis" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                LEFT + slot * (i as f64 + 0.5),
                H - 8.0,
                day.format("%b %-d")
            );
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_tops_at_a_round_number() {
        assert_eq!(round_up(0.0), 1.0);
        assert_eq!(round_up(7.0), 10.0);
        assert_eq!(round_up(12.0), 20.0);
        assert_eq!(round_up(450.0), 500.0);
        assert_eq!(round_up(0.03), 0.05);
    }

    #[test]
    fn each_day_has_a_bar_a_series_with_its_figure() {
        let d = NaiveDate::from_ymd_opt(2026, 11, 3).unwrap();
        let series = [
            Series {
                name: "in",
                class: "in",
            },
            Series {
                name: "out",
                class: "out",
            },
        ];
        let count = |v: f64| format!("{v:.0}");
        let svg = bars("Texts", &series, &[(d, vec![4.0, 9.0])], 1.0, count);
        assert_eq!(svg.matches("<rect").count(), 2);
        assert!(svg.contains("<title>Nov 3: 9 out</title>"), "{svg}");
        assert!(
            svg.contains(">10</text>") && svg.contains(">2</text>"),
            "0, 2 … 10: {svg}"
        );
        // Few texts: whole numbers on the axis.
        let svg = bars("Texts", &series, &[(d, vec![1.0, 2.0])], 1.0, count);
        assert!(
            svg.contains(">5</text>") && svg.contains(">1</text>"),
            "0, 1 … 5: {svg}"
        );
    }
}
