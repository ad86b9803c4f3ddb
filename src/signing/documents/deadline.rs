//! How long each recipient has to act (`meta.envelopeExpirationPeriod`) and how often they are
//! reminded (`meta.reminders`), as a document, a template, a team or an account sets them
//! (issue 56, decision 0123). A period is fixed into each recipient's `expiresAt` when the
//! document is sent (`expires_at`); the rules here are the one place both the API and the
//! pages check them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// No deadline ends later than this after sending, and no fixed date may be set further ahead.
pub const MAX_DAYS: i64 = 366;

/// Reminders go out within this many days of sending, as the peer caps them.
pub const REMINDER_WINDOW_DAYS: i64 = 30;

/// At most this many reminders a recipient.
pub const MAX_REMINDERS: u32 = 10;

/// A period's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Day,
    Week,
    Month,
    Year,
}

impl Unit {
    pub const ALL: [Unit; 4] = [Unit::Day, Unit::Week, Unit::Month, Unit::Year];

    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Day => "day",
            Unit::Week => "week",
            Unit::Month => "month",
            Unit::Year => "year",
        }
    }

    pub fn parse(s: &str) -> Option<Unit> {
        Unit::ALL.into_iter().find(|u| u.as_str() == s)
    }

    /// The most of this unit a period may have (a year at most).
    pub fn max(self) -> u32 {
        match self {
            Unit::Day => 365,
            Unit::Week => 52,
            Unit::Month => 12,
            Unit::Year => 1,
        }
    }
}

/// `meta.envelopeExpirationPeriod`: a time after sending, no deadline at all (which overrides
/// a default above it), or a fixed end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Period {
    /// `{"unit": "day", "amount": 14}`: this long after sending.
    After { unit: Unit, amount: u32 },
    /// `{"disabled": true}`: no deadline, whatever the template, team or account says.
    Disabled { disabled: bool },
    /// `{"until": "2027-01-31T17:00:00Z"}`: a fixed end (RFC 3339).
    Until { until: String },
}

/// `meta.reminders`: a reminder every `everyDays` days after sending, at most `max` of them,
/// within `REMINDER_WINDOW_DAYS` of sending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reminders {
    pub every_days: u32,
    pub max: u32,
}

impl Reminders {
    /// The reminders' rules: every 1 to 30 days, 1 to `MAX_REMINDERS` of them.
    pub fn check(self) -> Result<Reminders, String> {
        if !(1..=REMINDER_WINDOW_DAYS as u32).contains(&self.every_days) {
            return Err(format!(
                "everyDays must be a whole number of days from 1 to {REMINDER_WINDOW_DAYS}"
            ));
        }
        if !(1..=MAX_REMINDERS).contains(&self.max) {
            return Err(format!("max must be from 1 to {MAX_REMINDERS}"));
        }
        Ok(self)
    }

    /// Reads `meta.reminders` as sent: `null` for none, or the object.
    pub fn read(v: &Value) -> Result<Option<Reminders>, String> {
        if v.is_null() {
            return Ok(None);
        }
        let expected = "must be null or {\"everyDays\": n, \"max\": m}";
        let obj = v.as_object().ok_or(expected)?;
        let whole = |k: &str| {
            obj.get(k)
                .and_then(whole_number)
                .ok_or_else(|| format!("{k} must be a whole number"))
        };
        Reminders {
            every_days: whole("everyDays")?,
            max: whole("max")?,
        }
        .check()
        .map(Some)
    }

    /// When the first reminder goes, for a document sent at `sent`.
    pub fn first(self, sent: i64) -> i64 {
        sent + i64::from(self.every_days) * 86_400
    }

    /// After a reminder sent at `now` (the `sent_so_far`-th), when the next one goes: the
    /// interval from now (missed ones are not made up), or none when the count is reached or
    /// the next would fall after the window.
    pub fn next(self, sent: i64, sent_so_far: u32, now: i64) -> Option<i64> {
        let next = now + i64::from(self.every_days) * 86_400;
        (sent_so_far < self.max && next <= sent + REMINDER_WINDOW_DAYS * 86_400).then_some(next)
    }
}

/// A JSON number that is a whole, non-negative `u32` (`7` or `7.0`, as generated clients send).
fn whole_number(v: &Value) -> Option<u32> {
    let f = v.as_f64()?;
    (f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&f)).then_some(f as u32)
}

