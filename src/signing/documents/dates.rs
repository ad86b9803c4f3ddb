//! The date formats a document may ask for and how a time is written in one of them.

use crate::core::i18n::{Lang, localize_names};

/// Date formats a document may ask for (`meta.dateFormat`), in the pattern language clients of
/// the common open-source signing services use.
pub const DATE_FORMATS: &[&str] = &[
    "yyyy-MM-dd hh:mm a",
    "yyyy-MM-dd",
    "dd/MM/yyyy",
    "MM/dd/yyyy",
    "dd.MM.yyyy",
    "yy-MM-dd",
    "MMMM dd, yyyy",
    "EEEE, MMMM dd, yyyy",
    "dd/MM/yyyy hh:mm a",
    "MM/dd/yyyy hh:mm a",
    "dd.MM.yyyy HH:mm",
    "yyyy-MM-dd HH:mm",
    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
    "dd-MM-yyyy",
    "dd/MM/yyyy HH:mm",
    "dd-MM-yyyy hh:mm a",
    "dd-MM-yyyy HH:mm",
    "MM/dd/yyyy HH:mm",
    "yy-MM-dd hh:mm a",
    "yy-MM-dd HH:mm",
    "yyyy-MM-dd HH:mm:ss",
    "MMMM dd, yyyy hh:mm a",
    "MMMM dd, yyyy HH:mm",
    "EEEE, MMMM dd, yyyy hh:mm a",
    "EEEE, MMMM dd, yyyy HH:mm",
];

/// `DATE_FORMATS`' patterns in strftime form, same order.
const STRFTIME: &[&str] = &[
    "%Y-%m-%d %I:%M %p",
    "%Y-%m-%d",
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%d.%m.%Y",
    "%y-%m-%d",
    "%B %d, %Y",
    "%A, %B %d, %Y",
    "%d/%m/%Y %I:%M %p",
    "%m/%d/%Y %I:%M %p",
    "%d.%m.%Y %H:%M",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S%.3f%:z",
    "%d-%m-%Y",
    "%d/%m/%Y %H:%M",
    "%d-%m-%Y %I:%M %p",
    "%d-%m-%Y %H:%M",
    "%m/%d/%Y %H:%M",
    "%y-%m-%d %I:%M %p",
    "%y-%m-%d %H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%B %d, %Y %I:%M %p",
    "%B %d, %Y %H:%M",
    "%A, %B %d, %Y %I:%M %p",
    "%A, %B %d, %Y %H:%M",
];

/// `ts` (Unix seconds) in the time zone `zone` and one of `DATE_FORMATS`, in English. An
/// unknown zone or pattern falls back to UTC and the default pattern.
pub fn format_date(ts: i64, zone: &str, pattern: &str) -> String {
    format_date_in(ts, zone, pattern, Lang::En)
}

/// `format_date` with the month and weekday names of `lang` (a DATE field's value at
/// completion, in the document's language).
pub fn format_date_in(ts: i64, zone: &str, pattern: &str, lang: Lang) -> String {
    let tz = jiff::tz::TimeZone::get(zone).unwrap_or(jiff::tz::TimeZone::UTC);
    let fmt = DATE_FORMATS
        .iter()
        .position(|f| *f == pattern)
        .map_or(STRFTIME[0], |i| STRFTIME[i]);
    match jiff::Timestamp::from_second(ts) {
        Ok(t) => {
            let zoned = t.to_zoned(tz);
            let weekday = zoned.weekday().to_monday_one_offset();
            let fmt = localize_names(lang, fmt, zoned.month(), weekday);
            zoned.strftime(&fmt).to_string()
        }
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_follow_the_zone_and_pattern() {
        assert_eq!(DATE_FORMATS.len(), STRFTIME.len());
        // 2026-11-21 15:04:05 UTC
        let ts = 1_795_273_445;
        assert_eq!(
            format_date(ts, "Etc/UTC", "yyyy-MM-dd HH:mm"),
            "2026-11-21 15:04"
        );
        assert_eq!(
            format_date(ts, "Europe/Paris", "dd.MM.yyyy HH:mm"),
            "21.11.2026 16:04"
        );
        assert_eq!(
            format_date(ts, "America/New_York", "MMMM dd, yyyy"),
            "November 21, 2026"
        );
        assert_eq!(
            format_date(ts, "Etc/UTC", "yyyy-MM-dd hh:mm a"),
            "2026-11-21 03:04 PM"
        );
        assert_eq!(
            format_date(ts, "Asia/Tokyo", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"),
            "2026-11-22T00:04:05.000+09:00"
        );
    }

    #[test]
    fn month_and_weekday_names_are_the_documents_language() {
        // 2026-11-21 15:04:05 UTC, a Saturday
        let ts = 1_795_273_445;
        let de = format_date_in(ts, "Europe/Berlin", "EEEE, MMMM dd, yyyy HH:mm", Lang::De);
        assert_eq!(de, "Samstag, November 21, 2026 16:04");
        let fr = format_date_in(ts, "Europe/Paris", "MMMM dd, yyyy", Lang::Fr);
        assert_eq!(fr, "novembre 21, 2026");
        let pl = format_date_in(ts, "Etc/UTC", "dd.MM.yyyy", Lang::Pl);
        assert_eq!(
            pl, "21.11.2026",
            "numeric formats are the same in every language"
        );
        assert_eq!(
            format_date_in(ts, "Etc/UTC", "MMMM dd, yyyy", Lang::En),
            format_date(ts, "Etc/UTC", "MMMM dd, yyyy")
        );
    }

    #[test]
    fn every_date_format_of_the_common_signing_services_is_known() {
        assert_eq!(DATE_FORMATS.len(), 25);
        // 2026-11-21 15:04:05 UTC, a Saturday
        let ts = 1_795_273_445;
        let cases = [
            ("dd-MM-yyyy", "21-11-2026"),
            ("dd/MM/yyyy HH:mm", "21/11/2026 15:04"),
            ("dd-MM-yyyy hh:mm a", "21-11-2026 03:04 PM"),
            ("dd-MM-yyyy HH:mm", "21-11-2026 15:04"),
            ("MM/dd/yyyy HH:mm", "11/21/2026 15:04"),
            ("yy-MM-dd hh:mm a", "26-11-21 03:04 PM"),
            ("yy-MM-dd HH:mm", "26-11-21 15:04"),
            ("yyyy-MM-dd HH:mm:ss", "2026-11-21 15:04:05"),
            ("MMMM dd, yyyy hh:mm a", "November 21, 2026 03:04 PM"),
            ("MMMM dd, yyyy HH:mm", "November 21, 2026 15:04"),
            (
                "EEEE, MMMM dd, yyyy hh:mm a",
                "Saturday, November 21, 2026 03:04 PM",
            ),
            (
                "EEEE, MMMM dd, yyyy HH:mm",
                "Saturday, November 21, 2026 15:04",
            ),
        ];
        for (pattern, want) in cases {
            assert_eq!(format_date(ts, "Etc/UTC", pattern), want, "{pattern}");
        }
    }
}
