//! Registering and reading agents: the record the registry answers with, what it refuses,
//! registering again, listing by skill tag, reading by id, and the directory the proxy asks.

use std::time::Duration;

use a2a_gateway::agent::AgentDirectory as _;
use a2a_gateway::registry::{Clock as _, RegistryOptions};
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Api, Backend, ManualClock, record, tagged, v1_card};
use crate::{time, with_clock};

on_both_backends!(
    registration_answers_with_the_enriched_record,
    invalid_registrations_are_refused_with_400,
    registering_again_keeps_registered_at,
    agents_are_listed_by_skill_tag_and_limit,
    an_agent_is_read_by_id,
    ids_that_are_route_names_are_reachable,
    the_directory_finds_live_agents_with_their_urls,
);

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
            "no JSONRPC, HTTP+JSON or GRPC 1.x interface",
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
