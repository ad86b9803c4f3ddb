//! What the API v2's folder operations take, as either client sends it: the find's query and
//! the bodies of create, update and delete, turned into `signing::folders`' commands with
//! every problem of form named by its path (the folders' own rules are the use cases').

use serde::Deserialize;

use super::wire::FindQuery;
use crate::core::error::AppError;
use crate::core::lenient::{Given, Object};
use crate::http::api::wire::documents::settings::parse_visibility;
use crate::signing::documents::check::Check;
use crate::signing::folders::{FolderPatch, FolderQuery, Kind, NewFolder};

/// `GET /folder`'s query.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FolderFindQuery {
    /// Text in the names.
    pub query: Option<String>,
    /// 1 and up (default 1).
    pub page: Option<String>,
    /// 1 to 100 (default 10).
    pub per_page: Option<String>,
    /// Only the folders directly in this one (default: at any depth).
    pub parent_id: Option<String>,
    /// DOCUMENT or TEMPLATE.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub kind: Option<String>,
}

impl FolderFindQuery {
    pub fn find(&self) -> Result<FolderQuery, AppError> {
        let mut c = Check::new();
        let kind = match self.kind.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(k) => Kind::parse(k).or_else(|| {
                c.fail("type", "must be DOCUMENT or TEMPLATE");
                None
            }),
        };
        let paging = FindQuery {
            page: self.page.clone(),
            per_page: self.per_page.clone(),
            ..FindQuery::default()
        }
        .paging(10);
        let (page, per_page) = match paging {
            Ok(p) => p,
            Err(e) => {
                for d in e.details() {
                    c.fail(d.path.clone(), d.message.clone());
                }
                (1, 10)
            }
        };
        let query = crate::signing::documents::listing::search_terms(self.query.as_deref())?;
        c.finish(FolderQuery {
            query,
            parent: self.parent_id.clone().filter(|p| !p.trim().is_empty()),
            kind,
            page,
            per_page,
        })
    }
}

/// `POST /folder/create`'s body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2FolderCreate)]
pub struct CreateFolder {
    /// 1 to 255 characters.
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub name: Given<String>,
    /// The folder to make it in (default: at the root).
    #[schema(value_type = Option<String>)]
    #[serde(default)]
    pub parent_id: Given<String>,
    /// What it holds (default DOCUMENT; under a parent, the parent's kind).
    #[serde(rename = "type")]
    #[schema(value_type = Option<Kind>)]
    #[serde(default)]
    pub kind: Given<String>,
}

impl CreateFolder {
    pub fn new_folder(&self) -> Result<NewFolder, AppError> {
        let mut c = Check::new();
        let name = required_text(&mut c, &self.name, "name");
        let parent_id = c
            .given(&self.parent_id, "parentId", "must be a string")
            .cloned();
        let kind = c
            .given(&self.kind, "type", "must be DOCUMENT or TEMPLATE")
            .and_then(|k| {
                Kind::parse(k).or_else(|| {
                    c.fail("type", "must be DOCUMENT or TEMPLATE");
                    None
                })
            });
        c.finish(NewFolder {
            name: name.unwrap_or_default(),
            parent_id,
            kind,
        })
    }
}

/// `POST /folder/update`'s body: the folder and what changes.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2FolderUpdate)]
pub struct UpdateFolder {
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub folder_id: Given<String>,
    #[schema(value_type = FolderChange, required = true)]
    #[serde(default)]
    pub data: Given<Object<FolderChange>>,
}

/// What changes of a folder: each member given changes, the others stay.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2FolderChange)]
pub struct FolderChange {
    #[schema(value_type = Option<String>)]
    #[serde(default)]
    pub name: Given<String>,
    /// Another folder of its kind, or `null` for the root.
    #[schema(value_type = Option<String>)]
    #[serde(default)]
    pub parent_id: Given<String>,
    #[schema(value_type = Option<crate::core::owner::Visibility>)]
    #[serde(default)]
    pub visibility: Given<String>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub pinned: Given<bool>,
}

