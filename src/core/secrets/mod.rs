//! Where secret material lives: the HMAC key ring, the webhook and account secret keys, the ID
//! token key, the local CA and the seal certificate. Either in files under the data dir, as a
//! single node has always kept them (`Source::Files`), or in the database's `shared_secrets`,
//! each value sealed under the node key (`Source::Database`), so that every node given the same
//! database and key uses the same secrets. PostgreSQL needs the key; SQLite uses the files
//! unless a key is given. The owners of the secrets (`keyring`, `webhooks::secret`,
//! `oauth::oidc`, `tls::auto`, `pdf::seal`) parse, make and serialize them; this module only
//! stores bytes.

mod boxes;
mod key;
pub(crate) mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use crate::core::datadir::DataDir;
use crate::{core::db::Db, core::db::Dialect};

pub use key::NodeKey;

/// The one line a node with another key than the database's stops with.
pub const WRONG_KEY: &str =
    "the secret key does not match this database's; give every node the same --secret-key-file";

/// What `--secret-key-file` and `DOCKET_SECRET_KEY` are, for the message that asks for them.
const KEY_REQUIRED: &str = "PostgreSQL needs a secret key shared by every node: give --secret-key-file FILE (or DOCKET_SECRET_KEY), e.g. a file made with `openssl rand -hex 32 > FILE && chmod 600 FILE`";

/// The row whose known value tells, at start, whether the key is the database's.
const CHECK_NAME: &str = "key-check";
const CHECK_VALUE: &[u8] = b"docket shared secrets: the key matches";

/// The first byte of every sealed value: how it was sealed.
const FORMAT_V1: u8 = 1;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;

/// Where this process keeps its secrets.
#[derive(Clone)]
pub enum Source {
    /// `<data>/secrets/` and `<data>/tls/`, as files.
    Files(Dirs),
    /// The `shared_secrets` table, sealed under the node key.
    Database(Shared),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Files(d) => write!(f, "Files({})", d.secrets.display()),
            Source::Database(_) => f.write_str("Database(***)"),
        }
    }
}

/// A node's own secret directories: where file mode keeps everything, and where the database
/// mode looks for secrets an earlier single node left, to adopt them.
#[derive(Debug, Clone)]
pub struct Dirs {
    pub secrets: PathBuf,
    pub tls: PathBuf,
}

impl Dirs {
    pub fn of(data: &DataDir) -> Dirs {
        Dirs {
            secrets: data.secrets(),
            tls: data.tls(),
        }
    }
}

impl Source {
    /// The files of `data`.
    pub fn files(data: &DataDir) -> Source {
        Source::Files(Dirs::of(data))
    }

    /// The source for `db` and the node's `key`: the database when a key is given (checked
    /// against the database's, which the first node to start records), the files of `data`
    /// without one, and a clear refusal for PostgreSQL without one. Blocking.
    pub fn open(db: &Db, data: &DataDir, key: Option<&NodeKey>) -> Result<Source, String> {
        match (key, db.dialect()) {
            (Some(key), _) => Shared::open(db.clone(), key, Dirs::of(data)).map(Source::Database),
            (None, Dialect::Postgres) => Err(KEY_REQUIRED.into()),
            (None, Dialect::Sqlite) => Ok(Source::files(data)),
        }
    }

    /// Refuses PostgreSQL without a key before anything is opened.
    pub fn check_flags(
        database: &crate::core::db::Target,
        key: Option<&NodeKey>,
    ) -> Result<(), String> {
        match (database, key) {
            (crate::core::db::Target::Postgres(_), None) => Err(KEY_REQUIRED.into()),
            _ => Ok(()),
        }
    }

    /// The secret kept in the file `file` of `<data>/secrets/` (or the database row of that
    /// name): read, or made by `generate` and stored when there is none. Blocking.
    pub fn get_or_create(
        &self,
        file: &str,
        generate: impl FnOnce() -> Result<Vec<u8>, String>,
    ) -> Result<Vec<u8>, String> {
        match self {
            Source::Files(dirs) => file_get_or_create(&dirs.secrets.join(file), generate),
            Source::Database(shared) => {
                shared.get_or_create(file, || match dirs_file(&shared.dirs.secrets, file) {
                    Some(bytes) => Ok(bytes),
                    None => generate(),
                })
            }
        }
    }
}

