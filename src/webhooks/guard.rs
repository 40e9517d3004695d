//! Nothing private leaves: a webhook URL, or a website read as knowledge, must be http(s) and
//! resolve only to public addresses (not loopback, private, link-local, carrier-grade NAT, the
//! cloud metadata address, multicast or reserved ranges), checked after DNS resolution and again at each delivery, which then
//! connects to the address that was checked (so a name cannot be re-pointed in between).
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// Whether an address is one a webhook must never reach by default.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return private_v4(v4);
            }
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
                || (s[0] == 0x0064 && s[1] == 0xff9b) // NAT64, which reaches IPv4 inside
                || (s[0] == 0x2002) // 6to4, likewise
        }
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local() // 169.254.0.0/16, the metadata address among them
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || o[0] == 0
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // carrier-grade NAT 100.64.0.0/10
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18.0.0/15
        || o[0] >= 240 // reserved
}

/// Who is asking for an address checked, for the words of a refusal: a webhook subscription, or
/// a website read as knowledge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Webhook,
    Website,
}

impl Purpose {
    fn noun(self) -> &'static str {
        match self {
            Purpose::Webhook => "A webhook URL",
            Purpose::Website => "A website's address",
        }
    }

    fn goes(self) -> &'static str {
        match self {
            Purpose::Webhook => "webhooks go to public addresses only",
            Purpose::Website => "Herald reads public websites only",
        }
    }
}

/// A URL a subscription may take: http or https, a host, no credentials in it.
pub fn check_url(url: &str) -> Result<reqwest::Url, String> {
    check_address(url, Purpose::Webhook)
}

/// A URL Herald may connect to for `purpose`: http or https, a host, no credentials in it.
pub fn check_address(url: &str, purpose: Purpose) -> Result<reqwest::Url, String> {
    let noun = purpose.noun();
    // Host names are ASCII (`idna_adapter` is pinned to none, README "First load"): a Unicode one
    // is refused here, before the URL parser would try to convert it.
    let authority = url.trim().split_once("://").map_or("", |(_, rest)| {
        rest.split(['/', '?', '#']).next().unwrap_or("")
    });
    if !authority.is_ascii() {
        return Err(format!(
            "{noun}'s host name must be written in ASCII (xn--… for a non-Latin name)."
        ));
    }
    let u = reqwest::Url::parse(url.trim())
        .map_err(|_| format!("\u{201c}{url}\u{201d} is not a URL."))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(format!("{noun} starts with https:// (or http://)."));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err(format!("{noun} needs a host."));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err(match purpose {
            Purpose::Webhook => {
                "Put no user name or password in a webhook URL: deliveries are signed.".into()
            }
            Purpose::Website => {
                "Put no user name or password in a website's address: Herald reads public pages."
                    .into()
            }
        });
    }
    Ok(u)
}

/// The URL's addresses, each of them public unless `allow_private`.
pub async fn resolve(u: &reqwest::Url, allow_private: bool) -> Result<Vec<SocketAddr>, String> {
    resolve_for(u, allow_private, Purpose::Webhook).await
}

/// The URL's addresses for `purpose`, each of them public unless `allow_private`.
pub async fn resolve_for(
    u: &reqwest::Url,
    allow_private: bool,
    purpose: Purpose,
) -> Result<Vec<SocketAddr>, String> {
    let host = u
        .host_str()
        .unwrap_or_default()
        .trim_matches(['[', ']'])
        .to_owned();
    let port = u.port_or_known_default().unwrap_or(443);
    let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|e| format!("{host} does not resolve: {e}"))?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(format!("{host} does not resolve."));
    }
    if !allow_private {
        if let Some(a) = addrs.iter().find(|a| is_private(a.ip())) {
            return Err(format!(
                "{host} is a private address ({}): {}.",
                a.ip(),
                purpose.goes()
            ));
        }
    }
    Ok(addrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_link_local_and_metadata_ranges_are_private() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "fc00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "2002:a00:1::1",
        ] {
            assert!(is_private(a.parse().unwrap()), "{a}");
        }
        for a in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "100.128.0.1"] {
            assert!(!is_private(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn urls_are_http_with_a_host_and_no_credentials() {
        assert!(check_url("https://hooks.example.com/herald").is_ok());
        assert!(check_url("ftp://example.com").is_err());
        assert!(check_url("https://user:pw@example.com").is_err());
        assert!(check_url("not a url").is_err());
        assert!(
            check_url("https://Bücher.example/hook").is_err(),
            "a Unicode host"
        );
        assert!(check_url("https://xn--bcher-kva.example/hook").is_ok());
    }

    #[tokio::test]
    async fn addresses_are_checked_without_connecting() {
        let u = check_url("http://127.0.0.1:9/x").unwrap();
        assert!(resolve(&u, false).await.is_err());
        assert!(resolve(&u, true).await.is_ok());
        let u = check_url("http://[::1]:9/x").unwrap();
        assert!(resolve(&u, false).await.unwrap_err().contains("private"));
    }
}
