//! Where a sign-in came from, from a MaxMind-format City database (GEOIP_DATABASE).

use std::{net::IpAddr, path::Path};

use anyhow::Context;
use maxminddb::{Reader, geoip2};

#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    pub city: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country: Option<String>,
    pub latitude: f64,
    pub longitude: f64,
}

pub struct GeoIp {
    reader: Reader<Vec<u8>>,
}

impl GeoIp {
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let reader = Reader::open_readfile(path).with_context(|| format!("cannot open GeoIP database {}", path.display()))?;
        Ok(Self { reader })
    }

    /// The point of a public address; private, loopback and unknown addresses have none.
    pub fn locate(&self, ip: IpAddr) -> Option<Location> {
        if !is_public(ip) {
            return None;
        }
        let city: geoip2::City = self.reader.lookup(ip).ok()?.decode().ok()??;
        Some(Location {
            city: city.city.names.english.map(str::to_owned),
            country: city.country.iso_code.map(str::to_owned),
            latitude: city.location.latitude?,
            longitude: city.location.longitude?,
        })
    }
}

/// An address of the public internet: not loopback, private, link-local (which holds the cloud
/// metadata address 169.254.169.254), shared (100.64.0.0/10), unspecified, broadcast, multicast,
/// documentation or benchmarking space, in IPv4 or IPv6 (IPv4-mapped, NAT64 and 6to4 forms judged
/// as the IPv4 address they carry; IPv4-compatible and Teredo forms never public), and Azure's
/// host address 168.63.129.16.
/// Geolocation places only these; webhooks deliver only to these (`webhooks::guard`).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || a >= 240
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || (a == 192 && b == 0 && v4.octets()[2] == 0)
                // Azure's host service (wireserver), reachable from every Azure VM.
                || v4.octets() == [168, 63, 129, 16])
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let segments = v6.segments();
            let octets = v6.octets();
            if segments[0] == 0x64 && segments[1] == 0xff9b {
                let [.., c, d, e, f] = octets;
                return is_public(IpAddr::V4(std::net::Ipv4Addr::new(c, d, e, f)));
            }
            // 6to4 (2002::/16) carries an IPv4 address in its next 32 bits: judged as that address.
            if segments[0] == 0x2002 {
                return is_public(IpAddr::V4(std::net::Ipv4Addr::new(octets[2], octets[3], octets[4], octets[5])));
            }
            // The deprecated IPv4-compatible form (::a.b.c.d, RFC 4291 §2.5.5.1), some stacks'
            // route to a.b.c.d, and Teredo (2001::/32), whose client address is obfuscated: never.
            if segments[..6].iter().all(|s| *s == 0) || (segments[0] == 0x2001 && segments[1] == 0) {
                return false;
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_unique_local()
                || v6.is_unicast_link_local()
                || v6.is_multicast()
                || (segments[0] == 0x2001 && segments[1] == 0x0db8)
                || (segments[0] & 0xffc0) == 0xfec0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_loopback_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.9",
            "172.16.5.4",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "::127.0.0.1",
            "::a9fe:a9fe",
            "2002:7f00:1::1",
            "2002:a00:1::",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "168.63.129.16",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        assert!(is_public("81.2.69.142".parse().unwrap()));
        assert!(is_public("2002:5102:458e::1".parse().unwrap()), "6to4 of a public address");
        assert!(is_public("2a00:1450:4007:80e::200e".parse().unwrap()));
    }
}
