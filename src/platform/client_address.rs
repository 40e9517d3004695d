//! The client's address, as the socket or a trusted proxy gives it: for sign-in throttling, the
//! audit, and the metrics' loopback check.
/// The client's address: the socket's, or, behind a trusted proxy, the last address the proxy
/// put in its header (the entries before it are whatever the client sent).
pub fn address_of(
    headers: &axum::http::HeaderMap,
    socket: Option<std::net::IpAddr>,
    trusted_header: Option<&str>,
) -> Option<String> {
    if let Some(name) = trusted_header {
        let from_proxy = headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|a| a.trim().parse::<std::net::IpAddr>().ok())
            .next_back();
        if let Some(ip) = from_proxy {
            return Some(ip.to_string());
        }
    }
    socket.map(|ip| ip.to_string())
}

#[cfg(test)]
mod tests {
    use super::address_of;
    use axum::http::HeaderMap;

    #[test]
    fn a_proxy_header_counts_only_when_trusted() {
        let socket = Some("10.0.0.1".parse().unwrap());
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", "1.2.3.4, 5.6.7.8".parse().unwrap());
        assert_eq!(address_of(&h, socket, None).as_deref(), Some("10.0.0.1"));
        assert_eq!(
            address_of(&h, socket, Some("x-forwarded-for")).as_deref(),
            Some("5.6.7.8"),
            "the entry the proxy added, not what the client sent"
        );
        h.insert("x-forwarded-for", "not an address".parse().unwrap());
        assert_eq!(
            address_of(&h, socket, Some("x-forwarded-for")).as_deref(),
            Some("10.0.0.1")
        );
    }
}