impl UpdateFolder {
    /// The folder's id and the change.
    pub fn patch(&self) -> Result<(String, FolderPatch), AppError> {
        let mut c = Check::new();
        let id = required_text(&mut c, &self.folder_id, "folderId");
        let mut patch = FolderPatch::default();
        match &self.data {
            Given::Valid(Object(d)) => {
                patch.name = c.given(&d.name, "data.name", "must be a string").cloned();
                patch.parent_id = match &d.parent_id {
                    Given::Absent => None,
                    Given::Null => Some(None),
                    given => c
                        .given(given, "data.parentId", "must be a folder's id or null")
                        .map(|p| Some(p.clone())),
                };
                let mut v = Check::new();
                patch.visibility = parse_visibility(&mut v, &d.visibility);
                if let Err(e) = v.finish(()) {
                    for x in e.details() {
                        c.fail(format!("data.{}", x.path), x.message.clone());
                    }
                }
                patch.pinned = c.flag(&d.pinned, "data.pinned");
            }
            Given::Invalid(_) => c.fail("data", "must be an object of the changes"),
            Given::Absent | Given::Null => c.fail("data", "required: an object of the changes"),
        }
        c.finish((id.unwrap_or_default(), patch))
    }
}

/// `POST /folder/delete`'s body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2FolderDelete)]
pub struct DeleteFolder {
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub folder_id: Given<String>,
}

impl DeleteFolder {
    pub fn id(&self) -> Result<String, AppError> {
        let mut c = Check::new();
        let id = required_text(&mut c, &self.folder_id, "folderId");
        c.finish(id.unwrap_or_default())
    }
}

/// A string member that must be sent.
pub fn required_text(c: &mut Check, g: &Given<String>, path: &str) -> Option<String> {
    match g {
        Given::Absent | Given::Null => {
            c.fail(path, "required");
            None
        }
        given => c.given(given, path, "must be a string").cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::from_slice;

    fn paths(e: AppError) -> Vec<String> {
        e.details().iter().map(|d| d.path.clone()).collect()
    }

    #[test]
    fn bodies_name_each_problem_by_its_path() {
        let ok: CreateFolder =
            from_slice(br#"{"name": "Leases", "type": "TEMPLATE", "parentId": null}"#).unwrap();
        let new = ok.new_folder().unwrap();
        assert_eq!(
            (new.name.as_str(), new.kind, new.parent_id),
            ("Leases", Some(Kind::Template), None)
        );
        let bad: CreateFolder = from_slice(br#"{"name": 5, "type": "FOLDER"}"#).unwrap();
        assert_eq!(paths(bad.new_folder().unwrap_err()), ["name", "type"]);
        let bad: CreateFolder = from_slice(b"{}").unwrap();
        assert_eq!(paths(bad.new_folder().unwrap_err()), ["name"]);

        let up: UpdateFolder = from_slice(
            br#"{"folderId": "f", "data": {"parentId": null, "pinned": true, "visibility": "ADMIN"}}"#,
        )
        .unwrap();
        let (id, patch) = up.patch().unwrap();
        assert_eq!(id, "f");
        assert_eq!(patch.parent_id, Some(None));
        assert_eq!(patch.pinned, Some(true));
        assert!(patch.name.is_none());
        let up: UpdateFolder =
            from_slice(br#"{"data": {"pinned": "yes", "visibility": "ALL", "parentId": 3}}"#)
                .unwrap();
        assert_eq!(
            paths(up.patch().unwrap_err()),
            [
                "folderId",
                "data.parentId",
                "data.visibility",
                "data.pinned"
            ]
        );
        let up: UpdateFolder = from_slice(br#"{"folderId": "f", "data": []}"#).unwrap();
        assert_eq!(paths(up.patch().unwrap_err()), ["data"]);
    }

    #[test]
    fn the_find_takes_floats_and_refuses_the_rest() {
        let q: FolderFindQuery = crate::http::body::pairs(
            b"page=2.0&perPage=5.0&type=TEMPLATE&parentId=&query=%20lease",
        )
        .unwrap();
        let f = q.find().unwrap();
        assert_eq!((f.page, f.per_page, f.kind), (2, 5, Some(Kind::Template)));
        assert_eq!((f.parent, f.query.as_deref()), (None, Some("lease")));
        let q: FolderFindQuery =
            crate::http::body::pairs(b"perPage=500&type=FOLDER&page=1.5").unwrap();
        assert_eq!(paths(q.find().unwrap_err()), ["type", "page", "perPage"]);
    }
}
