//! The lists' one query on an in-memory database: search by title and by recipient e-mail,
//! the Inbox's rules, pages in both orders, the totals, and the indexes the pages are read from.

use super::*;
use crate::core::db::{Conn, params};

/// Users 1 (ada), 2 (bob) and 3 (cy).
fn db() -> Conn<'static> {
    let conn = crate::core::db::memory();
    conn.execute_batch(
        "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
         VALUES (1, 'ada@x.org', 'ada', 'Ada', 'x', 0, 0), (2, 'bob@x.org', 'bob', 'Bob', 'x', 0, 0),
                (3, 'cy@x.org', 'cy', 'Cy', 'x', 0, 0);",
    )
    .unwrap();
    conn
}

/// Document `id` of `user` titled `title` in `status`, created at `id` and changed at `changed`.
fn doc(conn: &Conn, id: i64, user: i64, title: &str, status: &str, changed: i64) {
    conn.execute(
        "INSERT INTO documents (id, user_id, title, status, document_data_id, meta, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?1, ?7)",
        params![id, user, title, status, format!("d{id}"), meta(), changed],
    )
    .unwrap();
}

/// The stored meta of a document made with the defaults.
fn meta() -> String {
    serde_json::to_string(&crate::signing::documents::meta::Meta::default()).unwrap()
}

/// A recipient of document `doc` with `email`, `role` and `signing` status.
fn recipient(conn: &Conn, doc: i64, email: &str, role: &str, signing: &str) {
    conn.execute(
        "INSERT INTO recipients (document_id, email, name, role, token, signing_status, created_at)
         VALUES (?1, ?2, 'R', ?3, ?4, ?5, 0)",
        params![doc, email, role, format!("t{doc}-{email}"), signing],
    )
    .unwrap();
}

fn owned(user: i64, status: Option<Status>, search: Option<&str>, order: Order) -> Query {
    Query {
        whose: Whose::Owned {
            folder: InFolder::Any,
            owner: Owner::Personal(crate::core::ids::UserId::new(user)),
            status,
        },
        search: search.map(str::to_string),
        order,
        limit: 100,
        offset: 0,
    }
}

fn ids(conn: &Conn, q: &Query) -> (Vec<i64>, i64) {
    let (docs, total) = list(conn, q).unwrap();
    (docs.iter().map(|d| d.id.get()).collect(), total)
}

#[test]
fn a_search_finds_the_title_or_a_recipients_email_ignoring_case() {
    let conn = db();
    doc(&conn, 1, 1, "Lease agreement", "DRAFT", 10);
    recipient(&conn, 1, "ann@x.org", "SIGNER", "NOT_SIGNED");
    doc(&conn, 2, 1, "NDA", "PENDING", 20);
    recipient(&conn, 2, "landlord@lease.example", "SIGNER", "NOT_SIGNED");
    recipient(&conn, 2, "cid@x.org", "CC", "NOT_SIGNED");
    doc(&conn, 3, 1, "Invoice 100%_done", "COMPLETED", 30);
    // Another user's document matches the words but is never in ada's list.
    doc(&conn, 4, 2, "Lease for bob", "DRAFT", 40);

    let find = |s: &str| ids(&conn, &owned(1, None, Some(s), Order::Changed));
    assert_eq!(find("lease"), (vec![2, 1], 2));
    assert_eq!(find("LEASE AGR"), (vec![1], 1));
    assert_eq!(find("Ann@X"), (vec![1], 1));
    assert_eq!(
        find("cid@"),
        (vec![2], 1),
        "a CC's e-mail is a recipient's too"
    );
    // `%`, `_` and `\` stand for themselves.
    assert_eq!(find("100%_"), (vec![3], 1));
    assert_eq!(find("%"), (vec![3], 1));
    assert_eq!(find("_"), (vec![3], 1));
    assert_eq!(find("\\"), (vec![], 0));
    assert_eq!(find("nothing like it"), (vec![], 0));
    // With a status, the search stays within it.
    let q = owned(1, Some(Status::Draft), Some("lease"), Order::Changed);
    assert_eq!(ids(&conn, &q), (vec![1], 1));
}

