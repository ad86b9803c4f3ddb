//! The folders' rules on an in-memory database: ownership, kinds, cycles, depth, count,
//! deletion, moves, and the lists of documents and templates by folder.

use super::*;
use crate::core::db::{memory, params};
use crate::core::ids::{TeamId, UserId};
use crate::signing::documents::InFolder;
use crate::teams::{TeamRole, store as teams};

/// Users 1 and 2; team "t" (id returned) with 1 its admin and 2 a member.
fn setup(c: &Conn) -> crate::teams::Team {
    for i in 1..=2 {
        c.execute(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (?1, ?2, ?2, ?2, 'x', 0, 0)",
            params![i, format!("u{i}@x.org")],
        )
        .unwrap();
    }
    let t = teams::insert(c, "T", "t", 1).unwrap();
    teams::add_member(c, t.id, UserId::new(1), TeamRole::Admin, 1).unwrap();
    teams::add_member(c, t.id, UserId::new(2), TeamRole::Member, 1).unwrap();
    t
}

fn me(user: i64) -> Access {
    Access::Personal(UserId::new(user))
}

fn in_team(t: &crate::teams::Team, user: i64, role: TeamRole) -> Access {
    Access::Team {
        user: UserId::new(user),
        team: t.clone(),
        role,
    }
}

fn mk(c: &Conn, a: &Access, name: &str, parent: Option<&str>, kind: Option<Kind>) -> Folder {
    create_in(c, &a.owner(), name, parent, kind, 100).unwrap()
}

fn moved_under(c: &Conn, a: &Access, id: &str, parent: Option<&str>) -> Result<Folder, AppError> {
    update_in(
        c,
        a,
        id,
        FolderPatch {
            parent_id: Some(parent.map(str::to_string)),
            ..Default::default()
        },
        200,
    )
}

fn doc(c: &Conn, id: i64, user: i64, team: Option<TeamId>) {
    c.execute(
        "INSERT INTO documents (id, user_id, team_id, title, status, document_data_id, meta,
                                created_at, updated_at)
         VALUES (?1, ?2, ?3, 'd', 'DRAFT', ?4, ?5, ?1, ?1)",
        params![
            id,
            user,
            team,
            format!("d{id}"),
            serde_json::to_string(&crate::signing::documents::meta::Meta::default()).unwrap()
        ],
    )
    .unwrap();
}

