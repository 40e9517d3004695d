//! SMS segments: GSM-7 (160, or 153 per part) or UCS-2 (70, or 67 per part), and a cost estimate.

/// The GSM 03.38 basic set (one septet each) and its extension table (two septets each).
const GSM_BASIC: &str = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM_EXTENDED: &str = "^{}\\[~]|€\u{c}";

/// Cost per segment used for estimates, in US dollars.
pub const COST_PER_SEGMENT: f64 = 0.0079;
/// Cost of one MMS (pictures and the words with them go as one message, not as segments).
pub const COST_PER_MMS: f64 = 0.0200;

/// What a text with pictures is counted as: one MMS.
pub fn mms_label() -> String {
    format!("1 MMS · ${COST_PER_MMS:.4}")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Gsm7,
    Ucs2,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segments {
    pub encoding: Encoding,
    pub count: usize,
}

impl Segments {
    pub fn cost(&self) -> f64 {
        self.count as f64 * COST_PER_SEGMENT
    }
    pub fn label(&self) -> String {
        let enc = match self.encoding {
            Encoding::Gsm7 => "GSM-7",
            Encoding::Ucs2 => "UCS-2",
        };
        format!(
            "{} segment{} · {enc} · ${:.4}",
            self.count,
            if self.count == 1 { "" } else { "s" },
            self.cost()
        )
    }
}

pub fn segments(text: &str) -> Segments {
    let gsm = text
        .chars()
        .all(|c| GSM_BASIC.contains(c) || GSM_EXTENDED.contains(c));
    if gsm {
        let units: usize = text
            .chars()
            .map(|c| if GSM_EXTENDED.contains(c) { 2 } else { 1 })
            .sum();
        let count = if units == 0 {
            0
        } else if units <= 160 {
            1
        } else {
            units.div_ceil(153)
        };
        Segments {
            encoding: Encoding::Gsm7,
            count,
        }
    } else {
        // UCS-2 counts UTF-16 code units: an emoji takes two.
        let units: usize = text.encode_utf16().count();
        let count = if units <= 70 { 1 } else { units.div_ceil(67) };
        Segments {
            encoding: Encoding::Ucs2,
            count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gsm_and_ucs2_boundaries() {
        assert_eq!(
            segments(&"a".repeat(160)),
            Segments {
                encoding: Encoding::Gsm7,
                count: 1
            }
        );
        assert_eq!(segments(&"a".repeat(161)).count, 2);
        assert_eq!(segments(&"a".repeat(306)).count, 2);
        assert_eq!(segments(&"a".repeat(307)).count, 3);
        assert_eq!(
            segments(&"€".repeat(80)).count,
            1,
            "extension characters take two septets"
        );
        assert_eq!(segments(&"€".repeat(81)).count, 2);
        assert_eq!(segments("Hi 😀").encoding, Encoding::Ucs2);
        assert_eq!(segments(&"é".repeat(160)).encoding, Encoding::Gsm7);
        assert_eq!(
            segments(&"ł".repeat(70)),
            Segments {
                encoding: Encoding::Ucs2,
                count: 1
            }
        );
        assert_eq!(segments(&"ł".repeat(71)).count, 2);
    }
}
