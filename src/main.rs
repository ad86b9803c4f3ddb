//! `docket`: parse the command line, dispatch, exit with 0 (success), 1 (failure) or 2 (usage).

use std::process::ExitCode;

use clap::Parser;
#[cfg(target_os = "linux")]
use docket::core::large_blocks::LargeBlocks;
use docket::{admin, admin::CliError, admin::Ctx};
use docket::{cli::Cli, cli::Command};

fn main() -> ExitCode {
    choose_allocators();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("docket: error: {}", e.message);
            ExitCode::from(e.code as u8)
        }
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    let database = cli
        .database()
        .map_err(|message| CliError { message, code: 2 })?;
    let secret_key = cli
        .secret_key()
        .map_err(|message| CliError { message, code: 2 })?;
    let open = |data_dir, json| Ctx::open(data_dir, &database, secret_key.clone(), json);
    if !matches!(cli.command, Command::Serve(_)) {
        end_quietly_on_closed_output();
    }
    match cli.command {
        Command::Serve(args) => serve(&args, cli.data_dir, database, secret_key.clone()),
        Command::Migrate(f) => admin::backup::migrate(&open(cli.data_dir, f.json)?),
        Command::User(a) => admin::user::run(&open(cli.data_dir, a.out.json)?, a.command),
        Command::Client(a) => admin::client::run(
            &open(cli.data_dir, a.out.json)?,
            a.public_url.as_deref(),
            a.command,
        ),
        Command::Apikey(a) => admin::apikey::run(&open(cli.data_dir, a.out.json)?, a.command),
        Command::Team(a) => admin::team::run(
            &open(cli.data_dir, a.out.json)?,
            a.public_url.as_deref(),
            a.command,
        ),
        Command::Backup(a) => {
            admin::backup::only_file_blobs(&a.blob_url)?;
            admin::backup::backup(&open(cli.data_dir, a.out.json)?, &a.dest)
        }
        Command::Mail(a) => admin::mail::run(&open(cli.data_dir, a.out.json)?, a.command),
        Command::Secrets(a) => admin::secrets::run(&open(cli.data_dir, a.out.json)?, a.command),
        Command::Version(f) => {
            admin::backup::version(f.json);
            Ok(())
        }
        Command::RenderPage(a) => {
            let code = docket::signing::pdf::render_page_child(&a.pdf, a.page, a.width);
            std::process::exit(code);
        }
    }
}

fn serve(
    args: &docket::cli::ServeArgs,
    data_dir: Option<std::path::PathBuf>,
    database: docket::core::db::Target,
    secret_key: Option<docket::core::secrets::NodeKey>,
) -> Result<(), CliError> {
    let usage = |message: String| CliError { message, code: 2 };
    let mut config =
        docket::config::Config::from_args(args, data_dir).map_err(|e| usage(e.to_string()))?;
    docket::core::secrets::Source::check_flags(&database, secret_key.as_ref()).map_err(usage)?;
    config.database = database;
    config.secret_key = secret_key;
    docket::logging::init(config.log_format, &config.log_level).map_err(usage)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::runtime(format!("cannot start the async runtime: {e}")))?;
    runtime
        .block_on(docket::app::run(config))
        .map_err(|e| CliError::runtime(e.to_string()))
}

/// The allocators, set before anything allocates much or opens a database: glibc's parameters,
/// and, in the static build, SQLite on mimalloc (`docket::core::db::sqlite_memory`; the other
/// builds keep SQLite's own).
fn choose_allocators() {
    fixed_mmap_threshold();
    let _ = docket::core::db::sqlite_memory::install();
}

/// The static musl build allocates with mimalloc (see Cargo.toml); glibc's allocator is kept
/// where it is the C library's. Either way, blocks of 4 MiB and more are mapped in huge pages
/// (`docket::core::large_blocks`).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: LargeBlocks<mimalloc::MiMalloc> = LargeBlocks(mimalloc::MiMalloc);
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: LargeBlocks<std::alloc::System> = LargeBlocks(std::alloc::System);

/// glibc raises its mmap threshold after a large block is freed, so the next 19 MiB argon2
/// block comes from a per-thread arena that keeps the memory after it is freed: with password
/// checks running on changing blocking threads, a bounded number of checks still grew the
/// process to the sum of every arena (about 1 GB on two cores). A fixed threshold keeps large
/// blocks mmapped and returned on free, so memory follows the bound. Each arena also reserves
/// 64 MiB of address space, and glibc allows eight per core: with PostgreSQL, more threads
/// touch the allocator (each connection's client), so the arenas are capped at two per core.
/// Fixing the threshold also fixes glibc's trim threshold at 128 KiB, which gave the top of a
/// heap back after nearly every free of a network buffer, to be faulted in again for the next:
/// up to 1 MiB of free memory stays at the top of each arena instead.
/// (The static musl build allocates with mimalloc, which has neither.)
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let arenas = i32::try_from(2 * cores).unwrap_or(i32::MAX);
    // SAFETY: mallopt only changes allocator parameters; called before any other thread runs.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
        libc::mallopt(libc::M_ARENA_MAX, arenas);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fixed_mmap_threshold() {}

/// An admin command whose reader stops early (`docket mail list | head`) ends as any Unix tool
/// does, by SIGPIPE, instead of panicking in `println!` (Rust ignores SIGPIPE for every
/// program). The server keeps ignoring it: a client that hangs up is an error to handle there.
fn end_quietly_on_closed_output() {
    // SAFETY: restoring the default disposition installs no handler, and nothing else in this
    // single-threaded start of an admin command has changed SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use docket::core::db::sqlite_memory;

    /// Nothing else in this test binary touches SQLite, so it is still uninitialised here, as it
    /// is when `main` starts. (CI runs it on the glibc build, which keeps SQLite's allocator;
    /// the static build's smoke test, `packaging/smoke-serve.py`, serves on SQLite on mimalloc.)
    #[test]
    fn sqlite_allocates_as_main_chooses() {
        super::choose_allocators();
        let installed = sqlite_memory::installed_malloc();
        assert_eq!(installed.is_some(), cfg!(target_env = "musl"));
        match installed {
            Some(ours) => assert_eq!(sqlite_memory::current_malloc(), Some(ours)),
            None => assert_eq!(
                sqlite_memory::install(),
                Err(sqlite_memory::NotInstalled::Unsupported)
            ),
        }
        // SQLite works on it: a connection, a statement that allocates rows and strings.
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let text: String = conn
            .query_row(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) \
                 SELECT group_concat(printf('%08d', i), ',') FROM n",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(text.len(), 5000 * 9 - 1);
        // Once initialised, SQLite refuses a change of allocator.
        if installed.is_some() {
            assert_eq!(
                sqlite_memory::install(),
                Err(sqlite_memory::NotInstalled::Refused(
                    rusqlite::ffi::SQLITE_MISUSE
                ))
            );
        }
    }
}
