//! The shared secrets on SQLite, and on PostgreSQL when `DOCKET_TEST_POSTGRES` names a test
//! cluster (tests/pg/postgres.sh); the file mode as it always was.

use std::path::Path;
use std::sync::{Arc, Barrier};

use super::*;
use crate::core::keyring::KeyRing;

pub(crate) fn key(byte: u8) -> NodeKey {
    NodeKey::parse(&hex::encode([byte; 32])).unwrap()
}

pub(crate) fn dirs(root: &Path) -> Dirs {
    let dirs = Dirs {
        secrets: root.join("secrets"),
        tls: root.join("tls"),
    };
    std::fs::create_dir_all(&dirs.secrets).unwrap();
    std::fs::create_dir_all(&dirs.tls).unwrap();
    dirs
}

/// A SQLite database file in `root`, opened as a node would.
pub(crate) fn sqlite(root: &Path) -> Db {
    Db::open(&root.join("docket.db"), root, 2).unwrap()
}

/// A new database of its own on the test cluster, or `None` (with a notice) without one.
fn postgres() -> Option<String> {
    crate::core::db::testing::postgres_database("secrets")
}

fn pg_node(url: &str) -> Db {
    Db::open_postgres(url, 4, std::time::Duration::from_secs(10), true).unwrap()
}

fn never() -> Result<Vec<u8>, String> {
    panic!("a stored value must not be made again")
}

#[test]
fn values_round_trip_sealed_and_a_wrong_key_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = sqlite(tmp.path());
    let shared = Shared::open(db.clone(), &key(1), dirs(tmp.path())).unwrap();
    let v = shared
        .get_or_create("webhook-secrets.key", || Ok(b"plain secret text".to_vec()))
        .unwrap();
    assert_eq!(v, b"plain secret text");
    // Another process with the same key reads the same value and makes none.
    let again = Shared::open(sqlite(tmp.path()), &key(1), dirs(tmp.path())).unwrap();
    assert_eq!(
        again.get_or_create("webhook-secrets.key", never).unwrap(),
        b"plain secret text"
    );
    // At rest it is sealed.
    let raw: Vec<Vec<u8>> = db
        .read_blocking(|c| Ok(store::all(c)?.into_iter().map(|(_, s)| s).collect()))
        .unwrap();
    assert_eq!(raw.len(), 2, "the value and the key check");
    assert!(
        raw.iter()
            .all(|s| !s.windows(12).any(|w| w == b"plain secret"))
    );
    // Another key is refused at once, with the one clear line.
    let err = Shared::open(sqlite(tmp.path()), &key(2), dirs(tmp.path()))
        .err()
        .unwrap();
    assert_eq!(err, WRONG_KEY);
    let err = Source::open(&db, &DataDir::open(tmp.path()).unwrap(), Some(&key(2))).unwrap_err();
    assert_eq!(err, WRONG_KEY);
}

#[test]
fn a_value_is_bound_to_its_name() {
    let tmp = tempfile::tempdir().unwrap();
    let db = sqlite(tmp.path());
    let shared = Shared::open(db.clone(), &key(1), dirs(tmp.path())).unwrap();
    shared.insert("a", b"value of a").unwrap();
    db.write_blocking(|c| {
        c.execute(
            "INSERT INTO shared_secrets (name, sealed, created_at)
             SELECT 'b', sealed, 0 FROM shared_secrets WHERE name = 'a'",
            [],
        )?;
        Ok(())
    })
    .unwrap();
    let err = shared.get("b").err().unwrap();
    assert!(err.contains("does not open"), "{err}");
    assert_eq!(shared.get("a").unwrap().unwrap().plain, b"value of a");
}

