//! `GET /templates/{id}/use`: the form that makes a document from a template: each recipient's
//! name and e-mail (pre-filled when the template has a real address), the title, and values
//! for its text and number fields; `POST` the same with `action=send` or `action=draft`. The
//! title says whose document it is: "<template title> – <first recipient's name>"
//! (`default_title`), filled in when the page opens with a name, kept in step with the first
//! name box by `assets/js/template-use.js` until the title is edited, and made by the server
//! when the title is posted exactly as the template's (the page's hint says so). The
//! form becomes the body of `POST /api/v1/templates/{id}/generate-document` and goes to the same
//! use case (`templates::manage::generate`), then, to send, to the documents' own send; a
//! refusal is shown next to what it names. Sent: the document's page; a draft: its editor.

use super::settings::sentence;
use askama::Template;
use serde_json::Value;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::templates::Person;
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{FieldId, RecipientId, TemplateId};
use crate::core::lenient::{Given, Object};
use crate::http::api::wire::templates::generate::{GenerateRequest, NamedRecipientInput};
use crate::http::api::wire::templates::prefill::PrefillInput;
use crate::http::reply::{self, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::signing::documents::audit::Origin;
use crate::signing::documents::fields::FieldType;
use crate::signing::templates::{manage, model};
use crate::signing::workflow::sending;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let show = place()
        .and(warp::path!("templates" / TemplateId / "use"))
        .and(warp::get())
        .and(signed_in(&state, "/templates"))
        .and(crate::http::with_state(state.clone()))
        .then(form)
        .map(reply::answer);
    let submit = place()
        .and(warp::path!("templates" / TemplateId / "use"))
        .and(warp::post())
        .and(form_csrf(&state, APP, "/templates"))
        .and(crate::http::origin())
        .and(crate::http::with_state(state))
        .then(submit)
        .map(reply::answer);
    show.or(submit).unify().boxed()
}

#[derive(Template)]
#[template(path = "app/template_use.html")]
struct UsePage {
    nav: Nav,
    id: TemplateId,
    template_title: String,
    title: String,
    title_error: String,
    /// The title's hint: what a title left as the template's becomes.
    title_hint: String,
    /// The first recipient's name box (`r<id>_name`), which the title follows; empty without
    /// recipients.
    title_follows: String,
    people: Vec<UsePerson>,
    prefill: Vec<Prefill>,
    /// The refusal, as a sentence, and the draft it left (when it was made but not sent).
    error: Option<String>,
    draft: Option<String>,
}

/// A recipient to fill in.
struct UsePerson {
    person: Person,
    /// The inputs' ids and names: `r<id>_name`, `r<id>_email`.
    name_id: String,
    email_id: String,
    name: String,
    /// The name the page offers before anything is typed (the template's, for a real address).
    offered: String,
    email: String,
    name_error: String,
    email_error: String,
}

/// A text or number field whose value may be given now (filled, and read-only for its
/// recipient).
struct Prefill {
    id: FieldId,
    /// The input's id and name: `f<id>`.
    input_id: String,
    label: String,
    number: bool,
    value: String,
    error: String,
}

/// A box of the form: a recipient's name (`r<id>_name`) or e-mail (`r<id>_email`), or a
/// field's value (`f<id>`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Input {
    Name(RecipientId),
    Email(RecipientId),
    Value(FieldId),
}

impl Input {
    /// The box a form name is, written as the page writes it (`r7_name`, never `r07_name`).
    fn of(name: &str) -> Option<Input> {
        let canonical = |id: &str, n: String| (n == id).then_some(());
        if let Some(id) = name.strip_prefix('f') {
            let field: FieldId = id.parse().ok()?;
            canonical(id, field.to_string())?;
            return Some(Input::Value(field));
        }
        let (id, part) = name.strip_prefix('r')?.rsplit_once('_')?;
        let recipient: RecipientId = id.parse().ok()?;
        canonical(id, recipient.to_string())?;
        match part {
            "name" => Some(Input::Name(recipient)),
            "email" => Some(Input::Email(recipient)),
            _ => None,
        }
    }
}

/// The form as posted: `action` (`send` or `draft`), the title, and each box as typed.
#[derive(Debug, Default)]
struct UseForm {
    action: Option<String>,
    title: Option<String>,
    boxes: Vec<(Input, String)>,
}

impl<'de> serde::Deserialize<'de> for UseForm {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<UseForm, D::Error> {
        let mut form = UseForm::default();
        for (name, value) in std::collections::BTreeMap::<String, String>::deserialize(d)? {
            match name.as_str() {
                "action" => form.action = Some(value),
                "title" => form.title = Some(value),
                other => form.boxes.extend(Input::of(other).map(|i| (i, value))),
            }
        }
        Ok(form)
    }
}

/// What was typed (nothing: the form as the template fills it).
struct Typed<'a>(Option<&'a UseForm>);

impl Typed<'_> {
    fn get(&self, input: Input) -> Option<String> {
        let (_, v) = self.0?.boxes.iter().find(|(i, _)| *i == input)?;
        Some(v.trim().to_string())
    }

    fn title(&self) -> Option<String> {
        self.0?.title.as_deref().map(|v| v.trim().to_string())
    }
}

