#!/usr/bin/env python3
"""Generate src/contacts/area_codes.rs: US area codes (NPA) -> USPS state code and main IANA zone.

Last run with phonenumbers 9.0.43 (PyPI, the Python port of Google's libphonenumber, Apache-2.0).
Its output is checked in as src/contacts/area_codes.rs; this script is NOT run at build time.
To refresh the table:

    pip install phonenumbers
    python3 scripts/gen_area_codes.py > src/contacts/area_codes.rs
    rustfmt --edition 2021 src/contacts/area_codes.rs   # should be a no-op

How each row is made, from libphonenumber's own data (no network, no other source):
- NPAs: every NPA 200-999 whose sample numbers libphonenumber places in region "US".
  Canada and the Caribbean (and the US territories PR, VI, GU, MP, AS, which have their own
  region codes) are left out, as are US non-geographic NPAs (toll-free 8xx, 900, 5xx personal
  communications): they have no state and no single zone, so lookup() returns None for them.
- State: the geocoder's NPA-level description ("Florida", "New York, NY", "Washington State")
  mapped to its USPS code; where there is none, the majority state over the NPA's
  exchange-level (NPA-NXX) geocoder entries.
- Zone: every assigned exchange (an NPA-NXX that the geocoder knows) gets its zone from the
  time-zone prefix data (longest prefix); zones with identical current rules are folded into
  the main city's zone (America/Juneau -> America/Anchorage, America/Boise -> America/Denver,
  America/North_Dakota/Center -> America/Chicago); the zone with the most exchanges wins (a
  proxy for population). An NPA without exchange data takes its NPA-level zone.
  Rows with a second zone get a comment saying so.
- OVERRIDES below are the rows decided by hand, each with its reason; they are commented in
  the output too.
"""

import sys
from collections import Counter

import phonenumbers
from phonenumbers.geodata import GEOCODE_DATA
from phonenumbers.tzdata import TIMEZONE_DATA

STATES = {
    "Alabama": "AL", "Alaska": "AK", "Arizona": "AZ", "Arkansas": "AR", "California": "CA",
    "Colorado": "CO", "Connecticut": "CT", "Delaware": "DE", "Florida": "FL", "Georgia": "GA",
    "Hawaii": "HI", "Idaho": "ID", "Illinois": "IL", "Indiana": "IN", "Iowa": "IA",
    "Kansas": "KS", "Kentucky": "KY", "Louisiana": "LA", "Maine": "ME", "Maryland": "MD",
    "Massachusetts": "MA", "Michigan": "MI", "Minnesota": "MN", "Mississippi": "MS",
    "Missouri": "MO", "Montana": "MT", "Nebraska": "NE", "Nevada": "NV",
    "New Hampshire": "NH", "New Jersey": "NJ", "New Mexico": "NM", "New York": "NY",
    "North Carolina": "NC", "North Dakota": "ND", "Ohio": "OH", "Oklahoma": "OK",
    "Oregon": "OR", "Pennsylvania": "PA", "Rhode Island": "RI", "South Carolina": "SC",
    "South Dakota": "SD", "Tennessee": "TN", "Texas": "TX", "Utah": "UT", "Vermont": "VT",
    "Virginia": "VA", "Washington": "WA", "Washington State": "WA", "West Virginia": "WV",
    "Wisconsin": "WI", "Wyoming": "WY", "Washington D.C.": "DC",
}
CODES = set(STATES.values())

# Zones whose current rules are those of a bigger city's zone: counted as that zone.
FOLD = {
    "America/Juneau": "America/Anchorage",
    "America/Sitka": "America/Anchorage",
    "America/Nome": "America/Anchorage",
    "America/Yakutat": "America/Anchorage",
    "America/Metlakatla": "America/Anchorage",
    "America/Boise": "America/Denver",
    "America/North_Dakota/Center": "America/Chicago",
    "America/North_Dakota/New_Salem": "America/Chicago",
    "America/North_Dakota/Beulah": "America/Chicago",
}

