//! `[metrics] listen`: the daemon's `/healthz` and Prometheus `/metrics`
//! endpoints (axum), off unless configured.
//!
//! The counters and the pass-time histogram are kept by the daemon as it
//! works ([`Metrics`]); the outbox and scheduler figures are read from the
//! database at each scrape, so they are right whichever of several daemons
//! on one database is asked. The text is OpenMetrics, written by the
//! `prometheus-client` crate (Prometheus reads it, and it saves writing
//! the escaping and the histogram's buckets by hand).

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use chrono::{DateTime, Utc};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use tokio::sync::watch;

use crate::service::Store;
use crate::service::app::Clock;
use crate::service::inbox::Handled;

/// `/healthz` answers 503 when no pass finished for this long: the daemon
/// passes at least every 30 s while it waits for mail, and every 30 s at
/// most while it backs off after failures.
pub const STALE_AFTER: Duration = Duration::from_secs(300);

/// What the daemon counts as it works.
pub struct Metrics {
    registry: Registry,
    handled: Counter,
    refused: Counter,
    failed: Counter,
    passes_failed: Counter,
    imap_reconnects: Counter,
    pass_seconds: Histogram,
    outbox_pending: Gauge,
    outbox_oldest_seconds: Gauge<f64, AtomicU64>,
    due_games: Gauge,
    last_pass: Mutex<Option<DateTime<Utc>>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric at zero, registered under the `dopis_` prefix.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("dopis");
        let handled = Counter::default();
        let refused = Counter::default();
        let failed = Counter::default();
        let passes_failed = Counter::default();
        let imap_reconnects = Counter::default();
        // 10 ms to about 160 s.
        let pass_seconds = Histogram::new(exponential_buckets(0.01, 2.0, 15));
        let outbox_pending = Gauge::default();
        let outbox_oldest_seconds = Gauge::<f64, AtomicU64>::default();
        let due_games = Gauge::default();
        registry.register(
            "mails_handled",
            "Mails read and acted on or answered (moves, commands, refusals that were answered)",
            handled.clone(),
        );
        registry.register(
            "mails_refused",
            "Mails read and not acted on by rule: auto-replies, bounces, unreadable or too large mail, rate limits, a failed DKIM check",
            refused.clone(),
        );
        registry.register(
            "mails_failed",
            "Mails that could not be handled: tried again later, or kept for the admin (dopis failed)",
            failed.clone(),
        );
        registry.register(
            "passes_failed",
            "Passes that ended in an error (a mail server or the database away)",
            passes_failed.clone(),
        );
        registry.register(
            "imap_reconnects",
            "Times the IMAP connection was opened again after it dropped",
            imap_reconnects.clone(),
        );
        registry.register(
            "pass_duration_seconds",
            "How long one pass took: the mailbox, the scheduler, the reports, the outbox",
            pass_seconds.clone(),
        );
        registry.register(
            "outbox_pending",
            "Outbox mails waiting to be sent",
            outbox_pending.clone(),
        );
        registry.register(
            "outbox_oldest_pending_age_seconds",
            "How long the oldest mail waiting in the outbox has waited (0 when none)",
            outbox_oldest_seconds.clone(),
        );
        registry.register(
            "due_games",
            "Active games whose scheduler work (reminder, timeout, leave) is due",
            due_games.clone(),
        );
        Metrics {
            registry,
            handled,
            refused,
            failed,
            passes_failed,
            imap_reconnects,
            pass_seconds,
            outbox_pending,
            outbox_oldest_seconds,
            due_games,
            last_pass: Mutex::new(None),
        }
    }

    /// Counts one mail read from the mailbox.
    pub fn mail(&self, handled: &Handled) {
        match handled {
            Handled::Done(_) | Handled::Duplicate => self.handled.inc(),
            Handled::Ignored(_) => self.refused.inc(),
        };
    }

    /// Counts one mail that could not be handled.
    pub fn mail_failed(&self) {
        self.failed.inc();
    }

    /// Records a pass that finished at `at` after `took`, well or not.
    pub fn pass(&self, took: Duration, ok: bool, at: DateTime<Utc>) {
        self.pass_seconds.observe(took.as_secs_f64());
        if !ok {
            self.passes_failed.inc();
        }
        if let Ok(mut last) = self.last_pass.lock() {
            *last = Some(at);
        }
    }

    /// The counter the IMAP mailbox adds its reconnects to.
    pub fn imap_reconnects(&self) -> Counter {
        self.imap_reconnects.clone()
    }

    /// When the last pass finished.
    pub fn last_pass(&self) -> Option<DateTime<Utc>> {
        self.last_pass.lock().ok().and_then(|l| *l)
    }

    /// The exposition text, with the database's figures as of `now`.
    async fn render(&self, store: &Store, now: DateTime<Utc>) -> Result<String, String> {
        let gauges = store.gauges(now).await.map_err(|e| e.to_string())?;
        self.outbox_pending.set(gauges.outbox_pending);
        self.outbox_oldest_seconds
            .set(gauges.oldest_pending.map_or(0.0, |t| {
                ((now - t).num_milliseconds().max(0) as f64) / 1000.0
            }));
        self.due_games.set(gauges.due_games);
        let mut text = String::new();
        encode(&mut text, &self.registry).map_err(|e| e.to_string())?;
        Ok(text)
    }
}

