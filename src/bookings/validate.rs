//! The rules a new booking and a cancellation reason meet, each problem named with its path.
use super::*;

/// A create request that passed `validate_new`.
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
pub(super) struct Problems(pub(super) Vec<FieldError>);

impl Problems {
    pub(super) fn add(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError {
            path: path.into(),
            message: message.into(),
        });
    }

    pub(super) fn into_result<T>(self, value: impl FnOnce() -> T) -> Result<T, AppError> {
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

pub(super) fn attendee(a: &AttendeeRequest, at: &str, p: &mut Problems) -> Option<Attendee> {
    let name = match a.name.as_deref().map(|n| text(n, ATTENDEE_NAME_MAX, false)) {
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
    let email = match a.email.as_deref().map(Email::parse) {
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
    let tz = match a.time_zone.as_deref().map(time_zone) {
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

/// Checks a create request: title, times (end after start), attendees, optional text, status.
pub fn validate_new(req: &CreateRequest) -> Result<NewBooking, AppError> {
    let mut p = Problems::default();
    let title = match req.title.as_deref().map(|t| text(t, TITLE_MAX, false)) {
        Some(Ok(t)) => t,
        Some(Err(m)) => {
            p.add("title", m);
            String::new()
        }
        None => {
            p.add("title", "is required");
            String::new()
        }
    };
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
    let start = time("startTime", req.start_time.as_deref());
    let end = time("endTime", req.end_time.as_deref());
    if let (Some(s), Some(e)) = (start, end)
        && e <= s
    {
        p.add("endTime", "must be after startTime");
    }
    let description = optional_text(req.description.as_deref(), DESCRIPTION_MAX, true)
        .unwrap_or_else(|m| {
            p.add("description", m);
            None
        });
    let location =
        optional_text(req.location.as_deref(), LOCATION_MAX, false).unwrap_or_else(|m| {
            p.add("location", m);
            None
        });
    let status = match req.status.as_deref().map(Status::parse) {
        None => Status::Accepted,
        Some(Some(s @ (Status::Accepted | Status::Pending))) => s,
        Some(_) => {
            p.add("status", "a new booking is ACCEPTED or PENDING");
            Status::Accepted
        }
    };
    let raw_attendees = req.attendees.as_deref().unwrap_or_default();
    let mut attendees = Vec::with_capacity(raw_attendees.len().min(ATTENDEES_MAX));
    if raw_attendees.len() > ATTENDEES_MAX {
        p.add("attendees", format!("at most {ATTENDEES_MAX} attendees"));
    } else {
        for (i, a) in raw_attendees.iter().enumerate() {
            attendees.extend(attendee(a, &format!("attendees[{i}]"), &mut p));
        }
    }
    let (start_time, end_time) = (start.unwrap_or_default(), end.unwrap_or_default());
    let derived = EventType::derived(
        &title,
        description.as_deref(),
        start_time,
        end_time,
        status == Status::Pending,
    );
    let event_type = match &req.event_type {
        None | Some(Value::Null) => derived,
        Some(raw) => details::event_type(raw, derived, &mut p.0),
    };
    let responses = match &req.responses {
        None | Some(Value::Null) => Map::new(),
        Some(raw) => details::responses(raw, &mut p.0),
    };
    p.into_result(|| NewBooking {
        title,
        description,
        start_time,
        end_time,
        status,
        location,
        attendees,
        event_type,
        responses,
    })
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
