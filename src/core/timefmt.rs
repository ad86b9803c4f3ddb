//! Unix seconds to ISO 8601 UTC text, the one time format clients see.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// `2026-11-21T09:30:00Z`.
pub fn iso8601(ts: i64) -> String {
    OffsetDateTime::from_unix_timestamp(ts)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| ts.to_string())
}

/// `21 Nov 2026, 09:30 UTC`: for people, on pages.
pub fn human(ts: i64) -> String {
    let format = time::macros::format_description!(
        "[day padding:none] [month repr:short] [year], [hour]:[minute] UTC"
    );
    OffsetDateTime::from_unix_timestamp(ts)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| iso8601(ts))
}

pub fn iso8601_opt(ts: Option<i64>) -> Option<String> {
    ts.map(iso8601)
}

/// `2026-11-21T09:30:00.000Z`: as a JavaScript `Date` writes itself (the API v2's times).
pub fn iso8601_millis(ts: i64) -> String {
    let format =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].000Z");
    OffsetDateTime::from_unix_timestamp(ts)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| iso8601(ts))
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_utc() {
        assert_eq!(super::iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::iso8601(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(super::human(1_795_000_000), "18 Nov 2026, 11:06 UTC");
        assert_eq!(
            super::iso8601_millis(1_795_000_000),
            "2026-11-18T11:06:40.000Z"
        );
    }
}
