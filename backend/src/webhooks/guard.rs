//! Server-side request forgery: a webhook is a URL anyone with the CEO's role chooses, and the
//! server fetches it. Unless `WEBHOOK_ALLOW_PRIVATE_NETWORKS` is set (tests, development), a URL
//! must be `https` on port 443 or 8443 (`HTTPS_PORTS`: no public address's SMTP, SSH or database
//! port is a webhook) and every address its host resolves to must be public (`geoip::is_public`:
//! not loopback, private, link-local, metadata, shared or reserved). It is checked when the webhook is
//! made or changed, and again at every delivery, by the resolver the sender connects through (a
//! name that resolved to a public address yesterday may resolve to 127.0.0.1 today: DNS
//! rebinding). The sender follows no redirects.

use std::{net::SocketAddr, sync::Arc};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::Url;

use crate::geoip::is_public;

/// Why a URL is refused (the `reason` of the 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not an absolute `http(s)` URL, longer than 2,000 characters, or with credentials in it.
    Invalid,
    /// `http` where `https` is required.
    NotHttps,
    /// The host does not resolve.
    Unresolvable,
    /// The host is, or resolves to, a loopback, private, link-local or reserved address.
    PrivateAddress,
    /// A port other than the HTTPS ones (`HTTPS_PORTS`).
    Port,
}

/// The ports a URL may name unless private networks are allowed: HTTPS's own and its common
/// alternate.
pub const HTTPS_PORTS: [u16; 2] = [443, 8443];

impl Refusal {
    pub fn reason(self) -> &'static str {
        match self {
            Self::Invalid => "invalid_url",
            Self::NotHttps => "https_required",
            Self::Unresolvable => "unresolvable_host",
            Self::PrivateAddress => "private_address",
            Self::Port => "port_not_allowed",
        }
    }
}

/// Checks a webhook URL before it is stored; returns it normalised.
pub async fn check_url(raw: &str, allow_private: bool) -> Result<String, Refusal> {
    if raw.len() > 2000 {
        return Err(Refusal::Invalid);
    }
    let url = Url::parse(raw.trim()).map_err(|_| Refusal::Invalid)?;
    if !matches!(url.scheme(), "http" | "https") || !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Invalid);
    }
    if url.scheme() != "https" && !allow_private {
        return Err(Refusal::NotHttps);
    }
    let host = url.host_str().ok_or(Refusal::Invalid)?.trim_start_matches('[').trim_end_matches(']').to_owned();
    if !allow_private {
        let port = url.port_or_known_default().unwrap_or(443);
        if !port_allowed(&url, false) {
            return Err(Refusal::Port);
        }
        let addrs: Vec<SocketAddr> = match host.parse::<std::net::IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => tokio::time::timeout(std::time::Duration::from_secs(5), tokio::net::lookup_host((host.as_str(), port)))
                .await
                .map_err(|_| Refusal::Unresolvable)?
                .map_err(|_| Refusal::Unresolvable)?
                .collect(),
        };
        if addrs.is_empty() {
            return Err(Refusal::Unresolvable);
        }
        if addrs.iter().any(|a| !is_public(a.ip())) {
            return Err(Refusal::PrivateAddress);
        }
    }
    Ok(url.to_string())
}

/// The resolver deliveries connect through: it answers only public addresses (none at all for a
/// name that has only private ones, and the connection fails), unless private networks are
/// allowed.
#[derive(Debug, Clone, Copy)]
pub struct PublicOnly {
    pub allow_private: bool,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found.into_iter().filter(|a| allow_private || is_public(a.ip())).collect();
            if kept.is_empty() {
                return Err(format!("{} resolves to no public address", name.as_str()).into());
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

/// Whether a URL whose host is an address literal may be fetched (the resolver never sees those).
pub fn literal_allowed(url: &Url, allow_private: bool) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => allow_private || is_public(ip.into()),
        Some(url::Host::Ipv6(ip)) => allow_private || is_public(ip.into()),
        _ => true,
    }
}

/// Whether a URL's port may be fetched: checked again at each delivery (a webhook saved before
/// the rule keeps its URL).
pub fn port_allowed(url: &Url, allow_private: bool) -> bool {
    allow_private || url.port_or_known_default().is_some_and(|port| HTTPS_PORTS.contains(&port))
}