/// The form over `t`, filled with `typed` (or the template's values).
fn filled(nav: Nav, t: &model::Template, typed: Typed<'_>) -> UsePage {
    let people: Vec<UsePerson> = Person::all(t)
        .into_iter()
        .map(|p| {
            let (name_id, email_id) = (format!("r{}_name", p.id), format!("r{}_email", p.id));
            let real = !p.email.is_empty();
            let offered = if real { p.label.clone() } else { String::new() };
            UsePerson {
                name: typed
                    .get(Input::Name(p.id))
                    .unwrap_or_else(|| offered.clone()),
                offered,
                email: typed
                    .get(Input::Email(p.id))
                    .unwrap_or_else(|| p.email.clone()),
                name_id,
                email_id,
                person: p,
                name_error: String::new(),
                email_error: String::new(),
            }
        })
        .collect();
    let prefill = t
        .fields
        .iter()
        .filter(|f| matches!(f.kind, FieldType::Text | FieldType::Number))
        .map(|f| Prefill {
            id: f.id,
            input_id: format!("f{}", f.id),
            label: prefill_label(t, f),
            number: f.kind == FieldType::Number,
            value: typed.get(Input::Value(f.id)).unwrap_or_default(),
            error: String::new(),
        })
        .collect();
    let first: Option<&UsePerson> = people.first();
    let (name, offered) = first.map_or(("", ""), |u| (u.name.as_str(), u.offered.as_str()));
    // Opened, or posted as the page offered it (the template's title, or with the name the
    // page offered): whose document it is, when a name is known. A title typed stays.
    let title = match typed.title() {
        Some(typed) if typed != t.title.trim() && typed != default_title(&t.title, offered) => {
            typed
        }
        _ => default_title(&t.title, name),
    };
    let title_hint = match first {
        Some(u) => format!(
            "Shown to the recipients. Left as offered, it follows the name given for {}: “{}”.",
            u.person.label,
            default_title(&t.title, "<name>"),
        ),
        None => "Shown to the recipients.".into(),
    };
    UsePage {
        nav,
        id: t.id,
        template_title: t.title.clone(),
        title,
        title_error: String::new(),
        title_hint,
        title_follows: first.map(|u| u.name_id.clone()).unwrap_or_default(),
        people,
        prefill,
        error: None,
        draft: None,
    }
}

/// The title a document made from the template `template` gets by default: "<template> –
/// <name>" (an en dash between spaces), the template's title alone without a name, cut to a
/// title's 255 characters. `assets/js/template-use.js` writes the same.
pub fn default_title(template: &str, name: &str) -> String {
    let (template, name) = (template.trim(), name.trim());
    if name.is_empty() {
        return template.to_string();
    }
    format!("{template} – {name}").chars().take(255).collect()
}

/// "Text “Flat” for Tenant, page 2".
fn prefill_label(t: &model::Template, f: &crate::signing::documents::model::Field) -> String {
    let kind = if f.kind == FieldType::Number {
        "Number"
    } else {
        "Text"
    };
    let label = f
        .meta
        .as_ref()
        .and_then(|m| m.basic().label.as_deref())
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!(" “{}”", l.trim()))
        .unwrap_or_default();
    let who = t
        .recipients
        .iter()
        .find(|r| r.id == f.recipient_id)
        .map(|r| Person::of(r, t).label)
        .unwrap_or_default();
    format!("{kind}{label} for {who}, page {}", f.page)
}

