//! What the signing link answers to the bodies a page may send to fill a field
//! (`POST /sign/{token}/fields/{id}`): missing, duplicate and malformed members, for a
//! signature, a text and a checkbox field. Pinned so that the body can move between layers
//! without changing a status or a message.

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{PNG_SIGNATURE, fixture};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fill_bodies_get_the_same_answers() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api
        .create_document(json!({"title": "Shapes", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    let ann = created.recipient_id(0);
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let fields = api
        .add_fields(
            id,
            json!([
                {"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5},
                {"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10, "pageY": 60, "pageWidth": 30, "pageHeight": 5, "fieldMeta": {"type": "text", "characterLimit": 5}},
                {"recipientId": ann, "type": "CHECKBOX", "pageNumber": 1, "pageX": 10, "pageY": 40, "pageWidth": 30, "pageHeight": 5,
                 "fieldMeta": {"type": "checkbox", "values": [{"id": 1, "checked": false, "value": "a"}, {"id": 2, "checked": false, "value": "b"}]}}
            ]),
        )
        .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let signer = app.signer(&created.token(0));
    let (sig, text, boxes) = (fields[0], fields[1], fields[2]);
    let cases: Vec<(i64, Value)> = vec![
        (sig, json!({})),
        (sig, json!([1])),
        (sig, json!({"typed": null})),
        (sig, json!({"typed": 5})),
        (sig, json!({"typed": "  "})),
        (
            sig,
            json!({"typed": "Ann", "signature": "data:image/jpeg;base64,AAAA"}),
        ),
        (sig, json!({"signature": 5})),
        (sig, json!({"signature": "data:image/jpeg;base64,AAAA"})),
        (sig, json!({"signature": PNG_SIGNATURE, "value": "x"})),
        (sig, json!({"value": "Ann"})),
        (text, json!({})),
        (text, json!({"value": null})),
        (text, json!({"value": true})),
        (text, json!({"value": {"a": 1}})),
        (text, json!({"value": ["a"]})),
        (text, json!({"value": "   "})),
        (text, json!({"value": "abcdef"})),
        (text, json!({"value": 123456})),
        (text, json!({"value": 12.5})),
        (text, json!({"value": " ab ", "typed": "x"})),
        (boxes, json!({"value": "a"})),
        (boxes, json!({"value": ["a", 1]})),
        (boxes, json!({"value": ["a", "a"]})),
        (boxes, json!({"value": ["z"]})),
        (boxes, json!({"value": ["b", "a"]})),
    ];
    let expected: Vec<(u16, &str)> = vec![
        (400, "draw or type a signature"),
        (400, "draw or type a signature"),
        (400, "type your name to sign"),
        (400, "type your name to sign"),
        (400, "type your name to sign"),
        (200, ""),
        (400, "draw or type a signature"),
        (400, "a drawn signature must be a PNG data URL"),
        (200, ""),
        (400, "draw or type a signature"),
        (400, "give the field a value"),
        (400, "give the field a value"),
        (400, "give the field a value"),
        (400, "give the field a value"),
        (400, "give the field a value"),
        (400, "give the field a value"),
        (400, "at most 5 characters"),
        (400, "at most 5 characters"),
        (200, ""),
        (200, ""),
        (400, "give the checked values as a list"),
        (400, "checkbox values are strings"),
        (400, "a value is checked twice"),
        (400, "\"z\" is not one of the field's options"),
        (200, ""),
    ];
    assert_eq!(cases.len(), expected.len());
    for ((field, body), (status, message)) in cases.iter().zip(expected) {
        let (s, v) = signer.fill(field, body.clone()).await;
        assert_eq!(s, status, "{body}: {v}");
        if status == 200 {
            assert_eq!(v, json!({"fieldId": field, "inserted": true}), "{body}");
        } else {
            assert_eq!(
                v,
                json!({"code": "invalid_request", "error": "invalid_request", "message": message}),
                "{body}"
            );
        }
    }
    // What was stored: text trimmed, a number as written, the boxes in the order checked.
    let (s, state) = signer.state().await;
    assert_eq!(s, 200, "{state}");
    let stored = |id: i64| {
        state["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .map(|f| f["value"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(stored(text), json!("ab"), "{state}");
    assert_eq!(stored(boxes), json!("[\"b\",\"a\"]"), "{state}");
    app.stop().await;
}