fn folder_of(c: &Conn, table: &str, id: i64) -> Option<String> {
    c.query_row(
        &format!("SELECT folder_id FROM {table} WHERE id = ?1"),
        [id],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn ids_are_long_random_text_and_the_kind_follows_the_parent() {
    let c = memory();
    setup(&c);
    let a = mk(&c, &me(1), " Leases ", None, None);
    assert_eq!(a.id.len(), 24);
    assert!(a.id.chars().all(|ch| ch.is_ascii_alphanumeric()));
    assert_eq!((a.name.as_str(), a.kind), ("Leases", Kind::Document));
    let b = mk(&c, &me(1), "x", Some(&a.id), None);
    assert_eq!(
        (b.kind, b.parent_id.as_deref()),
        (Kind::Document, Some(a.id.as_str()))
    );
    assert_ne!(a.id, b.id);
    let e = create_in(
        &c,
        &me(1).owner(),
        "t",
        Some(&a.id),
        Some(Kind::Template),
        1,
    )
    .unwrap_err();
    assert_eq!(e.code(), "validation_error");
}

#[test]
fn another_workspaces_folder_is_not_found() {
    let c = memory();
    let t = setup(&c);
    let mine = mk(&c, &me(1), "mine", None, None);
    let team = mk(&c, &in_team(&t, 1, TeamRole::Admin), "team", None, None);
    for (who, id) in [
        (me(2), &mine.id),
        (me(1), &team.id),
        (in_team(&t, 2, TeamRole::Member), &mine.id),
    ] {
        let e = store::owned(&c, &who.owner(), id, "folder").unwrap_err();
        assert_eq!(e.code(), "not_found");
        let e = create_in(&c, &who.owner(), "x", Some(id), None, 1).unwrap_err();
        assert_eq!(e.to_string(), "parent folder not found");
        assert_eq!(delete_in(&c, &who, id).unwrap_err().code(), "not_found");
    }
    // The team's member sees the team's EVERYONE folder, not once it is the admins'.
    let member = in_team(&t, 2, TeamRole::Member);
    assert!(store::owned(&c, &member.owner(), &team.id, "folder").is_ok());
    let admin = in_team(&t, 1, TeamRole::Admin);
    let patch = FolderPatch {
        visibility: Some(Visibility::Admin),
        ..Default::default()
    };
    update_in(&c, &admin, &team.id, patch.clone(), 1).unwrap();
    assert_eq!(
        store::owned(&c, &member.owner(), &team.id, "folder")
            .unwrap_err()
            .code(),
        "not_found"
    );
    // A member gives no visibility it does not see; a personal folder has none.
    let open = mk(&c, &member, "open", None, None);
    assert_eq!(
        update_in(&c, &member, &open.id, patch.clone(), 1)
            .unwrap_err()
            .code(),
        "forbidden"
    );
    assert_eq!(
        update_in(&c, &me(1), &mine.id, patch, 1)
            .unwrap_err()
            .code(),
        "validation_error"
    );
    // A member does not delete the team's folders; the admin does.
    assert_eq!(
        delete_in(&c, &member, &open.id).unwrap_err().code(),
        "forbidden"
    );
    assert!(delete_in(&c, &admin, &open.id).is_ok());
}

#[test]
fn no_folder_moves_under_itself_or_its_descendants_nor_into_the_other_kind() {
    let c = memory();
    setup(&c);
    let a = mk(&c, &me(1), "a", None, None);
    let b = mk(&c, &me(1), "b", Some(&a.id), None);
    let d = mk(&c, &me(1), "d", Some(&b.id), None);
    for target in [&a.id, &b.id, &d.id] {
        let e = moved_under(&c, &me(1), &a.id, Some(target)).unwrap_err();
        assert_eq!(e.code(), "validation_error", "{target}");
        assert!(
            e.to_string().contains("itself or a folder inside it"),
            "{e}"
        );
    }
    let t = mk(&c, &me(1), "t", None, Some(Kind::Template));
    assert_eq!(
        moved_under(&c, &me(1), &b.id, Some(&t.id))
            .unwrap_err()
            .code(),
        "validation_error"
    );
    // Out to the root and back under another is fine.
    let moved = moved_under(&c, &me(1), &d.id, None).unwrap();
    assert_eq!(moved.parent_id, None);
    let moved = moved_under(&c, &me(1), &a.id, Some(&d.id)).unwrap();
    assert_eq!(moved.parent_id.as_deref(), Some(d.id.as_str()));
    assert_eq!(store::path(&c, &me(1).owner(), &b.id).unwrap().len(), 3);
}

#[test]
fn the_tree_is_at_most_ten_deep_and_a_workspace_holds_at_most_a_thousand() {
    let c = memory();
    setup(&c);
    let mut parent: Option<String> = None;
    let mut chain = Vec::new();
    for i in 0..MAX_DEPTH {
        let f = mk(&c, &me(1), &format!("l{i}"), parent.as_deref(), None);
        parent = Some(f.id.clone());
        chain.push(f);
    }
    let e = create_in(&c, &me(1).owner(), "deep", parent.as_deref(), None, 1).unwrap_err();
    assert!(e.to_string().contains("at most 10 levels"), "{e}");
    // A tree of two levels does not go under the 9th level.
    let top = mk(&c, &me(1), "top", None, None);
    mk(&c, &me(1), "under", Some(&top.id), None);
    assert!(moved_under(&c, &me(1), &top.id, Some(&chain[8].id)).is_err());
    assert!(moved_under(&c, &me(1), &top.id, Some(&chain[7].id)).is_ok());

    for i in store::count_in_workspace(&c, &me(1).owner()).unwrap()..MAX_FOLDERS {
        mk(&c, &me(1), &format!("n{i}"), None, Some(Kind::Template));
    }
    let e = create_in(&c, &me(1).owner(), "one more", None, None, 1).unwrap_err();
    assert_eq!(e.code(), "conflict");
    // Another workspace has its own count.
    mk(&c, &me(2), "theirs", None, None);
}

#[test]
fn deleting_a_folder_deletes_its_subfolders_and_sends_their_items_to_the_root() {
    let c = memory();
    setup(&c);
    let owner = me(1).owner();
    let a = mk(&c, &me(1), "a", None, None);
    let b = mk(&c, &me(1), "b", Some(&a.id), None);
    let keep = mk(&c, &me(1), "keep", None, None);
    for id in 1..=3 {
        doc(&c, id, 1, None);
    }
    assert!(store::move_document(&c, &owner, DocumentId::new(1), Some(&a.id)).unwrap());
    assert!(store::move_document(&c, &owner, DocumentId::new(2), Some(&b.id)).unwrap());
    assert!(store::move_document(&c, &owner, DocumentId::new(3), Some(&keep.id)).unwrap());
    let gone = delete_in(&c, &me(1), &a.id).unwrap();
    assert_eq!((gone.subfolders, gone.items), (1, 2));
    assert_eq!(folder_of(&c, "documents", 1), None);
    assert_eq!(folder_of(&c, "documents", 2), None);
    assert_eq!(folder_of(&c, "documents", 3), Some(keep.id.clone()));
    assert!(store::owned(&c, &owner, &b.id, "folder").is_err());
    let docs: i64 = c
        .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(docs, 3, "no document goes with a folder");
}

#[test]
fn an_item_goes_only_into_a_folder_of_its_kind_and_workspace() {
    let c = memory();
    let t = setup(&c);
    let owner = me(1).owner();
    let d = mk(&c, &me(1), "d", None, None);
    let tf = mk(&c, &me(1), "t", None, Some(Kind::Template));
    let theirs = mk(&c, &me(2), "theirs", None, None);
    doc(&c, 1, 1, None);
    doc(&c, 2, 2, None);
    doc(&c, 3, 1, Some(t.id));
    let go = |owner: &Owner, doc: i64, folder: Option<&str>| {
        move_in(&c, owner, Kind::Document, folder, |f| {
            store::move_document(&c, owner, DocumentId::new(doc), f)
        })
    };
    assert!(go(&owner, 1, Some(&d.id)).is_ok());
    assert_eq!(
        go(&owner, 1, Some(&tf.id)).unwrap_err().code(),
        "validation_error"
    );
    assert_eq!(
        go(&owner, 1, Some(&theirs.id)).unwrap_err().code(),
        "not_found"
    );
    assert_eq!(
        go(&owner, 2, Some(&d.id)).unwrap_err().to_string(),
        "document not found"
    );
    assert_eq!(go(&owner, 3, Some(&d.id)).unwrap_err().code(), "not_found");
    assert!(go(&owner, 1, None).is_ok());
    assert_eq!(folder_of(&c, "documents", 1), None);
}

#[test]
fn lists_of_documents_and_templates_hold_a_folders_rows_or_the_roots() {
    use crate::signing::documents::store::listing::{self, Order, Query, Whose};
    let c = memory();
    let t = setup(&c);
    let admin = in_team(&t, 1, TeamRole::Admin);
    let member = in_team(&t, 2, TeamRole::Member);
    for id in 1..=4 {
        doc(&c, id, 1, Some(t.id));
    }
    let open = mk(&c, &admin, "open", None, None);
    let hidden = mk(&c, &admin, "hidden", None, None);
    update_in(
        &c,
        &admin,
        &hidden.id,
        FolderPatch {
            visibility: Some(Visibility::Admin),
            ..Default::default()
        },
        1,
    )
    .unwrap();
    store::move_document(&c, &admin.owner(), DocumentId::new(1), Some(&open.id)).unwrap();
    store::move_document(&c, &admin.owner(), DocumentId::new(2), Some(&hidden.id)).unwrap();
    let ids = |who: &Access, folder: InFolder| -> (Vec<i64>, i64) {
        let q = Query {
            whose: Whose::Owned {
                owner: who.owner(),
                status: None,
                folder,
            },
            search: None,
            order: Order::Created,
            limit: 10,
            offset: 0,
        };
        let (docs, total) = listing::list(&c, &q).unwrap();
        (docs.iter().map(|d| d.id.get()).collect(), total)
    };
    assert_eq!(ids(&admin, InFolder::Root), (vec![4, 3], 2));
    assert_eq!(ids(&admin, InFolder::Any).1, 4);
    assert_eq!(ids(&admin, InFolder::Folder(open.id.clone())), (vec![1], 1));
    // The member does not see the admins' folder: its document is at their root.
    assert_eq!(ids(&member, InFolder::Root), (vec![4, 3, 2], 3));
    // A document handed out of the team leaves its folder.
    crate::signing::documents::store::workspace::hand_over(
        &c,
        t.id,
        crate::signing::documents::store::workspace::Heir::Personal(UserId::new(1)),
        5,
    )
    .unwrap();
    assert_eq!(folder_of(&c, "documents", 1), None);
}

#[test]
fn choices_are_labelled_with_their_paths() {
    let c = memory();
    setup(&c);
    let a = mk(&c, &me(1), "Leases", None, None);
    let b = mk(&c, &me(1), "2026", Some(&a.id), None);
    mk(&c, &me(1), "Archive", None, None);
    let got = choices_of(&store::all(&c, &me(1).owner(), Kind::Document).unwrap());
    let labels: Vec<&str> = got.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["Archive", "Leases", "Leases / 2026"]);
    assert_eq!(got[2].id, b.id);
    let all = store::all(&c, &me(1).owner(), Kind::Document).unwrap();
    let outside: Vec<String> = choices_outside(&all, &a.id)
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(outside, ["Archive"]);
}