/// `GET /templates/{id}/use`.
async fn form(
    at: Place,
    id: TemplateId,
    (session, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let t = manage::read(&state.ctx(), &at.principal(&user), id).await?;
    let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
    Ok(page(Ok(filled(nav, &t, Typed(None)))))
}

/// `POST /templates/{id}/use`: the document made, and sent or left as a draft.
async fn submit(
    at: Place,
    id: TemplateId,
    (session, user): SignedIn,
    f: UseForm,
    origin: Origin,
    state: AppState,
) -> Result<Response, AppError> {
    let (ctx, who) = (state.ctx(), at.principal(&user));
    let t = manage::read(&ctx, &who, id).await?;
    let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
    let mut shown = filled(nav, &t, Typed(Some(&f)));
    let send = f.action.as_deref() == Some("send");
    let body = request_of(&shown);
    let made = match manage::generate(&ctx, &who, id, body.command()).await {
        Ok(m) => m,
        Err(e) if e.status().is_client_error() => {
            shown.place(&e);
            return Ok(page_as(e.status(), Ok(shown)));
        }
        Err(e) => return Err(e),
    };
    let doc = made.document_id;
    if !send {
        return Ok(redirect(&at.link(&format!("/documents/{doc}/edit"))));
    }
    match sending::send(&ctx, &who, doc, sending::SendDocument::default(), origin).await {
        Ok(_) => Ok(redirect(&at.link(&format!("/documents/{doc}")))),
        Err(e) if e.status().is_client_error() => {
            shown.error = Some(format!(
                "The document was made as a draft but not sent: {}",
                sentence(&e.public_message())
            ));
            shown.draft = Some(at.link(&format!("/documents/{doc}/edit?step=review")));
            Ok(page_as(e.status(), Ok(shown)))
        }
        Err(e) => Err(e),
    }
}

/// The `generate-document` body of what was typed: the recipients in the page's order, then
/// the prefilled values (empty ones left out), so that a refusal's paths name them back.
fn request_of(p: &UsePage) -> GenerateRequest {
    // What is left empty is left out.
    let given = |s: &str| match s {
        "" => Given::Absent,
        s => Given::Valid(s.to_string()),
    };
    let recipients = p
        .people
        .iter()
        .map(|u| {
            Given::Valid(Object(NamedRecipientInput {
                id: Given::Valid(u.person.id),
                name: given(&u.name),
                email: given(&u.email),
                ..NamedRecipientInput::default()
            }))
        })
        .collect();
    let prefill = p
        .prefill
        .iter()
        .filter(|f| !f.value.is_empty())
        .map(|f| {
            let kind = if f.number { "number" } else { "text" };
            Given::Valid(Object(PrefillInput {
                id: Given::Valid(f.id),
                kind: Given::Valid(kind.into()),
                value: Given::Valid(Value::String(f.value.clone())),
                ..PrefillInput::default()
            }))
        })
        .collect();
    GenerateRequest {
        title: Given::Valid(p.title.clone()),
        recipients: Given::Valid(recipients),
        prefill_fields: Given::Valid(prefill),
        ..GenerateRequest::default()
    }
}

impl UsePage {
    /// Puts each of `e`'s problems next to what its path names; the rest in the message.
    fn place(&mut self, e: &AppError) {
        let mut left = Vec::new();
        let filled: Vec<FieldId> = self
            .prefill
            .iter()
            .filter(|f| !f.value.is_empty())
            .map(|f| f.id)
            .collect();
        for d in e.details() {
            let message = sentence(&d.message);
            let person = indexed(&d.path, "recipients")
                .and_then(|(i, rest)| Some((self.people.get_mut(i)?, rest)));
            if let Some((u, rest)) = person {
                match rest {
                    ".name" => u.name_error = message,
                    _ => u.email_error = message,
                }
                continue;
            }
            let value = indexed(&d.path, "prefillFields")
                .and_then(|(i, _)| filled.get(i).copied())
                .and_then(|id| self.prefill.iter_mut().find(|f| f.id == id));
            if let Some(f) = value {
                f.error = message;
                continue;
            }
            if d.path == "title" {
                self.title_error = message;
                continue;
            }
            left.push(message);
        }
        self.error = Some(match (e.details().is_empty(), left.is_empty()) {
            (true, _) => sentence(&e.public_message()),
            (false, true) => "Nothing was made yet: some of what you typed needs a change (see the messages below).".into(),
            (false, false) => format!("Nothing was made yet: {}", left.join(" ")),
        });
    }
}

/// `recipients[3].email` as `(3, ".email")` for `list` = "recipients".
fn indexed<'a>(path: &'a str, list: &str) -> Option<(usize, &'a str)> {
    let rest = path.strip_prefix(list)?.strip_prefix('[')?;
    let (n, rest) = rest.split_once(']')?;
    Some((n.parse().ok()?, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_the_item_and_messages_become_sentences() {
        assert_eq!(
            indexed("recipients[3].email", "recipients"),
            Some((3, ".email"))
        );
        assert_eq!(
            indexed("prefillFields[0].value", "prefillFields"),
            Some((0, ".value"))
        );
        assert_eq!(indexed("title", "recipients"), None);
        assert_eq!(
            sentence("must be an e-mail address"),
            "Must be an e-mail address."
        );
        assert_eq!(sentence("Done."), "Done.");
        assert_eq!(sentence(""), "");
    }

    #[test]
    fn the_default_title_names_the_first_recipient() {
        assert_eq!(default_title("Lease", "Ann Tenant"), "Lease – Ann Tenant");
        assert_eq!(default_title(" Lease ", "  "), "Lease");
        let long = default_title(&"L".repeat(250), "Ann Tenant");
        assert_eq!(long.chars().count(), 255);
        assert!(long.ends_with(" – An"), "{long}");
    }

    #[test]
    fn the_form_reads_its_boxes_by_the_names_the_page_writes() {
        let form: UseForm =
            crate::http::body::pairs(b"action=draft&action=send&r7_name=A&r7_name=Ada&r07_name=X&f3=%201%20&r7_phone=1&zzz=1")
                .unwrap();
        assert_eq!(form.action.as_deref(), Some("send"));
        let typed = Typed(Some(&form));
        let r7 = RecipientId::new(7);
        assert_eq!(typed.get(Input::Name(r7)).as_deref(), Some("Ada"));
        assert_eq!(typed.get(Input::Email(r7)), None);
        assert_eq!(
            typed.get(Input::Value(FieldId::new(3))).as_deref(),
            Some("1")
        );
        assert_eq!(form.boxes.len(), 2, "{form:?}");
        assert_eq!(Typed(None).title(), None);
    }
}
