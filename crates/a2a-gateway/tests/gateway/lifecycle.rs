//! An agent's registration as the proxy sees it: expiry without heartbeats, heartbeats that
//! keep it routable, deregistration both ways, and registering again, over a registry whose
//! clock the test moves.

use std::time::Duration;

use a2a_gateway::proxy::ProxyConfig;
use a2a_gateway::registry::RegistryOptions;
use serde_json::json;

use crate::fleet::{Running, assert_echoed, assert_not_found, real_agent};
use crate::support::ManualClock;

/// The registry's default `AgentTTLSeconds`.
const TTL: Duration = Duration::from_secs(300);

#[tokio::test]
async fn an_agent_without_heartbeats_expires_and_registers_again() {
    let clock = ManualClock::new();
    let gateway = Running::with_clock(&clock).await;
    let (body, _) = real_agent("expiring-01").await;
    let (status, first) = gateway.register(&body).await;
    assert_eq!(status, 200, "{first}");
    assert_echoed(&gateway.send("expiring-01", "alive").await, "alive");

    clock.advance(TTL - Duration::from_secs(1));
    assert_echoed(&gateway.send("expiring-01", "just").await, "just");
    assert_eq!(gateway.registered_gauge().await, 1);

    // One TTL after the registration, with no heartbeat, the agent is gone: for the proxy
    // (-32002), the registry API and the gauge, counted at the scrape.
    clock.advance(Duration::from_secs(2));
    assert_not_found(&gateway.send("expiring-01", "late").await, "expiring-01");
    assert_eq!(gateway.get("/agents/expiring-01").await.0, 404);
    assert_eq!(gateway.get("/agents").await.1, json!([]));
    assert_eq!(gateway.registered_gauge().await, 0);
    // Its heartbeat is refused (400); it must register again.
    let (status, refused) = gateway.heartbeat("expiring-01").await;
    assert_eq!(
        (status, refused),
        (400, json!({"error": "agent not found"}))
    );

    // Registering again after expiry works, as a new registration.
    let (status, again) = gateway.register(&body).await;
    assert_eq!(status, 200, "{again}");
    assert_ne!(again["registered_at"], first["registered_at"]);
    assert_echoed(&gateway.send("expiring-01", "back").await, "back");
    assert_eq!(gateway.registered_gauge().await, 1);
}

#[tokio::test]
async fn heartbeats_keep_an_agent_routable_past_its_ttl() {
    let clock = ManualClock::new();
    let gateway = Running::with_clock(&clock).await;
    gateway.register_agent("beating-01").await;
    // Heartbeats every 200 s: 1000 s later, three TTLs after registering, it is still live.
    for _ in 0..5 {
        clock.advance(Duration::from_secs(200));
        let (status, beat) = gateway.heartbeat("beating-01").await;
        assert_eq!(status, 200, "{beat}");
        assert_eq!(beat["agent_id"], "beating-01");
    }
    assert_echoed(&gateway.send("beating-01", "kept").await, "kept");
    // Heartbeats stop: one TTL after the last, it expires.
    clock.advance(TTL + Duration::from_secs(1));
    assert_not_found(&gateway.send("beating-01", "gone").await, "beating-01");
}

#[tokio::test]
async fn a_deregistered_agent_is_agent_not_found_and_may_register_again() {
    let clock = ManualClock::new();
    let gateway = Running::with_clock(&clock).await;
    let (first, _) = real_agent("leaving-01").await;
    let (second, _) = real_agent("leaving-02").await;
    for body in [&first, &second] {
        assert_eq!(gateway.register(body).await.0, 200);
    }
    assert_echoed(&gateway.send("leaving-01", "one").await, "one");
    assert_echoed(&gateway.send("leaving-02", "two").await, "two");

    // Deregistration, both ways; the proxy stops routing at once, so an agent shutting down
    // can deregister and then drain.
    let (status, gone) = gateway
        .registry_post("/agents/deregister", &json!({"agent_id": "leaving-01"}))
        .await;
    assert_eq!(status, 200, "{gone}");
    let (status, gone) = gateway.delete("/agents/leaving-02").await;
    assert_eq!(status, 200, "{gone}");
    assert_not_found(&gateway.send("leaving-01", "one").await, "leaving-01");
    assert_not_found(&gateway.send("leaving-02", "two").await, "leaving-02");
    // A second deregistration finds nothing.
    assert_eq!(
        gateway.delete("/agents/leaving-02").await,
        (404, json!({"error": "agent not found"}))
    );

    // Registering again restores routing.
    assert_eq!(gateway.register(&first).await.0, 200);
    assert_echoed(&gateway.send("leaving-01", "again").await, "again");
    assert_not_found(&gateway.send("leaving-02", "two").await, "leaving-02");
}

#[tokio::test]
async fn a_short_ttl_expires_an_agent_on_the_system_clock() {
    // The same without a test clock: a TTL of 1 s.
    let options = RegistryOptions::new()
        .agent_ttl(Duration::from_secs(1))
        .cleanup_interval(Duration::from_millis(100));
    let gateway = Running::with(options, ProxyConfig::default()).await;
    gateway.register_agent("brief-01").await;
    assert_echoed(&gateway.send("brief-01", "now").await, "now");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(gateway.heartbeat("brief-01").await.0, 200);
    tokio::time::sleep(Duration::from_millis(600)).await;
    // 1.2 s after registering, 0.6 s after the heartbeat: live.
    assert_echoed(&gateway.send("brief-01", "still").await, "still");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_not_found(&gateway.send("brief-01", "gone").await, "brief-01");
}