#[test]
fn the_inbox_holds_what_waits_for_my_signature_only() {
    let conn = db();
    let add = |id: i64, owner: i64, status: &str, email: &str, role: &str, signing: &str| {
        doc(&conn, id, owner, &format!("Doc {id}"), status, id);
        recipient(&conn, id, email, role, signing);
    };
    add(1, 2, "PENDING", "ada@x.org", "SIGNER", "NOT_SIGNED"); // waits for ada
    add(2, 3, "PENDING", "ada@x.org", "APPROVER", "NOT_SIGNED"); // waits for ada
    add(3, 2, "PENDING", "ada@x.org", "CC", "NOT_SIGNED"); // a copy: not hers to sign
    add(4, 2, "PENDING", "ada@x.org", "SIGNER", "SIGNED"); // signed already
    add(5, 2, "REJECTED", "ada@x.org", "SIGNER", "REJECTED"); // rejected
    add(6, 2, "DRAFT", "ada@x.org", "SIGNER", "NOT_SIGNED"); // not sent yet
    add(7, 2, "PENDING", "cy@x.org", "SIGNER", "NOT_SIGNED"); // another user's inbox
    add(8, 2, "CANCELLED", "ada@x.org", "SIGNER", "NOT_SIGNED"); // cancelled
    add(9, 2, "PENDING", "adam@x.org", "SIGNER", "NOT_SIGNED"); // not a substring match
    // A document with a second recipient still waits for ada when the other has signed.
    recipient(&conn, 1, "zoe@x.org", "SIGNER", "SIGNED");

    let inbox = |email: &str, search: Option<&str>| Query {
        whose: Whose::Awaiting {
            email: email.into(),
        },
        search: search.map(str::to_string),
        order: Order::Changed,
        limit: 10,
        offset: 0,
    };
    assert_eq!(ids(&conn, &inbox("ada@x.org", None)), (vec![2, 1], 2));
    assert_eq!(ids(&conn, &inbox("cy@x.org", None)), (vec![7], 1));
    assert_eq!(ids(&conn, &inbox("bob@x.org", None)), (vec![], 0));
    // Searched by title, or by any recipient's e-mail, within the inbox.
    assert_eq!(ids(&conn, &inbox("ada@x.org", Some("doc 2"))), (vec![2], 1));
    assert_eq!(ids(&conn, &inbox("ada@x.org", Some("zoe"))), (vec![1], 1));
    // The owner's own lists are not the inbox: bob's pending list holds his sent documents.
    let q = owned(2, Some(Status::Pending), None, Order::Created);
    assert_eq!(ids(&conn, &q), (vec![9, 7, 4, 3, 1], 5));
    // The inbox is read from its index, not by scanning the recipients.
    let plan = plan(&conn, &inbox("ada@x.org", None));
    assert!(plan.contains("recipients_awaiting"), "{plan}");
}

#[test]
fn pages_come_newest_first_by_creation_or_by_last_change_with_their_totals() {
    let conn = db();
    // Created 1..=5; changed in another order.
    for (id, changed) in [(1, 50), (2, 10), (3, 40), (4, 20), (5, 30)] {
        doc(&conn, id, 1, &format!("Doc {id}"), "DRAFT", changed);
    }
    doc(&conn, 6, 1, "Done", "COMPLETED", 60);
    conn.execute("UPDATE documents SET hidden = 1 WHERE id = 6", [])
        .unwrap();
    let page = |order: Order, offset: i64| {
        let mut q = owned(1, None, None, order);
        q.limit = 2;
        q.offset = offset;
        ids(&conn, &q)
    };
    assert_eq!(page(Order::Created, 0), (vec![5, 4], 5));
    assert_eq!(page(Order::Created, 2), (vec![3, 2], 5));
    assert_eq!(page(Order::Created, 4), (vec![1], 5));
    assert_eq!(page(Order::Changed, 0), (vec![1, 3], 5));
    assert_eq!(page(Order::Changed, 2), (vec![5, 4], 5));
    assert_eq!(page(Order::Changed, 4), (vec![2], 5));
    assert_eq!(page(Order::Changed, 6), (vec![], 5));
    // Each order comes from an index of the listed documents.
    let plan_of =
        |order: Order, status: Option<Status>| plan(&conn, &owned(1, status, None, order));
    assert!(plan_of(Order::Changed, None).contains("documents_changed"));
    assert!(plan_of(Order::Changed, Some(Status::Draft)).contains("documents_changed_status"));
    assert!(plan_of(Order::Created, None).contains("documents_listed"));
}

