//! Rendering one page in a child process under limits: both ends of `docket render-page`.
//!
//! hayro is synchronous and has no hook to stop it, and a small hostile page can ask it for
//! gigabytes (a content stream that inflates without end) or hours (Form XObjects drawing each
//! other ten times, nine levels deep). So each render runs in a child process of the same
//! binary, which the kernel bounds: its address space (RLIMIT_AS, the decode and memory
//! budget) and its CPU time (RLIMIT_CPU, a backstop), no core dumps, and death with its parent
//! (PR_SET_PDEATHSIG). The parent enforces the wall-clock deadline and kills the child when the
//! task awaiting it is dropped (the client left): [`render`] is cancel-safe.
//!
//! The child prints the PNG on stdout and exits 0, or prints why on stderr and exits with one
//! of the codes below. Any other end (a signal, an allocation that failed under the cap) means
//! the page cannot be drawn within the budget.

use std::io::{self, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;

use super::PdfError;
use super::render::{LoadedPdf, MAX_PIXELS};

/// The file or the page cannot be drawn (damaged, encrypted, a renderer panic); the reason is
/// on stderr.
const EXIT_UNDRAWABLE: i32 = 3;
/// The document has no such page.
const EXIT_NO_PAGE: i32 = 4;
/// The file could not be read: the server's fault, not the document's.
const EXIT_IO: i32 = 5;

/// Most bytes read from the child's stdout: an RGB PNG of [`MAX_PIXELS`] with some slack
/// (PNG never grows much beyond the raw pixels).
const MAX_PNG_BYTES: u64 = MAX_PIXELS * 3 + (1 << 20);
/// Most bytes of the child's stderr kept for the log.
const MAX_STDERR_BYTES: u64 = 4096;

/// What a render may use, and the program that renders.
#[derive(Debug, Clone)]
pub struct RenderLimits {
    /// The `docket` binary to run as `<exe> render-page ...`.
    pub exe: PathBuf,
    /// Renders at once; more wait (briefly) for a slot.
    pub workers: usize,
    /// Wall-clock time one render may take.
    pub timeout: Duration,
    /// Address space of one render process, in bytes.
    pub memory_bytes: u64,
}

impl RenderLimits {
    /// This very binary, even after a package upgrade replaced the file on disk: on Linux,
    /// `/proc/self/exe` opens the running program's own file.
    pub fn this_binary() -> PathBuf {
        let proc_exe = PathBuf::from("/proc/self/exe");
        if proc_exe.exists() {
            return proc_exe;
        }
        std::env::current_exe().unwrap_or(proc_exe)
    }
}

/// How a render in the child ended (other than the server failing to run it).
#[derive(Debug)]
pub enum Outcome {
    Png(Vec<u8>),
    /// The page cannot be drawn within the limits, and why (for the log).
    Undrawable(String),
    NoSuchPage,
}

/// Renders page `page_index` of the PDF at `pdf` `width_px` wide in a child process under
/// `limits`. An `Err` is the server's fault (the program cannot be started, the file cannot be
/// read). Dropping the returned future kills the child.
pub async fn render(
    limits: &RenderLimits,
    pdf: &Path,
    page_index: usize,
    width_px: u32,
) -> io::Result<Outcome> {
    let mut cmd = tokio::process::Command::new(&limits.exe);
    cmd.arg("render-page")
        .arg("--page")
        .arg(page_index.to_string())
        .arg("--width")
        .arg(width_px.to_string())
        .arg("--")
        .arg(pdf)
        .env_clear()
        // A render fills a few large fresh buffers (the pixmap, the PNG's rows): in transparent
        // huge pages they cost a fault per 2 MiB instead of per 4 KiB, about a quarter of a
        // small page's time. glibc's malloc asks for them with this (mimalloc, in the static
        // build, ignores it: asked to commit whole arenas, which it backs with huge pages, it
        // reached the memory budget sooner on a hostile page, so it commits as it goes).
        .env("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let memory = clamp_to_hard_limit(libc::RLIMIT_AS, limits.memory_bytes);
    // The CPU limit is a backstop should this process die and the deadline with it: the
    // child gets SIGXCPU a second after the deadline and SIGKILL a second later.
    let cpu_secs = limits.timeout.as_secs() + 1;
    let cpu = clamp_to_hard_limit(libc::RLIMIT_CPU, cpu_secs);
    let cpu_hard = clamp_to_hard_limit(libc::RLIMIT_CPU, cpu_secs + 1);
    // SAFETY: only async-signal-safe calls (setrlimit, prctl) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            set_limit(libc::RLIMIT_AS, memory, memory)?;
            set_limit(libc::RLIMIT_CPU, cpu, cpu_hard)?;
            set_limit(libc::RLIMIT_CORE, 0, 0)?;
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(io::Error::other("the renderer's pipes are missing"));
    };
    let run = async {
        let (mut png, mut err) = (Vec::new(), Vec::new());
        let (mut out_cap, mut err_cap) = (
            (&mut stdout).take(MAX_PNG_BYTES),
            (&mut stderr).take(MAX_STDERR_BYTES),
        );
        let (out, _) = tokio::join!(out_cap.read_to_end(&mut png), err_cap.read_to_end(&mut err));
        // Close the pipes, so that a child still writing past the caps stops.
        drop((stdout, stderr));
        let status = child.wait().await?;
        out?;
        io::Result::Ok((status, png, err))
    };
    let Ok(finished) = tokio::time::timeout(limits.timeout, run).await else {
        // Killed and reaped now; were this future dropped instead, kill_on_drop kills it.
        let _ = child.kill().await;
        return Ok(Outcome::Undrawable(format!(
            "it took longer than {} s",
            limits.timeout.as_secs()
        )));
    };
    let (status, png, err) = finished?;
    outcome(status, png, &String::from_utf8_lossy(&err), limits)
}

fn outcome(
    status: ExitStatus,
    png: Vec<u8>,
    err: &str,
    limits: &RenderLimits,
) -> io::Result<Outcome> {
    let err = err.trim();
    Ok(match (status.code(), status.signal()) {
        (Some(0), _) if png.starts_with(b"\x89PNG") => Outcome::Png(png),
        (Some(0), _) => Outcome::Undrawable("the renderer printed no image".into()),
        (Some(EXIT_UNDRAWABLE), _) => Outcome::Undrawable(err.to_string()),
        (Some(EXIT_NO_PAGE), _) => Outcome::NoSuchPage,
        (Some(EXIT_IO), _) => return Err(io::Error::other(err.to_string())),
        (_, Some(libc::SIGABRT)) if err.contains("memory allocation") => Outcome::Undrawable(
            format!("it needs more than {} MiB", limits.memory_bytes >> 20),
        ),
        (_, Some(libc::SIGXCPU | libc::SIGKILL)) => Outcome::Undrawable(format!(
            "it used more than {} s of CPU time",
            limits.timeout.as_secs()
        )),
        (_, Some(signal)) => {
            Outcome::Undrawable(format!("the renderer stopped with signal {signal}: {err}"))
        }
        (Some(code), None) => {
            Outcome::Undrawable(format!("the renderer exited with code {code}: {err}"))
        }
        (None, None) => Outcome::Undrawable("the renderer ended without a status".into()),
    })
}

/// `want`, lowered to the hard limit this process already has (a child cannot raise it).
/// The type of `setrlimit`'s resource argument: glibc's enum, musl's (and others') int.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

fn clamp_to_hard_limit(resource: Resource, want: u64) -> u64 {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only into `current`.
    if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
        return want;
    }
    want.min(current.rlim_max)
}

fn set_limit(resource: Resource, soft: u64, hard: u64) -> io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: soft.min(hard),
        rlim_max: hard,
    };
    // SAFETY: setrlimit reads only `limit`.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The child's side: renders and prints the PNG on stdout; returns the exit code. Runs in the
/// limits its parent set; nothing here is bounded otherwise.
pub fn child_main(pdf: &Path, page_index: usize, width_px: u32) -> i32 {
    let rendered = LoadedPdf::open(pdf).and_then(|p| p.renderer().render(page_index, width_px));
    match rendered {
        Ok(png) => {
            let mut out = io::stdout().lock();
            match out.write_all(&png).and_then(|()| out.flush()) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("writing the image: {e}");
                    EXIT_IO
                }
            }
        }
        Err(e @ PdfError::NoSuchPage { .. }) => {
            eprintln!("{e}");
            EXIT_NO_PAGE
        }
        Err(PdfError::Io(e)) => {
            eprintln!("reading {}: {e}", pdf.display());
            EXIT_IO
        }
        Err(e) => {
            eprintln!("{e}");
            EXIT_UNDRAWABLE
        }
    }
}
