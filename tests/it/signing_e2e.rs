//! The whole signing story, end to end: a document made through the API with two SEQUENTIAL
//! signers, an approver and a CC and fields of every type; sent; each signer follows the link
//! from the e-mail a real SMTP server (aiosmtpd) received and signs in headless Chromium; the
//! approver approves from their e-mail's link; the document is sealed and everyone receives the
//! sealed PDF, which poppler's `pdfsig`, `qpdf --check` and `pdftotext` accept.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, Created, fixture};
use crate::support::mailbox::MailBox;
use crate::support::wait::{eventually, wait_for};
use crate::support::{sealed_pdf, tools};

/// Waits (60 s at most) for a message to `to` whose subject contains `subject` (attachments
/// saved to `out`).
async fn wait_mail(smtp: &MailBox, out: &Path, to: &str, subject: &str) -> Value {
    wait_for(Duration::from_secs(60), || {
        let got = smtp.decoded(out);
        got.iter()
            .find(|m| {
                m["to"].as_str().unwrap_or_default().contains(to)
                    && m["subject"].as_str().unwrap_or_default().contains(subject)
            })
            .cloned()
            .ok_or_else(|| {
                let seen: Vec<_> = got
                    .iter()
                    .map(|m| (m["to"].clone(), m["subject"].clone()))
                    .collect();
                format!("no mail to {to} about {subject:?}: {seen:?}")
            })
    })
    .await
}

/// The signing link in a message's text.
fn link_in(mail: &Value, base: &str) -> String {
    let text = mail["text"].as_str().unwrap();
    let start = text
        .find(&format!("{base}/sign/"))
        .unwrap_or_else(|| panic!("no link in {text}"));
    text[start..].split_whitespace().next().unwrap().to_string()
}

