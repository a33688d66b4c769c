//! Proof that an enterprise holds an e-mail domain before its single sign-on routes anyone there
//! (issue 41): a TXT record at `_enterprise-platform-challenge.<domain>` holding
//! `enterprise-platform-verification=<token>`, looked up through the resolver the server is
//! configured with (`DNS_RESOLVER`, an `ip:port`; by default the system's), or the platform
//! admin's approval. Public mail domains are never anyone's to claim.

use std::{net::SocketAddr, time::Duration};

use hickory_resolver::{
    TokioResolver,
    config::{NameServerConfig, ResolverConfig, ResolverOpts},
    net::runtime::TokioRuntimeProvider,
    proto::rr::RData,
};

/// The name a domain's proof is published at.
pub fn txt_name(domain: &str) -> String {
    format!("_enterprise-platform-challenge.{domain}")
}

/// The text the record must hold.
pub fn txt_value(token: &str) -> String {
    format!("enterprise-platform-verification={token}")
}

/// The longest a lookup may take.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

/// Looks proofs up, through `DNS_RESOLVER` (an `ip:port`) or else the system's resolvers. A
/// resolver is made for each lookup: they are rare (a person asking for a check), and none
/// caches a "no such record" that a record published a minute later should replace.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prover {
    pub resolver: Option<SocketAddr>,
}

impl Prover {
    fn resolver(&self) -> anyhow::Result<TokioResolver> {
        let mut builder = match self.resolver {
            Some(addr) => {
                let mut server = NameServerConfig::udp_and_tcp(addr.ip());
                for connection in &mut server.connections {
                    connection.port = addr.port();
                }
                TokioResolver::builder_with_config(ResolverConfig::from_name_servers(vec![server]), TokioRuntimeProvider::default())
            }
            None => TokioResolver::builder_tokio()?,
        };
        let options: &mut ResolverOpts = builder.options_mut();
        options.timeout = Duration::from_secs(2);
        options.attempts = 2;
        Ok(builder.build()?)
    }

    /// Whether `domain` publishes the proof for `token`. A lookup that fails (no such name, no
    /// answer in time) is no proof.
    pub async fn proven(&self, domain: &str, token: &str) -> bool {
        let resolver = match self.resolver() {
            Ok(resolver) => resolver,
            Err(err) => {
                tracing::warn!(error = %err, "no DNS resolver: a domain can be proven only by the platform admin's approval");
                return false;
            }
        };
        let wanted = txt_value(token);
        let name = format!("{}.", txt_name(domain));
        let Ok(Ok(found)) = tokio::time::timeout(LOOKUP_TIMEOUT, resolver.txt_lookup(name.as_str())).await else {
            return false;
        };
        found.answers().iter().any(|record| match &record.data {
            RData::TXT(txt) => {
                let text: Vec<u8> = txt.txt_data.iter().flat_map(|part| part.iter().copied()).collect();
                text == wanted.as_bytes()
            }
            _ => false,
        })
    }
}

/// Mail domains whose addresses belong to the public, not to one organisation: never claimable.
const PUBLIC_MAIL_DOMAINS: &[&str] = &[
    "163.com",
    "126.com",
    "aol.com",
    "free.fr",
    "gmail.com",
    "gmx.com",
    "gmx.de",
    "gmx.fr",
    "gmx.net",
    "googlemail.com",
    "hey.com",
    "hotmail.co.uk",
    "hotmail.com",
    "hotmail.fr",
    "icloud.com",
    "laposte.net",
    "live.com",
    "live.fr",
    "mac.com",
    "mail.com",
    "mail.ru",
    "me.com",
    "msn.com",
    "naver.com",
    "orange.fr",
    "outlook.com",
    "outlook.fr",
    "proton.me",
    "protonmail.com",
    "qq.com",
    "sfr.fr",
    "t-online.de",
    "tutanota.com",
    "wanadoo.fr",
    "web.de",
    "yahoo.co.uk",
    "yahoo.com",
    "yahoo.fr",
    "yandex.com",
    "yandex.ru",
    "ymail.com",
    "zoho.com",
    "fastmail.com",
];

/// Whether `domain` (lower case) is a public mail provider's.
pub fn is_public_mail_domain(domain: &str) -> bool {
    PUBLIC_MAIL_DOMAINS.contains(&domain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_is_named_and_worded_as_documented() {
        assert_eq!(txt_name("acme.example"), "_enterprise-platform-challenge.acme.example");
        assert_eq!(txt_value("abc"), "enterprise-platform-verification=abc");
    }

    #[test]
    fn public_mail_domains_are_known() {
        assert!(is_public_mail_domain("gmail.com") && is_public_mail_domain("outlook.com") && is_public_mail_domain("orange.fr"));
        assert!(!is_public_mail_domain("acme.example"));
    }
}
