//! The agent registry over its KubeMQ-compatible HTTP API, the same suite on SQLite
//! and PostgreSQL, plus signed cards (spec §11.5).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod support;

#[path = "registry/signatures.rs"]
mod signatures;
#[path = "registry/sqlite.rs"]
mod sqlite_file;

use std::sync::Arc;
use std::time::Duration;

use a2a_gateway::agent::AgentDirectory as _;
use a2a_gateway::registry::{Clock as _, RegistryOptions};
use axum::http::{Method, StatusCode};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::support::{Api, Backend, ManualClock, record, tagged, v1_card};

on_both_backends!(
    registration_answers_with_the_enriched_record,
    invalid_registrations_are_refused_with_400,
    registering_again_keeps_registered_at,
    agents_are_listed_by_skill_tag_and_limit,
    an_agent_is_read_by_id,
    heartbeats_move_last_seen,
    agents_deregister_both_ways,
    agents_without_heartbeats_expire,
    the_registry_refuses_agents_beyond_max_agents,
    concurrent_registrations_never_exceed_max_agents,
    fast_churn_always_succeeds,
    the_directory_finds_live_agents_with_their_urls,
    ids_that_are_route_names_are_reachable,
);

fn time(value: &Value) -> DateTime<Utc> {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"));
    // RFC 3339, UTC, milliseconds, `Z`.
    assert!(
        text.ends_with('Z') && text.len() == "2026-01-01T00:00:00.000Z".len(),
        "{text}"
    );
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

pub(crate) fn with_clock(clock: &Arc<ManualClock>) -> RegistryOptions {
    RegistryOptions::new().clock(Arc::clone(clock) as Arc<dyn a2a_gateway::registry::Clock>)
}

async fn registration_answers_with_the_enriched_record(backend: &Backend) {
    let clock = ManualClock::new();
    let api = Api::new(backend.registry(with_clock(&clock)).await);
    let mut body = record("echo-agent");
    // Client-supplied times are ignored.
    body["registered_at"] = json!("1999-01-01T00:00:00Z");
    body["last_seen"] = json!("1999-01-01T00:00:00Z");
    body["x-extra"] = json!({"kept": true});
    let (status, record) = api.register(&body).await;
    assert_eq!(status, StatusCode::OK, "{record}");
    let registered_at = time(&record["registered_at"]);
    assert_eq!(registered_at, clock.now());
    assert_eq!(time(&record["last_seen"]), registered_at);
    let mut expected = json!({
        "agent_id": "echo-agent",
        "name": "Agent echo-agent",
        "url": "http://127.0.0.1:9000/echo-agent",
        "x-extra": {"kept": true},
        // The defaults of the optional members.
        "description": "",
        "version": "",
        "skills": [],
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "protocolVersions": ["1.0"],
    });
    expected["registered_at"] = record["registered_at"].clone();
    expected["last_seen"] = record["last_seen"].clone();
    assert_eq!(record, expected);
    // Given values win over the defaults.
    let mut described = record_with(
        "described",
        json!({"description": "d", "version": "2", "protocolVersions": ["0.3"]}),
    );
    described["defaultInputModes"] = json!(["application/json"]);
    let (_, record) = api.register(&described).await;
    assert_eq!(record["description"], "d");
    assert_eq!(record["version"], "2");
    assert_eq!(record["protocolVersions"], json!(["0.3"]));
    assert_eq!(record["defaultInputModes"], json!(["application/json"]));
    assert_eq!(record["defaultOutputModes"], json!(["text"]));
    api.registry.close().await;
}

fn record_with(agent_id: &str, extra: Value) -> Value {
    let mut body = record(agent_id);
    let Value::Object(extra) = extra else {
        panic!("members to add: {extra}")
    };
    for (member, value) in extra {
        body[&member] = value;
    }
    body
}

async fn invalid_registrations_are_refused_with_400(backend: &Backend) {
    let api = Api::new(backend.registry(RegistryOptions::new()).await);
    let without = |member: &str| {
        let mut body = record("valid-id");
        body.as_object_mut().unwrap().remove(member);
        body
    };
    let cases: Vec<(&str, Value, &str)> = vec![
        ("upper case id", record("Echo-Agent"), "lowercase"),
        ("one-character id", record("e"), "at least 2"),
        ("underscore", record("echo_agent"), "lowercase"),
        ("dot", record("echo.agent"), "lowercase"),
        ("space", record("echo agent"), "lowercase"),
        ("slash", record("echo/agent"), "lowercase"),
        ("empty id", record(""), "agent_id is empty"),
        ("missing id", without("agent_id"), "agent_id is required"),
        (
            "numeric id",
            record_with("valid-id", json!({"agent_id": 12})),
            "agent_id is required",
        ),
        ("missing url", without("url"), "url is required"),
        (
            "relative url",
            record_with("valid-id", json!({"url": "/a2a"})),
            "not an absolute",
        ),
        (
            "url without scheme",
            record_with("valid-id", json!({"url": "agent:8080/a2a"})),
            "not an absolute",
        ),
        (
            "ftp url",
            record_with("valid-id", json!({"url": "ftp://h/"})),
            "not an absolute",
        ),
        ("missing name", without("name"), "name is required"),
        (
            "empty name",
            record_with("valid-id", json!({"name": ""})),
            "name is required",
        ),
        (
            "skills not a list",
            record_with("valid-id", json!({"skills": "x"})),
            "skills must be an array",
        ),
        ("not an object", json!(["valid-id"]), "JSON object"),
        (
            "v1 card with a relative interface",
            {
                let mut card = v1_card("Relative");
                card["agent_id"] = json!("valid-id");
                card["supportedInterfaces"][0]["url"] = json!("/a2a");
                card
            },
            "supportedInterfaces[0].url",
        ),
        (
            "v1 card without interfaces",
            {
                let mut card = v1_card("None");
                card["agent_id"] = json!("valid-id");
                card["supportedInterfaces"] = json!([]);
                card
            },
            "no JSONRPC or HTTP+JSON interface",
        ),
    ];
    for (case, body, message) in cases {
        let (status, answer) = api.register(&body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{case}: {answer}");
        let error = answer["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{case}: {answer}"));
        assert!(
            error.contains(message),
            "{case}: {error:?} lacks {message:?}"
        );
    }
    let (status, answer) = api
        .call(Method::POST, "/agents/register", Some(b"{not json"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer, json!({"error": "the body is not valid JSON"}));
    let (_, listed) = api.get("/agents").await;
    assert_eq!(listed, json!([]), "nothing was registered");
    api.registry.close().await;
}

async fn registering_again_keeps_registered_at(backend: &Backend) {
    let clock = ManualClock::new();
    let api = Api::new(backend.registry(with_clock(&clock)).await);
    let (_, first) = api.register(&record("echo-agent")).await;
    clock.advance(Duration::from_secs(5));
    let renamed = record_with(
        "echo-agent",
        json!({"name": "Renamed", "url": "http://127.0.0.1:9001/"}),
    );
    let (status, second) = api.register(&renamed).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    assert_eq!(
        second["registered_at"], first["registered_at"],
        "kept on re-registering"
    );
    assert_eq!(
        time(&second["last_seen"]) - time(&first["last_seen"]),
        chrono::Duration::seconds(5)
    );
    assert_eq!(second["name"], "Renamed");
    let (_, read) = api.get("/agents/echo-agent").await;
    assert_eq!(read, second);
    let (_, listed) = api.get("/agents").await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    api.registry.close().await;
}

async fn agents_are_listed_by_skill_tag_and_limit(backend: &Backend) {
    let api = Api::new(backend.registry(RegistryOptions::new()).await);
    for body in [
        tagged("agent-c", &["math", "search"]),
        tagged("agent-a", &["cooking"]),
        tagged("agent-b", &["search"]),
        record("agent-d"),
    ] {
        assert_eq!(api.register(&body).await.0, StatusCode::OK);
    }
    let ids = |listed: &Value| -> Vec<String> {
        listed
            .as_array()
            .unwrap_or_else(|| panic!("a bare array, got {listed}"))
            .iter()
            .map(|agent| agent["agent_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let cases = [
        ("/agents", vec!["agent-a", "agent-b", "agent-c", "agent-d"]),
        ("/agents?skill_tags=search", vec!["agent-b", "agent-c"]),
        (
            "/agents?skill_tags=cooking,math",
            vec!["agent-a", "agent-c"],
        ),
        ("/agents?skill_tags=%20cooking%20,,", vec!["agent-a"]),
        ("/agents?skill_tags=unknown", vec![]),
        ("/agents?limit=2", vec!["agent-a", "agent-b"]),
        ("/agents?skill_tags=search&limit=1", vec!["agent-b"]),
        (
            "/agents?limit=0",
            vec!["agent-a", "agent-b", "agent-c", "agent-d"],
        ),
        (
            "/agents?limit=10&other=x",
            vec!["agent-a", "agent-b", "agent-c", "agent-d"],
        ),
    ];
    for (path, expected) in cases {
        let (status, listed) = api.get(path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(ids(&listed), expected, "{path}");
    }
    let (_, listed) = api.get("/agents?skill_tags=cooking").await;
    assert_eq!(listed[0]["skills"][0]["tags"], json!(["cooking"]));
    assert!(listed[0]["registered_at"].is_string());
    // The live KubeMQ broker's wrapped form, on request.
    let (_, wrapped) = api.get("/agents?skill_tags=cooking&wrap=true").await;
    assert_eq!(wrapped["agents"], listed);
    for path in ["/agents?limit=abc", "/agents?limit=-1"] {
        let (status, answer) = api.get(path).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}");
        assert!(
            answer["error"].as_str().unwrap().contains("limit"),
            "{answer}"
        );
    }
    api.registry.close().await;
}

async fn an_agent_is_read_by_id(backend: &Backend) {
    let api = Api::new(backend.registry(RegistryOptions::new()).await);
    let card = v1_card("Recipe Agent");
    let mut beside = card.clone();
    beside["agent_id"] = json!("recipes");
    let (status, registered) = api.register(&beside).await;
    assert_eq!(status, StatusCode::OK, "{registered}");
    let (status, read) = api.get("/agents/recipes").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read, registered);
    // A v1.0 card is shown as registered: no KubeMQ defaults added.
    let mut shown = read.as_object().unwrap().clone();
    assert_eq!(shown.remove("agent_id"), Some(json!("recipes")));
    shown.remove("registered_at").unwrap();
    shown.remove("last_seen").unwrap();
    assert_eq!(Value::Object(shown), card);

    let envelope = json!({"agent_id": "recipes-2", "card": card});
    let (status, registered) = api.register(&envelope).await;
    assert_eq!(status, StatusCode::OK, "{registered}");
    assert_eq!(registered["name"], "Recipe Agent");
    assert!(registered.get("card").is_none(), "{registered}");

    for path in ["/agents/unknown", "/agents/UPPER", "/agents/x"] {
        let (status, answer) = api.get(path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(answer, json!({"error": "agent not found"}));
    }
    api.registry.close().await;
}

async fn heartbeats_move_last_seen(backend: &Backend) {
    let clock = ManualClock::new();
    let api = Api::new(backend.registry(with_clock(&clock)).await);
    let (_, registered) = api.register(&record("echo-agent")).await;
    clock.advance(Duration::from_millis(1500));
    let (status, answer) = api.heartbeat("echo-agent").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer.as_object().unwrap().len(), 2, "{answer}");
    assert_eq!(answer["agent_id"], "echo-agent");
    assert_eq!(
        time(&answer["last_seen"]) - time(&registered["last_seen"]),
        chrono::Duration::milliseconds(1500)
    );
    let (_, read) = api.get("/agents/echo-agent").await;
    assert_eq!(read["last_seen"], answer["last_seen"]);
    assert_eq!(read["registered_at"], registered["registered_at"]);

    // A heartbeat for an unknown agent is 400, not 404.
    let (status, answer) = api.heartbeat("unknown-agent").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer, json!({"error": "agent not found"}));
    for body in [&b"{}"[..], b"{\"agent_id\": 5}", b"not json"] {
        let (status, answer) = api
            .call(Method::POST, "/agents/heartbeat", Some(body))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert!(answer["error"].is_string());
    }
    api.registry.close().await;
}

async fn agents_deregister_both_ways(backend: &Backend) {
    let api = Api::new(backend.registry(RegistryOptions::new()).await);
    api.register(&record("by-post")).await;
    api.register(&record("by-delete")).await;

    let (status, answer) = api
        .post("/agents/deregister", &json!({"agent_id": "by-post"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        answer,
        json!({"agent_id": "by-post", "status": "deregistered"})
    );
    let (status, answer) = api.delete("/agents/by-delete").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["agent_id"], "by-delete");

    for id in ["by-post", "by-delete"] {
        assert_eq!(
            api.get(&format!("/agents/{id}")).await.0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(api.heartbeat(id).await.0, StatusCode::BAD_REQUEST);
        // Deregistering again (or an unknown id) is 404.
        let (status, answer) = api
            .post("/agents/deregister", &json!({"agent_id": id}))
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(answer, json!({"error": "agent not found"}));
        let (status, answer) = api.delete(&format!("/agents/{id}")).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(answer, json!({"error": "agent not found"}));
    }
    let (status, _) = api.post("/agents/deregister", &json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(api.get("/agents").await.1, json!([]));
    api.registry.close().await;
}

async fn agents_without_heartbeats_expire(backend: &Backend) {
    let clock = ManualClock::new();
    let options = with_clock(&clock).agent_ttl(Duration::from_secs(30));
    let registry = backend.registry(options).await;
    let api = Api::new(Arc::clone(&registry));
    let (_, first) = api.register(&record("beating")).await;
    api.register(&record("silent")).await;

    clock.advance(Duration::from_secs(29));
    assert_eq!(api.heartbeat("beating").await.0, StatusCode::OK);
    assert_eq!(
        api.get("/agents/silent").await.0,
        StatusCode::OK,
        "29 s < TTL"
    );

    clock.advance(Duration::from_secs(1));
    // 30 s (the TTL) without a heartbeat: gone everywhere, before any cleanup ran.
    assert_eq!(api.get("/agents/silent").await.0, StatusCode::NOT_FOUND);
    assert!(
        registry.find("silent").await.unwrap().is_none(),
        "expired: not found"
    );
    assert_eq!(
        api.heartbeat("silent").await,
        (StatusCode::BAD_REQUEST, json!({"error": "agent not found"}))
    );
    let (_, listed) = api.get("/agents").await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["agent_id"], "beating");
    assert_eq!(api.delete("/agents/silent").await.0, StatusCode::NOT_FOUND);

    clock.advance(Duration::from_secs(28));
    assert_eq!(
        api.get("/agents/beating").await.0,
        StatusCode::OK,
        "the heartbeat renewed it"
    );
    clock.advance(Duration::from_secs(1));
    assert_eq!(api.get("/agents/beating").await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        registry.expire().await.unwrap(),
        1,
        "the expired row is deleted"
    );
    assert_eq!(registry.expire().await.unwrap(), 0);

    // An expired agent that registers again starts afresh.
    let (status, again) = api.register(&record("beating")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        time(&again["registered_at"]) - time(&first["registered_at"]),
        chrono::Duration::seconds(59)
    );
    registry.close().await;
}

async fn the_registry_refuses_agents_beyond_max_agents(backend: &Backend) {
    let clock = ManualClock::new();
    let options = with_clock(&clock)
        .max_agents(2)
        .agent_ttl(Duration::from_secs(30));
    let api = Api::new(backend.registry(options).await);
    assert_eq!(api.register(&record("first")).await.0, StatusCode::OK);
    assert_eq!(api.register(&record("second")).await.0, StatusCode::OK);
    let (status, answer) = api.register(&record("third")).await;
    assert_eq!(status, StatusCode::CONFLICT, "{answer}");
    assert_eq!(
        answer,
        json!({"error": "the registry is full: it holds at most 2 agents"})
    );
    // Registering again is not one more.
    assert_eq!(api.register(&record("second")).await.0, StatusCode::OK);
    api.delete("/agents/first").await;
    assert_eq!(api.register(&record("third")).await.0, StatusCode::OK);
    assert_eq!(
        api.register(&record("fourth")).await.0,
        StatusCode::CONFLICT
    );
    // Expired agents do not count.
    clock.advance(Duration::from_secs(30));
    assert_eq!(api.register(&record("fourth")).await.0, StatusCode::OK);
    assert_eq!(api.register(&record("fifth")).await.0, StatusCode::OK);
    assert_eq!(api.register(&record("sixth")).await.0, StatusCode::CONFLICT);
    api.registry.close().await;
}

async fn concurrent_registrations_never_exceed_max_agents(backend: &Backend) {
    // Two registries over one database (on PostgreSQL; SQLite's are separate), racing.
    let options = || RegistryOptions::new().max_agents(5);
    let apis = [
        Api::new(backend.registry(options()).await),
        Api::new(backend.registry(options()).await),
    ];
    let shared = matches!(backend, Backend::Postgres { .. });
    let mut calls = Vec::new();
    for index in 0..20 {
        let api = apis[index % 2].clone();
        calls.push(tokio::spawn(async move {
            api.register(&record(&format!("racer-{index}"))).await.0
        }));
    }
    let mut registered = [0, 0];
    for (index, call) in calls.into_iter().enumerate() {
        match call.await.unwrap() {
            StatusCode::OK => registered[index % 2] += 1,
            StatusCode::CONFLICT => {}
            other => panic!("racer-{index}: {other}"),
        }
    }
    if shared {
        assert_eq!(registered[0] + registered[1], 5, "{registered:?}");
    } else {
        assert_eq!(registered, [5, 5]);
    }
    for api in apis {
        api.registry.close().await;
    }
}

async fn fast_churn_always_succeeds(backend: &Backend) {
    let api = Api::new(backend.registry(RegistryOptions::new()).await);
    // Churn: 50+ fast register/deregister cycles, each one answered 200.
    for cycle in 0..50 {
        let body = tagged("churner", &[&format!("cycle-{cycle}")]);
        assert_eq!(api.register(&body).await.0, StatusCode::OK, "cycle {cycle}");
        let deregister = if cycle % 2 == 0 {
            api.post("/agents/deregister", &json!({"agent_id": "churner"}))
                .await
        } else {
            api.delete("/agents/churner").await
        };
        assert_eq!(
            deregister.0,
            StatusCode::OK,
            "cycle {cycle}: {}",
            deregister.1
        );
    }
    // Churn: 100+ fast heartbeats, concurrent, each one answered 200.
    for id in ["beat-a", "beat-b"] {
        api.register(&record(id)).await;
    }
    let mut beats = Vec::new();
    for beat in 0..100 {
        let api = api.clone();
        beats.push(tokio::spawn(async move {
            let id = if beat % 2 == 0 { "beat-a" } else { "beat-b" };
            api.heartbeat(id).await
        }));
    }
    for beat in beats {
        let (status, answer) = beat.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    // Concurrent registrations of one id stay one agent.
    let mut registrations = Vec::new();
    for _ in 0..20 {
        let api = api.clone();
        registrations.push(tokio::spawn(
            async move { api.register(&record("same")).await },
        ));
    }
    let mut first_registered = std::collections::HashSet::new();
    for registration in registrations {
        let (status, answer) = registration.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{answer}");
        first_registered.insert(answer["registered_at"].as_str().unwrap().to_owned());
    }
    let (_, listed) = api.get("/agents").await;
    assert_eq!(listed.as_array().unwrap().len(), 3, "{listed}");
    let (_, same) = api.get("/agents/same").await;
    assert!(first_registered.contains(same["registered_at"].as_str().unwrap()));
    api.registry.close().await;
}

async fn the_directory_finds_live_agents_with_their_urls(backend: &Backend) {
    let registry = backend.registry(RegistryOptions::new()).await;
    let mut card = v1_card("Recipe Agent");
    card["agent_id"] = json!("recipes");
    registry.register(card).await.unwrap();
    registry.register(record("echo-agent")).await.unwrap();

    let found = registry.find("recipes").await.unwrap().unwrap();
    assert_eq!(found.agent_id, "recipes");
    assert_eq!(found.name, "Recipe Agent");
    assert_eq!(
        found.jsonrpc_url.as_deref(),
        Some("https://agent.example.com/a2a")
    );
    assert_eq!(
        found.rest_url.as_deref(),
        Some("https://agent.example.com/rest")
    );
    assert!(found.card.get("agent_id").is_none(), "{}", found.card);
    assert_eq!(found.card["skills"][0]["tags"], json!(["cooking"]));
    let echo = registry.find("echo-agent").await.unwrap().unwrap();
    assert_eq!(
        echo.jsonrpc_url.as_deref(),
        Some("http://127.0.0.1:9000/echo-agent")
    );
    assert_eq!(echo.rest_url, None);
    assert!(registry.find("missing").await.unwrap().is_none());
    registry.deregister("echo-agent").await.unwrap();
    assert!(
        registry.find("echo-agent").await.unwrap().is_none(),
        "deregistered: not found"
    );
    registry.close().await;
}

async fn ids_that_are_route_names_are_reachable(backend: &Backend) {
    let api = Api::new(backend.registry(RegistryOptions::new()).await);
    for id in ["register", "heartbeat", "deregister"] {
        let (status, _) = api.register(&record(id)).await;
        assert_eq!(status, StatusCode::OK, "{id}");
        let (status, read) = api.get(&format!("/agents/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{id}");
        assert_eq!(read["agent_id"], id);
        assert_eq!(api.heartbeat(id).await.0, StatusCode::OK, "{id}");
        assert_eq!(
            api.delete(&format!("/agents/{id}")).await.0,
            StatusCode::OK,
            "{id}"
        );
        assert_eq!(
            api.get(&format!("/agents/{id}")).await.0,
            StatusCode::NOT_FOUND,
            "{id}"
        );
    }
    api.registry.close().await;
}