/// The file at `path`, or `generate`'s bytes written there (mode 0600) when it is missing.
fn file_get_or_create(
    path: &Path,
    generate: impl FnOnce() -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let bytes = generate()?;
            crate::core::datadir::write_atomic(path, &bytes, true)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(bytes)
        }
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The file `file` in `dir` when it exists and reads: a secret an earlier single node kept,
/// which the database adopts so that switching to it changes nothing already handed out.
fn dirs_file(dir: &Path, file: &str) -> Option<Vec<u8>> {
    std::fs::read(dir.join(file)).ok()
}

/// The shared secrets of one database, sealed under the node key.
#[derive(Clone)]
pub struct Shared {
    db: Arc<DbHandle>,
    cipher: Arc<XChaCha20Poly1305>,
    dirs: Dirs,
}

/// The database of the shared secrets. The lazily loaded secrets (the seal certificate, the ID
/// token key) keep it as long as the tasks that use them, so the last handle on a PostgreSQL
/// pool may go with an async task (the sealer's, at shutdown); closing the synchronous
/// client's connections blocks, which must not happen on an async thread, so a handle
/// dropped in the runtime is let go on a thread of its own.
struct DbHandle(Option<Db>);

impl DbHandle {
    fn get(&self) -> Result<&Db, String> {
        self.0
            .as_ref()
            .ok_or_else(|| "the shared secrets' database is closed".to_string())
    }
}

impl Drop for DbHandle {
    fn drop(&mut self) {
        if let Some(db) = self.0.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            let _ = std::thread::Builder::new()
                .name("docket-secrets-db".into())
                .spawn(move || drop(db));
        }
    }
}

/// A value as stored: its plain bytes, and the sealed bytes that `replace` compares.
pub struct Stored {
    pub plain: Vec<u8>,
    sealed: Vec<u8>,
}

impl Shared {
    /// The database's secrets under `key`, refused with [`WRONG_KEY`] when the database's
    /// check row was sealed under another key. The first node records the check row.
    pub fn open(db: Db, key: &NodeKey, dirs: Dirs) -> Result<Shared, String> {
        let shared = Shared {
            db: Arc::new(DbHandle(Some(db))),
            cipher: Arc::new(XChaCha20Poly1305::new(key.bytes().into())),
            dirs,
        };
        // The first node records the check; every node (that one too, should another have
        // been faster with another key) then opens the one stored.
        if shared.sealed(CHECK_NAME)?.is_none() {
            shared.insert(CHECK_NAME, CHECK_VALUE)?;
        }
        let sealed = shared
            .sealed(CHECK_NAME)?
            .ok_or("the secret key check vanished after it was stored")?;
        match shared.open_value(CHECK_NAME, &sealed) {
            Ok(check) if check == CHECK_VALUE => Ok(shared),
            _ => Err(WRONG_KEY.into()),
        }
    }

    /// The node's own secret directories (for secrets an earlier single node left there).
    pub fn dirs(&self) -> &Dirs {
        &self.dirs
    }

