use tracing_subscriber::{EnvFilter, fmt};

/// Logs to stderr: JSON lines when `LOG_FORMAT=json`, human-readable otherwise; `RUST_LOG` filters.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    if std::env::var("LOG_FORMAT").is_ok_and(|f| f == "json") {
        builder.json().flatten_event(true).init();
    } else {
        builder.init();
    }
}