# npa -> (zone, reason). Only where the data alone gives no or a wrong main zone.
OVERRIDES = {
    364: ("America/Chicago", "overlay of 270 (western KY), as 270; data: New_York"),
    448: ("America/Chicago", "overlay of 850 (FL panhandle), as 850; data: New_York"),
    689: ("America/New_York", "overlay of 407/321 (Orlando, Eastern); data: Chicago"),
    986: ("America/Denver", "overlay of 208 (Idaho), as 208; data: Boise or Los_Angeles"),
}

SAMPLES = ("5550100", "2345678", "4567890", "7654321", "9876543", "2010000")


def longest(table, digits, shortest):
    for n in range(len(digits), shortest - 1, -1):
        value = table.get(digits[:n])
        if value is not None:
            return value
    return None


def state_of(description):
    if description in STATES:
        return STATES[description]
    if ", " in description:
        tail = description.rsplit(", ", 1)[1]
        if tail in CODES:
            return tail
    return None


def region(npa):
    regions = Counter(
        phonenumbers.region_code_for_number(phonenumbers.parse(f"+1{npa}{s}")) for s in SAMPLES
    )
    regions.pop(None, None)
    return regions.most_common(1)[0][0] if regions else None


def row(npa):
    """(state, zone, comments) or None for a non-geographic NPA."""
    prefix = f"1{npa}"
    comments = []
    zones = Counter()
    folded = Counter()
    states = Counter()
    exchanges = 0
    for nxx in range(200, 1000):
        digits = f"{prefix}{nxx}"
        place = longest(GEOCODE_DATA, digits, len(prefix) + 1)
        if place is None:
            continue
        exchanges += 1
        st = state_of(place["en"])
        if st:
            states[st] += 1
        tz = longest(TIMEZONE_DATA, digits + "0000", len(prefix))
        for z in tz or ():
            zones[FOLD.get(z, z)] += 1 / len(tz)
            if z in FOLD:
                folded[z] += 1 / len(tz)

    npa_place = GEOCODE_DATA.get(prefix, {}).get("en")
    state = state_of(npa_place) if npa_place else None
    if state and states and states.most_common(1)[0][0] != state:
        raise SystemExit(f"{npa}: NPA says {state}, its exchanges {states}; decide by hand")
    if state is None and states:
        state = states.most_common(1)[0][0]
        comments.append(
            f"state from exchange-level geocoder data ({states[state]} of {exchanges} exchanges)"
        )
    npa_zones = sorted({FOLD.get(z, z) for z in TIMEZONE_DATA.get(prefix, ())})
    if state is None:
        if npa_zones or zones:
            raise SystemExit(f"{npa}: has a zone but no state; decide by hand")
        return None

    if npa in OVERRIDES:
        zone, reason = OVERRIDES[npa]
        comments.append(f"zone set by hand: {reason}")
    elif zones:
        ranked = zones.most_common()
        zone = ranked[0][0]
        total = sum(zones.values())
        for other, n in ranked[1:]:
            comments.append(f"also {other} ({n:g} of {total:g} exchanges)")
        for z, n in sorted(folded.items()):
            comments.append(f"{n:g} exchanges in {z} counted as {FOLD[z]}")
    elif len(npa_zones) == 1:
        zone = npa_zones[0]
    else:
        raise SystemExit(f"{npa}: zones {npa_zones}, no exchange data; add an override")
    return state, zone, comments


def main():
    version = phonenumbers.__version__
    rows = []
    for npa in range(200, 1000):
        if region(npa) != "US":
            continue
        r = row(npa)
        if r is not None:
            rows.append((npa, *r))

    out = []
    w = out.append
    w(
        "//! US area codes (NPA) with their state and main time zone, generated by "
        f"scripts/gen_area_codes.py from libphonenumber's data (phonenumbers {version}, Apache-2.0)."
    )
    w("//!")
    w("//! Do not edit by hand: change the script and re-run it (`python3 scripts/gen_area_codes.py`).")
    w("//! Used to infer a contact's time zone (recorded as \"inferred\") and state when it has none.")
    w("//! Only NPAs that libphonenumber places in region \"US\": Canadian and Caribbean ones and the")
    w("//! territories' (PR, VI, GU, MP, AS) are excluded, as are non-geographic ones (8xx toll-free,")
    w("//! 900, 5xx), so `lookup` returns None for them. Where an NPA spans zones, the zone of most of")
    w("//! its exchanges (a proxy for population) is chosen and the others are noted above its row.")
    w("")
    w("/// One area code's state (USPS code, e.g. \"FL\") and IANA zone (e.g. \"America/New_York\").")
    w("#[derive(Clone, Copy, Debug, PartialEq, Eq)]")
    w("pub struct AreaCode {")
    w("    pub npa: u16,")
    w("    pub state: &'static str,")
    w("    pub zone: &'static str,")
    w("}")
    w("")
    w(f"/// Sorted by npa. {len(rows)} entries.")
    w("#[rustfmt::skip]")
    w("pub static AREA_CODES: &[AreaCode] = &[")
    for npa, state, zone, comments in rows:
        for c in comments:
            w(f"    // {npa}: {c}.")
        w(f'    AreaCode {{ npa: {npa}, state: "{state}", zone: "{zone}" }},')
    w("];")
    w("")
    w(RUST_TAIL)
    sys.stdout.write("\n".join(out))


