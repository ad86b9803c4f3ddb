//! The rules a new booking and a cancellation reason meet, each problem named with its path.
use super::*;

/// The command to create a booking: what the caller sent, checked by the rules below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBooking {
    pub title: String,
    pub description: Option<String>,
    pub start_time: i64,
    pub end_time: i64,
    pub status: Status,
    pub location: Option<String>,
    pub attendees: Vec<Attendee>,
    pub event_type: EventType,
    pub responses: Map<String, Value>,
}

/// Collects every invalid field before failing, so a client fixes them in one round.
#[derive(Default)]
pub struct Problems(Vec<FieldError>);

impl Problems {
    pub fn add(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError {
            path: path.into(),
            message: message.into(),
        });
    }

    /// The problems so far, for rules that add to a list (`details`).
    pub fn list(&mut self) -> &mut Vec<FieldError> {
        &mut self.0
    }

    pub fn into_result<T>(self, value: impl FnOnce() -> T) -> Result<T, AppError> {
        if self.0.is_empty() {
            Ok(value())
        } else {
            Err(AppError::validation(self.0))
        }
    }
}

/// Trimmed text of 1..=`max` characters without control characters (`\n` and `\t` allowed
/// when `multiline`).
pub(super) fn text(raw: &str, max: usize, multiline: bool) -> Result<String, String> {
    let s = raw.trim();
    let bad_char = |c: char| c.is_control() && !(multiline && (c == '\n' || c == '\t'));
    if s.is_empty() || s.chars().count() > max {
        Err(format!("give 1 to {max} characters"))
    } else if s.chars().any(bad_char) {
        Err("control characters are not allowed".into())
    } else {
        Ok(s.to_string())
    }
}

/// Optional text: absent or blank is `None`.
pub(super) fn optional_text(
    raw: Option<&str>,
    max: usize,
    multiline: bool,
) -> Result<Option<String>, String> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => text(s, max, multiline).map(Some),
    }
}

/// RFC 3339 text (any offset) to Unix seconds.
pub(super) fn timestamp(raw: &str) -> Result<i64, String> {
    OffsetDateTime::parse(raw.trim(), &Rfc3339)
        .map(OffsetDateTime::unix_timestamp)
        .map_err(|_| format!("{raw:?} is not an RFC 3339 time such as 2026-11-21T09:30:00Z"))
}

/// An IANA-looking zone name such as `Europe/Berlin` or `Etc/GMT+2`.
pub(super) fn time_zone(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    let ok = !s.is_empty()
        && s.len() <= TIME_ZONE_MAX
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c));
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "give a time zone name such as Europe/Berlin (1 to {TIME_ZONE_MAX} of A-Z, a-z, 0-9, '/', '_', '+', '-')"
        ))
    }
}

/// One attendee of a new booking, at `at`: name and e-mail required, the time zone UTC when
/// left out.
pub fn attendee(
    (name, email, tz): (Option<&str>, Option<&str>, Option<&str>),
    at: &str,
    p: &mut Problems,
) -> Option<Attendee> {
    let name = match name.map(|n| text(n, ATTENDEE_NAME_MAX, false)) {
        Some(Ok(n)) => Some(n),
        Some(Err(m)) => {
            p.add(format!("{at}.name"), m);
            None
        }
        None => {
            p.add(format!("{at}.name"), "is required");
            None
        }
    };
    let email = match email.map(Email::parse) {
        Some(Ok(e)) => Some(e),
        Some(Err(e)) => {
            let why = e.details().first().map(|d| d.message.clone());
            p.add(format!("{at}.email"), why.unwrap_or(e.public_message()));
            None
        }
        None => {
            p.add(format!("{at}.email"), "is required");
            None
        }
    };
    let tz = match tz.map(time_zone) {
        None => Some("UTC".to_string()),
        Some(Ok(tz)) => Some(tz),
        Some(Err(m)) => {
            p.add(format!("{at}.timeZone"), m);
            None
        }
    };
    Some(Attendee {
        name: name?,
        email: email?.as_str().to_string(),
        time_zone: tz?,
    })
}

/// A new booking's title: required, 1 to `TITLE_MAX` characters.
pub fn title(raw: Option<&str>, p: &mut Problems) -> String {
    match raw.map(|t| text(t, TITLE_MAX, false)) {
        Some(Ok(t)) => t,
        Some(Err(m)) => {
            p.add("title", m);
            String::new()
        }
        None => {
            p.add("title", "is required");
            String::new()
        }
    }
}

/// A new booking's start and end in Unix seconds (0 for one that is wrong): both required,
/// the end after the start.
pub fn times(start: Option<&str>, end: Option<&str>, p: &mut Problems) -> (i64, i64) {
    let mut time = |field: &str, raw: Option<&str>| match raw.map(timestamp) {
        Some(Ok(t)) => Some(t),
        Some(Err(m)) => {
            p.add(field, m);
            None
        }
        None => {
            p.add(field, "is required");
            None
        }
    };
    let start = time("startTime", start);
    let end = time("endTime", end);
    if let (Some(s), Some(e)) = (start, end)
        && e <= s
    {
        p.add("endTime", "must be after startTime");
    }
    (start.unwrap_or_default(), end.unwrap_or_default())
}

/// A new booking's description (several lines) or location (one): optional, at most `max`
/// characters, reported at `path`.
pub fn optional(
    raw: Option<&str>,
    (path, max, multiline): (&str, usize, bool),
    p: &mut Problems,
) -> Option<String> {
    optional_text(raw, max, multiline).unwrap_or_else(|m| {
        p.add(path, m);
        None
    })
}

/// The status a booking is created in: ACCEPTED unless PENDING is asked.
pub fn new_status(raw: Option<&str>, p: &mut Problems) -> Status {
    match raw.map(Status::parse) {
        None => Status::Accepted,
        Some(Some(s @ (Status::Accepted | Status::Pending))) => s,
        Some(_) => {
            p.add("status", "a new booking is ACCEPTED or PENDING");
            Status::Accepted
        }
    }
}

/// Whether a booking may have `count` attendees (at most `ATTENDEES_MAX`).
pub fn attendees_fit(count: usize, p: &mut Problems) -> bool {
    let fit = count <= ATTENDEES_MAX;
    if !fit {
        p.add("attendees", format!("at most {ATTENDEES_MAX} attendees"));
    }
    fit
}

/// A cancellation reason: optional, at most `REASON_MAX` characters.
pub fn validate_reason(raw: Option<&str>) -> Result<Option<String>, AppError> {
    let mut p = Problems::default();
    let reason = optional_text(raw, REASON_MAX, true).unwrap_or_else(|m| {
        p.add("reason", m);
        None
    });
    p.into_result(|| reason)
}
