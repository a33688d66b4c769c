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

fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !(v4.is_private() || v4.is_loopback() || v4.is_link_local() || v4.is_unspecified()),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            !(v6.is_loopback() || v6.is_unspecified() || v6.is_unique_local() || v6.is_unicast_link_local())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_loopback_addresses_are_not_public() {
        for ip in ["127.0.0.1", "10.1.2.3", "192.168.0.9", "::1", "fd00::1", "::ffff:10.0.0.1"] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        assert!(is_public("81.2.69.142".parse().unwrap()));
    }
}
