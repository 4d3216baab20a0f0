//! Webhook address safety: hostile URLs refused at registration in
//! every spelling, host names judged by every address they resolve to, rebinding caught by the
//! delivery-time check, and a client pinned to the checked address.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::Duration;

use a2a_server::push::address::{
    AddressError, CheckedWebhook, Resolve, StaticResolver, WebhookPolicy, category, check_webhook,
};
use a2a_types::ErrorKind;
use async_trait::async_trait;
use axum::Router;
use axum::http::HeaderMap;
use axum::response::Redirect;
use axum::routing::{get, post};
use tokio::sync::mpsc;

const PRODUCTION: WebhookPolicy = WebhookPolicy { allow_local: false };
const DEVELOPMENT: WebhookPolicy = WebhookPolicy { allow_local: true };
const PUBLIC_V4: &str = "93.184.216.34";

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// Names for the tests: one public, the rest pointing somewhere a webhook must not go.
fn resolver() -> StaticResolver {
    StaticResolver::new()
        .with_host("public.test", [ip(PUBLIC_V4)])
        .with_host(
            "dual.test",
            [ip(PUBLIC_V4), ip("2606:2800:220:1:248:1893:25c8:1946")],
        )
        .with_host("internal.test", [ip("10.0.0.5")])
        .with_host("public-then-private.test", [ip(PUBLIC_V4), ip("10.0.0.5")])
        .with_host(
            "private-then-public.test",
            [ip("192.168.1.10"), ip(PUBLIC_V4)],
        )
        .with_host("metadata.test", [ip("169.254.169.254")])
        .with_host("ula.test", [ip("fd12:3456::1")])
        .with_host("mapped.test", [ip("::ffff:127.0.0.1")])
        .with_host("loop.test", [ip("127.0.0.1")])
        .with_host("cgnat.test", [ip("100.64.1.1")])
        .with_host("empty.test", [])
}

/// The category of a refusal, or a short label for refusals that are not about an address.
fn label(error: &AddressError) -> &'static str {
    if let Some(category) = error.category() {
        return category;
    }
    match error {
        AddressError::InvalidCharacters => "invalid characters",
        AddressError::InvalidUrl { .. } => "invalid url",
        AddressError::UnsupportedScheme { .. } => "unsupported scheme",
        AddressError::Credentials => "credentials",
        AddressError::MissingHost => "missing host",
        AddressError::HttpsRequired => "https required",
        AddressError::HttpOnlyForLoopback => "http only for loopback",
        AddressError::Unresolvable { .. } => "unresolvable",
        _ => "other",
    }
}

async fn refusal(url: &str, policy: &WebhookPolicy) -> AddressError {
    match check_webhook(url, policy, &resolver()).await {
        Ok(checked) => panic!("{url} was allowed: {checked:?}"),
        Err(error) => error,
    }
}

async fn allowed(url: &str, policy: &WebhookPolicy) -> CheckedWebhook {
    match check_webhook(url, policy, &resolver()).await {
        Ok(checked) => checked,
        Err(error) => panic!("{url} was refused: {error}"),
    }
}

