//! What the API v2's read operations take: the find queries and get-many bodies, every number
//! as either client sends it.

use serde::Deserialize;

use crate::core::error::{AppError, FieldError};
use crate::core::lenient::Int;
use crate::signing::documents::Status;
use crate::signing::envelope_ids::Envelope;
use crate::signing::envelopes::reads::{Find, Kind, MAX_MANY};

/// A find's query (`GET /envelope`, `/document`, `/template`), as sent.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FindQuery {
    /// Text in the title.
    pub query: Option<String>,
    /// 1 and up (default 1).
    pub page: Option<String>,
    /// 1 to 100 (default 10).
    pub per_page: Option<String>,
    /// DOCUMENT or TEMPLATE (envelopes only).
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub kind: Option<String>,
    /// DRAFT, PENDING, COMPLETED, REJECTED or CANCELLED.
    pub status: Option<String>,
    /// `createdAt`, the only order.
    pub order_by_column: Option<String>,
    /// asc or desc (default desc).
    pub order_by_direction: Option<String>,
    /// Only those directly in this folder.
    pub folder_id: Option<String>,
    /// Accepted and not yet applied.
    pub source: Option<String>,
    /// Accepted and not yet applied.
    pub template_id: Option<String>,
}

/// A number of the query, in `lo..=hi`, or `default` when absent.
fn bounded(
    raw: Option<&str>,
    name: &str,
    default: i64,
    (lo, hi): (i64, i64),
) -> Result<i64, FieldError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(default),
        Some(s) => match Int::parse(s) {
            Some(Int(n)) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(FieldError::new(
                name,
                format!("must be a whole number from {lo} to {hi}"),
            )),
        },
    }
}

impl FindQuery {
    /// The page and its size (`perPage` defaulting to `per_page`).
    pub fn paging(&self, per_page: i64) -> Result<(i64, i64), AppError> {
        let page = bounded(self.page.as_deref(), "page", 1, (1, 1_000_000));
        let size = bounded(self.per_page.as_deref(), "perPage", per_page, (1, 100));
        match (page, size) {
            (Ok(p), Ok(s)) => Ok((p, s)),
            (p, s) => Err(AppError::validation(
                [p.err(), s.err()].into_iter().flatten().collect(),
            )),
        }
    }

    /// The find, with `kind` fixed (legacy groups) or taken from `type`.
    pub fn find(&self, kind: Option<Kind>) -> Result<Find, AppError> {
        let mut errors = Vec::new();
        let kind = kind.or(match self.kind.as_deref() {
            None | Some("") => None,
            Some("DOCUMENT") => Some(Kind::Document),
            Some("TEMPLATE") => Some(Kind::Template),
            Some(_) => {
                errors.push(FieldError::new("type", "must be DOCUMENT or TEMPLATE"));
                None
            }
        });
        let status = match self.status.as_deref() {
            None | Some("") => None,
            Some(s) => Status::parse(s).or_else(|| {
                errors.push(FieldError::new(
                    "status",
                    "must be DRAFT, PENDING, COMPLETED, REJECTED or CANCELLED",
                ));
                None
            }),
        };
        let ascending = match self.order_by_direction.as_deref() {
            None | Some("") | Some("desc") => false,
            Some("asc") => true,
            Some(_) => {
                errors.push(FieldError::new("orderByDirection", "must be asc or desc"));
                false
            }
        };
        if let Some(c) = self
            .order_by_column
            .as_deref()
            .filter(|c| !c.is_empty() && *c != "createdAt")
        {
            errors.push(FieldError::new(
                "orderByColumn",
                format!("{c:?}: only createdAt"),
            ));
        }
        let query = crate::signing::documents::listing::search_terms(self.query.as_deref())?;
        let (page, per_page) = match self.paging(10) {
            Ok(p) => p,
            Err(AppError::BadRequest { details, .. }) => {
                errors.extend(details);
                (1, 10)
            }
            Err(e) => return Err(e),
        };
        if !errors.is_empty() {
            return Err(AppError::validation(errors));
        }
        Ok(Find {
            kind,
            status,
            query,
            folder: self.folder_id.clone().filter(|f| !f.is_empty()),
            ascending,
            page,
            per_page,
        })
    }
}