impl Period {
    /// Reads `meta.envelopeExpirationPeriod` as sent: `null` (as the level above), or one of the
    /// three shapes. A fixed end must lie after `now` and within a year of it.
    pub fn read(v: &Value, now: i64) -> Result<Option<Period>, String> {
        if v.is_null() {
            return Ok(None);
        }
        let expected = "must be null, {\"unit\": \"day\"|\"week\"|\"month\"|\"year\", \"amount\": n}, {\"disabled\": true} or {\"until\": \"<RFC 3339 date>\"}";
        let obj = v.as_object().ok_or(expected)?;
        if let Some(d) = obj.get("disabled") {
            return match d {
                Value::Bool(true) => Ok(Some(Period::Disabled { disabled: true })),
                _ => Err("disabled must be true (null leaves the default)".into()),
            };
        }
        if let Some(u) = obj.get("until") {
            let text = u.as_str().ok_or("until must be an RFC 3339 date")?;
            return Period::until(text, now).map(Some);
        }
        let unit = obj
            .get("unit")
            .and_then(Value::as_str)
            .and_then(Unit::parse)
            .ok_or(expected)?;
        let amount = obj
            .get("amount")
            .and_then(whole_number)
            .ok_or("amount must be a whole number")?;
        Period::after(unit, amount).map(Some)
    }

    /// `amount` `unit`s after sending: from 1 to a year.
    pub fn after(unit: Unit, amount: u32) -> Result<Period, String> {
        if amount == 0 {
            return Err("amount must be 1 or more".into());
        }
        if amount > unit.max() {
            return Err(match unit {
                Unit::Year => "a year at most: 1 year".to_string(),
                u => format!("a year at most: from 1 to {} {}s", u.max(), u.as_str()),
            });
        }
        Ok(Period::After { unit, amount })
    }

    /// A fixed end: an RFC 3339 date after `now` and within a year of it.
    pub fn until(text: &str, now: i64) -> Result<Period, String> {
        let at = text
            .trim()
            .parse::<jiff::Timestamp>()
            .map_err(|_| "until must be an RFC 3339 date such as 2027-01-31T17:00:00Z")?;
        let secs = at.as_second();
        if secs <= now {
            return Err("until must be in the future".into());
        }
        if secs > now + MAX_DAYS * 86_400 {
            return Err("until must be within a year".into());
        }
        Ok(Period::Until {
            until: at.to_string(),
        })
    }

    /// When a recipient of a document sent at `sent` (in time zone `zone`, for months and
    /// years) must have acted by; `None` without a deadline. Never later than a year after
    /// sending.
    pub fn expires_at(&self, sent: i64, zone: &str) -> Option<i64> {
        let cap = sent + MAX_DAYS * 86_400;
        let at = match self {
            Period::Disabled { .. } => return None,
            Period::Until { until } => until.parse::<jiff::Timestamp>().ok()?.as_second(),
            Period::After { unit, amount } => {
                let tz = jiff::tz::TimeZone::get(zone).unwrap_or(jiff::tz::TimeZone::UTC);
                let start = jiff::Timestamp::from_second(sent).ok()?.to_zoned(tz);
                let n = i64::from(*amount);
                let span = match unit {
                    Unit::Day => jiff::Span::new().days(n),
                    Unit::Week => jiff::Span::new().weeks(n),
                    Unit::Month => jiff::Span::new().months(n),
                    Unit::Year => jiff::Span::new().years(n),
                };
                start.checked_add(span).ok()?.timestamp().as_second()
            }
        };
        Some(at.min(cap))
    }