#[tokio::test]
async fn hostile_urls_are_refused_at_registration() {
    use category::*;
    let cases: &[(&str, &str)] = &[
        // Loopback, in every spelling a browser accepts.
        ("https://127.0.0.1/hook", LOOPBACK),
        ("https://127.1/", LOOPBACK),
        ("https://2130706433/", LOOPBACK),
        ("https://0177.0.0.1/", LOOPBACK),
        ("https://0x7f.1/", LOOPBACK),
        ("https://0x7f000001/", LOOPBACK),
        ("https://017700000001/", LOOPBACK),
        ("https://127.0.0.1./", LOOPBACK),
        ("https://127.254.1.2:8443/", LOOPBACK),
        ("https://[::1]/", LOOPBACK),
        ("https://[0:0:0:0:0:0:0:1]/", LOOPBACK),
        ("https://[::ffff:127.0.0.1]/", LOOPBACK),
        ("https://[::ffff:7f00:1]/", LOOPBACK),
        ("https://[::127.0.0.1]/", LOOPBACK),
        ("https://[64:ff9b::127.0.0.1]/", LOOPBACK),
        ("https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", LOOPBACK), // Teredo
        ("https://localhost/", LOOPBACK),
        ("https://LOCALHOST./", LOOPBACK),
        ("https://api.localhost:8443/", LOOPBACK),
        ("http://127.0.0.1:8080/", LOOPBACK),
        ("http://localhost:8080/", LOOPBACK),
        // Unspecified.
        ("https://0.0.0.0/", UNSPECIFIED),
        ("https://0/", UNSPECIFIED),
        ("https://[::]/", UNSPECIFIED),
        // Private.
        ("https://10.0.0.1/", PRIVATE),
        ("https://012.0.0.1/", PRIVATE),
        ("https://0xa000001/", PRIVATE),
        ("https://172.16.0.1/", PRIVATE),
        ("https://172.31.255.255/", PRIVATE),
        ("https://192.168.1.1/", PRIVATE),
        ("https://192.168.257/", PRIVATE),
        ("https://[::ffff:10.0.0.1]/", PRIVATE),
        ("https://[64:ff9b::10.0.0.1]/", PRIVATE),
        ("https://[64:ff9b::c0a8:101]/", PRIVATE),
        ("https://[2002:c0a8:101::1]/", PRIVATE),
        // Link-local.
        ("https://169.254.1.1/", LINK_LOCAL),
        ("https://[fe80::1]/", LINK_LOCAL),
        // Cloud metadata, refused in every spelling.
        ("https://169.254.169.254/latest/meta-data/", CLOUD_METADATA),
        ("http://169.254.169.254/", CLOUD_METADATA),
        ("https://2852039166/", CLOUD_METADATA),
        ("https://0xa9fea9fe/", CLOUD_METADATA),
        ("https://0251.0376.0251.0376/", CLOUD_METADATA),
        ("https://169.254.43518/", CLOUD_METADATA),
        ("https://[::ffff:a9fe:a9fe]/", CLOUD_METADATA),
        ("https://[0:0:0:0:0:ffff:a9fe:a9fe]/", CLOUD_METADATA),
        ("https://[::169.254.169.254]/", CLOUD_METADATA),
        ("https://[64:ff9b::a9fe:a9fe]/", CLOUD_METADATA),
        ("https://[fd00:ec2::254]/", CLOUD_METADATA),
        ("https://100.100.100.200/", CLOUD_METADATA),
        ("https://192.0.0.192/", CLOUD_METADATA),
        // Carrier-grade NAT.
        ("https://100.64.0.1/", CARRIER_GRADE_NAT),
        ("https://100.127.255.254/", CARRIER_GRADE_NAT),
        // Unique-local.
        ("https://[fc00::1]/", UNIQUE_LOCAL),
        ("https://[fd12:3456::1]/", UNIQUE_LOCAL),
        // Multicast and broadcast.
        ("https://224.0.0.1/", MULTICAST),
        ("https://239.255.255.250/", MULTICAST),
        ("https://[ff02::1]/", MULTICAST),
        ("https://255.255.255.255/", BROADCAST),
        ("https://4294967295/", BROADCAST),
        // Benchmarking, documentation, reserved, IETF, site-local.
        ("https://198.18.0.1/", BENCHMARKING),
        ("https://198.19.255.1/", BENCHMARKING),
        ("https://192.0.2.1/", DOCUMENTATION),
        ("https://198.51.100.7/", DOCUMENTATION),
        ("https://203.0.113.9/", DOCUMENTATION),
        ("https://[2001:db8::1]/", DOCUMENTATION),
        ("https://240.0.0.1/", RESERVED),
        ("https://250.1.2.3/", RESERVED),
        ("https://192.0.0.8/", IETF_PROTOCOL),
        ("https://[fec0::1]/", SITE_LOCAL),
        // Host names, judged by what they resolve to.
        ("https://internal.test/hook", PRIVATE),
        ("https://INTERNAL.test./hook", PRIVATE),
        ("https://public-then-private.test/", PRIVATE),
        ("https://private-then-public.test/", PRIVATE),
        ("https://metadata.test/", CLOUD_METADATA),
        ("https://ula.test/", UNIQUE_LOCAL),
        ("https://mapped.test/", LOOPBACK),
        ("https://loop.test/", LOOPBACK),
        ("https://cgnat.test/", CARRIER_GRADE_NAT),
        // Everything else a registration can get wrong.
        ("http://93.184.216.34/", "https required"),
        ("http://public.test/hook", "https required"),
        ("ftp://public.test/", "unsupported scheme"),
        ("file:///etc/passwd", "unsupported scheme"),
        ("gopher://127.0.0.1:6379/_FLUSHALL", "unsupported scheme"),
        ("ws://public.test/", "unsupported scheme"),
        ("https://user:pass@public.test/", "credentials"),
        ("https://user@public.test/", "credentials"),
        ("https://:secret@public.test/", "credentials"),
        ("https://", "missing host"),
        ("https://:443/", "missing host"),
        (
            "https://public.test\r\nX-Injected: 1/",
            "invalid characters",
        ),
        ("https://pub\tlic.test/", "invalid characters"),
        (" https://public.test/", "invalid characters"),
        ("https://1.2.3.4.5/", "invalid url"),
        ("https://256.0.0.1/", "invalid url"),
        ("https://[::1/", "invalid url"),
        ("//public.test/hook", "invalid url"),
        ("not a url", "invalid characters"),
        ("https://unknown.test/", "unresolvable"),
        ("https://empty.test/", "unresolvable"),
    ];
    assert!(cases.len() >= 40);
    for (url, expected) in cases {
        let error = refusal(url, &PRODUCTION).await;
        assert_eq!(label(&error), *expected, "{url}: {error}");
        let wire = error.to_a2a_error();
        assert_eq!(wire.kind(), ErrorKind::InvalidParams, "{url}");
        assert!(wire.message().starts_with("webhook "), "{url}: {wire}");
    }
}

