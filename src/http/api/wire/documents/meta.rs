//! A document's `meta` as sent (each member optional), laid over the `Meta` it changes by
//! `meta`'s rules: text limits, time zones, date formats, the redirect URL, the e-mail switches;
//! and `formValues`, read the same way by documents and templates.

use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::core::i18n::Lang;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::check::Check;
use crate::signing::documents::dates::DATE_FORMATS;
use crate::signing::documents::deadline::{Period, Reminders};
use crate::signing::documents::meta::{
    self, Chosen, DistributionMethod, EmailSettings, MAX_MESSAGE, MAX_SUBJECT, MAX_URL,
    MAX_ZONE_OR_FORMAT, Meta, SigningOrder, is_form_value,
};

/// `meta`: each member optional.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetaInput {
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 255)]
    pub subject: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 5000)]
    pub message: Given<String>,
    #[serde(default)]
    /// An IANA time zone name such as Europe/Paris.
    #[schema(value_type = Option<String>, max_length = 64)]
    pub timezone: Given<String>,
    #[serde(default)]
    #[schema(schema_with = date_format_schema)]
    pub date_format: Given<String>,
    #[serde(default)]
    /// An absolute http or https URL.
    #[schema(value_type = Option<String>, max_length = 2000)]
    pub redirect_url: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<SigningOrder>)]
    pub signing_order: Given<SigningOrder>,
    #[serde(default)]
    #[schema(value_type = Option<DistributionMethod>)]
    pub distribution_method: Given<DistributionMethod>,
    #[serde(default)]
    #[schema(value_type = Option<EmailSettingsInput>)]
    pub email_settings: Given<Object<EmailSettingsInput>>,
    /// The language recipients read the signing pages and e-mails in; a region after the
    /// language ("pt-BR") names the language. Left out: the team's or the account's default.
    #[serde(default)]
    #[schema(value_type = Option<Lang>)]
    pub language: Given<String>,
    /// How long each recipient has once the document is sent: `{"unit": "day"|"week"|"month"|
    /// "year", "amount": n}` (a year at most), `{"until": "<RFC 3339 date>"}` or
    /// `{"disabled": true}`. Left out or null: the template's, team's or account's default.
    #[serde(default)]
    #[schema(value_type = Option<Period>)]
    pub envelope_expiration_period: Given<Value>,
    /// Automatic reminders: `{"everyDays": 1-30, "max": 1-10}`, within 30 days of sending;
    /// null: none.
    #[serde(default)]
    #[schema(value_type = Option<Reminders>)]
    pub reminders: Given<Value>,
}

/// `meta.emailSettings`: the switches, each on when left out.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailSettingsInput {
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub recipient_signing_request: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub recipient_removed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub recipient_signed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub document_pending: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub document_completed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub document_deleted: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub owner_document_completed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub owner_recipient_expired: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub owner_document_created: Given<bool>,
}

impl EmailSettingsInput {
    /// Each switch as sent, in `EmailSettings::KEYS`' order.
    pub fn switches(&self) -> [&Given<bool>; 9] {
        [
            &self.recipient_signing_request,
            &self.recipient_removed,
            &self.recipient_signed,
            &self.document_pending,
            &self.document_completed,
            &self.document_deleted,
            &self.owner_document_completed,
            &self.owner_recipient_expired,
            &self.owner_document_created,
        ]
    }
}

