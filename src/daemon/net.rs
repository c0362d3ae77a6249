//! What the IMAP and SMTP clients share: when an unencrypted connection is
//! allowed, and the TLS client setup (rustls with the ring provider and the
//! Mozilla roots from webpki-roots, so no system certificate store is needed).

use std::net::IpAddr;
use std::sync::Arc;

use rustls::pki_types::ServerName;
use tokio_rustls::TlsConnector;

/// Whether `host` names this machine without a DNS lookup: `localhost` or a
/// loopback IP literal. Nothing else may be spoken to unencrypted, since a
/// password would cross the network in clear text.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.to_canonical().is_loopback())
}

/// The TLS client for IMAP (SMTP uses lettre's, built the same way).
pub(crate) fn tls_connector() -> Result<TlsConnector, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("TLS setup failed: {e}"))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// The name a server certificate must carry, from a host name or IP literal.
pub(crate) fn server_name(host: &str) -> Result<ServerName<'static>, String> {
    let bare = host.trim().trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(bare.to_string())
        .map_err(|_| format!("'{host}' is not a valid host name for TLS"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_machine_counts_as_loopback() {
        let cases = [
            ("localhost", true),
            ("LOCALHOST", true),
            ("127.0.0.1", true),
            ("127.3.4.5", true),
            ("::1", true),
            ("[::1]", true),
            ("::ffff:127.0.0.1", true),
            ("10.0.0.1", false),
            ("192.168.1.1", false),
            ("mail.example.org", false),
            ("localhost.example.org", false),
            ("", false),
        ];
        for (host, expected) in cases {
            assert_eq!(is_loopback_host(host), expected, "{host}");
        }
    }

    #[test]
    fn server_names_accept_hosts_and_ip_literals_but_not_junk() {
        assert!(server_name("imap.example.org").is_ok());
        assert!(server_name("127.0.0.1").is_ok());
        assert!(server_name("[::1]").is_ok());
        assert!(server_name("bad host name").is_err());
    }

    #[test]
    fn the_tls_client_can_be_built() {
        assert!(tls_connector().is_ok());
    }
}
