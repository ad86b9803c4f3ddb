//! Fields as its scripts send them: dropdowns, layout keys, choices, prefills, folders.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropdown_stays_a_dropdown_in_every_answer_and_webhook() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("ada@example.com", "standard");
    let rx = crate::support::webhook::Receiver::start(&[]).await;
    api.add_webhook(crate::support::api::webhook(&rx.url(), &["DOCUMENT_SENT"]))
        .await;
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let choices = json!({"type": "dropdown", "values": [{"value": "A"}, {"value": "B"}]});
    let (s, added) = api
        .post(
            &format!("/api/v1/documents/{id}/fields"),
            json!([
                placed(ann, "SIGNATURE", 80, json!(null)),
                placed(ann, "DROPDOWN", 60, choices)
            ]),
        )
        .await;
    assert_eq!(s, 200, "{added}");
    let dd = added["fields"][1]["id"].as_i64().unwrap();
    let is_dropdown = |f: &serde_json::Value| {
        assert_eq!(
            (&f["type"], &f["fieldMeta"]["type"]),
            (&json!("DROPDOWN"), &json!("dropdown")),
            "{f}"
        );
    };
    is_dropdown(&added["fields"][1]);
    let (s, patched) = api
        .patch(
            &format!("/api/v1/documents/{id}/fields/{dd}"),
            json!({"pageX": 20}),
        )
        .await;
    assert_eq!(s, 200, "{patched}");
    is_dropdown(&patched);
    is_dropdown(field_in(&api.document(id).await["fields"], dd));
    let (_, list) = api.get("/api/v1/documents").await;
    is_dropdown(field_in(&list["documents"][0]["fields"], dd));

    assert_eq!(api.send(id).await.0, 200);
    let sent: serde_json::Value = serde_json::from_str(&rx.wait_for(1).await[0].body).unwrap();
    is_dropdown(field_in(&sent["payload"]["fields"], dd));
    // It is filled as a list to pick one of.
    let signer = app.signer(&doc.token(0));
    assert_eq!(signer.fill(dd, json!({"value": "C"})).await.0, 400);
    let (s, v) = signer.fill(dd, json!({"value": "B"})).await;
    assert_eq!(s, 200, "{v}");

    // Templates, and the documents made from them, keep the name too.
    let t = api
        .create_template(
            json!({"title": "T", "recipients": [{"name": "R", "email": "r@example.com"}]}),
        )
        .await;
    let tid = t.template_id();
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let rid = t.recipient_id(0);
    let (s, v) = api
        .post(
            &format!("/api/v1/templates/{tid}/fields"),
            json!([placed(
                rid,
                "DROPDOWN",
                10,
                json!({"type": "dropdown", "values": [{"value": "X"}]})
            )]),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    is_dropdown(&v["fields"][0]);
    let (_, got) = api.get(&format!("/api/v1/templates/{tid}")).await;
    is_dropdown(&got["Field"][0]);
    let (s, made) = api
        .post(
            &format!("/api/v1/templates/{tid}/generate-document"),
            json!({"recipients": []}),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let generated = api.document(made["documentId"].as_i64().unwrap()).await;
    is_dropdown(&generated["fields"][0]);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn field_meta_keeps_every_layout_key_it_was_sent_and_checks_them() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let sent = [
        (
            "TEXT",
            json!({"type": "text", "label": "Ref", "textAlign": "right", "lineHeight": 2,
            "letterSpacing": 1.5, "verticalAlign": "top", "overflow": "crop", "fontSize": 14,
            "characterLimit": 0}),
        ),
        (
            "NUMBER",
            json!({"type": "number", "value": "12", "textAlign": "center",
            "verticalAlign": "middle", "numberFormat": "123,456,789.00"}),
        ),
        (
            "RADIO",
            json!({"type": "radio", "direction": "horizontal",
            "values": [{"id": 1, "checked": false, "value": "Yes"}]}),
        ),
        (
            "CHECKBOX",
            json!({"type": "checkbox", "direction": "vertical", "validationRule": "",
            "validationLength": 0, "values": [{"id": 1, "checked": true, "value": "I agree"}]}),
        ),
        (
            "NAME",
            json!({"type": "name", "textAlign": "center", "overflow": "auto"}),
        ),
        (
            "DATE",
            json!({"type": "date", "textAlign": "right", "overflow": "auto"}),
        ),
        (
            "SIGNATURE",
            json!({"type": "signature", "overflow": "auto"}),
        ),
    ];
    let body: Vec<_> = sent
        .iter()
        .enumerate()
        .map(|(i, (kind, meta))| placed(ann, kind, 5 + 10 * i as i64, meta.clone()))
        .collect();
    let ids = api.add_fields(id, json!(body)).await;
    let doc_fields = api.document(id).await["fields"].clone();
    for ((kind, meta), fid) in sent.iter().zip(&ids) {
        let got = &field_in(&doc_fields, *fid)["fieldMeta"];
        for (k, v) in meta.as_object().unwrap() {
            let same = got[k] == *v || (got[k].as_f64().is_some() && got[k].as_f64() == v.as_f64());
            assert!(same, "{kind}: {k} sent {v}, answered {}", got[k]);
        }
    }
    // Wrong values are a 400 naming each.
    let bad = placed(
        ann,
        "TEXT",
        5,
        json!({"type": "text", "textAlign": "justify", "lineHeight": 0.5, "letterSpacing": 101,
               "verticalAlign": "center", "overflow": "scroll"}),
    );
    let (s, v) = api
        .post(&format!("/api/v1/documents/{id}/fields"), bad)
        .await;
    assert_eq!(s, 400, "{v}");
    let text = v.to_string();
    for key in [
        "textAlign",
        "lineHeight",
        "letterSpacing",
        "verticalAlign",
        "overflow",
    ] {
        assert!(text.contains(&format!("fieldMeta.{key}")), "{key}: {v}");
    }
    let radio = placed(ann, "RADIO", 5, json!({"type": "radio", "direction": "up"}));
    let (s, v) = api
        .post(&format!("/api/v1/documents/{id}/fields"), radio)
        .await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("fieldMeta.direction"), "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn choice_fields_may_lack_values_until_the_document_is_sent() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let (ann, cid) = (doc.recipient_id(0), doc.recipient_id(1));
    let ids = api
        .add_fields(
            id,
            json!([
                placed(ann, "SIGNATURE", 80, json!(null)),
                placed(ann, "RADIO", 10, json!({"type": "radio"})),
                placed(
                    ann,
                    "CHECKBOX",
                    20,
                    json!({"type": "checkbox", "values": []})
                ),
                placed(ann, "DROPDOWN", 30, json!({"type": "dropdown"})),
                // Not a signer's: nobody has to fill it.
                placed(cid, "RADIO", 40, json!({"type": "radio"}))
            ]),
        )
        .await;
    let d = api.document(id).await;
    assert!(
        field_in(&d["fields"], ids[1])["fieldMeta"]
            .get("values")
            .is_none()
    );
    assert_eq!(
        field_in(&d["fields"], ids[2])["fieldMeta"]["values"],
        json!([])
    );
    let (s, v) = api.send(id).await;
    assert_eq!(s, 400, "{v}");
    let msg = v["message"].as_str().unwrap();
    for (fid, kind) in [
        (ids[1], "RADIO"),
        (ids[2], "CHECKBOX"),
        (ids[3], "DROPDOWN"),
    ] {
        assert!(msg.contains(&format!("field {fid} ({kind})")), "{msg}");
    }
    assert!(!msg.contains(&format!("field {} ", ids[4])), "{msg}");
    assert_eq!(api.document(id).await["status"], "DRAFT");
    let values = [
        json!({"type": "radio", "values": [{"id": 1, "checked": false, "value": "Yes"}]}),
        json!({"type": "checkbox", "values": [{"id": 1, "checked": false, "value": "Ok"}]}),
        json!({"type": "dropdown", "values": [{"value": "One"}]}),
    ];
    for (fid, meta) in ids[1..4].iter().zip(values) {
        let (s, v) = api
            .patch(
                &format!("/api/v1/documents/{id}/fields/{fid}"),
                json!({"fieldMeta": meta}),
            )
            .await;
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    // Once sent, a signer gets no new choice field without values.
    let (s, v) = api
        .post(
            &format!("/api/v1/documents/{id}/fields"),
            placed(ann, "DROPDOWN", 50, json!({"type": "dropdown"})),
        )
        .await;
    assert_eq!(s, 400, "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_document_prefills_fields_that_the_signer_then_cannot_change() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let t = api
        .create_template(json!({"title": "Order",
            "meta": {"dateFormat": "dd/MM/yyyy", "timezone": "Europe/Paris"},
            "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let tid = t.template_id();
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let r = t.recipient_id(0);
    let ids = api
        .add_template_fields(
            tid,
            json!([
                placed(r, "SIGNATURE", 80, json!(null)),
                placed(
                    r,
                    "TEXT",
                    5,
                    json!({"type": "text", "label": "Company", "required": true})
                ),
                placed(r, "NUMBER", 15, json!({"type": "number", "maxValue": 100})),
                placed(
                    r,
                    "RADIO",
                    25,
                    json!({"type": "radio", "values": [
                       {"id": 1, "checked": false, "value": "Small"},
                       {"id": 2, "checked": false, "value": "Large"}]})
                ),
                placed(
                    r,
                    "CHECKBOX",
                    35,
                    json!({"type": "checkbox", "values": [
                       {"id": 1, "checked": false, "value": "Red"},
                       {"id": 2, "checked": true, "value": "Blue"}]})
                ),
                placed(
                    r,
                    "DROPDOWN",
                    45,
                    json!({"type": "dropdown", "values": [{"value": "EUR"}, {"value": "USD"}]})
                ),
                placed(r, "DATE", 55, json!(null)),
                placed(r, "TEXT", 65, json!({"type": "text", "label": "Notes"}))
            ]),
        )
        .await;
    let generate = |prefill: serde_json::Value| {
        let api = api.clone();
        async move {
            api.post(
                &format!("/api/v1/templates/{tid}/generate-document"),
                json!({"recipients": [{"id": r, "email": "ann@example.com"}], "prefillFields": prefill}),
            )
            .await
        }
    };
    // Unknown ids and mismatched types are refused, naming the item.
    let (s, v) = generate(json!([{"id": 999_999, "type": "text", "value": "x"}])).await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("prefillFields[0].id"), "{v}");
    let (s, v) = generate(json!([{"id": ids[1], "type": "number", "value": "1"}])).await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("prefillFields[0].type"), "{v}");
    let (s, v) = generate(json!([{"id": ids[5], "type": "dropdown", "value": "GBP"}])).await;
    assert_eq!(s, 400, "{v}");

    let (s, made) = generate(json!([
        {"id": ids[1], "type": "text", "value": "Acme", "label": "Company name"},
        {"id": ids[2], "type": "number", "value": "42"},
        {"id": ids[3], "type": "radio", "value": "Large"},
        {"id": ids[4], "type": "checkbox", "value": ["Red"]},
        {"id": ids[5], "type": "dropdown", "value": "USD"},
        {"id": ids[6], "type": "date", "value": "2026-03-01"}
    ]))
    .await;
    assert_eq!(s, 200, "{made}");
    let doc = made["documentId"].as_i64().unwrap();
    // A new address for the recipient keeps the owner's values.
    let rid = made["recipients"][0]["recipientId"].as_i64().unwrap();
    let (s, v) = api
        .patch(
            &format!("/api/v1/documents/{doc}/recipients/{rid}"),
            json!({"email": "ann.b@example.com"}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let d = api.document(doc).await;
    let fields = d["fields"].as_array().unwrap();
    let by_type = |kind: &str| -> Vec<&serde_json::Value> {
        fields.iter().filter(|f| f["type"] == kind).collect()
    };
    let text = by_type("TEXT");
    let (company, notes) = if text[0]["pageY"] == 5.0 {
        (text[0], text[1])
    } else {
        (text[1], text[0])
    };
    assert_eq!(
        (&company["inserted"], &company["customText"]),
        (&json!(true), &json!("Acme"))
    );
    assert_eq!(company["fieldMeta"]["text"], "Acme");
    assert_eq!(company["fieldMeta"]["label"], "Company name");
    assert_eq!(company["fieldMeta"]["readOnly"], true);
    assert_eq!(notes["inserted"], false);
    assert_eq!(by_type("NUMBER")[0]["customText"], "42");
    assert_eq!(by_type("NUMBER")[0]["fieldMeta"]["value"], "42");
    let radio = by_type("RADIO")[0];
    assert_eq!(radio["customText"], "Large");
    assert_eq!(radio["fieldMeta"]["values"][1]["checked"], true);
    let boxes = by_type("CHECKBOX")[0];
    assert_eq!(boxes["inserted"], true);
    assert_eq!(
        (
            &boxes["fieldMeta"]["values"][0]["checked"],
            &boxes["fieldMeta"]["values"][1]["checked"]
        ),
        (&json!(true), &json!(false))
    );
    assert_eq!(by_type("DROPDOWN")[0]["fieldMeta"]["defaultValue"], "USD");
    assert_eq!(by_type("DROPDOWN")[0]["customText"], "USD");
    assert_eq!(by_type("DATE")[0]["customText"], "01/03/2026");

    // The signer cannot change them, and finishes with the rest.
    assert_eq!(api.send(doc).await.0, 200);
    let token = api.document(doc).await["recipients"][0]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let signer = app.signer(&token);
    let (s, v) = signer
        .fill(company["id"].clone(), json!({"value": "Other"}))
        .await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = signer.sign(by_type("SIGNATURE")[0]["id"].clone()).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = signer.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    let done = api.wait_status(doc, "COMPLETED").await;
    let date = field_in(&done["fields"], by_type("DATE")[0]["id"].as_i64().unwrap());
    assert_eq!(date["customText"], "01/03/2026");
    assert_eq!(
        field_in(&done["fields"], company["id"].as_i64().unwrap())["customText"],
        "Acme"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_carry_folder_id_and_fields_their_recipient() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let fid = api
        .add_fields(
            id,
            json!([placed(doc.recipient_id(0), "SIGNATURE", 80, json!(null))]),
        )
        .await[0];
    let d = api.document(id).await;
    assert!(d.as_object().unwrap().contains_key("folderId"), "{d}");
    assert!(d["folderId"].is_null());
    let f = field_in(&d["fields"], fid);
    assert_eq!(f["secondaryId"], format!("field_{fid}"));
    assert_eq!(
        f["recipient"],
        json!({"name": "Ann", "email": "ann@example.com", "signingStatus": "NOT_SIGNED"})
    );
    let (_, list) = api.get("/api/v1/documents").await;
    let item = &list["documents"][0];
    assert!(item.as_object().unwrap().contains_key("folderId") && item["folderId"].is_null());
    app.stop().await;
}
