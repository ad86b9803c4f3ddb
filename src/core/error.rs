//! `AppError`: every failure a request can end in, with its status code and public message.
//!
//! Domain modules return it; `http::reply` turns it into a JSON or HTML response in one place.
//! Internal causes are logged with the request id and never sent to the client.

use http::StatusCode;
use serde::Serialize;

/// One invalid input, located by a JSON-ish path such as `recipients[0].email`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

impl FieldError {
    /// What is wrong at `path` (a JSON path into the request or the document).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            path: path.into(),
            message: message.into(),
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum AppError {
    #[error("{message}")]
    BadRequest {
        code: &'static str,
        message: String,
        details: Vec<FieldError>,
    },
    #[error("{0}")]
    Unauthorized(String),
    /// A browser session (and maybe a second factor) is needed first: 401 with `code`
    /// (`account_required`, `wrong_account`, `second_factor_required`, `wrong_code`, ...).
    #[error("{message}")]
    AuthRequired { code: &'static str, message: String },
    #[error("{0}")]
    Forbidden(String),
    /// A valid credential without the scope this request needs (RFC 6750 3.1).
    #[error("this token lacks the {0} scope")]
    InsufficientScope(&'static str),
    #[error("{0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{0}")]
    Conflict(String),
    /// The thing existed but is gone for good (a cancelled document's signing link).
    #[error("{0}")]
    Gone(String),
    /// A recipient's time to act on a document has passed (410 `recipient_expired`).
    #[error("{0}")]
    RecipientExpired(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The request was read, but what it carries cannot be worked on (a file to check that is
    /// not a PDF): 422 with `code`.
    #[error("{message}")]
    Unprocessable { code: &'static str, message: String },
    /// The client stopped sending the request body.
    #[error("{0}")]
    RequestTimeout(String),
    /// `limit`: requests allowed a minute, for `X-RateLimit-Limit` (0 when not a rate limit).
    #[error("too many requests; retry in {retry_after} s")]
    TooManyRequests { retry_after: u64, limit: u64 },
    #[error("{0}")]
    Unavailable(String),
    /// A bounded resource (password checks) is busy: 503 with `Retry-After`.
    #[error("{message}")]
    Overloaded { retry_after: u64, message: String },
    /// The disk is low (new work refused below `--min-free-mb`) or a write found it full: 507
    /// with `Retry-After` (`disk_space`). Not logged per request: the disk watch warns once a
    /// minute.
    #[error("{0}")]
    InsufficientStorage(String),
    /// A bug or an environment failure; the cause is logged, the client sees a generic message.
    #[error("internal error: {0}")]
    Internal(String),
}

/// The message of the `Unavailable` error a call gets once the runtime is shutting down.
pub const STOPPING: &str = "the server is stopping";

impl AppError {
    /// Whether the call failed because the runtime is shutting down (`STOPPING`).
    pub fn is_stopping(&self) -> bool {
        matches!(self, AppError::Unavailable(m) if m == STOPPING)
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        AppError::BadRequest {
            code: "invalid_request",
            message: message.into(),
            details: Vec::new(),
        }
    }

    pub fn validation(details: Vec<FieldError>) -> Self {
        let message = match details.as_slice() {
            [one] => format!("{}: {}", one.path, one.message),
            _ => format!("{} fields are invalid", details.len()),
        };
        AppError::BadRequest {
            code: "validation_error",
            message,
            details,
        }
    }

    /// The request cannot apply to the thing in its present state (a finished document, a
    /// recipient who has acted): 400 `invalid_state`, as the signing service's API v1 answers
    /// such requests. Races (the state changed under the request) stay 409.
    pub fn wrong_state(message: impl Into<String>) -> Self {
        AppError::BadRequest {
            code: "invalid_state",
            message: message.into(),
            details: Vec::new(),
        }
    }

    /// `wrong_state` naming what must change: each of `paths` (into the resource as the API
    /// shows it, `recipients[1]`) with its own message.
    pub fn wrong_state_at(message: impl Into<String>, details: Vec<FieldError>) -> Self {
        AppError::BadRequest {
            code: "invalid_state",
            message: message.into(),
            details,
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        AppError::Internal(cause.to_string())
    }

    pub fn not_found(what: &str) -> Self {
        AppError::NotFound(format!("{what} not found"))
    }

    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            AppError::Unauthorized(_) | AppError::AuthRequired { .. } => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) | AppError::InsufficientScope(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::Gone(_) | AppError::RecipientExpired(_) => StatusCode::GONE,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            AppError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable(_) | AppError::Overloaded { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AppError::InsufficientStorage(_) => StatusCode::INSUFFICIENT_STORAGE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Machine-readable code sent as `code` (and `error`) in JSON bodies.
    pub fn code(&self) -> &'static str {
        match self {
            AppError::BadRequest { code, .. } => code,
            AppError::Unauthorized(_) => "unauthorized",
            AppError::AuthRequired { code, .. } => code,
            AppError::Forbidden(_) => "forbidden",
            AppError::InsufficientScope(_) => "insufficient_scope",
            AppError::NotFound(_) => "not_found",
            AppError::MethodNotAllowed => "method_not_allowed",
            AppError::Conflict(_) => "conflict",
            AppError::Gone(_) => "gone",
            AppError::RecipientExpired(_) => "recipient_expired",
            AppError::PayloadTooLarge(_) => "payload_too_large",
            AppError::UnsupportedMediaType(_) => "unsupported_media_type",
            AppError::Unprocessable { code, .. } => code,
            AppError::RequestTimeout(_) => "request_timeout",
            AppError::TooManyRequests { .. } => "rate_limited",
            AppError::Unavailable(_) => "unavailable",
            AppError::Overloaded { .. } => "overloaded",
            AppError::InsufficientStorage(_) => "insufficient_storage",
            AppError::Internal(_) => "internal_error",
        }
    }

    /// The message a client may see: everything but internal causes.
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(_) => "internal error; the server log has details".to_string(),
            other => other.to_string(),
        }
    }

    pub fn details(&self) -> &[FieldError] {
        match self {
            AppError::BadRequest { details, .. } => details,
            _ => &[],
        }
    }
}

/// A store of files did not answer as it should (unreachable, refused, failing): carried inside
/// an `io::Error`, it makes a request that needs a file a 503 rather than a 500, since the store
/// may come back. The cause is logged where it happens.
#[derive(Debug, thiserror::Error)]
#[error("the file storage is unavailable; try again later")]
pub struct StorageUnavailable;

impl From<crate::core::disk_space::Low> for AppError {
    fn from(low: crate::core::disk_space::Low) -> Self {
        AppError::InsufficientStorage(low.to_string())
    }
}

impl AppError {
    /// A write that found no room (ENOSPC, a quota, SQLITE_FULL): the disk watch is told, and
    /// the request gets 507 like new work refused below the threshold.
    pub fn disk_full() -> Self {
        crate::core::disk_space::note_full();
        AppError::InsufficientStorage(
            "the server's disk is full; try again once space has been freed".into(),
        )
    }
}

/// Whether `e` says the file system had no room for a write.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull
        || e.kind() == std::io::ErrorKind::QuotaExceeded
        || matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        if is_disk_full(&e) {
            return AppError::disk_full();
        }
        if let Some(u) = e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<StorageUnavailable>())
        {
            return AppError::Unavailable(u.to_string());
        }
        AppError::Internal(format!("i/o: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_causes_stay_private() {
        let e = AppError::internal("disk /secret/path failed");
        assert_eq!(e.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(!e.public_message().contains("/secret/path"));
    }

    #[test]
    fn a_full_disk_is_507_with_its_own_code_not_an_internal_error() {
        for e in [
            std::io::Error::from_raw_os_error(libc::ENOSPC),
            std::io::Error::from_raw_os_error(libc::EDQUOT),
            std::io::Error::from(std::io::ErrorKind::StorageFull),
        ] {
            let mapped = AppError::from(e);
            assert_eq!(mapped.status(), StatusCode::INSUFFICIENT_STORAGE);
            assert_eq!(mapped.code(), "insufficient_storage");
        }
        let other = AppError::from(std::io::Error::from_raw_os_error(libc::EIO));
        assert_eq!(other.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn validation_message_names_the_field() {
        let e = AppError::validation(vec![FieldError {
            path: "email".into(),
            message: "is not an e-mail address".into(),
        }]);
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        assert_eq!(e.public_message(), "email: is not an e-mail address");
    }
}