/// Applies the members present in `raw` (absent or null for none) over `base`.
/// `strict_zone`: documents need IANA names; templates' generate-document takes free strings.
pub fn parse_meta(
    c: &mut Check,
    raw: &Given<Object<MetaInput>>,
    base: Meta,
    strict_zone: bool,
) -> Meta {
    let mut meta = base;
    if raw.is_absent() {
        return meta;
    }
    let Some(Object(raw)) = c.given(raw, "meta", "must be an object") else {
        return meta;
    };
    if let Some(s) = c.text(&raw.subject, "meta.subject", MAX_SUBJECT) {
        meta.subject = Some(s);
    }
    if let Some(s) = c.text(&raw.message, "meta.message", MAX_MESSAGE) {
        meta.message = Some(s);
    }
    if let Some(tz) = c.text(&raw.timezone, "meta.timezone", MAX_ZONE_OR_FORMAT) {
        match meta::time_zone(&tz) {
            Err(why) if strict_zone => c.fail("meta.timezone", why),
            _ => meta.timezone = tz,
        }
    }
    if let Some(f) = c.text(&raw.date_format, "meta.dateFormat", MAX_ZONE_OR_FORMAT) {
        match meta::date_format(&f) {
            Err(why) if strict_zone => c.fail("meta.dateFormat", why),
            _ => meta.date_format = f,
        }
    }
    if let Some(u) = c.text(&raw.redirect_url, "meta.redirectUrl", MAX_URL) {
        match meta::redirect_url(&u) {
            Ok(url) => meta.redirect_url = Some(url),
            Err(why) => c.fail("meta.redirectUrl", why),
        }
    }
    let order = "must be PARALLEL or SEQUENTIAL";
    if let Some(o) = c.given(&raw.signing_order, "meta.signingOrder", order) {
        meta.signing_order = *o;
    }
    let method = "must be EMAIL or NONE";
    if let Some(m) = c.given(&raw.distribution_method, "meta.distributionMethod", method) {
        meta.distribution_method = *m;
    }
    if let Some(s) = parse_email_settings(c, &raw.email_settings) {
        meta.email_settings = s;
    }
    if let Some(l) = c.text(&raw.language, "meta.language", MAX_ZONE_OR_FORMAT) {
        match Lang::lenient(&l) {
            Some(lang) => meta.language = lang,
            None => c.fail("meta.language", Lang::expected()),
        }
    }
    if let Some(v) = raw.envelope_expiration_period.valid() {
        match Period::read(v, crate::core::db::now()) {
            Ok(p) => meta.envelope_expiration_period = p,
            Err(why) => c.fail("meta.envelopeExpirationPeriod", why),
        }
    }
    match &raw.reminders {
        Given::Valid(v) => match Reminders::read(v) {
            Ok(r) => meta.reminders = r,
            Err(why) => c.fail("meta.reminders", why),
        },
        Given::Null => meta.reminders = None,
        Given::Absent | Given::Invalid(_) => {}
    }
    meta
}

/// Which of the values a team gives defaults for `raw` sets (neither left out nor null): the
/// others take the team's default when the document or template is made in a team.
pub fn chosen(raw: &Given<Object<MetaInput>>) -> Chosen {
    let Some(Object(raw)) = raw.valid() else {
        return Chosen::default();
    };
    Chosen {
        timezone: !raw.timezone.is_absent(),
        date_format: !raw.date_format.is_absent(),
        redirect_url: !raw.redirect_url.is_absent(),
        signing_order: !raw.signing_order.is_absent(),
        language: !raw.language.is_absent(),
        expiration: !raw.envelope_expiration_period.is_absent(),
    }
}

/// `meta.emailSettings`: an object of the nine switches, each true or false; those left out
/// are on (as the signing service reads it), keys it does not know are ignored. Null or
/// absent: `None` (keep what there is).
fn parse_email_settings(
    c: &mut Check,
    raw: &Given<Object<EmailSettingsInput>>,
) -> Option<EmailSettings> {
    if raw.is_absent() {
        return None;
    }
    let message = "must be an object of true/false switches";
    let Object(given) = c.given(raw, "meta.emailSettings", message)?;
    let mut out = EmailSettings::default();
    for ((key, field), switch) in EmailSettings::KEYS.into_iter().zip(given.switches()) {
        let path = format!("meta.emailSettings.{key}");
        if let Some(b) = c.given(switch, &path, "must be true or false") {
            *field(&mut out) = *b;
        }
    }
    Some(out)
}

/// `formValues`: names to text, number or boolean values (`meta::is_form_value`).
pub fn parse_form_values(
    c: &mut Check,
    raw: &Given<Map<String, Value>>,
) -> Option<Map<String, Value>> {
    if raw.is_absent() {
        return None;
    }
    let message = "must be an object of names to text, numbers or booleans";
    let obj = c.given(raw, "formValues", message)?;
    for (k, v) in obj {
        if !is_form_value(v) {
            c.fail(
                format!("formValues.{k}"),
                "must be text, a number or a boolean",
            );
        }
    }
    Some(obj.clone())
}

/// Names to text, numbers or booleans.
pub fn form_values_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, SchemaType, Type};
    let value = ObjectBuilder::new().schema_type(SchemaType::from_iter([
        Type::String,
        Type::Number,
        Type::Boolean,
    ]));
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .additional_properties(Some(AdditionalProperties::RefOr(value.into())))
        .into()
}

