//! The public card's `Cache-Control: max-age` follows `ServerConfig::card_max_age`.

use std::time::Duration;

use a2a_server::{A2aServer, ServerConfig};
use reqwest::Method;

use crate::support::{BindingEcho, TestServer, standard_card};

#[tokio::test]
async fn the_card_cache_max_age_is_the_configured_one() {
    let mut config = ServerConfig::default();
    config.card_max_age = Duration::from_secs(120);
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), BindingEcho).config(config))
            .await;
    let response = server
        .send(Method::GET, "/.well-known/agent-card.json", &[], None)
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("cache-control"), Some("max-age=120"));
    assert!(response.header("etag").is_some());
}
