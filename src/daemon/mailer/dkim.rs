//! DKIM signing of the mail we send (`[mail.dkim]`), just before it leaves:
//! the key is read once when the mailer opens, and each mail gets a
//! `DKIM-Signature` header on top.
//!
//! Signed with mail-auth (Stalwart's, the crate that already checks players'
//! signatures), with relaxed/relaxed canonicalization: "simple" breaks when
//! a relay re-folds a long header, a known cause of failing signatures
//! (OpenDKIM and Mail-in-a-Box issue threads). The signed headers are the
//! ones a receiver judges us by (From, To, Subject, Date, Message-ID) and
//! the ones that thread and route replies (Reply-To, In-Reply-To,
//! References), plus the MIME structure.

use std::path::Path;

use mail_auth::common::crypto::{Ed25519Key, RsaKey, Sha256};
use mail_auth::common::headers::HeaderWriter;
use mail_auth::dkim::{Canonicalization, DkimSigner, Done};
use rustls::pki_types::PrivateKeyDer;
use rustls::pki_types::pem::PemObject;

use crate::adapter::config::DkimConfig;

/// The headers signed, when present (a header listed but absent is signed
/// as absent, so nobody can add it later). `List-Unsubscribe` and `List-Unsubscribe-Post` because RFC 8058 §4
/// requires a one-click link to be signed (Gmail and Yahoo check it).
const SIGNED: [&str; 13] = [
    "From",
    "To",
    "Cc",
    "Subject",
    "Date",
    "Message-ID",
    "Reply-To",
    "In-Reply-To",
    "References",
    "MIME-Version",
    "Content-Type",
    "List-Unsubscribe",
    "List-Unsubscribe-Post",
];

enum Signer {
    Ed25519(DkimSigner<Ed25519Key, Done>),
    Rsa(DkimSigner<RsaKey<Sha256>, Done>),
}

/// A loaded signing key with its domain and selector.
pub struct DkimSigning {
    signer: Signer,
}

impl std::fmt::Debug for DkimSigning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.signer {
            Signer::Ed25519(_) => "ed25519",
            Signer::Rsa(_) => "rsa",
        };
        write!(f, "DkimSigning({kind}, ***)")
    }
}

/// Why the DKIM settings cannot be used; the text names the key and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[mail.dkim] {0}")]
pub struct BadDkim(String);

impl DkimSigning {
    /// Reads the key of `cfg`; the domain defaults to `our_domain`.
    pub fn load(cfg: &DkimConfig, our_domain: &str) -> Result<DkimSigning, BadDkim> {
        let selector = cfg.selector.trim();
        let selector_ok = !selector.is_empty()
            && selector
                .split('.')
                .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
        if !selector_ok {
            return Err(BadDkim(format!(
                "selector '{}' is not a DNS label: write the name the public key is published \
                 under, e.g. selector = \"dopis\" for dopis._domainkey.{our_domain}",
                cfg.selector.chars().take(40).collect::<String>()
            )));
        }
        let domain = cfg
            .domain
            .as_deref()
            .map(str::trim)
            .unwrap_or(our_domain)
            .to_ascii_lowercase();
        let key = read_key(&cfg.key_file)?;
        let signer = match key {
            Key::Ed25519(key) => Signer::Ed25519(
                DkimSigner::from_key(key)
                    .domain(domain.as_str())
                    .selector(selector)
                    .headers(SIGNED)
                    .header_canonicalization(Canonicalization::Relaxed)
                    .body_canonicalization(Canonicalization::Relaxed),
            ),
            Key::Rsa(key) => Signer::Rsa(
                DkimSigner::from_key(key)
                    .domain(domain.as_str())
                    .selector(selector)
                    .headers(SIGNED)
                    .header_canonicalization(Canonicalization::Relaxed)
                    .body_canonicalization(Canonicalization::Relaxed),
            ),
        };
        Ok(DkimSigning { signer })
    }

    /// `raw` with a `DKIM-Signature` header on top.
    pub fn sign(&self, raw: &[u8]) -> Result<Vec<u8>, String> {
        let signature = match &self.signer {
            Signer::Ed25519(s) => s.sign(raw),
            Signer::Rsa(s) => s.sign(raw),
        }
        .map_err(|e| format!("DKIM signing failed: {e}"))?;
        let mut signed = signature.to_header().into_bytes();
        signed.extend_from_slice(raw);
        Ok(signed)
    }
}

enum Key {
    Ed25519(Ed25519Key),
    Rsa(RsaKey<Sha256>),
}

fn read_key(file: &Path) -> Result<Key, BadDkim> {
    let shown = file.display();
    let bytes = std::fs::read(file).map_err(|e| {
        BadDkim(format!(
            "key_file {shown} cannot be read: {e} (check the path and that dopis's user may read it)"
        ))
    })?;
    let der = PrivateKeyDer::from_pem_slice(&bytes).map_err(|_| {
        BadDkim(format!(
            "key_file {shown} holds no private key in PEM: make one with \
             `openssl genpkey -algorithm ed25519 -out {shown}` (or an RSA key of 2048 bits)"
        ))
    })?;
    if let PrivateKeyDer::Pkcs8(pkcs8) = &der
        && let Ok(key) = Ed25519Key::from_pkcs8_maybe_unchecked_der(pkcs8.secret_pkcs8_der())
    {
        return Ok(Key::Ed25519(key));
    }
    RsaKey::<Sha256>::from_key_der(der)
        .map(Key::Rsa)
        .map_err(|e| {
            BadDkim(format!(
                "key_file {shown} is neither an Ed25519 nor a usable RSA key ({e}); DKIM needs \
             Ed25519 or RSA of 1024 bits or more (2048 recommended)"
            ))
        })
}
