//! Unit tests of card discovery.

use super::*;

#[test]
fn v03_cards_are_told_from_other_cards_without_interfaces() {
    let v03 = serde_json::json!({"url": "http://a/rpc", "protocolVersion": "0.3.0"});
    assert!(is_v03_card(&v03));
    assert!(is_v03_card(&serde_json::json!({"url": "http://a/rpc"})));
    let gateway = serde_json::json!({"url": "http://gw", "protocolVersions": ["1.0"]});
    assert!(!is_v03_card(&gateway));
    let v1 = serde_json::json!({"url": "http://a", "protocolVersion": "0.3.0",
        "supportedInterfaces": [{"url": "http://a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]});
    assert!(!is_v03_card(&v1));
}

#[test]
fn a_url_with_a_path_has_a_nested_card_to_fall_back_on() {
    let cases = [
        (
            "http://gw.example:9090/a2a/echo-01",
            Some("http://gw.example:9090/a2a/echo-01/.well-known/agent-card.json"),
        ),
        (
            "http://gw.example/a2a/echo-01/?x=1",
            Some("http://gw.example/a2a/echo-01/.well-known/agent-card.json"),
        ),
        ("http://gw.example/", None),
        ("http://gw.example", None),
        ("http://gw.example/cards/echo.json", None),
    ];
    for (url, expected) in cases {
        assert_eq!(
            nested_card_url(url).map(String::from).as_deref(),
            expected,
            "{url}"
        );
    }
}

#[test]
fn card_urls_follow_clt_01() {
    let cases = [
        (
            "https://agent.example",
            None,
            "https://agent.example/.well-known/agent-card.json",
        ),
        (
            "https://agent.example/some/base?x=1",
            None,
            "https://agent.example/.well-known/agent-card.json",
        ),
        (
            "https://agent.example/cards/echo.json",
            None,
            "https://agent.example/cards/echo.json",
        ),
        (
            "https://agent.example/agents/",
            Some("echo/card.json"),
            "https://agent.example/agents/echo/card.json",
        ),
        (
            "https://agent.example/agents/x",
            Some("/card.json"),
            "https://agent.example/card.json",
        ),
    ];
    for (url, path, expected) in cases {
        assert_eq!(
            card_url(url, path).unwrap().as_str(),
            expected,
            "{url} {path:?}"
        );
    }
    assert!(card_url("agent.example", None).is_err());
    assert!(card_url("ftp://agent.example", None).is_err());
}

#[test]
fn addresses_follow_clt_13_and_credentials_stay_on_the_card_origin() {
    let source = url::Url::parse("https://public.example/.well-known/agent-card.json").unwrap();
    let resolve = |interface: &str, host: Option<&HostOverride>, credentials: bool| {
        resolve_address(interface, Some(&source), host, credentials)
            .unwrap()
            .to_string()
    };
    assert_eq!(
        resolve("http://internal:8080/a2a", None, false),
        "http://internal:8080/a2a"
    );
    assert_eq!(
        resolve("http://internal:8080/a2a", None, true),
        "https://public.example/a2a"
    );
    assert_eq!(resolve("/rest", None, false), "https://public.example/rest");
    assert_eq!(resolve("", None, false), source.to_string());
    let host = HostOverride {
        host: "gateway.example".into(),
        port: Some(8443),
        base_path: None,
    };
    assert_eq!(
        resolve("http://internal:8080/a2a", Some(&host), true),
        "https://gateway.example:8443/a2a"
    );
    let host = HostOverride {
        host: "http://gateway.example".into(),
        port: None,
        base_path: Some("/agents/echo".into()),
    };
    assert_eq!(
        resolve("http://internal:8080/a2a", Some(&host), false),
        "http://gateway.example/agents/echo"
    );
}
