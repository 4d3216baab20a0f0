//! Which IP addresses a webhook may never reach: the special-purpose ranges of the IANA
//! registries (RFC 6890 and successors) and the cloud metadata endpoints. IPv6 forms that
//! carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are judged by the IPv4
//! address they carry.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::WebhookPolicy;
use super::category::{
    BENCHMARKING, BROADCAST, CARRIER_GRADE_NAT, CLOUD_METADATA, DOCUMENTATION, IETF_PROTOCOL,
    LINK_LOCAL, LOOPBACK, MULTICAST, PRIVATE, RESERVED, SITE_LOCAL, UNIQUE_LOCAL, UNSPECIFIED,
};

/// IPv4 ranges, most specific first: the first match names the category.
const V4_RANGES: &[(Ipv4Addr, u8, &str)] = &[
    // AWS, Azure, GCP, OpenStack; Alibaba Cloud; Oracle Cloud.
    (Ipv4Addr::new(169, 254, 169, 254), 32, CLOUD_METADATA),
    (Ipv4Addr::new(100, 100, 100, 200), 32, CLOUD_METADATA),
    (Ipv4Addr::new(192, 0, 0, 192), 32, CLOUD_METADATA),
    (Ipv4Addr::new(255, 255, 255, 255), 32, BROADCAST),
    (Ipv4Addr::new(0, 0, 0, 0), 8, UNSPECIFIED),
    (Ipv4Addr::new(10, 0, 0, 0), 8, PRIVATE),
    (Ipv4Addr::new(100, 64, 0, 0), 10, CARRIER_GRADE_NAT),
    (Ipv4Addr::new(127, 0, 0, 0), 8, LOOPBACK),
    (Ipv4Addr::new(169, 254, 0, 0), 16, LINK_LOCAL),
    (Ipv4Addr::new(172, 16, 0, 0), 12, PRIVATE),
    (Ipv4Addr::new(192, 0, 0, 0), 24, IETF_PROTOCOL),
    (Ipv4Addr::new(192, 0, 2, 0), 24, DOCUMENTATION),
    (Ipv4Addr::new(192, 168, 0, 0), 16, PRIVATE),
    (Ipv4Addr::new(198, 18, 0, 0), 15, BENCHMARKING),
    (Ipv4Addr::new(198, 51, 100, 0), 24, DOCUMENTATION),
    (Ipv4Addr::new(203, 0, 113, 0), 24, DOCUMENTATION),
    (Ipv4Addr::new(224, 0, 0, 0), 4, MULTICAST),
    (Ipv4Addr::new(240, 0, 0, 0), 4, RESERVED),
];

/// IPv6 ranges, most specific first. Forms that embed IPv4 are handled before this table, and
/// anything outside global unicast (`2000::/3`) that no entry names is [`RESERVED`].
const V6_RANGES: &[(u128, u8, &str)] = &[
    // AWS, then GCP.
    v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254], 128, CLOUD_METADATA),
    v6([0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254], 128, CLOUD_METADATA),
    v6([0, 0, 0, 0, 0, 0, 0, 0], 128, UNSPECIFIED),
    v6([0, 0, 0, 0, 0, 0, 0, 1], 128, LOOPBACK),
    // Discard-only, RFC 6666.
    v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64, RESERVED),
    // Local-use NAT64, RFC 8215.
    v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48, PRIVATE),
    v6([0x2001, 0x2, 0, 0, 0, 0, 0, 0], 48, BENCHMARKING),
    v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, DOCUMENTATION),
    // RFC 9637.
    v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, DOCUMENTATION),
    v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, UNIQUE_LOCAL),
    v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, LINK_LOCAL),
    v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, SITE_LOCAL),
    v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, MULTICAST),
];

/// `64:ff9b::/96`, the well-known NAT64 prefix (RFC 6052).
const NAT64: u128 = prefix_v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0]);
/// `2002::/16`, 6to4 (RFC 3056).
const SIX_TO_FOUR: u128 = prefix_v6([0x2002, 0, 0, 0, 0, 0, 0, 0]);
/// `2001::/32`, Teredo (RFC 4380).
const TEREDO: u128 = prefix_v6([0x2001, 0, 0, 0, 0, 0, 0, 0]);
/// `2000::/3`, global unicast.
const GLOBAL_UNICAST: u128 = prefix_v6([0x2000, 0, 0, 0, 0, 0, 0, 0]);

const fn prefix_v6(s: [u16; 8]) -> u128 {
    Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]).to_bits()
}

const fn v6(segments: [u16; 8], prefix: u8, category: &'static str) -> (u128, u8, &'static str) {
    (prefix_v6(segments), prefix, category)
}

