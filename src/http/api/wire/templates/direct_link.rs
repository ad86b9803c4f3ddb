//! `PUT /api/v1/templates/{id}/direct-link` as a type, turned into the direct link's change.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::core::error::AppError;
use crate::core::ids::RecipientId;
use crate::core::lenient::Given;
use crate::signing::documents::check::Check;
use crate::signing::templates::direct::DirectLinkChange;

/// `PUT /api/v1/templates/{id}/direct-link`: members left out stay as they are.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = SetDirectLink, example = json!({"enabled": true, "recipientId": 12}))]
pub struct DirectLinkRequest {
    /// Turns the link on or off.
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub enabled: Given<bool>,
    /// The template recipient (a SIGNER with a signature field) a visitor becomes.
    #[serde(default)]
    #[schema(value_type = Option<i64>)]
    pub recipient_id: Given<RecipientId>,
    /// true: a new token, so that the old address stops working.
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub new_token: Given<bool>,
}

impl DirectLinkRequest {
    pub fn validate(&self) -> Result<DirectLinkChange, AppError> {
        let mut c = Check::new();
        let enabled = c.flag(&self.enabled, "enabled");
        let why = "must be the id of one of the template's recipients";
        let recipient = c.given(&self.recipient_id, "recipientId", why).copied();
        let new_token = c.flag(&self.new_token, "newToken").unwrap_or(false);
        c.finish(DirectLinkChange {
            enabled,
            recipient,
            new_token,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::from_slice;

    #[test]
    fn a_change_reads_each_member_or_says_what_is_wrong() {
        let c = from_slice::<DirectLinkRequest>(br#"{"enabled": true, "recipientId": 7}"#)
            .unwrap()
            .validate()
            .unwrap();
        assert_eq!(
            (c.enabled, c.recipient, c.new_token),
            (Some(true), Some(RecipientId::new(7)), false)
        );
        let e = from_slice::<DirectLinkRequest>(
            br#"{"enabled": "yes", "recipientId": "x", "newToken": 1}"#,
        )
        .unwrap()
        .validate()
        .unwrap_err();
        let paths: Vec<&str> = e.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["enabled", "recipientId", "newToken"]);
    }
}
