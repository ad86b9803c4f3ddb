//! Structured logs with tracing: text or JSON on stderr, level from `--log-level`.

use tracing_subscriber::EnvFilter;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Targets silenced at every level, since they print secrets as they are: warp's path matching
/// traces every segment as sent (signing tokens and one-time links; the request line,
/// `http::server::redact`, is where paths are logged), and tokio-postgres logs every query's
/// parameters at debug level (tokens, hashes, sealed secrets).
const QUIET: [&str; 2] = ["warp::filters::path=off", "tokio_postgres::query=off"];

/// Targets off unless `--log-level` names them: lopdf logs every flaw of a PDF it reads as an
/// error, and those are flaws of uploaded files (refused with a 4xx naming the reason, or
/// repaired), not faults of the server. The upload check also hides the /Length of large
/// streams from it on purpose (`signing::pdf::bulk`), which it would report on every upload.
const OFF_UNLESS_NAMED: [&str; 1] = ["lopdf"];

/// The filter `--log-level` asks for, with the `QUIET` targets always off and the
/// `OFF_UNLESS_NAMED` ones off unless it names them.
fn filter(level: &str) -> Result<EnvFilter, String> {
    let mut filter =
        EnvFilter::try_new(level).map_err(|e| format!("--log-level {level:?}: {e}"))?;
    let unnamed = OFF_UNLESS_NAMED
        .iter()
        .filter(|target| !level.contains(*target))
        .map(|target| format!("{target}=off"));
    for quiet in QUIET.iter().map(|q| q.to_string()).chain(unnamed) {
        filter = filter.add_directive(quiet.parse().expect("a valid directive"));
    }
    Ok(filter)
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

    #[test]
    fn pdf_parser_complaints_are_off_unless_asked_for() {
        for (level, shown) in [
            ("info", false),
            ("trace", false),
            ("info,lopdf=warn", true),
            ("lopdf::reader=error", true),
        ] {
            let subscriber = tracing_subscriber::registry().with(filter(level).unwrap());
            tracing::subscriber::with_default(subscriber, || {
                let enabled = tracing::enabled!(target: "lopdf::reader", tracing::Level::ERROR);
                assert_eq!(enabled, shown, "{level}");
            });
        }
    }

    #[test]
    fn query_parameters_stay_quiet_even_at_trace() {
        for level in [
            "trace",
            "tokio_postgres=trace",
            "debug,tokio_postgres::query=debug",
        ] {
            let subscriber = tracing_subscriber::registry().with(filter(level).unwrap());
            tracing::subscriber::with_default(subscriber, || {
                assert!(
                    !tracing::enabled!(target: "tokio_postgres::query", tracing::Level::ERROR),
                    "{level}"
                );
                assert!(
                    tracing::enabled!(target: "tokio_postgres::connection", tracing::Level::DEBUG)
                );
            });
        }
    }
}