#[tokio::test]
async fn refusals_say_what_is_wrong() {
    let cases = [
        ("http://public.test/", "webhook URL must use https"),
        (
            "https://internal.test/",
            "webhook host internal.test resolves to a private address (10.0.0.5)",
        ),
        (
            "https://0x7f.1/",
            "webhook URL points to a loopback address (127.0.0.1)",
        ),
        (
            "https://[::ffff:a9fe:a9fe]/",
            "webhook URL points to a cloud metadata address (::ffff:169.254.169.254)",
        ),
        (
            "https://0.0.0.0/",
            "webhook URL points to an unspecified address (0.0.0.0)",
        ),
        (
            "https://localhost/",
            "webhook host localhost is a localhost name",
        ),
        (
            "https://a:b@public.test/",
            "webhook URL must not contain credentials (user:password@)",
        ),
        (
            "ftp://public.test/",
            "webhook URL scheme ftp is not supported; use https",
        ),
        (
            "https://unknown.test/",
            "webhook host unknown.test does not resolve",
        ),
    ];
    for (url, message) in cases {
        assert_eq!(
            refusal(url, &PRODUCTION).await.to_string(),
            message,
            "{url}"
        );
    }
}

#[tokio::test]
async fn the_wire_error_does_not_echo_what_a_name_resolved_to() {
    let error = refusal("https://internal.test/", &PRODUCTION).await;
    let wire = error.to_a2a_error();
    assert_eq!(
        wire.message(),
        "webhook host internal.test resolves to a private address"
    );
    assert!(!wire.message().contains("10.0.0.5"));

    let parse = refusal("https://256.0.0.1/", &PRODUCTION).await;
    assert_eq!(
        parse.to_a2a_error().message(),
        "webhook URL is not a valid URL: invalid IPv4 address"
    );
}

