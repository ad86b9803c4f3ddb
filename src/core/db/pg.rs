//! PostgreSQL connections: the synchronous `postgres` client in an r2d2 pool (the same shape as
//! the SQLite side: store code runs in `spawn_blocking`), each connection with its own cache
//! of prepared statements, and the conversions between `Value` and PostgreSQL's types.

use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error as StdError;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use postgres::tls::{MakeTlsConnect, TlsConnect};
use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::Error;
use super::dialect;
use super::pg_tls::{Link, PgUrl};
use super::value::Value;

/// Most statements one connection keeps prepared; past it the cache starts over.
pub(super) const MAX_STATEMENTS: usize = 512;

/// A connection that answered a statement this recently is handed out of the pool without a
/// round trip to check it (a busy pool would otherwise pay one per checkout: see
/// docs/develop/performance-history.md, "PostgreSQL driver"). One that failed since, or has been idle longer,
/// is checked first.
const TRUSTED_FOR: Duration = Duration::from_secs(1);

/// One PostgreSQL connection. Store code gets it as `&PgClient` (inside a `Conn`) and calls
/// one statement at a time, so the client sits in a `RefCell`.
pub struct PgClient {
    inner: RefCell<Inner>,
}

struct Inner {
    /// Always `Some` until dropped (see `Drop`).
    client: Option<postgres::Client>,
    statements: HashMap<String, postgres::Statement>,
    in_transaction: bool,
    /// When a statement last succeeded; `None` after a failure.
    answered_at: Option<Instant>,
    /// How many more statements may be sent, when limited (`Db::write_one`).
    budget: Option<usize>,
}

impl PgClient {
    fn new(client: postgres::Client) -> PgClient {
        PgClient {
            inner: RefCell::new(Inner {
                client: Some(client),
                statements: HashMap::new(),
                in_transaction: false,
                answered_at: None,
                budget: None,
            }),
        }
    }

    /// A client of its own, outside any pool, with the TLS the URL asks for.
    pub(super) fn connect(url: &str) -> Result<PgClient, Error> {
        use r2d2::ManageConnection;
        let manager = Manager::new(url).map_err(Error::Config)?;
        manager.connect().map_err(|e| Error::Postgres(e.0))
    }

    fn statement(inner: &mut Inner, sql: &str) -> Result<postgres::Statement, Error> {
        if let Some(s) = inner.statements.get(sql) {
            return Ok(s.clone());
        }
        let stmt = inner
            .client()
            .prepare(&dialect::to_postgres(sql))
            .inspect_err(|e| tracing::error!(error = %e, sql, "PostgreSQL refused a statement"))?;
        if inner.statements.len() >= MAX_STATEMENTS {
            inner.statements.clear();
        }
        inner.statements.insert(sql.to_owned(), stmt.clone());
        Ok(stmt)
    }

    pub(super) fn execute(&self, sql: &str, values: &[Value]) -> Result<usize, Error> {
        let mut inner = self.inner.borrow_mut();
        inner.spend()?;
        let stmt = Self::statement(&mut inner, sql)?;
        let params = as_params(values);
        let done = inner.client().execute(&stmt, &params);
        Ok(inner.answered(done)? as usize)
    }

    pub(super) fn query(&self, sql: &str, values: &[Value]) -> Result<Vec<postgres::Row>, Error> {
        let mut inner = self.inner.borrow_mut();
        inner.spend()?;
        let stmt = Self::statement(&mut inner, sql)?;
        let params = as_params(values);
        let rows = inner.client().query(&stmt, &params);
        Ok(inner.answered(rows)?)
    }

    /// Runs statements without parameters; keeps track of BEGIN / COMMIT / ROLLBACK.
    pub(super) fn batch(&self, sql: &str) -> Result<(), Error> {
        let mut inner = self.inner.borrow_mut();
        inner.spend()?;
        let head = sql.trim_start().to_ascii_uppercase();
        let done = inner.client().batch_execute(sql);
        inner.answered(done)?;
        if head.starts_with("BEGIN") || head.starts_with("START TRANSACTION") {
            inner.in_transaction = true;
        } else if head.starts_with("COMMIT") || head.starts_with("ROLLBACK") {
            inner.in_transaction = false;
        }
        Ok(())
    }