/// The category that forbids a webhook from reaching `ip` under `policy`, or `None` when the
/// address is allowed.
///
/// Without [`allow_local`](WebhookPolicy::allow_local) only public unicast addresses pass.
/// With it, loopback addresses pass too; every other category — cloud metadata above all —
/// stays forbidden. The names are the constants of [`category`](super::category).
///
/// ```
/// use std::net::IpAddr;
/// use a2a_server::push::address::{WebhookPolicy, category, is_forbidden};
///
/// let production = WebhookPolicy::default();
/// let ip: IpAddr = "::ffff:169.254.169.254".parse().unwrap();
/// assert_eq!(is_forbidden(ip, &production), Some(category::CLOUD_METADATA));
/// assert_eq!(is_forbidden("93.184.216.34".parse().unwrap(), &production), None);
/// ```
pub fn is_forbidden(ip: IpAddr, policy: &WebhookPolicy) -> Option<&'static str> {
    match classify(ip) {
        Some(LOOPBACK) if policy.allow_local => None,
        category => category,
    }
}

/// The special-purpose category of `ip`, whatever the policy; `None` for public unicast.
pub(super) fn classify(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let bits = u32::from(ip);
    V4_RANGES
        .iter()
        .find(|(network, prefix, _)| same_prefix_v4(bits, u32::from(*network), *prefix))
        .map(|(_, _, category)| *category)
}

fn classify_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let bits = ip.to_bits();
    // The low 32 bits, where mapped, compatible and NAT64 forms keep their IPv4 address.
    let low_v4 = Ipv4Addr::from((bits & 0xffff_ffff) as u32);

    // ::ffff:a.b.c.d reaches a.b.c.d itself on a dual-stack socket.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    // ::a.b.c.d, the deprecated IPv4-compatible form (:: and ::1 are themselves, below).
    if same_prefix_v6(bits, 0, 96) && bits > 1 {
        return classify_v4(low_v4).or(Some(RESERVED));
    }
    // 64:ff9b::a.b.c.d is translated to a.b.c.d by a NAT64 gateway, so it is exactly as
    // reachable as a.b.c.d, public addresses included.
    if same_prefix_v6(bits, NAT64, 96) {
        return classify_v4(low_v4);
    }
    // 2002:AABB:CCDD::/48 is the 6to4 network of AA.BB.CC.DD.
    if same_prefix_v6(bits, SIX_TO_FOUR, 16) {
        let embedded = Ipv4Addr::from(((bits >> 80) & 0xffff_ffff) as u32);
        if let Some(category) = classify_v4(embedded) {
            return Some(category);
        }
    }
    // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC is Teredo: server S, client C with its bits inverted.
    if same_prefix_v6(bits, TEREDO, 32) {
        let server = Ipv4Addr::from(((bits >> 64) & 0xffff_ffff) as u32);
        let client = Ipv4Addr::from(!((bits & 0xffff_ffff) as u32));
        if let Some(category) = classify_v4(client).or_else(|| classify_v4(server)) {
            return Some(category);
        }
    }

    if let Some((_, _, category)) = V6_RANGES
        .iter()
        .find(|(network, prefix, _)| same_prefix_v6(bits, *network, *prefix))
    {
        return Some(category);
    }
    if same_prefix_v6(bits, GLOBAL_UNICAST, 3) {
        None
    } else {
        Some(RESERVED)
    }
}

fn same_prefix_v4(a: u32, b: u32, prefix: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
    a & mask == b & mask
}