    /// A default as an admin types it: `<amount> <unit>` ("14 days", "1 month"); blank: none.
    pub fn from_text(text: &str) -> Result<Option<Period>, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        let expected = || "a number and a unit, such as \"14 days\" or \"1 month\"".to_string();
        let (amount, unit) = text.split_once(char::is_whitespace).ok_or_else(expected)?;
        let amount: u32 = amount.parse().map_err(|_| expected())?;
        let unit = unit.trim().to_ascii_lowercase();
        let unit = Unit::parse(unit.strip_suffix('s').unwrap_or(&unit)).ok_or_else(expected)?;
        Period::after(unit, amount).map(Some)
    }

    /// The stored JSON of a default, read back (`None` for text that is not a period).
    pub fn stored(json: Option<&str>) -> Option<Period> {
        serde_json::from_str(json?).ok()
    }

    /// As a sentence fragment: "14 days", "1 month", "until 2027-01-31T17:00:00Z", "none".
    pub fn describe(&self) -> String {
        match self {
            Period::After { unit, amount } => {
                let s = if *amount == 1 { "" } else { "s" };
                format!("{amount} {}{s}", unit.as_str())
            }
            Period::Until { until } => format!("until {until}"),
            Period::Disabled { .. } => "none".into(),
        }
    }

    /// True for `{"disabled": true}`.
    pub fn is_disabled(&self) -> bool {
        matches!(self, Period::Disabled { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: i64 = 1_800_000_000; // 2027-01-15T08:00:00Z

    #[test]
    fn the_three_shapes_read_and_write_as_the_api_shows_them() {
        for v in [
            json!({"unit": "week", "amount": 2}),
            json!({"disabled": true}),
            json!({"until": "2027-02-01T17:00:00Z"}),
        ] {
            let p = Period::read(&v, NOW).unwrap().unwrap();
            assert_eq!(serde_json::to_value(&p).unwrap(), v);
            let back: Period = serde_json::from_value(v).unwrap();
            assert_eq!(back, p);
        }
        assert_eq!(Period::read(&Value::Null, NOW).unwrap(), None);
        assert_eq!(
            Period::read(&json!({"unit": "day", "amount": 3.0}), NOW).unwrap(),
            Some(Period::After {
                unit: Unit::Day,
                amount: 3
            }),
            "generated clients send numbers as floats"
        );
    }

    #[test]
    fn bad_periods_say_what_is_wrong() {
        for (v, says) in [
            (json!({"unit": "day", "amount": 0}), "1 or more"),
            (json!({"unit": "day", "amount": 400}), "from 1 to 365 days"),
            (
                json!({"unit": "month", "amount": 13}),
                "from 1 to 12 months",
            ),
            (json!({"unit": "year", "amount": 2}), "a year at most"),
            (json!({"unit": "fortnight", "amount": 1}), "must be null"),
            (json!({"unit": "day", "amount": 1.5}), "whole number"),
            (json!({"disabled": false}), "must be true"),
            (json!({"until": "tomorrow"}), "RFC 3339"),
            (json!({"until": "2020-01-01T00:00:00Z"}), "in the future"),
            (json!({"until": "2029-01-01T00:00:00Z"}), "within a year"),
            (json!("P14D"), "must be null"),
        ] {
            let e = Period::read(&v, NOW).unwrap_err();
            assert!(e.contains(says), "{v}: {e}");
        }
    }

    #[test]
    fn a_default_reads_as_typed_and_says_itself_back() {
        let p = Period::from_text(" 14 days ").unwrap().unwrap();
        assert_eq!(p.describe(), "14 days");
        assert_eq!(
            Period::from_text("1 Month").unwrap().unwrap().describe(),
            "1 month"
        );
        assert_eq!(Period::from_text("").unwrap(), None);
        for bad in [
            "14",
            "days",
            "2 fortnights",
            "0 days",
            "13 months",
            "2 years",
        ] {
            assert!(Period::from_text(bad).is_err(), "{bad}");
        }
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(Period::stored(Some(&json)), Some(p));
        assert_eq!(Period::stored(Some("not json")), None);
    }

    #[test]
    fn a_deadline_is_counted_in_the_documents_zone_and_capped_at_a_year() {
        let days = Period::after(Unit::Day, 14).unwrap();
        assert_eq!(days.expires_at(NOW, "UTC"), Some(NOW + 14 * 86_400));
        // A month from 31 January is the end of February, in the document's calendar.
        let jan31 = "2027-01-31T10:00:00+01:00[Europe/Paris]"
            .parse::<jiff::Zoned>()
            .unwrap()
            .timestamp()
            .as_second();
        let month = Period::after(Unit::Month, 1).unwrap();
        let end = month.expires_at(jan31, "Europe/Paris").unwrap();
        let shown = jiff::Timestamp::from_second(end)
            .unwrap()
            .to_zoned(jiff::tz::TimeZone::get("Europe/Paris").unwrap());
        assert_eq!(shown.date().to_string(), "2027-02-28");
        assert_eq!(shown.hour(), 10);
        let year = Period::after(Unit::Year, 1).unwrap();
        assert!(year.expires_at(NOW, "UTC").unwrap() <= NOW + MAX_DAYS * 86_400);
        // A fixed end read long ago is still capped at a year after sending.
        let until = Period::Until {
            until: "2030-01-01T00:00:00Z".into(),
        };
        assert_eq!(until.expires_at(NOW, "UTC"), Some(NOW + MAX_DAYS * 86_400));
        assert_eq!(
            Period::Disabled { disabled: true }.expires_at(NOW, "UTC"),
            None
        );
    }

    #[test]
    fn reminders_stop_at_their_count_and_their_window_and_do_not_make_up_missed_ones() {
        let r = Reminders::read(&json!({"everyDays": 3, "max": 5}))
            .unwrap()
            .unwrap();
        assert_eq!(r.first(NOW), NOW + 3 * 86_400);
        assert_eq!(r.next(NOW, 1, NOW + 3 * 86_400), Some(NOW + 6 * 86_400));
        assert_eq!(r.next(NOW, 5, NOW + 15 * 86_400), None, "the count");
        // Down for a week: the one sent on return is followed by one interval later.
        assert_eq!(r.next(NOW, 2, NOW + 13 * 86_400), Some(NOW + 16 * 86_400));
        let weekly = Reminders {
            every_days: 7,
            max: 10,
        };
        assert_eq!(weekly.next(NOW, 4, NOW + 28 * 86_400), None, "the window");
        for (v, says) in [
            (json!({"everyDays": 0, "max": 1}), "from 1 to 30"),
            (json!({"everyDays": 31, "max": 1}), "from 1 to 30"),
            (json!({"everyDays": 2, "max": 11}), "from 1 to 10"),
            (json!({"everyDays": 2}), "max must be"),
            (json!([2, 3]), "must be null"),
        ] {
            let e = Reminders::read(&v).unwrap_err();
            assert!(e.contains(says), "{v}: {e}");
        }
    }
}
