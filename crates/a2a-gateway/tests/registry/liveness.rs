//! How long an agent stays: heartbeats, deregistering, and expiry after the TTL without one.

use std::sync::Arc;
use std::time::Duration;

use a2a_gateway::agent::AgentDirectory as _;
use a2a_gateway::registry::RegistryOptions;
use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::on_both_backends;
use crate::support::{Api, Backend, ManualClock, record};
use crate::{time, with_clock};

on_both_backends!(
    heartbeats_move_last_seen,
    agents_deregister_both_ways,
    agents_without_heartbeats_expire,
);

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