#[tokio::test]
async fn a_public_https_url_with_public_addresses_is_allowed() {
    let checked = allowed("https://public.test/hook?x=1", &PRODUCTION).await;
    assert_eq!(checked.url().as_str(), "https://public.test/hook?x=1");
    assert_eq!(
        checked.addresses(),
        [SocketAddr::new(ip(PUBLIC_V4), 443)].as_slice()
    );

    let checked = allowed("HTTPS://Public.TEST:8443/a2a/hook#fragment", &PRODUCTION).await;
    assert_eq!(checked.url().as_str(), "https://public.test:8443/a2a/hook");
    assert_eq!(
        checked.addresses(),
        [SocketAddr::new(ip(PUBLIC_V4), 8443)].as_slice()
    );

    let checked = allowed("https://dual.test/", &PRODUCTION).await;
    assert_eq!(checked.addresses().len(), 2);

    for url in [
        "https://93.184.216.34/hook",
        "https://1572395042/hook",
        "https://[2606:2800:220:1:248:1893:25c8:1946]/hook",
        "https://[::ffff:93.184.216.34]/hook",
        "https://[64:ff9b::93.184.216.34]/hook",
    ] {
        let checked = allowed(url, &PRODUCTION).await;
        assert_eq!(checked.addresses().len(), 1, "{url}");
    }
}

#[tokio::test]
async fn allow_local_allows_loopback_over_http_and_nothing_else() {
    let checked = allowed("http://127.0.0.1:9999/hook", &DEVELOPMENT).await;
    assert_eq!(
        checked.addresses(),
        [SocketAddr::new(ip("127.0.0.1"), 9999)].as_slice()
    );
    let checked = allowed("http://localhost:9999/", &DEVELOPMENT).await;
    assert!(
        checked
            .addresses()
            .contains(&SocketAddr::new(ip("127.0.0.1"), 9999))
    );
    for url in [
        "http://[::1]:9999/",
        "http://0x7f.1:9999/",
        "https://127.0.0.1/",
        "http://loop.test:9999/",
        "http://app.localhost/",
        "https://public.test/",
    ] {
        allowed(url, &DEVELOPMENT).await;
    }

    let cases = [
        ("http://169.254.169.254/", category::CLOUD_METADATA),
        ("http://[fd00:ec2::254]/", category::CLOUD_METADATA),
        ("http://100.100.100.200/", category::CLOUD_METADATA),
        ("https://metadata.test/", category::CLOUD_METADATA),
        ("http://10.0.0.1/", category::PRIVATE),
        ("http://internal.test/", category::PRIVATE),
        ("http://0.0.0.0:9999/", category::UNSPECIFIED),
        ("http://[fe80::1]/", category::LINK_LOCAL),
        ("http://public.test/", "http only for loopback"),
        ("http://93.184.216.34/", "http only for loopback"),
        ("ftp://127.0.0.1/", "unsupported scheme"),
    ];
    for (url, expected) in cases {
        let error = refusal(url, &DEVELOPMENT).await;
        assert_eq!(label(&error), expected, "{url}: {error}");
    }
}

/// Answers with a different address on each call, like a rebinding DNS server.
#[derive(Debug)]
struct RebindingResolver {
    answers: Mutex<Vec<IpAddr>>,
}

#[async_trait]
impl Resolve for RebindingResolver {
    async fn resolve(&self, _host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        let mut answers = self.answers.lock().unwrap();
        let ip = if answers.len() > 1 {
            answers.remove(0)
        } else {
            answers[0]
        };
        Ok(vec![SocketAddr::new(ip, port)])
    }
}

