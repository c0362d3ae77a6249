//! What the IMAP and SMTP clients share: when an unencrypted connection is
//! allowed, the TLS client setup (rustls with the ring provider and the
//! Mozilla roots from webpki-roots, so no system certificate store is needed,
//! plus the CAs of a `ca_file`), and what to tell the admin when a server's
//! certificate is refused.

use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
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

/// The CA certificates in the PEM file `path`, which the setting `key`
/// (e.g. `[mail.imap] ca_file`) names. Every way the file can be unusable is
/// an error saying so, naming the key: a CA file that silently trusts
/// nothing would only show later as a refused certificate.
pub(crate) fn read_ca_file(path: &Path, key: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let shown = path.display();
    let fix = "set it to a PEM file holding the certificate of the CA that signed the \
               server's certificate (-----BEGIN CERTIFICATE----- blocks)";
    let bytes = std::fs::read(path)
        .map_err(|e| format!("{key} = \"{shown}\": the file cannot be read: {e}; {fix}"))?;
    let certificates = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{key} = \"{shown}\": not a PEM certificate file ({e}); {fix}"))?;
    if certificates.is_empty() {
        return Err(format!(
            "{key} = \"{shown}\": the file holds no certificate; {fix}"
        ));
    }
    // Parse them now, so a broken certificate is reported at start.
    let mut store = rustls::RootCertStore::empty();
    for certificate in &certificates {
        store.add(certificate.clone()).map_err(|e| {
            format!("{key} = \"{shown}\": a certificate in it cannot be used: {e}; {fix}")
        })?;
    }
    Ok(certificates)
}

/// The TLS client for IMAP (SMTP uses lettre's, built the same way): the
/// Mozilla roots and `extra_roots` (from a `ca_file`) are trusted.
pub(crate) fn tls_connector(
    extra_roots: &[CertificateDer<'static>],
) -> Result<TlsConnector, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for certificate in extra_roots {
        roots
            .add(certificate.clone())
            .map_err(|e| format!("TLS setup failed: {e}"))?;
    }
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

/// When `err` happened because the server's certificate was refused: what
/// was wrong with it and which setting of `section` (`[mail.imap]` or
/// `[mail.smtp]`) fixes it. `None` for every other failure.
pub(crate) fn certificate_problem(
    err: &(dyn std::error::Error + 'static),
    host: &str,
    section: &str,
    ca_file: Option<&Path>,
) -> Option<String> {
    use rustls::CertificateError as C;
    let rustls::Error::InvalidCertificate(problem) = find_rustls_error(err)? else {
        return None;
    };
    Some(match problem {
        C::UnknownIssuer | C::BadSignature => match ca_file {
            None => format!(
                "the certificate of {host} is not signed by a CA dopis trusts (the Mozilla \
                 roots); if the server's certificate comes from a private CA, set {section} \
                 ca_file to that CA's certificate (a PEM file)"
            ),
            Some(path) => format!(
                "the certificate of {host} is signed neither by a Mozilla root nor by a CA in \
                 {section} ca_file = \"{}\"; set ca_file to the certificate of the CA that \
                 signed the server's certificate",
                path.display()
            ),
        },
        C::NotValidForName | C::NotValidForNameContext { .. } => format!(
            "the certificate of the server does not carry the name '{host}' ({problem:?}); set \
             {section} host to a name the certificate carries"
        ),
        C::Expired | C::ExpiredContext { .. } | C::NotValidYet | C::NotValidYetContext { .. } => {
            format!(
                "the certificate of {host} is outside its validity dates ({problem:?}); the \
                 server needs a current certificate, or this machine's clock is wrong"
            )
        }
        other => format!("the certificate of {host} was refused: {other:?}"),
    })
}

/// The rustls error somewhere in `err`'s chain. `std::io::Error` hides the
/// error it wraps from `source()`, so it is unwrapped by hand.
fn find_rustls_error<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut current = err;
    loop {
        if let Some(found) = current.downcast_ref::<rustls::Error>() {
            return Some(found);
        }
        let inner = current
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .map(|e| e as &'a (dyn std::error::Error + 'static));
        current = match inner {
            Some(inner) => inner,
            None => current.source()?,
        };
    }
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
        assert!(tls_connector(&[]).is_ok());
    }

    #[test]
    fn an_unusable_ca_file_is_an_error_naming_the_key_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        let broken = dir.path().join("broken.pem");
        std::fs::write(
            &broken,
            "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let cut = dir.path().join("cut.pem");
        std::fs::write(&cut, "-----BEGIN CERTIFICATE-----\nMIIB\n").unwrap();
        for (path, why) in [
            (&missing, "cannot be read"),
            (&empty, "holds no certificate"),
            (&broken, "cannot be used"),
            (&cut, "not a PEM certificate file"),
        ] {
            let err = read_ca_file(path, "[mail.imap] ca_file").unwrap_err();
            assert!(err.starts_with("[mail.imap] ca_file = \""), "{err}");
            assert!(err.contains(why), "{err}");
            assert!(err.contains("BEGIN CERTIFICATE"), "{err}");
        }
    }

    #[test]
    fn a_refused_certificate_is_explained_through_io_errors() {
        let refused = |problem| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                rustls::Error::InvalidCertificate(problem),
            )
        };
        let unknown = refused(rustls::CertificateError::UnknownIssuer);
        let text = certificate_problem(&unknown, "mail.example.org", "[mail.imap]", None).unwrap();
        assert!(text.contains("set [mail.imap] ca_file"), "{text}");
        let text = certificate_problem(
            &unknown,
            "mail.example.org",
            "[mail.smtp]",
            Some(Path::new("/etc/ca.pem")),
        )
        .unwrap();
        assert!(
            text.contains("[mail.smtp] ca_file = \"/etc/ca.pem\""),
            "{text}"
        );
        let name = refused(rustls::CertificateError::NotValidForName);
        let text = certificate_problem(&name, "10.0.0.1", "[mail.imap]", None).unwrap();
        assert!(text.contains("set [mail.imap] host"), "{text}");
        let other = std::io::Error::other("connection reset");
        assert_eq!(certificate_problem(&other, "h", "[mail.imap]", None), None);
    }
}