    /// The files of `<data>/secrets/` named as a stored value (`hmac-1.key`, ...): secrets an
    /// earlier single node kept there, which the database now holds.
    pub fn stored_files(&self) -> Result<Vec<(String, PathBuf)>, String> {
        let stored = self.names()?;
        let entries = match std::fs::read_dir(&self.dirs.secrets) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            other => other.map_err(|e| format!("{}: {e}", self.dirs.secrets.display()))?,
        };
        Ok(entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                stored.contains(&name).then(|| (name, entry.path()))
            })
            .collect())
    }

    /// Removes the plaintext files whose secrets the database holds (`files`: each path with
    /// the name of the value that replaces it; a value not stored keeps its file), once the
    /// database has them durably: a copy in clear beside the sealed one would undo the sealing,
    /// and a file removed before its row survives a crash would lose the secret. Answers the
    /// files removed. Blocking.
    pub fn retire_files(&self, files: &[(String, PathBuf)]) -> Result<Vec<PathBuf>, String> {
        let mut due = Vec::new();
        for (name, path) in files {
            if path.exists() && self.sealed(name)?.is_some() {
                due.push(path.clone());
            }
        }
        if due.is_empty() {
            return Ok(due);
        }
        self.make_durable()?;
        let mut dirs = Vec::new();
        for path in &due {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(format!("{}: {e}", path.display()));
                }
                _ => {}
            }
            if let Some(dir) = path.parent().filter(|d| !dirs.contains(d)) {
                dirs.push(dir);
            }
        }
        for dir in dirs {
            crate::core::datadir::sync_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        Ok(due)
    }

    /// Returns once every value stored so far would survive a crash of the machine.
    fn make_durable(&self) -> Result<(), String> {
        let db = self.db.get()?;
        match db.dialect() {
            Dialect::Sqlite => db.checkpoint_fully(),
            Dialect::Postgres => db.write_blocking(|c| Ok(store::flush_commits(c)?)),
        }
        .map_err(|e| format!("making the shared secrets durable: {e}"))
    }

    /// The value named `name`; when there is none, `generate`'s is stored unless another node
    /// stores one first, and whichever was stored is answered: nodes that start together agree.
    pub fn get_or_create(
        &self,
        name: &str,
        generate: impl FnOnce() -> Result<Vec<u8>, String>,
    ) -> Result<Vec<u8>, String> {
        if let Some(found) = self.get(name)? {
            return Ok(found.plain);
        }
        self.insert(name, &generate()?)?;
        self.get(name)?
            .map(|s| s.plain)
            .ok_or_else(|| format!("the shared secret {name} vanished after it was stored"))
    }

    /// The value named `name`, if stored.
    pub fn get(&self, name: &str) -> Result<Option<Stored>, String> {
        self.sealed(name)?
            .map(|sealed| {
                Ok(Stored {
                    plain: self.open_value(name, &sealed)?,
                    sealed,
                })
            })
            .transpose()
    }

    /// The sealed bytes stored as `name`, if any.
    fn sealed(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let owned = name.to_string();
        self.db
            .get()?
            .read_blocking(move |c| Ok(store::get(c, &owned)?))
            .map_err(|e| format!("reading the shared secret {name}: {e}"))
    }

    /// Every stored value whose name starts with `prefix`, by name.
    pub fn list(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
        let rows = self
            .db
            .get()?
            .read_blocking(|c| Ok(store::all(c)?))
            .map_err(|e| format!("reading the shared secrets: {e}"))?;
        rows.into_iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .map(|(name, sealed)| {
                let plain = self.open_value(&name, &sealed)?;
                Ok((name, plain))
            })
            .collect()
    }

    /// The names of the stored values, each checked to open under this key.
    pub fn names(&self) -> Result<Vec<String>, String> {
        Ok(self.list("")?.into_iter().map(|(name, _)| name).collect())
    }

    /// Stores `plain` as `name` unless that name is taken: answers whether it was stored.
    pub fn insert(&self, name: &str, plain: &[u8]) -> Result<bool, String> {
        let sealed = self.seal_value(name, plain)?;
        let owned = name.to_string();
        self.db
            .get()?
            .write_blocking(move |c| Ok(store::insert(c, &owned, &sealed, crate::core::db::now())?))
            .map_err(|e| format!("storing the shared secret {name}: {e}"))
    }

    /// Replaces the value `old` of `name` by `plain`, unless another node replaced it first:
    /// answers whether this call did.
    pub fn replace(&self, name: &str, old: &Stored, plain: &[u8]) -> Result<bool, String> {
        let sealed = self.seal_value(name, plain)?;
        let (owned, old) = (name.to_string(), old.sealed.clone());
        self.db
            .get()?
            .write_blocking(move |c| {
                Ok(store::replace(
                    c,
                    &owned,
                    &old,
                    &sealed,
                    crate::core::db::now(),
                )?)
            })
            .map_err(|e| format!("replacing the shared secret {name}: {e}"))
    }

    /// `plain`, sealed and bound to `name` (the associated data), so that a value moved to
    /// another row does not open.
    fn seal_value(&self, name: &str, plain: &[u8]) -> Result<Vec<u8>, String> {
        let nonce = crate::core::crypto::random_bytes(NONCE_LEN);
        let aad = associated_data(name);
        let ct = self
            .cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plain,
                    aad: &aad,
                },
            )
            .map_err(|_| format!("sealing the shared secret {name} failed"))?;
        let mut out = Vec::with_capacity(1 + NONCE_LEN + ct.len());
        out.push(FORMAT_V1);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ct);
        Ok(out)
    }

    fn open_value(&self, name: &str, sealed: &[u8]) -> Result<Vec<u8>, String> {
        let Some((&FORMAT_V1, rest)) = sealed.split_first() else {
            return Err(format!("the shared secret {name} is in an unknown format"));
        };
        if rest.len() < NONCE_LEN + TAG_LEN {
            return Err(format!("the shared secret {name} is truncated"));
        }
        let (nonce, ct) = rest.split_at(NONCE_LEN);
        let aad = associated_data(name);
        self.cipher
            .decrypt(XNonce::from_slice(nonce), Payload { msg: ct, aad: &aad })
            .map_err(|_| format!("the shared secret {name} does not open with this secret key"))
    }
}

fn associated_data(name: &str) -> Vec<u8> {
    format!("docket shared secret v1\n{name}").into_bytes()
}

#[cfg(test)]
pub(crate) mod tests;