fn run_browser(args: &[&str]) -> Value {
    tools::summary(tools::browser_script("signing.mjs", args))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node, aiosmtpd, poppler, qpdf"
)]
async fn two_signers_an_approver_and_a_cc_sign_through_mail_and_browser() {
    let smtp = MailBox::start();
    let attachments = tempfile::tempdir().unwrap();
    let url = smtp.url();
    let app = TestApp::spawn_with(&["--tls", "off", "--smtp-url", &url]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let md = &smtp;
    let att = attachments.path();

    let created = lease_with_fields_of_every_type(&api).await;
    let id = created.document_id();
    let (s, v) = api.send_with(id, json!({})).await;
    assert_eq!(s, 200, "{v}");

    let shown = everyone_signs_from_their_mail(&app, md, att, &created).await;

    // Sealed and completed; everyone, the CC and the owner included, gets the sealed PDF.
    wait_completed(&api, id).await;
    let pdf = everyone_receives_the_sealed_pdf(md, att).await;
    assert_sealed_pdf_passes_the_tools(&pdf);
    for size in ["desktopValues", "phoneValues"] {
        assert_values_stand_where_the_page_showed_them(&pdf, &shown[size]);
    }
    app.stop().await;
}

/// The lease for Ann and Bea (SIGNERs), Abe (APPROVER) and Cid (CC), SEQUENTIAL, uploaded,
/// with Ann's fields of every type and Bea's free signature.
async fn lease_with_fields_of_every_type(api: &Api) -> Created {
    let created = api.create_document(json!({"title": "Flat lease", "recipients": [
            {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 1},
            {"name": "Bea Second", "email": "bea@example.com", "role": "SIGNER", "signingOrder": 2},
            {"name": "Abe Approver", "email": "abe@example.com", "role": "APPROVER", "signingOrder": 3},
            {"name": "Cid Copy", "email": "cid@example.com", "role": "CC", "signingOrder": 4}
        ], "meta": {"signingOrder": "SEQUENTIAL", "subject": "Your lease", "timezone": "Europe/Paris", "dateFormat": "dd.MM.yyyy"}}))
    .await;
    let id = created.document_id();
    let (put, _) = api.upload(created.upload_url(), fixture("a4-1p.pdf")).await;
    assert_eq!(put, 200);
    let r = &created["recipients"];
    let fields = lease_fields(&r[0]["recipientId"], &r[1]["recipientId"]);
    let (s, v) = api
        .post(&format!("/api/v1/documents/{id}/fields"), fields)
        .await;
    assert_eq!(s, 200, "{v}");
    created
}

/// A field of `kind` for `who` on page 1 at (`x`, `y`), with `meta` unless it is null.
fn field(who: &Value, kind: &str, x: i64, y: i64, meta: Value) -> Value {
    let mut v = json!({"recipientId": who, "type": kind, "pageNumber": 1, "pageX": x, "pageY": y, "pageWidth": 28, "pageHeight": 5});
    if !meta.is_null() {
        v["fieldMeta"] = meta;
    }
    v
}

/// The `fieldMeta` of a checkbox or radio field with `labels`, none checked.
fn choices(kind: &str, labels: &[&str]) -> Value {
    json!({"type": kind, "values": labels.iter().enumerate().map(|(i, l)| json!({"id": i + 1, "checked": false, "value": l})).collect::<Vec<_>>()})
}

/// Ann's fields of every type and Bea's free signature.
fn lease_fields(ann: &Value, bea: &Value) -> Value {
    let f = field;
    json!([
        f(ann, "SIGNATURE", 10, 70, Value::Null),
        f(ann, "INITIALS", 60, 70, Value::Null),
        f(ann, "NAME", 10, 10, Value::Null),
        f(ann, "EMAIL", 60, 10, Value::Null),
        f(ann, "DATE", 10, 78, Value::Null),
        f(
            ann,
            "TEXT",
            10,
            20,
            json!({"type": "text", "label": "Address", "characterLimit": 12, "required": true})
        ),
        f(
            ann,
            "NUMBER",
            60,
            20,
            json!({"type": "number", "label": "Tenants", "minValue": 1, "maxValue": 10, "required": true})
        ),
        f(
            ann,
            "CHECKBOX",
            10,
            30,
            choices("checkbox", &["Pets", "Parking", "Pool"])
        ),
        f(
            ann,
            "RADIO",
            60,
            30,
            choices("radio", &["Monthly", "Yearly"])
        ),
        f(
            ann,
            "SELECT",
            10,
            40,
            json!({"type": "select", "values": [{"value": "Furnished"}, {"value": "Unfurnished"}]})
        ),
        f(bea, "FREE_SIGNATURE", 60, 78, Value::Null),
    ])
}

/// Each signer, in turn, follows the link in the e-mail she got and signs in Chromium; then
/// the approver approves from his.
async fn everyone_signs_from_their_mail(
    app: &TestApp,
    md: &MailBox,
    att: &Path,
    created: &Created,
) -> Value {
    let r = &created["recipients"];
    // Only the first signer is e-mailed; she follows her link.
    let first = wait_mail(md, att, "ann@example.com", "Your lease").await;
    let ann_link = link_in(&first, &app.base);
    assert!(
        md.decoded(att)
            .iter()
            .all(|m| !m["to"].as_str().unwrap().contains("bea@"))
    );
    let bea_link = r[1]["signingUrl"].as_str().unwrap().to_string();
    let shown = run_browser(&["first", &ann_link, &bea_link]);
    for shot in ["sign-start", "sign-filled"] {
        for size in ["desktop", "phone"] {
            let path = tools::screenshots().join(format!("{shot}-{size}.png"));
            assert!(path.exists(), "{shot}-{size} screenshot kept");
        }
    }

    // Now the second signer gets her e-mail and signs on a phone, by keyboard.
    let second = wait_mail(md, att, "bea@example.com", "Your lease").await;
    assert_eq!(link_in(&second, &app.base), bea_link);
    run_browser(&["second", &bea_link]);

    // The approver approves from his e-mail's link.
    let third = wait_mail(md, att, "abe@example.com", "Your lease").await;
    let abe_token = link_in(&third, &app.base)
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let (s, _) = app.signer(&abe_token).complete(json!({})).await;
    assert_eq!(s, 200);
    shown
}

/// Each value the first signer's page showed (`valuesAsLaidOut` in signing.mjs: its first and
/// last points from the page's left edge, at one viewport size) starts and ends in the sealed
/// PDF where the page showed it, within half a point: the same face, size and place.
fn assert_values_stand_where_the_page_showed_them(pdf: &str, shown: &Value) {
    let (ok, html) = tools::run("pdftotext", &["-bbox", "-f", "1", "-l", "1", pdf, "-"]);
    assert!(ok, "{html}");
    let words: Vec<(String, f64, f64)> = html
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let attr = |name: &str| -> Option<f64> {
                let at = l.find(&format!("{name}=\""))? + name.len() + 2;
                l[at..].split('"').next()?.parse().ok()
            };
            let text = l.strip_prefix("<word ")?.split_once('>')?.1;
            let text = text.strip_suffix("</word>")?;
            Some((text.replace("&amp;", "&"), attr("xMin")?, attr("xMax")?))
        })
        .collect();
    let shown = shown.as_array().expect("values as laid out");
    assert!(shown.len() >= 6, "the filled values: {shown:?}");
    for v in shown {
        let text = v["text"].as_str().unwrap();
        let want: Vec<&str> = text.split_whitespace().collect();
        let at = words
            .windows(want.len())
            .find(|w| w.iter().map(|x| x.0.as_str()).eq(want.iter().copied()))
            .unwrap_or_else(|| panic!("{text:?} is not on the sealed page: {words:?}"));
        let (left, right) = (at[0].1, at[want.len() - 1].2);
        let (page_left, page_right) = (v["left"].as_f64().unwrap(), v["right"].as_f64().unwrap());
        assert!(
            (left - page_left).abs() < 0.5 && (right - page_right).abs() < 0.5,
            "{text:?} ({}) spans {left:.2}..{right:.2} pt in the PDF, {page_left:.2}..{page_right:.2} on the page",
            v["type"]
        );
    }
}