RUST_TAIL = r'''/// The area code of a US number in E.164 ("+1305..."), None for anything else (non +1, too
/// short, not in the table). A NANP number in E.164 is "+1" and exactly ten digits.
pub fn lookup(e164: &str) -> Option<&'static AreaCode> {
    let national = e164.strip_prefix("+1")?;
    if national.len() != 10 || !national.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let npa: u16 = national[..3].parse().ok()?;
    AREA_CODES
        .binary_search_by_key(&npa, |a| a.npa)
        .ok()
        .map(|i| &AREA_CODES[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(e164: &str) -> (&'static str, &'static str) {
        let a = lookup(e164).unwrap_or_else(|| panic!("{e164} not found"));
        (a.state, a.zone)
    }

    #[test]
    fn sorted_without_duplicates() {
        assert!(AREA_CODES.windows(2).all(|w| w[0].npa < w[1].npa));
        assert!(AREA_CODES.iter().all(|a| (200..=999).contains(&a.npa)));
    }

    #[test]
    fn known_numbers() {
        assert_eq!(at("+13055550100"), ("FL", "America/New_York"));
        assert_eq!(at("+18505550100"), ("FL", "America/Chicago"));
        assert_eq!(at("+14055550100"), ("OK", "America/Chicago"));
        assert_eq!(at("+14105550100"), ("MD", "America/New_York"));
        assert_eq!(at("+12125550100").0, "NY");
        assert_eq!(at("+14155550100"), ("CA", "America/Los_Angeles"));
        assert_eq!(at("+19075550100"), ("AK", "America/Anchorage"));
        assert_eq!(at("+18085550100"), ("HI", "Pacific/Honolulu"));
        assert_eq!(at("+16025550100"), ("AZ", "America/Phoenix"));
        assert_eq!(at("+19155550100"), ("TX", "America/Denver"));
        assert_eq!(lookup("+13055550100").map(|a| a.npa), Some(305));
    }

    #[test]
    fn not_us_or_malformed() {
        for s in [
            "+14165550100",  // Toronto
            "+447700900000", // UK
            "",
            "+1",
            "+1305",
            "+130555501000",
            "+1305555010x",
            "13055550100",
            "+18005550100", // toll-free: no state
        ] {
            assert_eq!(lookup(s), None, "{s:?}");
        }
    }

    #[test]
    fn eight_pm_states_complete() {
        let want = [
            (
                "FL",
                &[
                    239, 305, 321, 352, 386, 407, 561, 727, 754, 772, 786, 813, 850, 863, 904, 941,
                    954,
                ][..],
            ),
            ("OK", &[405, 539, 580, 918][..]),
            ("MD", &[240, 301, 410, 443, 667][..]),
        ];
        for (state, npas) in want {
            for &npa in npas {
                let a = lookup(&format!("+1{npa}5550100"));
                assert_eq!(a.map(|a| a.state), Some(state), "{npa}");
            }
        }
    }

    #[test]
    fn every_zone_parses() {
        for a in AREA_CODES {
            assert!(
                a.zone.parse::<chrono_tz::Tz>().is_ok(),
                "{}: {}",
                a.npa,
                a.zone
            );
            assert_eq!(a.state.len(), 2, "{}", a.npa);
        }
    }
}
'''

if __name__ == "__main__":
    main()