/// What the endpoints read.
#[derive(Clone)]
struct Shared {
    metrics: Arc<Metrics>,
    store: Store,
    clock: Arc<dyn Clock>,
}

/// Binds `listen` now (so a wrong or taken address stops the start) and
/// serves `/healthz` and `/metrics` until `shutdown` turns true.
pub async fn serve(
    listen: SocketAddr,
    metrics: Arc<Metrics>,
    store: Store,
    clock: Arc<dyn Clock>,
    mut shutdown: watch::Receiver<bool>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    use anyhow::Context;
    let listener = tokio::net::TcpListener::bind(listen).await.with_context(|| {
        format!("cannot listen on {listen} ([metrics] listen): is the address this machine's and the port free?")
    })?;
    let app = axum::Router::new()
        .route("/metrics", get(metrics_page))
        .route("/healthz", get(health_page))
        .with_state(Shared {
            metrics,
            store,
            clock,
        });
    tracing::info!(%listen, "serving /healthz and /metrics");
    Ok(tokio::spawn(async move {
        let stop = async move {
            while !*shutdown.borrow() {
                if shutdown.changed().await.is_err() {
                    break;
                }
            }
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(stop)
            .await
        {
            tracing::error!(error = %e, "the metrics endpoint stopped");
        }
    }))
}

async fn metrics_page(State(shared): State<Shared>) -> impl IntoResponse {
    match shared
        .metrics
        .render(&shared.store, shared.clock.now())
        .await
    {
        Ok(text) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        ),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("the database does not answer: {e}\n"),
        ),
    }
}

async fn health_page(State(shared): State<Shared>) -> impl IntoResponse {
    let now = shared.clock.now();
    let (status, text) = match health(&shared, now).await {
        Ok(text) => (StatusCode::OK, text),
        Err(text) => (StatusCode::SERVICE_UNAVAILABLE, text),
    };
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{text}\n"),
    )
}

/// `Ok(what is fine)` or `Err(why not)`.
async fn health(shared: &Shared, now: DateTime<Utc>) -> Result<String, String> {
    let stale = chrono::TimeDelta::from_std(STALE_AFTER).unwrap_or(chrono::TimeDelta::MAX);
    let ago = match shared.metrics.last_pass() {
        None => return Err("starting: no pass has finished yet".into()),
        Some(at) if now - at > stale => {
            return Err(format!(
                "no pass has finished for {} s (the last at {})",
                (now - at).num_seconds(),
                at.format("%Y-%m-%d %H:%M:%S UTC")
            ));
        }
        Some(at) => (now - at).num_seconds().max(0),
    };
    match tokio::time::timeout(Duration::from_secs(5), shared.store.ping()).await {
        Ok(Ok(())) => Ok(format!(
            "ok: the last pass finished {ago} s ago; the database answers"
        )),
        Ok(Err(e)) => Err(format!("the database does not answer: {e}")),
        Err(_) => Err("the database does not answer within 5 s".into()),
    }
}