#[tokio::test]
async fn a_name_rebound_after_registration_is_refused_at_delivery() {
    let resolver = RebindingResolver {
        answers: Mutex::new(vec![ip(PUBLIC_V4), ip("127.0.0.1")]),
    };
    let url = "https://rebind.test/hook";

    let registered = check_webhook(url, &PRODUCTION, &resolver).await.unwrap();
    assert_eq!(registered.addresses()[0].ip(), ip(PUBLIC_V4));

    let error = check_webhook(url, &PRODUCTION, &resolver)
        .await
        .expect_err("the delivery-time check sees the new answer");
    assert_eq!(error.category(), Some(category::LOOPBACK), "{error}");

    // Development mode allows loopback, but not a rebind to the metadata service.
    let resolver = RebindingResolver {
        answers: Mutex::new(vec![ip("127.0.0.1"), ip("169.254.169.254")]),
    };
    check_webhook(url, &DEVELOPMENT, &resolver).await.unwrap();
    let error = check_webhook(url, &DEVELOPMENT, &resolver)
        .await
        .unwrap_err();
    assert_eq!(error.category(), Some(category::CLOUD_METADATA), "{error}");
}

/// A webhook receiver on 127.0.0.1 that reports each body and Host header it gets.
async fn receiver() -> (SocketAddr, mpsc::Receiver<(String, String)>) {
    let (sender, received) = mpsc::channel(8);
    let router = Router::new()
        .route(
            "/hook",
            post(move |headers: HeaderMap, body: String| async move {
                let host = headers
                    .get("host")
                    .and_then(|host| host.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                sender.send((host, body)).await.unwrap();
                "ok"
            }),
        )
        .route(
            "/moved",
            get(|| async { Redirect::temporary("http://127.0.0.1:9/elsewhere") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (addr, received)
}

/// `url` checked for development with `resolver`, and a client pinned to its address.
async fn pinned(url: &str, resolver: &StaticResolver) -> (CheckedWebhook, reqwest::Client) {
    let checked = check_webhook(url, &DEVELOPMENT, resolver).await.unwrap();
    let client = checked
        .pinned_client(reqwest::Client::builder().timeout(Duration::from_secs(10)))
        .unwrap();
    (checked, client)
}

/// POSTs `body` to `url` through a client pinned by `resolver`; the status.
async fn post_pinned(url: &str, resolver: &StaticResolver, body: &'static str) -> u16 {
    let (checked, client) = pinned(url, resolver).await;
    let response = client.post(checked.url().clone()).body(body).send().await;
    response.unwrap().status().as_u16()
}

#[tokio::test]
async fn a_pinned_client_connects_to_the_checked_address_without_dns() {
    let (addr, mut received) = receiver().await;
    let resolver = StaticResolver::new().with_host("rebind.test", [ip("127.0.0.1")]);
    let url = format!("http://rebind.test:{}/hook", addr.port());

    assert_eq!(post_pinned(&url, &resolver, "task update").await, 200);

    let (host, body) = received.recv().await.unwrap();
    assert_eq!(host, format!("rebind.test:{}", addr.port()));
    assert_eq!(body, "task update");

    // `localhost` is pinned to loopback without asking any resolver.
    let url = format!("http://localhost:{}/hook", addr.port());
    assert_eq!(
        post_pinned(&url, &StaticResolver::new(), "again").await,
        200
    );
    assert_eq!(received.recv().await.unwrap().1, "again");
}

#[tokio::test]
async fn a_pinned_client_reaches_no_other_host_and_follows_no_redirect() {
    let (addr, _received) = receiver().await;
    let resolver = StaticResolver::new().with_host("rebind.test", [ip("127.0.0.1")]);
    let url = format!("http://rebind.test:{}/hook", addr.port());
    let (_checked, client) = pinned(&url, &resolver).await;

    let moved = client
        .get(format!("http://rebind.test:{}/moved", addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 307);

    let other = client
        .post(format!("http://other.test:{}/hook", addr.port()))
        .send()
        .await;
    assert!(other.is_err(), "an unpinned name must not resolve");
}
