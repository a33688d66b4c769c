//! Who is on the other end of the socket: the client IP (the peer's, or from X-Forwarded-For when
//! the peer is a trusted proxy) and the user agent, computed once per request.

use std::net::IpAddr;

use ipnet::IpNet;
use poem::{Endpoint, Request, Result, web::RemoteAddr};

#[derive(Debug, Clone, Default)]
pub struct ClientInfo {
    pub ip: Option<IpAddr>,
    pub user_agent: Option<String>,
    /// The client reached a trusted proxy over HTTPS (`X-Forwarded-Proto: https` from it).
    pub https: bool,
}

tokio::task_local! {
    /// The client of the request being served, for code that has no request at hand (the audit
    /// log records where each action came from).
    pub static CLIENT: ClientInfo;
}

/// The current request's client, when there is one.
pub fn current() -> Option<ClientInfo> {
    CLIENT.try_with(Clone::clone).ok()
}

/// Middleware body: puts a [`ClientInfo`] into the request's extensions (and [`CLIENT`]).
pub async fn attach<E: Endpoint>(next: E, mut req: Request, trusted: &[IpNet]) -> Result<E::Output> {
    let peer = peer_ip(req.remote_addr());
    // Several header lines are one comma-separated list (RFC 9110, 5.3): the last line is the
    // nearest proxy's. A line that is not text is a bad hop where it stands: the walk from the
    // right stops there, as it does at any garbage.
    let forwarded = req.headers().get_all("x-forwarded-for").iter().map(|v| v.to_str().unwrap_or("invalid")).collect::<Vec<_>>().join(",");
    let from_trusted_proxy = peer.is_some_and(|p| trusted.iter().any(|net| net.contains(&p)));
    let https = from_trusted_proxy
        && req
            .headers()
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"));
    let info = ClientInfo {
        https,
        ip: client_ip(peer, Some(&forwarded).filter(|f| !f.is_empty()).map(String::as_str), trusted),
        user_agent: req.headers().get("user-agent").and_then(|v| v.to_str().ok()).map(|ua| ua.chars().take(512).collect()),
    };
    req.extensions_mut().insert(info.clone());
    CLIENT.scope(info, next.call(req)).await
}

fn peer_ip(addr: &RemoteAddr) -> Option<IpAddr> {
    addr.as_socket_addr().map(|a| a.ip().to_canonical())
}

/// Walks X-Forwarded-For from the right, past trusted proxies, to the first address a trusted
/// proxy vouches for. A peer that is not a trusted proxy is the client, whatever it claims.
pub fn client_ip(peer: Option<IpAddr>, forwarded: Option<&str>, trusted: &[IpNet]) -> Option<IpAddr> {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    let peer = peer?;
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let mut client = peer;
    for hop in forwarded.unwrap_or("").rsplit(',').map(str::trim) {
        let Ok(ip) = hop.parse::<IpAddr>().map(|ip| ip.to_canonical()) else { break };
        client = ip;
        if !is_trusted(&ip) {
            break;
        }
    }
    Some(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_cannot_spoof_its_address() {
        let trusted = ["10.0.0.0/8".parse().unwrap()];
        assert_eq!(client_ip(Some(ip("203.0.113.9")), Some("1.2.3.4"), &trusted), Some(ip("203.0.113.9")));
        assert_eq!(client_ip(Some(ip("203.0.113.9")), Some("1.2.3.4"), &[]), Some(ip("203.0.113.9")));
    }

    #[test]
    fn a_trusted_proxy_chain_is_walked_from_the_right() {
        let trusted = ["10.0.0.0/8".parse().unwrap()];
        // spoofed, real client, inner proxy; the peer is the outer proxy.
        let xff = "6.6.6.6, 81.2.69.142, 10.0.0.7";
        assert_eq!(client_ip(Some(ip("10.0.0.1")), Some(xff), &trusted), Some(ip("81.2.69.142")));
        // No header: the proxy itself.
        assert_eq!(client_ip(Some(ip("10.0.0.1")), None, &trusted), Some(ip("10.0.0.1")));
        // Garbage stops the walk at the last good hop.
        assert_eq!(client_ip(Some(ip("10.0.0.1")), Some("junk, 81.2.69.142"), &trusted), Some(ip("81.2.69.142")));
    }

    #[test]
    fn several_header_lines_are_one_list_walked_from_the_right() {
        // A client sends its own line; the trusted proxy adds the address it saw on another.
        let joined = ["6.6.6.6", "203.0.113.50"].join(",");
        let trusted = ["10.0.0.0/8".parse().unwrap()];
        assert_eq!(client_ip(Some(ip("10.0.0.1")), Some(&joined), &trusted), Some(ip("203.0.113.50")));
    }

    #[test]
    fn ipv4_mapped_peers_are_canonical() {
        let trusted = ["127.0.0.1/32".parse().unwrap()];
        assert_eq!(client_ip(Some(ip("::ffff:127.0.0.1").to_canonical()), Some("81.2.69.142"), &trusted), Some(ip("81.2.69.142")));
    }
}