/// The HTTP client of deliveries: our resolver, no redirects, 10 s for the whole exchange.
pub fn client(allow_private: bool, trusted_roots: &[reqwest::Certificate]) -> reqwest::Client {
    outbound_client(allow_private, trusted_roots, concat!("enterprise-platform-webhooks/", env!("CARGO_PKG_VERSION")))
}

/// A client for any URL a customer chose (webhooks, an identity provider): our resolver, no
/// redirects, 10 s for the whole exchange, and the built-in roots with `trusted_roots` (an
/// enterprise's own authority, `TRUSTED_CA_CERTS`).
pub fn outbound_client(allow_private: bool, trusted_roots: &[reqwest::Certificate], user_agent: &'static str) -> reqwest::Client {
    trusted_roots
        .iter()
        .fold(reqwest::Client::builder(), |builder, root| builder.add_root_certificate(root.clone()))
        .dns_resolver(Arc::new(PublicOnly { allow_private }))
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(10))
        .connect_timeout(std::time::Duration::from_secs(5))
        .user_agent(user_agent)
        .build()
        .expect("the outbound client's settings are valid")
}

/// Whether an outbound request failed because the peer's certificate is not trusted (signed by
/// an authority neither built in nor in `TRUSTED_CA_CERTS`, expired, or for another name).
pub fn untrusted_certificate(error: &(dyn std::error::Error + 'static)) -> bool {
    if matches!(error.downcast_ref::<rustls::Error>(), Some(rustls::Error::InvalidCertificate(_))) {
        return true;
    }
    // An I/O error's `source` skips the error it wraps (rustls's, inside hyper's): look inside.
    if let Some(inner) = error.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref)
        && untrusted_certificate(inner)
    {
        return true;
    }
    error.source().is_some_and(untrusted_certificate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn private_and_plain_urls_are_refused_in_production() {
        for (url, refusal) in [
            ("http://example.com/hook", Refusal::NotHttps),
            ("https://127.0.0.1/hook", Refusal::PrivateAddress),
            ("https://169.254.169.254/latest/meta-data", Refusal::PrivateAddress),
            ("https://[::1]:8443/hook", Refusal::PrivateAddress),
            ("https://10.0.0.8/hook", Refusal::PrivateAddress),
            ("https://localhost/hook", Refusal::PrivateAddress),
            ("ftp://example.com/", Refusal::Invalid),
            ("https://user:pw@example.com/", Refusal::Invalid),
            ("not a url", Refusal::Invalid),
            // Public addresses, on a port no webhook listens on.
            ("https://93.184.215.14:25/hook", Refusal::Port),
            ("https://93.184.215.14:6379/hook", Refusal::Port),
            ("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:22/", Refusal::Port),
        ] {
            assert_eq!(check_url(url, false).await, Err(refusal), "{url}");
        }
        assert_eq!(check_url("http://127.0.0.1:9/hook", true).await.as_deref(), Ok("http://127.0.0.1:9/hook"));
        assert_eq!(check_url("https://93.184.215.14:8443/hook", false).await.as_deref(), Ok("https://93.184.215.14:8443/hook"));
        assert_eq!(check_url("https://93.184.215.14/hook", false).await.as_deref(), Ok("https://93.184.215.14/hook"));
    }

    #[test]
    fn address_literals_are_judged_without_the_resolver() {
        let url = Url::parse("https://[::ffff:127.0.0.1]/x").unwrap();
        assert!(!literal_allowed(&url, false));
        assert!(literal_allowed(&url, true));
        assert!(literal_allowed(&Url::parse("https://203.0.114.5/").unwrap(), false));
    }

    #[test]
    fn only_https_ports_are_delivered_to_in_production() {
        let smtp = Url::parse("https://hooks.example.com:25/x").unwrap();
        assert!(!port_allowed(&smtp, false));
        assert!(port_allowed(&smtp, true));
        assert!(port_allowed(&Url::parse("https://hooks.example.com/x").unwrap(), false));
        assert!(port_allowed(&Url::parse("https://hooks.example.com:8443/x").unwrap(), false));
    }
}