#[test]
fn the_totals_are_the_kept_counts_without_a_search_and_counted_with_one() {
    let conn = db();
    doc(&conn, 1, 1, "A", "DRAFT", 1);
    doc(&conn, 2, 1, "B", "PENDING", 2);
    doc(&conn, 3, 1, "C", "PENDING", 3);
    doc(&conn, 4, 1, "D", "REJECTED", 4);
    doc(&conn, 5, 1, "E", "CANCELLED", 5);
    doc(&conn, 6, 2, "F", "PENDING", 6);
    let whose = |status| Whose::Owned {
        owner: Owner::Personal(crate::core::ids::UserId::new(1)),
        status,
        folder: InFolder::Any,
    };
    let n = |status, search| count(&conn, &whose(status), search).unwrap();
    assert_eq!(n(None, None), 5, "All holds rejected and cancelled ones");
    assert_eq!(n(Some(Status::Pending), None), 2);
    assert_eq!(n(Some(Status::Draft), None), 1);
    assert_eq!(n(Some(Status::Completed), None), 0);
    assert_eq!(n(None, Some("b")), 1);
    assert_eq!(n(Some(Status::Pending), Some("c")), 1);
    // Without a search the total is the trigger-kept count: a row changed behind the
    // triggers' back (here, their bookkeeping) shows it.
    conn.execute(
        "UPDATE list_counts SET n = 42 WHERE user_id = 1 AND status = 'DRAFT'",
        [],
    )
    .unwrap();
    assert_eq!(n(Some(Status::Draft), None), 42);
    assert_eq!(n(Some(Status::Draft), Some("a")), 1);
}

/// A field of recipient `recipient` on document `doc`.
fn field(conn: &Conn, doc: i64, recipient: i64, page: i64) {
    conn.execute(
        "INSERT INTO fields (document_id, recipient_id, type, page_number, page_x, page_y,
                             page_width, page_height, created_at)
         VALUES (?1, ?2, 'SIGNATURE', ?3, 10, 20, 30, 5, 0)",
        params![doc, recipient, page],
    )
    .unwrap();
}

/// Seven documents of ada, each with as many recipients as its id modulo three (so some
/// have none), and a field for each recipient but the first document's.
fn documents_with_parties(conn: &Conn) {
    for id in 1..=7 {
        doc(conn, id, 1, &format!("Doc {id}"), "DRAFT", id);
        for n in 0..id % 3 {
            recipient(conn, id, &format!("r{n}@x.org"), "SIGNER", "NOT_SIGNED");
            let rid: i64 = conn
                .query_row("SELECT max(id) FROM recipients", [], |r| r.get(0))
                .unwrap();
            if id != 1 {
                field(conn, id, rid, n + 1);
            }
        }
    }
}

/// A document's id, its recipients' e-mails, and its fields' recipients and pages.
type Parties = (i64, Vec<String>, Vec<(i64, i64)>);

/// What a page of `docs` says of each document's parties.
fn parties(docs: &[Document]) -> Vec<Parties> {
    docs.iter()
        .map(|d| {
            (
                d.id.get(),
                d.recipients.iter().map(|r| r.email.clone()).collect(),
                d.fields
                    .iter()
                    .map(|f| (f.recipient_id.get(), f.page))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn each_document_of_a_page_carries_its_own_recipients_and_fields() {
    let conn = db();
    documents_with_parties(&conn);
    let (docs, _) = list(&conn, &owned(1, None, None, Order::Created)).unwrap();
    let one_by_one: Vec<Document> = docs
        .iter()
        .map(|d| super::super::load(&conn, d.id).unwrap())
        .collect();
    assert_eq!(docs.len(), 7);
    assert_eq!(parties(&docs), parties(&one_by_one));
    let with_two = docs.iter().find(|d| d.id.get() == 5).unwrap();
    assert_eq!(with_two.recipients.len(), 2);
    assert_eq!(with_two.fields.len(), 2);
    assert!(
        docs.iter()
            .find(|d| d.id.get() == 3)
            .unwrap()
            .recipients
            .is_empty()
    );
}

/// A page's recipients and fields come in one query each, whatever its size: on PostgreSQL
/// every query is a round trip, and a page of ten took 22 of them.
#[test]
fn a_page_costs_the_same_statements_whatever_its_size() {
    let conn = db();
    documents_with_parties(&conn);
    let run = |limit: i64| {
        let q = Query {
            limit,
            ..owned(1, None, None, Order::Created)
        };
        list(&conn, &q).unwrap();
        let before = crate::core::db::statements_run(&conn);
        let (docs, _) = list(&conn, &q).unwrap();
        assert_eq!(docs.len() as i64, limit);
        crate::core::db::statements_run(&conn) - before
    };
    let (one, seven) = (run(1), run(7));
    assert!(one > 0, "no statement was counted");
    assert_eq!(
        seven, one,
        "a page of 7 ran {seven} statements, a page of 1 {one}"
    );
}

/// What SQLite's planner says about the page of `q`.
fn plan(conn: &Conn, q: &Query) -> String {
    let (sql, args) = page_sql(q);
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let rows = stmt
        .query_map(params_from_iter(args), |r| r.get::<_, String>(3))
        .unwrap();
    rows.collect::<Result<Vec<_>, _>>().unwrap().join("; ")
}
