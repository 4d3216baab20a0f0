//! The registry under load: `max_agents`, racing registrations and fast churn.

use std::time::Duration;

use a2a_gateway::registry::RegistryOptions;
use axum::http::StatusCode;
use serde_json::json;

use crate::on_both_backends;
use crate::support::{Api, Backend, ManualClock, record, tagged};
use crate::with_clock;

on_both_backends!(
    the_registry_refuses_agents_beyond_max_agents,
    concurrent_registrations_never_exceed_max_agents,
    fast_churn_always_succeeds,
);

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
    let shared = matches!(backend, Backend::Postgres(_));
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