/// `POST /envelope/get-many`'s body: `{ids: {type, ids}}`, the ids of one kind.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct EnvelopeIds {
    pub ids: IdsOfKind,
}

/// Envelope ids (`envelope_...`), or document or template numbers; at most 100.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type")]
pub enum IdsOfKind {
    #[serde(rename = "envelopeId")]
    Envelope { ids: Vec<String> },
    #[serde(rename = "documentId")]
    Document {
        #[schema(value_type = Vec<i64>)]
        ids: Vec<Int>,
    },
    #[serde(rename = "templateId")]
    Template {
        #[schema(value_type = Vec<i64>)]
        ids: Vec<Int>,
    },
}

/// `POST /document/get-many`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentIds {
    /// Document numbers, at most 100.
    #[schema(value_type = Vec<i64>)]
    pub document_ids: Vec<Int>,
}

/// `POST /template/get-many`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateIds {
    /// Template numbers, at most 100.
    #[schema(value_type = Vec<i64>)]
    pub template_ids: Vec<Int>,
}

fn at_most(n: usize, name: &str) -> Result<(), AppError> {
    if n > MAX_MANY {
        return Err(AppError::validation(vec![FieldError::new(
            name,
            format!("at most {MAX_MANY} ids"),
        )]));
    }
    Ok(())
}

impl EnvelopeIds {
    /// The envelopes named; ids docket could not have given name nothing and are left out, as
    /// another workspace's are.
    pub fn envelopes(&self) -> Result<Vec<Envelope>, AppError> {
        use crate::core::ids::{DocumentId, TemplateId};
        Ok(match &self.ids {
            IdsOfKind::Envelope { ids } => {
                at_most(ids.len(), "ids.ids")?;
                ids.iter().filter_map(|s| Envelope::parse(s)).collect()
            }
            IdsOfKind::Document { ids } => {
                at_most(ids.len(), "ids.ids")?;
                ids.iter()
                    .filter(|n| n.0 > 0)
                    .map(|n| Envelope::Document(DocumentId::new(n.0)))
                    .collect()
            }
            IdsOfKind::Template { ids } => {
                at_most(ids.len(), "ids.ids")?;
                ids.iter()
                    .filter(|n| n.0 > 0)
                    .map(|n| Envelope::Template(TemplateId::new(n.0)))
                    .collect()
            }
        })
    }
}

impl DocumentIds {
    pub fn envelopes(&self) -> Result<Vec<Envelope>, AppError> {
        at_most(self.document_ids.len(), "documentIds")?;
        Ok(self
            .document_ids
            .iter()
            .filter(|n| n.0 > 0)
            .map(|n| Envelope::Document(crate::core::ids::DocumentId::new(n.0)))
            .collect())
    }
}

impl TemplateIds {
    pub fn envelopes(&self) -> Result<Vec<Envelope>, AppError> {
        at_most(self.template_ids.len(), "templateIds")?;
        Ok(self
            .template_ids
            .iter()
            .filter(|n| n.0 > 0)
            .map(|n| Envelope::Template(crate::core::ids::TemplateId::new(n.0)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> FindQuery {
        let raw: String = pairs.iter().map(|(k, v)| format!("{k}={v}&")).collect();
        crate::http::body::pairs(raw.as_bytes()).unwrap()
    }

    #[test]
    fn finds_take_the_python_clients_floats_and_refuse_the_rest_by_name() {
        let f = q(&[
            ("page", "2.0"),
            ("perPage", "25.0"),
            ("orderByDirection", "asc"),
        ])
        .find(None)
        .unwrap();
        assert_eq!(
            (f.page, f.per_page, f.ascending, f.kind),
            (2, 25, true, None)
        );
        let Err(AppError::BadRequest { details, .. }) =
            q(&[("page", "1.5"), ("perPage", "101"), ("type", "FOLDER")]).find(None)
        else {
            panic!("accepted")
        };
        let paths: Vec<&str> = details.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["type", "page", "perPage"]);
        let fixed = q(&[("type", "DOCUMENT")])
            .find(Some(Kind::Template))
            .unwrap();
        assert_eq!(fixed.kind, Some(Kind::Template));
    }
}
