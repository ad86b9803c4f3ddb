//! Structured logs with tracing: text or JSON on stderr, level from `--log-level`.

use tracing_subscriber::EnvFilter;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Silences warp's path matching at every level (it bypasses `http::redact`).
const QUIET_PATH_MATCHING: &str = "warp::filters::path=off";

/// The filter `--log-level` asks for, warp's path matching always off: it traces every
/// segment as sent, signing tokens and one-time links included, and the request line
/// (`http::redact`) is where paths are logged.
fn filter(level: &str) -> Result<EnvFilter, String> {
    Ok(EnvFilter::try_new(level)
        .map_err(|e| format!("--log-level {level:?}: {e}"))?
        .add_directive(QUIET_PATH_MATCHING.parse().expect("a valid directive")))
}

/// Installs the global subscriber. `level` is a tracing filter (`info`, `debug`,
/// `docket=debug,warp=info`, ...). Calling it twice is harmless.
pub fn init(format: LogFormat, level: &str) -> Result<(), String> {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter(level)?)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let result = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    // Already installed (e.g. several servers in one test process): keep the first.
    let _ = result;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn path_matching_stays_quiet_even_at_trace() {
        for level in ["trace", "warp=trace", "trace,warp::filters::path=trace"] {
            let subscriber = tracing_subscriber::registry().with(filter(level).unwrap());
            tracing::subscriber::with_default(subscriber, || {
                assert!(
                    !tracing::enabled!(target: "warp::filters::path", tracing::Level::ERROR),
                    "{level}"
                );
                assert!(tracing::enabled!(target: "warp::reply", tracing::Level::TRACE));
            });
        }
    }
}