    /// Allows at most `n` more statements (`None`: any number); the next one beyond is refused
    /// before it is sent.
    pub(super) fn limit_statements(&self, n: Option<usize>) {
        self.inner.borrow_mut().budget = n;
    }

    pub(super) fn in_transaction(&self) -> bool {
        self.inner.borrow().in_transaction
    }

    /// Ends whatever transaction a failed call left open, so the connection goes back to the
    /// pool clean.
    pub(super) fn reset(&self) {
        let mut inner = self.inner.borrow_mut();
        if inner.in_transaction {
            let _ = inner.client().batch_execute("ROLLBACK");
            inner.in_transaction = false;
        }
    }
}

impl Inner {
    /// Takes one statement from the budget, if there is one.
    fn spend(&mut self) -> Result<(), Error> {
        match &mut self.budget {
            Some(0) => Err(Error::OverBudget),
            Some(n) => {
                *n -= 1;
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Notes whether the server answered.
    fn answered<T>(&mut self, outcome: Result<T, postgres::Error>) -> Result<T, postgres::Error> {
        self.answered_at = outcome.is_ok().then(Instant::now);
        outcome
    }

    fn client(&mut self) -> &mut postgres::Client {
        self.client
            .as_mut()
            .expect("a PostgreSQL client until dropped")
    }
}

/// The synchronous client says goodbye to the server when dropped, by blocking on a runtime
/// of its own, which panics on a thread that drives async tasks; a pool can be dropped on one
/// (the last `Db` handle going away in a request). There the client is closed on a thread of
/// its own.
impl Drop for PgClient {
    fn drop(&mut self) {
        let Some(client) = self.inner.get_mut().client.take() else {
            return;
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            let _ = std::thread::Builder::new()
                .name("docket-pg-close".into())
                .spawn(move || drop(client));
        }
    }
}

pub(super) fn as_params(values: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// Opens PostgreSQL connections for the pool.
#[derive(Clone)]
pub struct Manager {
    url: std::sync::Arc<PgUrl>,
    tls: MakeRustlsConnect,
}

impl Manager {
    /// For the database at `url`; an error names what is wrong with it (never its password).
    pub fn new(url: &str) -> Result<Manager, String> {
        let url = PgUrl::parse(url)?;
        let tls = url.connector()?;
        Ok(Manager {
            url: std::sync::Arc::new(url),
            tls,
        })
    }

    /// The async client's shared connections for point reads, to the same database with the
    /// same TLS.
    pub fn point_reads(&self) -> super::pg_async::Fast {
        super::pg_async::Fast::new(self.url.clone(), self.tls.clone())
    }

    /// The maker of the connection that hears revocation notices, to the same database with
    /// the same TLS.
    pub fn notices(&self) -> super::notices::Listener {
        super::notices::Listener::new(self.url.async_config.clone(), self.tls.clone())
    }

    /// A connection, and what it turned out to be: whether its TLS handshake ran is known
    /// only on this side (the server's `pg_stat_ssl` would say "encrypted" for a proxy that
    /// took plain text from docket and TLS to the server).
    pub fn connect_watched(&self) -> Result<(PgClient, Link), PgError> {
        let used = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let tls = Watched {
            inner: self.tls.clone(),
            used: used.clone(),
        };
        let client = self.url.config.connect(tls).map_err(PgError)?;
        let link = self
            .url
            .link(used.load(std::sync::atomic::Ordering::SeqCst));
        Ok((PgClient::new(client), link))
    }
}

/// Logs at start what the connection to PostgreSQL is, with a warning when it is not
/// encrypted or its certificate is not checked.
pub fn report(link: &Link) {
    match link.warning() {
        Some(warning) => tracing::warn!("{warning}"),
        None => tracing::info!(link = ?link, "connected to PostgreSQL"),
    }
}

/// The pool's TLS, noting whether a handshake started: tokio-postgres calls the connector
/// only when the server agreed to TLS.
struct Watched {
    inner: MakeRustlsConnect,
    used: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl<S> MakeTlsConnect<S> for Watched
where
    MakeRustlsConnect: MakeTlsConnect<S>,
{
    type Stream = <MakeRustlsConnect as MakeTlsConnect<S>>::Stream;
    type TlsConnect = WatchedConnect<<MakeRustlsConnect as MakeTlsConnect<S>>::TlsConnect>;
    type Error = <MakeRustlsConnect as MakeTlsConnect<S>>::Error;

    fn make_tls_connect(&mut self, domain: &str) -> Result<Self::TlsConnect, Self::Error> {
        Ok(WatchedConnect(
            self.inner.make_tls_connect(domain)?,
            self.used.clone(),
        ))
    }
}

struct WatchedConnect<T>(T, std::sync::Arc<std::sync::atomic::AtomicBool>);

impl<S, T: TlsConnect<S>> TlsConnect<S> for WatchedConnect<T> {
    type Stream = <T as TlsConnect<S>>::Stream;
    type Error = <T as TlsConnect<S>>::Error;
    type Future = <T as TlsConnect<S>>::Future;

    fn connect(self, stream: S) -> Self::Future {
        self.1.store(true, std::sync::atomic::Ordering::SeqCst);
        self.0.connect(stream)
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = PgClient;
    type Error = PgError;

    fn connect(&self) -> Result<PgClient, PgError> {
        Ok(PgClient::new(
            self.url.config.connect(self.tls.clone()).map_err(PgError)?,
        ))
    }

    fn is_valid(&self, conn: &mut PgClient) -> Result<(), PgError> {
        let inner = conn.inner.get_mut();
        inner.in_transaction = false;
        if inner.answered_at.is_some_and(|t| t.elapsed() < TRUSTED_FOR) {
            return Ok(());
        }
        let done = inner.client().batch_execute("");
        inner.answered(done).map_err(PgError)
    }

    fn has_broken(&self, conn: &mut PgClient) -> bool {
        conn.inner.get_mut().client().is_closed()
    }
}

/// A client error that shows its causes (`describe`), as the pool reports it.
#[derive(Debug)]
pub struct PgError(pub postgres::Error);

impl std::fmt::Display for PgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe(&self.0))
    }
}

impl StdError for PgError {}

/// A client error with its causes, `error performing TLS handshake: invalid peer
/// certificate: UnknownIssuer`: the client's own text names only the kind of failure.
pub fn describe(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Whether a failed connection was turned down (by the server: a password, a database that
/// is not there; or by TLS: a certificate), which trying again will not change; a server
/// still starting or out of connections is not.
pub fn refused(e: &postgres::Error) -> bool {
    if let Some(db) = e.as_db_error() {
        return matches!(db.code().code().get(..2), Some("28" | "3D"));
    }
    let mut cause: Option<&(dyn StdError + 'static)> = Some(e);
    while let Some(c) = cause {
        let tls = c
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref());
        if c.is::<rustls::Error>() || tls.is_some_and(|inner| inner.is::<rustls::Error>()) {
            return true;
        }
        cause = c.source();
    }
    false
}

/// A `Value` bound as whatever type PostgreSQL expects at that place: integers also as the
/// narrower integer types, booleans and doubles, so that store code binds `i64` everywhere.
impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Integer(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::FLOAT4 => (*i as f32).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::UNKNOWN => i.to_string().to_sql(ty, out),
                _ => Err(format!("an integer cannot be bound as {ty}").into()),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT8 => f.to_sql(ty, out),
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                _ => Err(format!("a real cannot be bound as {ty}").into()),
            },
            Value::Text(s) => match *ty {
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                    s.as_str().to_sql(&Type::TEXT, out)
                }
                _ => Err(format!("text cannot be bound as {ty}").into()),
            },
            Value::Blob(b) => match *ty {
                Type::BYTEA => b.as_slice().to_sql(ty, out),
                _ => Err(format!("bytes cannot be bound as {ty}").into()),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// A column of any type docket stores, read as a `Value`.
pub struct PgValue(pub Value);

impl<'a> FromSql<'a> for PgValue {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<PgValue, Box<dyn StdError + Sync + Send>> {
        Ok(PgValue(match *ty {
            Type::INT8 => Value::Integer(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Integer(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Value::Integer(i16::from_sql(ty, raw)?.into()),
            Type::BOOL => Value::Integer(bool::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            Type::BYTEA => Value::Blob(Vec::<u8>::from_sql(ty, raw)?),
            Type::NUMERIC => numeric(raw)?,
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                Value::Text(String::from_sql(ty, raw)?)
            }
            _ => return Err(format!("cannot read a column of type {ty}").into()),
        }))
    }

    fn from_sql_null(_: &Type) -> Result<PgValue, Box<dyn StdError + Sync + Send>> {
        Ok(PgValue(Value::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// A NUMERIC in PostgreSQL's binary form (what `sum` and `avg` answer): an integer when it has
/// no fraction and fits, a double otherwise.
fn numeric(raw: &[u8]) -> Result<Value, Box<dyn StdError + Sync + Send>> {
    let word = |i: usize| -> Result<u16, Box<dyn StdError + Sync + Send>> {
        raw.get(i..i + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "a truncated NUMERIC".into())
    };
    let ndigits = word(0)? as usize;
    let weight = word(2)? as i16;
    let sign = word(4)?;
    if sign == 0xC000 {
        return Ok(Value::Real(f64::NAN));
    }
    let mut whole: i128 = 0;
    let mut value = 0f64;
    let mut fraction = false;
    for k in 0..ndigits {
        let digit = word(8 + 2 * k)?;
        let power = i32::from(weight) - k as i32;
        value += f64::from(digit) * 10000f64.powi(power);
        if power >= 0 {
            whole = whole
                .saturating_mul(10000)
                .saturating_add(i128::from(digit));
        } else if digit != 0 {
            fraction = true;
        }
    }
    // Trailing zero groups are not sent: scale the whole part up to the weight.
    let sent_whole = (i32::from(weight) + 1).min(ndigits as i32).max(0);
    for _ in sent_whole..=i32::from(weight) {
        whole = whole.saturating_mul(10000);
    }
    let negative = sign == 0x4000;
    if !fraction && let Ok(i) = i64::try_from(if negative { -whole } else { whole }) {
        return Ok(Value::Integer(i));
    }
    Ok(Value::Real(if negative { -value } else { value }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(weight: i16, sign: u16, digits: &[u16]) -> Vec<u8> {
        let mut out = Vec::new();
        for w in [digits.len() as u16, weight as u16, sign, 0] {
            out.extend_from_slice(&w.to_be_bytes());
        }
        for d in digits {
            out.extend_from_slice(&d.to_be_bytes());
        }
        out
    }

    #[test]
    fn numerics_read_as_integers_when_whole() {
        assert_eq!(numeric(&encode(0, 0, &[])).unwrap(), Value::Integer(0));
        assert_eq!(numeric(&encode(0, 0, &[7])).unwrap(), Value::Integer(7));
        assert_eq!(
            numeric(&encode(1, 0, &[1, 2])).unwrap(),
            Value::Integer(10002)
        );
        // 20000: one group sent (2) at weight 1.
        assert_eq!(numeric(&encode(1, 0, &[2])).unwrap(), Value::Integer(20000));
        assert_eq!(
            numeric(&encode(0, 0x4000, &[5])).unwrap(),
            Value::Integer(-5)
        );
        assert_eq!(
            numeric(&encode(0, 0, &[1, 5000])).unwrap(),
            Value::Real(1.5)
        );
        assert!(numeric(&[0, 1]).is_err());
    }
}
