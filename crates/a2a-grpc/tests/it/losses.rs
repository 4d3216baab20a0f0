//! What JSON carries and protobuf cannot: each loss shown on its own.

use a2a_types::card::SecurityScheme;
use a2a_types::*;
use serde_json::{Value, json};

use crate::wire::round_trip;

fn read<T: serde::de::DeserializeOwned>(value: Value) -> T {
    json::from_value(value).unwrap()
}

#[test]
fn members_a2a_types_keeps_only_to_write_back_are_dropped() {
    let card: AgentCard = read(json!({
        "name": "agent", "description": "d", "version": "1",
        "url": "https://agent.example/a2a", "protocolVersion": "0.3",
        "capabilities": {"streaming": true, "stateTransitionHistory": true},
        "supportedInterfaces": [{
            "url": "https://agent.example/a2a", "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0", "x-region": "eu"
        }],
        "securitySchemes": {"key": {
            "apiKeySecurityScheme": {"location": "header", "name": "X-Key"},
            "type": "apiKey", "in": "header", "name": "X-Key"
        }},
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": [], "security": []}]
    }));
    let back = round_trip(card.clone()).unwrap();
    assert_eq!(card.legacy_url(), Some("https://agent.example/a2a"));
    assert_eq!(back.legacy_url(), None);
    assert!(back.extra.is_empty());
    assert!(back.capabilities.extra.is_empty());
    assert_eq!(back.capabilities.streaming, Some(true));
    assert!(back.supported_interfaces[0].extra.is_empty());
    assert!(back.security_schemes["key"].extra.is_empty());
    assert_eq!(
        back.security_schemes["key"].scheme,
        card.security_schemes["key"].scheme
    );
    assert!(back.skills[0].extra.is_empty());
}

#[test]
fn the_v0_3_blocking_flag_travels_as_return_immediately_and_unknown_members_are_dropped() {
    let configuration: SendMessageConfiguration =
        read(json!({"blocking": false, "timeout": 30, "historyLength": 0}));
    assert_eq!(configuration.return_immediately(), Some(true));
    let back = round_trip(configuration).unwrap();
    assert!(back.return_immediately);
    assert_eq!(back.blocking, None);
    assert!(back.extra.is_empty());
    assert_eq!(back.history_length, Some(0), "optional presence is kept");

    // `blocking: true` is the v1.0 default, so nothing marks it on the wire.
    let waiting: SendMessageConfiguration = read(json!({"blocking": true}));
    let back = round_trip(waiting).unwrap();
    assert_eq!(back.return_immediately(), None);
}

#[test]
fn an_explicitly_empty_required_string_cannot_cross() {
    // JSON tells `"description": ""` from no description; proto3 cannot, and no description
    // is refused.
    let card: AgentCard =
        read(json!({"name": "agent", "description": "", "version": "1", "capabilities": {}}));
    let err = round_trip(card).unwrap_err();
    assert_eq!(err.path(), "description");

    let message: Message =
        read(json!({"messageId": "", "role": "ROLE_USER", "parts": [{"text": "x"}]}));
    assert_eq!(round_trip(message).unwrap_err().path(), "message_id");
}

#[test]
fn an_empty_parts_list_cannot_cross() {
    // JSON tells `"parts": []` from no parts; proto3 writes neither.
    let message: Message = read(json!({"messageId": "m", "role": "ROLE_USER", "parts": []}));
    assert_eq!(round_trip(message).unwrap_err().path(), "parts");
}

#[test]
fn an_unspecified_role_or_state_cannot_cross() {
    // JSON reads the name `ROLE_UNSPECIFIED`; on protobuf it is the default, so an absent role.
    let message: Message =
        read(json!({"messageId": "m", "role": "ROLE_UNSPECIFIED", "parts": [{"text": "x"}]}));
    assert_eq!(round_trip(message).unwrap_err().path(), "role");
    let status: TaskStatus = read(json!({"state": "TASK_STATE_UNSPECIFIED"}));
    assert_eq!(round_trip(status).unwrap_err().path(), "state");
}

#[test]
fn numbers_are_doubles_so_whole_ones_come_back_as_integers_and_big_ones_round() {
    let data = json!({
        "python_double": 1.0,
        "exact": 9_007_199_254_740_992_u64,
        "rounded": 9_007_199_254_740_993_u64,
        "huge": u64::MAX,
        "fraction": 0.1
    });
    let back = round_trip(Part::data(data)).unwrap();
    let PartContent::Data(back) = back.content else {
        panic!("not data: {back:?}")
    };
    assert_eq!(back["python_double"], json!(1));
    assert_eq!(back["exact"], json!(9_007_199_254_740_992_u64));
    assert_eq!(
        back["rounded"],
        json!(9_007_199_254_740_992_u64),
        "2^53 + 1 rounds to 2^53"
    );
    assert_eq!(
        back["huge"],
        json!(18_446_744_073_709_551_615.0_f64),
        "beyond 2^53: a double"
    );
    assert_eq!(back["fraction"], json!(0.1));
}

#[test]
fn a_timestamp_keeps_its_instant_but_not_its_written_fraction_length() {
    let status: TaskStatus =
        read(json!({"state": "TASK_STATE_WORKING", "timestamp": "2026-01-01T00:00:00.000Z"}));
    let back = round_trip(status.clone()).unwrap();
    assert_eq!(back, status, "equal: timestamps compare instants");
    let written = serde_json::to_value(&back).unwrap();
    assert_eq!(written["timestamp"], "2026-01-01T00:00:00Z");
}

#[test]
fn map_entries_come_back_in_name_order() {
    let mut card = AgentCard::new("agent", "d", "1");
    card.security_schemes
        .insert("zeta".into(), SecurityScheme::mutual_tls());
    card.security_schemes
        .insert("alpha".into(), SecurityScheme::bearer("JWT"));
    let back = round_trip(card.clone()).unwrap();
    assert_eq!(back, card, "equal: map equality ignores order");
    let order: Vec<_> = back.security_schemes.keys().map(String::as_str).collect();
    assert_eq!(order, ["alpha", "zeta"], "protobuf maps have no order");
}
