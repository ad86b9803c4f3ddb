//! What the owner sends to send and resend a document, as types (read by `crate::core::lenient`),
//! turned into the sending use cases' commands (`signing::workflow::sending`).

use crate::core::ids::RecipientId;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::core::error::AppError;
use crate::core::lenient::Given;
use crate::signing::documents::check::Check;
use crate::signing::workflow::sending::{MAX_RESEND, Resend, SendDocument};

/// The send body. Like the signing service, a body that is not an object (an array, a string,
/// null) means the defaults (`lenient::OrDefault`): e-mail the recipients, completion e-mails
/// as the document says. Inside an object a switch must be true, false or null: a wrong type
/// is 400, not a guess, since mail sent against the owner's wish cannot be taken back.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = SendDocument, example = json!({"sendEmail": true}))]
pub struct SendRequest {
    /// false: nobody is e-mailed (the owner hands out the signing links).
    #[serde(default)]
    #[schema(value_type = Option<bool>, default = true)]
    pub send_email: Given<bool>,
    /// Sets meta.emailSettings documentCompleted and ownerDocumentCompleted.
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub send_completion_emails: Given<bool>,
}

impl SendRequest {
    /// What the send asks; `strict_form_values` comes from the query.
    pub fn validate(&self, strict_form_values: bool) -> Result<SendDocument, AppError> {
        let mut c = Check::new();
        let switch = "must be true or false";
        let send_email = c.given(&self.send_email, "sendEmail", switch).copied();
        let completion = &self.send_completion_emails;
        let completion_emails = c.given(completion, "sendCompletionEmails", switch).copied();
        c.finish(SendDocument {
            send_email: send_email.unwrap_or(true),
            completion_emails,
            strict_form_values,
        })
    }
}

/// `POST /api/v1/documents/{id}/resend`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[schema(as = ResendDocument, example = json!({"recipients": [12, 13]}))]
pub struct ResendRequest {
    #[serde(default)]
    #[schema(value_type = Vec<i64>, required = true, max_items = 100)]
    pub recipients: Given<Vec<RecipientId>>,
}

impl ResendRequest {
    /// The recipients to remind.
    pub fn validate(&self) -> Result<Resend, AppError> {
        let mut c = Check::new();
        match self.recipients.valid() {
            Some(ids) if ids.len() <= MAX_RESEND => {
                return Ok(Resend {
                    recipients: ids.clone(),
                });
            }
            _ => c.fail(
                "recipients",
                format!("a list of at most {MAX_RESEND} recipient ids is required"),
            ),
        }
        c.finish(Resend {
            recipients: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{core::lenient::OrDefault, core::lenient::from_slice};

    fn send(body: &str) -> Result<SendDocument, AppError> {
        from_slice::<OrDefault<SendRequest>>(body.as_bytes())?
            .0
            .validate(false)
    }

    #[test]
    fn a_send_body_that_is_no_object_means_the_defaults() {
        for body in ["[]", "\"x\"", "null", "{}"] {
            let o = send(body).unwrap();
            assert!(o.send_email && o.completion_emails.is_none(), "{body}");
        }
        let o = send(r#"{"sendEmail": false, "sendCompletionEmails": true}"#).unwrap();
        assert_eq!((o.send_email, o.completion_emails), (false, Some(true)));
        let e = send(r#"{"sendEmail": "no", "sendCompletionEmails": 1}"#).unwrap_err();
        let paths: Vec<&str> = e.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["sendEmail", "sendCompletionEmails"]);
    }

    #[test]
    fn a_resend_names_at_most_100_recipients() {
        let ids = |body: &str| {
            from_slice::<ResendRequest>(body.as_bytes())
                .unwrap()
                .validate()
                .map(|r| r.recipients)
        };
        assert_eq!(
            ids(r#"{"recipients": [1, 2]}"#).unwrap(),
            [RecipientId::new(1), RecipientId::new(2)]
        );
        let many = format!("{{\"recipients\": {:?}}}", vec![1; 101]);
        for bad in [r#"{}"#, r#"{"recipients": ["1"]}"#, many.as_str()] {
            assert_eq!(ids(bad).unwrap_err().details()[0].path, "recipients");
        }
    }
}
