//! SQLite's memory in the static binary comes from mimalloc.
//!
//! Left alone, SQLite calls the C library's `malloc` and writes each block's size in front of
//! it. In the static musl build that is musl's allocator, slow and with one lock for every
//! thread (the reason that build's Rust code allocates with mimalloc, Cargo.toml): the refresh
//! grant, whose writes allocate most in SQLite, ran at half the rate it does with mimalloc
//! (docs/develop/performance-history.md, "SQLite on mimalloc in the shipped binary"). [`install`] hands SQLite
//! mimalloc there, and lets it ask mimalloc for a block's size instead of keeping its own
//! header. The glibc build keeps SQLite's default: glibc's `malloc` directly gave no gain there
//! that its spread did not cover (`/me` was as likely slower), so nothing is changed without one.
//!
//! SQLite takes its allocator only before it first initialises, so `main` installs it before
//! anything opens a database.

use rusqlite::ffi;

/// Why SQLite kept its own allocator.
#[derive(Debug, PartialEq, Eq)]
pub enum NotInstalled {
    /// This build keeps SQLite's default.
    Unsupported,
    /// SQLite refused the configuration with this result code (`SQLITE_MISUSE` once it has
    /// initialised).
    Refused(i32),
}

/// Makes SQLite allocate with mimalloc in the static build (elsewhere: `Unsupported`). Call it
/// before the first database is opened; afterwards SQLite refuses and keeps its default, which
/// is correct, only slower.
pub fn install() -> Result<(), NotInstalled> {
    allocator::install()
}

#[cfg(target_env = "musl")]
mod allocator {
    use std::ffi::{c_int, c_void};

    use libmimalloc_sys as mi;
    use rusqlite::ffi;

    use super::NotInstalled;

    /// SQLite never asks for zero or a negative size (its own wrappers answer those), so a
    /// size that does not convert gets no block.
    unsafe extern "C" fn x_malloc(n: c_int) -> *mut c_void {
        match usize::try_from(n) {
            // SAFETY: SQLite's contract for xMalloc is malloc's.
            Ok(n) if n > 0 => unsafe { mi::mi_malloc(n) },
            _ => std::ptr::null_mut(),
        }
    }

    unsafe extern "C" fn x_free(p: *mut c_void) {
        // SAFETY: SQLite frees only what xMalloc or xRealloc gave it.
        unsafe { mi::mi_free(p) }
    }

    unsafe extern "C" fn x_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
        match usize::try_from(n) {
            // SAFETY: SQLite's contract for xRealloc is realloc's, with a size above zero.
            Ok(n) if n > 0 => unsafe { mi::mi_realloc(p, n) },
            _ => std::ptr::null_mut(),
        }
    }

    unsafe extern "C" fn x_size(p: *mut c_void) -> c_int {
        if p.is_null() {
            return 0;
        }
        // SAFETY: SQLite asks only about blocks xMalloc or xRealloc gave it.
        let size = unsafe { mi::mi_usable_size(p) };
        c_int::try_from(size).unwrap_or(c_int::MAX)
    }

    unsafe extern "C" fn x_roundup(n: c_int) -> c_int {
        // SAFETY: a pure size computation.
        let good = |n| unsafe { mi::mi_good_size(n) };
        usize::try_from(n)
            .ok()
            .and_then(|n| c_int::try_from(good(n)).ok())
            .unwrap_or(n)
    }

    unsafe extern "C" fn x_init(_: *mut c_void) -> c_int {
        ffi::SQLITE_OK
    }

    unsafe extern "C" fn x_shutdown(_: *mut c_void) {}

    /// The methods SQLite is given; it copies them.
    pub(super) fn methods() -> ffi::sqlite3_mem_methods {
        ffi::sqlite3_mem_methods {
            xMalloc: Some(x_malloc),
            xFree: Some(x_free),
            xRealloc: Some(x_realloc),
            xSize: Some(x_size),
            xRoundup: Some(x_roundup),
            xInit: Some(x_init),
            xShutdown: Some(x_shutdown),
            pAppData: std::ptr::null_mut(),
        }
    }

    pub(super) fn install() -> Result<(), NotInstalled> {
        let methods = methods();
        // SAFETY: SQLITE_CONFIG_MALLOC takes one pointer to a methods struct, which SQLite copies
        // before returning; it fails with SQLITE_MISUSE, changing nothing, once initialised.
        let rc = unsafe { ffi::sqlite3_config(ffi::SQLITE_CONFIG_MALLOC, &raw const methods) };
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(NotInstalled::Refused(rc))
        }
    }
}

#[cfg(not(target_env = "musl"))]
mod allocator {
    use super::NotInstalled;

    pub(super) fn install() -> Result<(), NotInstalled> {
        Err(NotInstalled::Unsupported)
    }
}

/// The `xMalloc` SQLite allocates with now, for checking which allocator it has.
pub fn current_malloc() -> Option<usize> {
    let mut methods = std::mem::MaybeUninit::<ffi::sqlite3_mem_methods>::zeroed();
    // SAFETY: SQLITE_CONFIG_GETMALLOC fills the struct the pointer names (before SQLite has
    // initialised: the methods it will use; afterwards it refuses, and this answers `None`).
    let rc = unsafe { ffi::sqlite3_config(ffi::SQLITE_CONFIG_GETMALLOC, methods.as_mut_ptr()) };
    if rc != ffi::SQLITE_OK {
        return None;
    }
    // SAFETY: zeroed is a valid value of the struct (all options and a null pointer), and SQLite
    // wrote a whole struct over it.
    let methods = unsafe { methods.assume_init() };
    methods.xMalloc.map(|f| f as usize)
}

/// The `xMalloc` [`install`] gives SQLite, on platforms where it gives one.
pub fn installed_malloc() -> Option<usize> {
    #[cfg(target_env = "musl")]
    {
        allocator::methods().xMalloc.map(|f| f as usize)
    }
    #[cfg(not(target_env = "musl"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::ffi;

    /// SQLite is built not to count its memory (`LIBSQLITE3_FLAGS` in `.cargo/config.toml`):
    /// counting takes one process-wide lock around every allocation and free. After real work
    /// its count is still zero; built without the flag, it is not.
    #[test]
    fn sqlite_does_not_count_its_memory() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE t (x TEXT); INSERT INTO t SELECT hex(randomblob(4096)) FROM (SELECT 1 UNION SELECT 2);",
        )
        .unwrap();
        let (mut now, mut highest) = (0i64, 0i64);
        // SAFETY: SQLITE_STATUS_MEMORY_USED writes two integers through the pointers given.
        let rc = unsafe {
            ffi::sqlite3_status64(ffi::SQLITE_STATUS_MEMORY_USED, &mut now, &mut highest, 0)
        };
        assert_eq!(rc, ffi::SQLITE_OK);
        assert_eq!((now, highest), (0, 0), "SQLite counted its memory");
    }
}
