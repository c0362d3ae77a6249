//! `dopis web`: what players and TDs see beside their mail, over HTTP.
//!
//! - `pages`: event, game and player pages, PGN downloads.
//! - `feeds`: each player's private calendar feed of their deadlines.
//! - `xfcc`: the XFCC endpoint chess programs fetch games and send moves
//!   through (`../shared/XFCC.md`).
//!
//! An edge like the daemon: it reads requests and calls the services,
//! which do the work in the same transactions as for mail. It speaks plain
//! HTTP, on the loopback unless `[web] behind_proxy` says a TLS proxy sits
//! in front ([`crate::adapter::config::WebConfig::address`]).

mod feeds;
mod pages;
mod xfcc;

use std::sync::Arc;

use anyhow::{Context, Result};

use crate::adapter::config::{Config, WebConfig};
use crate::service::Store;
use crate::service::app::{Clock, Settings, SystemClock};
use crate::service::inbox::Inbox;
use crate::service::post::Post;

/// What every request handler shares.
pub struct Web {
    /// The database.
    pub store: Store,
    /// Addresses and tokens (reply addresses, private links).
    pub post: Post,
    /// How mail is handled: XFCC moves go through the same arbiter.
    pub inbox: Inbox,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// `[web] base_url` without its trailing slash, if set.
    pub base_url: Option<String>,
}

/// The handlers' state.
pub type Shared = Arc<Web>;

/// Every route `dopis web` serves.
pub fn router(web: Shared, config: &WebConfig) -> Result<axum::Router> {
    let xfcc_path = config.xfcc()?;
    Ok(axum::Router::new()
        .merge(pages::routes())
        .merge(feeds::routes())
        .merge(xfcc::routes(&xfcc_path))
        // Any other address: the pages' short "not found", not an empty 404.
        .fallback(pages::nowhere)
        .with_state(web))
}

/// Runs `dopis web` until SIGTERM or Ctrl-C: binds `[web] listen` (a
/// wrong or taken address stops the start with a message), logs
/// `listening on ADDR` and serves.
pub async fn serve(config: Config) -> Result<()> {
    let address = config.web.address()?;
    let base_url = config.web.base()?;
    let post = Post::new(&config.mail)
        .context("[mail]")?
        .with_pages(base_url.clone());
    let settings = Settings::from_config(&config)?;
    let inbox = Inbox::new(post.clone(), &settings);
    let store = crate::service::open_store(config.database.url.expose()).await?;
    let web = Arc::new(Web {
        store: store.clone(),
        post,
        inbox,
        clock: Arc::new(SystemClock),
        base_url,
    });
    let app = router(web, &config.web)?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| {
            format!(
                "cannot listen on {address} ([web] listen): is the address this machine's and \
                 the port free?"
            )
        })?;
    let bound = listener.local_addr().unwrap_or(address);
    // On stderr as a plain line too, whatever the log settings: the tests
    // (and a person starting it by hand) read the port from it.
    eprintln!("dopis web: listening on http://{bound}");
    tracing::info!(%bound, "dopis web listening");
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(stopped())
    .await
    .context("dopis web stopped")?;
    store.close().await;
    Ok(())
}

/// Resolves on SIGTERM (systemd, `kill`) or Ctrl-C.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
