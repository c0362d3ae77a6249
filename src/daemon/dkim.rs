//! The optional DKIM check (`[mail] require_dkim = true`): a mail moves
//! pieces only when it carries a valid DKIM signature of its From domain
//! (DMARC-style relaxed alignment: the signing domain is the From domain or
//! a parent of it). Keys are looked up in DNS with the system's resolver.

use mail_auth::common::verify::VerifySignature;
use mail_auth::{AuthenticatedMessage, DkimResult, MessageAuthenticator};

/// Whether `raw` has a passing DKIM signature aligned with `from_domain`.
/// No signature, a failing one, an unaligned one or a DNS failure all
/// count as "no".
pub async fn aligned_pass(raw: &[u8], from_domain: &str) -> bool {
    let Some(message) = AuthenticatedMessage::parse(raw) else {
        return false;
    };
    // Without any signature there is nothing to look up.
    if message.dkim_headers.is_empty() {
        return false;
    }
    let Ok(authenticator) = MessageAuthenticator::new_system_conf() else {
        return false;
    };
    let from_domain = from_domain.to_ascii_lowercase();
    authenticator
        .verify_dkim(&message)
        .await
        .iter()
        .any(|output| {
            output.result() == &DkimResult::Pass
                && output.signature().is_some_and(|s| {
                    let d = s.domain().to_ascii_lowercase();
                    from_domain == d || from_domain.ends_with(&format!(".{d}"))
                })
        })
}
