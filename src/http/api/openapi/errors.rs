//! The error answers an operation may give, as sets named for the kind of operation; a path
//! lists its set in `responses(...)`. Every one has the `Error` body (`reply::ErrorBody`),
//! except the OAuth token endpoints' RFC 6749 errors (`OAuthErrors`).

use std::collections::BTreeMap;

use utoipa::IntoResponses;
use utoipa::openapi::schema::Ref;
use utoipa::openapi::{ContentBuilder, RefOr, ResponseBuilder, response::Response};

/// Responses by status code.
type Answers = BTreeMap<String, RefOr<Response>>;

/// What each status means, wherever it is given.
pub fn meaning(code: u16) -> &'static str {
    match code {
        400 => "Invalid input; `details` lists each problem with its path",
        401 => "Missing or bad credentials",
        403 => "Not allowed (tier, scope, or a bad signed URL)",
        404 => "Unknown object, or another user's",
        409 => "Not allowed in the object's current state",
        413 => "Body too large",
        415 => "Unsupported media type",
        422 => "The file is not a PDF",
        429 => "Rate limited; see Retry-After and X-RateLimit-*",
        503 => "Busy; see Retry-After",
        _ => "Error",
    }
}

/// `codes`, each answered with the schema `body`.
fn answers(codes: &[u16], body: &str) -> Answers {
    codes
        .iter()
        .map(|&code| {
            let content = ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(body)))
                .build();
            let response = ResponseBuilder::new()
                .description(meaning(code))
                .content("application/json", content)
                .build();
            (code.to_string(), RefOr::T(response))
        })
        .collect()
}

/// A read under `/api/v1`.
pub struct ReadErrors;

impl IntoResponses for ReadErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 413, 429], "Error")
    }
}

/// A write with a JSON body that no object state forbids (creations).
pub struct CreateErrors;

impl IntoResponses for CreateErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 413, 415, 429], "Error")
    }
}

/// A write with a JSON body to an object whose state may forbid it.
pub struct ChangeErrors;

impl IntoResponses for ChangeErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 409, 413, 415, 429], "Error")
    }
}

/// A deletion (no body) that the object's state may forbid.
pub struct RemoveErrors;

impl IntoResponses for RemoveErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 409, 429], "Error")
    }
}

/// A deletion (no body) that any state allows.
pub struct DeleteErrors;

impl IntoResponses for DeleteErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 429], "Error")
    }
}

/// The PUT of a file to a signed upload URL.
pub struct UploadErrors;

impl IntoResponses for UploadErrors {
    fn responses() -> Answers {
        answers(&[400, 403, 404, 409, 413, 415], "Error")
    }
}

/// The public check of a sealed PDF.
pub struct CheckErrors;

impl IntoResponses for CheckErrors {
    fn responses() -> Answers {
        answers(&[400, 413, 415, 422, 429, 503], "Error")
    }
}

/// The GET of a file by a signed download URL.
pub struct DownloadErrors;

impl IntoResponses for DownloadErrors {
    fn responses() -> Answers {
        answers(&[403, 404], "Error")
    }
}

/// A call without parameters to check: only the credential can be wrong.
pub struct CredentialErrors;

impl IntoResponses for CredentialErrors {
    fn responses() -> Answers {
        answers(&[401, 403, 429], "Error")
    }
}

/// A Zapier app's subscription (a JSON body, no object named in the path).
pub struct SubscribeErrors;

impl IntoResponses for SubscribeErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 409, 413, 415, 429], "Error")
    }
}

/// Unsubscribing a Zapier app's hook by a JSON body.
pub struct UnsubscribeErrors;

impl IntoResponses for UnsubscribeErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 413, 415, 429], "Error")
    }
}

/// The OAuth token endpoints: RFC 6749 errors, and a body too large.
pub struct OAuthErrors;

impl IntoResponses for OAuthErrors {
    fn responses() -> Answers {
        let mut out = answers(&[400, 401], "OAuthError");
        for r in out.values_mut() {
            if let RefOr::T(r) = r {
                r.description = "OAuth error".into();
            }
        }
        out.extend(answers(&[413], "Error"));
        out
    }
}

/// A read of the API v2 (`/api/v2`): its error body.
pub struct V2ReadErrors;

impl IntoResponses for V2ReadErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 429], "V2Error")
    }
}

/// A call of the API v2 with a JSON body.
pub struct V2ChangeErrors;

impl IntoResponses for V2ChangeErrors {
    fn responses() -> Answers {
        answers(&[400, 401, 403, 404, 413, 415, 429], "V2Error")
    }
}