/// Waits (60 s at most) until document `id` is COMPLETED.
async fn wait_completed(api: &Api, id: i64) {
    eventually(Duration::from_secs(60), || async move {
        let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
        if doc["status"] == "COMPLETED" {
            Ok(())
        } else {
            Err(format!("never completed: {doc}"))
        }
    })
    .await
}

/// Waits for everyone's "Completed" mail with the sealed PDF attached; the last one's path.
async fn everyone_receives_the_sealed_pdf(md: &MailBox, att: &Path) -> String {
    let mut pdf = None;
    for who in ["ann@", "bea@", "abe@", "cid@", "owner@"] {
        let m = wait_mail(md, att, who, "Completed").await;
        let a = &m["attachments"][0];
        assert_eq!(a["contentType"], "application/pdf", "{who}: {m}");
        pdf = Some(a["path"].as_str().unwrap().to_string());
    }
    pdf.unwrap()
}

/// `pdfsig`, `qpdf --check` and `pdftotext` accept the sealed PDF, which shows what was filled.
fn assert_sealed_pdf_passes_the_tools(pdf: &str) {
    sealed_pdf::assert_one_valid_signature(Path::new(pdf));
    let (ok, check) = tools::run("qpdf", &["--check", pdf]);
    assert!(ok, "{check}");
    assert!(
        check.contains("No syntax or stream encoding errors"),
        "{check}"
    );
    // Bea's typed signature is stamped in the script face the signing page showed it in.
    let (ok, fonts) = tools::run("pdffonts", &[pdf]);
    assert!(ok, "{fonts}");
    let script = fonts
        .lines()
        .find(|l| l.contains("+DancingScript-Regular"))
        .unwrap_or_else(|| panic!("no script face in the sealed PDF:\n{fonts}"));
    assert!(script.contains(" yes "), "embedded: {script}");
    let (ok, text) = tools::run("pdftotext", &[pdf, "-"]);
    assert!(ok);
    for expect in [
        "Ann Signer",
        "Bea Second",
        "ann@example.com",
        "Flat 4B, Rue",
        "Yearly",
        "Furnished",
        "Pets",
        "Parking",
        "Audit certificate",
        "Signing link only",
        "bea@example.com",
        "abe@example.com",
    ] {
        assert!(
            text.contains(expect),
            "{expect:?} missing from the sealed PDF:\n{text}"
        );
    }
    // The date was filled at completion, in dd.MM.yyyy.
    assert!(
        text.split_whitespace()
            .any(|w| w.len() == 10 && w.as_bytes()[2] == b'.' && w.as_bytes()[5] == b'.'),
        "{text}"
    );
}