fn date_format_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let mut formats: Vec<Option<&str>> = DATE_FORMATS.iter().copied().map(Some).collect();
    formats.push(None);
    ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            Type::String,
            Type::Null,
        ]))
        .enum_values(Some(formats))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn g<T: serde::de::DeserializeOwned>(v: Value) -> Given<T> {
        crate::core::lenient::member(&json!({ "v": v }), "v")
    }

    #[test]
    fn meta_is_validated_field_by_field() {
        let mut c = Check::new();
        let m = parse_meta(
            &mut c,
            &g(
                json!({"subject": "Sign", "timezone": "Europe/Paris", "dateFormat": "yyyy-MM-dd", "redirectUrl": "https://x.example/done", "signingOrder": "SEQUENTIAL"}),
            ),
            Meta::default(),
            true,
        );
        assert!(c.is_ok());
        assert_eq!(m.signing_order, SigningOrder::Sequential);
        assert_eq!(m.timezone, "Europe/Paris");

        let mut c = Check::new();
        parse_meta(
            &mut c,
            &g(
                json!({"timezone": "Mars/Base", "dateFormat": "whatever", "redirectUrl": "javascript:x", "signingOrder": "RANDOM"}),
            ),
            Meta::default(),
            true,
        );
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "meta.timezone",
                "meta.dateFormat",
                "meta.redirectUrl",
                "meta.signingOrder"
            ]
        );
    }

    #[test]
    fn distribution_and_email_settings_are_read_stored_and_derived() {
        let mut c = Check::new();
        let m = parse_meta(
            &mut c,
            &g(json!({"distributionMethod": "NONE",
                         "emailSettings": {"documentCompleted": false, "unknownKey": 1}})),
            Meta::default(),
            true,
        );
        assert!(c.is_ok());
        assert_eq!(m.distribution_method, DistributionMethod::None);
        assert!(!m.email_settings.document_completed);
        assert!(m.email_settings.recipient_signed, "left out: on");
        let e = m.effective_email();
        assert!(!e.recipient_signing_request && !e.document_deleted);
        assert!(
            e.owner_document_completed,
            "the owner's own mail keeps its setting"
        );
        // Stored meta from before these keys reads with their defaults.
        let old: Meta = serde_json::from_value(json!({"subject": null, "message": null,
            "timezone": "Etc/UTC", "dateFormat": "yyyy-MM-dd", "redirectUrl": null,
            "signingOrder": "PARALLEL"}))
        .unwrap();
        assert_eq!(old.distribution_method, DistributionMethod::Email);
        assert_eq!(old.email_settings, EmailSettings::default());
        let shown = serde_json::to_value(&m).unwrap();
        assert_eq!(shown["distributionMethod"], "NONE");
        assert_eq!(shown["emailSettings"].as_object().unwrap().len(), 9);

        let mut c = Check::new();
        parse_meta(
            &mut c,
            &g(json!({"distributionMethod": "FAX", "emailSettings": {"documentCompleted": "no"}})),
            Meta::default(),
            true,
        );
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "meta.distributionMethod",
                "meta.emailSettings.documentCompleted"
            ]
        );
    }

    #[test]
    fn what_a_request_chose_is_what_it_sent_neither_absent_nor_null() {
        assert_eq!(chosen(&Given::Absent), Chosen::default());
        assert_eq!(chosen(&g(json!([1]))), Chosen::default());
        let some = chosen(&g(json!({"timezone": "Europe/Paris", "dateFormat": null,
                                      "signingOrder": "RANDOM"})));
        assert_eq!(
            some,
            Chosen {
                timezone: true,
                signing_order: true,
                ..Chosen::default()
            }
        );
    }

    #[test]
    fn templates_take_free_time_zone_strings() {
        let mut c = Check::new();
        let m = parse_meta(
            &mut c,
            &g(json!({"timezone": "CET-ish"})),
            Meta::default(),
            false,
        );
        assert!(c.is_ok());
        assert_eq!(m.timezone, "CET-ish");
    }

    #[test]
    fn form_values_are_scalars() {
        let mut c = Check::new();
        parse_form_values(&mut c, &g(json!({"a": 1, "b": "x", "c": true})));
        assert!(c.is_ok());
        parse_form_values(&mut c, &g(json!({"a": [1]})));
        assert!(!c.is_ok());
    }
}
