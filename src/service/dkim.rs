//! The optional DKIM check (`[mail] require_dkim = true`): a mail moves
//! pieces only when it carries a valid DKIM signature of its From domain
//! (DMARC-style relaxed alignment: the signing domain is the From domain or
//! a parent of it). Keys are looked up in DNS: with the system's resolver,
//! or with the servers of `[mail] dns_servers` (a local validating resolver,
//! or a test's own DNS server).

use std::net::{IpAddr, SocketAddr};

use mail_auth::common::verify::VerifySignature;
use mail_auth::hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts,
};
use mail_auth::{AuthenticatedMessage, DkimResult, MessageAuthenticator};

/// The DNS servers DKIM keys are asked from; none means the system's
/// resolver (`/etc/resolv.conf`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnsServers(Vec<SocketAddr>);

impl DnsServers {
    /// Reads `[mail] dns_servers`: IP addresses, each with an optional port
    /// (`127.0.0.1`, `127.0.0.1:5353`, `::1`, `[::1]:5353`). Host names are
    /// refused: finding them would need DNS already.
    pub fn parse(servers: &[String]) -> Result<DnsServers, String> {
        servers
            .iter()
            .map(|text| {
                let text = text.trim();
                text.parse::<SocketAddr>()
                    .or_else(|_| {
                        let bare = text.trim_start_matches('[').trim_end_matches(']');
                        bare.parse::<IpAddr>().map(|ip| SocketAddr::new(ip, 53))
                    })
                    .map_err(|_| {
                        format!(
                            "'{text}' is not an IP address with an optional port; write e.g. \
                             dns_servers = [\"127.0.0.1\", \"[::1]:5353\"] (host names cannot \
                             be used: finding them would need DNS)"
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(DnsServers)
    }

    /// A resolver asking these servers (over UDP, and TCP for long answers).
    fn authenticator(&self) -> Option<MessageAuthenticator> {
        if self.0.is_empty() {
            return MessageAuthenticator::new_system_conf().ok();
        }
        let servers = self
            .0
            .iter()
            .map(|address| {
                let mut udp = ConnectionConfig::udp();
                udp.port = address.port();
                let mut tcp = ConnectionConfig::tcp();
                tcp.port = address.port();
                NameServerConfig::new(address.ip(), true, vec![udp, tcp])
            })
            .collect();
        MessageAuthenticator::new(
            ResolverConfig::from_name_servers(servers),
            ResolverOpts::default(),
        )
        .ok()
    }
}

/// Whether `raw` has a passing DKIM signature aligned with `from_domain`,
/// its key looked up with `dns`. No signature, a failing one, an unaligned
/// one or a DNS failure all count as "no".
pub async fn aligned_pass(raw: &[u8], from_domain: &str, dns: &DnsServers) -> bool {
    let Some(message) = AuthenticatedMessage::parse(raw) else {
        return false;
    };
    // Without any signature there is nothing to look up.
    if message.dkim_headers.is_empty() {
        return false;
    }
    let Some(authenticator) = dns.authenticator() else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_servers_are_ip_addresses_with_an_optional_port() {
        let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let servers =
            DnsServers::parse(&list(&["127.0.0.1", "127.0.0.1:5353", "::1", "[::1]:5353"]))
                .unwrap();
        let shown: Vec<String> = servers.0.iter().map(SocketAddr::to_string).collect();
        assert_eq!(
            shown,
            ["127.0.0.1:53", "127.0.0.1:5353", "[::1]:53", "[::1]:5353"]
        );
        assert_eq!(DnsServers::parse(&[]).unwrap(), DnsServers::default());
        for bad in ["dns.example.org", "127.0.0.1:99999", ""] {
            let err = DnsServers::parse(&list(&[bad])).unwrap_err();
            assert!(err.contains(&format!("'{bad}'")), "{err}");
            assert!(err.contains("dns_servers = ["), "{err}");
        }
    }
}