/// Nodes that start together, each making its own value: all end with the one stored first.
fn converge(nodes: Vec<Shared>) {
    let barrier = Arc::new(Barrier::new(nodes.len()));
    let threads: Vec<_> = nodes
        .into_iter()
        .map(|node| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                // Each its own key, in the text of a key file.
                let mine = {
                    use base64::Engine;
                    base64::engine::general_purpose::STANDARD
                        .encode(crate::core::crypto::random_bytes(32))
                        .into_bytes()
                };
                let got = node.get_or_create("hmac-1.key", || Ok(mine)).unwrap();
                let ring = KeyRing::from_source(&Source::Database(node)).unwrap();
                (got, ring.active().1.to_vec())
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(
        results.iter().all(|r| r.0 == results[0].0),
        "every node got the same value"
    );
    assert!(
        results.iter().all(|r| r.1 == results[0].1),
        "every node got the same ring"
    );
}

#[test]
fn nodes_starting_together_converge_on_sqlite() {
    let tmp = tempfile::tempdir().unwrap();
    sqlite(tmp.path());
    let nodes = (0..4)
        .map(|i| {
            let root = tmp.path().join(format!("node{i}"));
            Shared::open(sqlite(tmp.path()), &key(3), dirs(&root)).unwrap()
        })
        .collect();
    converge(nodes);
}

#[test]
fn nodes_starting_together_converge_on_postgres() {
    let Some(url) = postgres() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // Each node its own pool; the first to open records the key check.
    let nodes: Vec<Db> = (0..4).map(|_| pg_node(&url)).collect();
    let barrier = Arc::new(Barrier::new(nodes.len()));
    let opened: Vec<Shared> = nodes
        .into_iter()
        .enumerate()
        .map(|(i, db)| {
            let (barrier, root) = (barrier.clone(), tmp.path().join(format!("node{i}")));
            std::thread::spawn(move || {
                barrier.wait();
                Shared::open(db, &key(4), dirs(&root)).unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    converge(opened);
    let err = Shared::open(pg_node(&url), &key(5), dirs(tmp.path()))
        .err()
        .unwrap();
    assert_eq!(err, WRONG_KEY);
}

#[test]
fn postgres_needs_a_key_and_sqlite_keeps_its_files_without_one() {
    let pg = crate::core::db::Target::Postgres("postgres://x@127.0.0.1/d".into());
    let err = Source::check_flags(&pg, None).unwrap_err();
    assert!(err.contains("--secret-key-file"), "{err}");
    assert!(Source::check_flags(&pg, Some(&key(1))).is_ok());
    assert!(Source::check_flags(&crate::core::db::Target::Sqlite, None).is_ok());
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::open(tmp.path()).unwrap();
    let source = Source::open(&sqlite(tmp.path()), &data, None).unwrap();
    assert!(matches!(source, Source::Files(_)));
    let source = Source::open(&sqlite(tmp.path()), &data, Some(&key(1))).unwrap();
    assert!(matches!(source, Source::Database(_)));
}

#[test]
fn the_key_ring_rotates_in_both_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::open(tmp.path()).unwrap();
    let db_root = tmp.path().join("db");
    std::fs::create_dir_all(&db_root).unwrap();
    let sources = [
        Source::files(&data),
        Source::Database(Shared::open(sqlite(&db_root), &key(7), dirs(&db_root)).unwrap()),
    ];
    for source in sources {
        let mut ring = KeyRing::from_source(&source).unwrap();
        let first = ring.active().1.to_vec();
        assert_eq!(ring.rotate_in(&source).unwrap(), "k2");
        let reloaded = KeyRing::from_source(&source).unwrap();
        assert_eq!(reloaded.active().0, "k2", "{source:?}");
        assert_eq!(reloaded.get("k1").unwrap(), first.as_slice());
        assert_eq!(reloaded.active().1, ring.active().1);
    }
}

/// The sealer may hold the last handle on the pool and end on an async thread (at shutdown):
/// closing PostgreSQL's synchronous connections there must not panic.
#[test]
fn the_last_handle_may_go_on_an_async_thread() {
    let Some(url) = postgres() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let shared = Shared::open(pg_node(&url), &key(9), dirs(tmp.path())).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    runtime.block_on(async move {
        tokio::spawn(async move { drop(shared) }).await.unwrap();
    });
}

#[test]
fn plaintext_files_go_only_once_the_database_file_holds_their_values() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    std::fs::write(
        d.secrets.join("webhook-secrets.key"),
        b"kept by a single node",
    )
    .unwrap();
    std::fs::write(d.secrets.join("notes.txt"), b"not a secret of ours").unwrap();
    std::fs::write(d.tls.join("seal-key.pem"), b"no value of that name yet").unwrap();
    let shared = Shared::open(sqlite(tmp.path()), &key(4), d.clone()).unwrap();
    let source = Source::Database(shared.clone());
    // Adopted: the database's value is the file's.
    let adopted = source.get_or_create("webhook-secrets.key", never).unwrap();
    assert_eq!(adopted, b"kept by a single node");

    let mut files = shared.stored_files().unwrap();
    assert_eq!(files.len(), 1, "only files named as a stored value");
    files.push(("seal".into(), d.tls.join("seal-key.pem")));
    let gone = shared.retire_files(&files).unwrap();
    assert_eq!(gone, [d.secrets.join("webhook-secrets.key")]);
    assert!(!d.secrets.join("webhook-secrets.key").exists());
    assert!(d.secrets.join("notes.txt").exists());
    assert!(
        d.tls.join("seal-key.pem").exists(),
        "no stored value replaces it"
    );
    assert_eq!(shared.retire_files(&files).unwrap(), Vec::<PathBuf>::new());

    // The database file alone (its write-ahead log left behind) holds the value.
    let copy = tmp.path().join("copy.db");
    std::fs::copy(tmp.path().join("docket.db"), &copy).unwrap();
    let alone = rusqlite::Connection::open(&copy).unwrap();
    let rows: i64 = alone
        .query_row(
            "SELECT count(*) FROM shared_secrets WHERE name = 'webhook-secrets.key'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 1);
    let reopened = Shared::open(sqlite(tmp.path()), &key(4), d).unwrap();
    assert_eq!(
        reopened
            .get_or_create("webhook-secrets.key", never)
            .unwrap(),
        b"kept by a single node"
    );
}

#[test]
fn plaintext_files_go_on_postgres_after_a_flushed_commit() {
    let Some(url) = postgres() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let d = dirs(tmp.path());
    std::fs::write(d.secrets.join("account-secrets.key"), b"single node's").unwrap();
    let shared = Shared::open(pg_node(&url), &key(5), d.clone()).unwrap();
    let source = Source::Database(shared.clone());
    assert_eq!(
        source.get_or_create("account-secrets.key", never).unwrap(),
        b"single node's"
    );
    let files = shared.stored_files().unwrap();
    assert_eq!(shared.retire_files(&files).unwrap().len(), 1);
    assert!(!d.secrets.join("account-secrets.key").exists());
}