fn same_prefix_v6(a: u128, b: u128, prefix: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
    a & mask == b & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRODUCTION: WebhookPolicy = WebhookPolicy { allow_local: false };
    const DEVELOPMENT: WebhookPolicy = WebhookPolicy { allow_local: true };

    fn category_of(ip: &str) -> Option<&'static str> {
        let ip: IpAddr = ip
            .parse()
            .unwrap_or_else(|_| panic!("{ip} is an IP address"));
        is_forbidden(ip, &PRODUCTION)
    }

    fn assert_category(category: &str, addresses: &[&str]) {
        for ip in addresses {
            assert_eq!(category_of(ip), Some(category), "{ip}");
        }
    }

    #[test]
    fn loopback() {
        assert_category(
            LOOPBACK,
            &[
                "127.0.0.1",
                "127.255.255.254",
                "::1",
                "::ffff:127.0.0.1",
                "::127.0.0.1",
            ],
        );
    }

    #[test]
    fn unspecified() {
        assert_category(
            UNSPECIFIED,
            &["0.0.0.0", "0.1.2.3", "::", "::ffff:0.0.0.0", "::0.0.0.2"],
        );
    }

    #[test]
    fn private() {
        assert_category(
            PRIVATE,
            &[
                "10.0.0.1",
                "10.255.255.255",
                "172.16.0.1",
                "172.31.255.255",
                "192.168.0.1",
                "192.168.255.255",
                "64:ff9b:1::1",
            ],
        );
    }

    #[test]
    fn neighbours_of_the_private_ranges_are_public() {
        for ip in [
            "9.255.255.255",
            "11.0.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "223.255.255.255",
        ] {
            assert_eq!(category_of(ip), None, "{ip}");
        }
    }

    #[test]
    fn link_local() {
        assert_category(
            LINK_LOCAL,
            &["169.254.0.1", "169.254.170.2", "fe80::1", "febf::ffff"],
        );
    }

    #[test]
    fn carrier_grade_nat() {
        assert_category(CARRIER_GRADE_NAT, &["100.64.0.1", "100.127.255.254"]);
    }

    #[test]
    fn unique_local() {
        assert_category(UNIQUE_LOCAL, &["fc00::1", "fd12:3456:789a::1", "fdff::"]);
    }

    #[test]
    fn cloud_metadata() {
        assert_category(
            CLOUD_METADATA,
            &[
                "169.254.169.254",
                "100.100.100.200",
                "192.0.0.192",
                "fd00:ec2::254",
                "fd20:ce::254",
                "::ffff:169.254.169.254",
                "::169.254.169.254",
                "64:ff9b::169.254.169.254",
                "2002:a9fe:a9fe::1",
            ],
        );
    }

    #[test]
    fn multicast() {
        assert_category(
            MULTICAST,
            &["224.0.0.1", "239.255.255.250", "ff02::1", "ff0e::1"],
        );
    }

    #[test]
    fn broadcast() {
        assert_category(BROADCAST, &["255.255.255.255", "::ffff:255.255.255.255"]);
    }

    #[test]
    fn benchmarking() {
        assert_category(BENCHMARKING, &["198.18.0.1", "198.19.255.255", "2001:2::1"]);
    }

    #[test]
    fn documentation() {
        assert_category(
            DOCUMENTATION,
            &[
                "192.0.2.1",
                "198.51.100.7",
                "203.0.113.9",
                "2001:db8::1",
                "3fff::1",
            ],
        );
    }

    #[test]
    fn reserved() {
        assert_category(
            RESERVED,
            &[
                "240.0.0.1",
                "254.255.255.255",
                "100::1",
                "::8.8.8.8",
                "4000::1",
            ],
        );
    }

    #[test]
    fn ietf_protocol_assignments() {
        assert_category(IETF_PROTOCOL, &["192.0.0.8", "192.0.0.170"]);
    }

    #[test]
    fn site_local() {
        assert_category(SITE_LOCAL, &["fec0::1", "feff::1"]);
    }

    #[test]
    fn embedded_ipv4_is_judged_by_the_address_it_carries() {
        let cases = [
            ("::ffff:10.0.0.1", Some(PRIVATE)),
            ("::ffff:7f00:1", Some(LOOPBACK)),
            ("64:ff9b::10.0.0.1", Some(PRIVATE)),
            ("64:ff9b::c0a8:101", Some(PRIVATE)),
            ("2002:c0a8:101::1", Some(PRIVATE)),
            ("2002:7f00:1::1", Some(LOOPBACK)),
            // Teredo: client 127.0.0.1 is stored inverted as 80ff:fffe.
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", Some(LOOPBACK)),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::8.8.8.8", None),
            ("2002:808:808::1", None),
        ];
        for (ip, expected) in cases {
            assert_eq!(category_of(ip), expected, "{ip}");
        }
    }

    #[test]
    fn public_unicast_is_allowed() {
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "1.1.1.1",
            "2606:2800:220:1:248:1893:25c8:1946",
            "2a00:1450:4001:82b::200e",
        ] {
            assert_eq!(category_of(ip), None, "{ip}");
        }
    }

    #[test]
    fn allow_local_allows_loopback_and_nothing_else() {
        for ip in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            let ip: IpAddr = ip.parse().unwrap_or_else(|_| panic!("{ip}"));
            assert_eq!(is_forbidden(ip, &DEVELOPMENT), None, "{ip}");
        }
        for (ip, category) in [
            ("169.254.169.254", CLOUD_METADATA),
            ("fd00:ec2::254", CLOUD_METADATA),
            ("10.0.0.1", PRIVATE),
            ("0.0.0.0", UNSPECIFIED),
            ("::", UNSPECIFIED),
            ("fe80::1", LINK_LOCAL),
            ("100.64.0.1", CARRIER_GRADE_NAT),
        ] {
            let ip: IpAddr = ip.parse().unwrap_or_else(|_| panic!("{ip}"));
            assert_eq!(is_forbidden(ip, &DEVELOPMENT), Some(category), "{ip}");
        }
    }
}
