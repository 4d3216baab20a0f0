//! What the sample configuration files say beyond `--help`: an example value for each setting
//! whose default is not a value (off, computed, none), and the setting another one only
//! matters with. [`super::print`] writes them into `--print-config`'s file.

/// A note on one setting, by its TOML key.
#[derive(Debug, Clone, Copy)]
pub(super) enum Hint {
    /// A value to show, commented out: the setting has no default value.
    Example(&'static str),
    /// The default matters only with this other setting (`push_notifications = true`).
    With(&'static str),
}

/// The notes of `a2a serve`'s settings.
pub(super) const SERVE: &[(&str, Hint)] = &[
    ("cors_origins", Hint::Example(r#"["https://app.example"]"#)),
    (
        "max_push_configs_per_task",
        Hint::With(r#"push_notifications = true"#),
    ),
    ("public_url", Hint::Example(r#""https://agent.example""#)),
    ("base_path", Hint::Example(r#""/a2a""#)),
    ("protocol_binding", Hint::Example(r#""JSONRPC""#)),
    ("grpc_bind", Hint::Example(r#""127.0.0.1:50051""#)),
    ("grpc_public_url", Hint::Example(r#""agent.example:50051""#)),
    ("cors_origins", Hint::Example(r#"["https://app.example"]"#)),
    (
        "allow_local_webhooks",
        Hint::With(r#"push_notifications = true"#),
    ),
    (
        "push_retry_attempts",
        Hint::With(r#"push_notifications = true"#),
    ),
    (
        "push_retry_backoff",
        Hint::With(r#"push_notifications = true"#),
    ),
    ("push_timeout", Hint::With(r#"push_notifications = true"#)),
    ("push_claim_ttl", Hint::With(r#"push_notifications = true"#)),
    (
        "max_push_configs_per_task",
        Hint::With(r#"push_notifications = true"#),
    ),
    (
        "push_signing_key",
        Hint::Example(r#""push-signing-key.pem""#),
    ),
    ("api_key", Hint::Example(r#""change-me""#)),
    ("api_key_header", Hint::With(r#"api_key"#)),
    ("bearer_token", Hint::Example(r#""change-me""#)),
    (
        "jwks_url",
        Hint::Example(r#""https://issuer.example/.well-known/jwks.json""#),
    ),
    ("oidc_issuer", Hint::Example(r#""https://issuer.example""#)),
    ("issuer", Hint::Example(r#""https://issuer.example""#)),
    ("audience", Hint::Example(r#""https://agent.example""#)),
    ("required_scopes", Hint::Example(r#""a2a.read,a2a.write""#)),
    (
        "introspection_url",
        Hint::Example(r#""https://issuer.example/introspect""#),
    ),
    ("introspection_client_id", Hint::Example(r#""agent""#)),
    (
        "introspection_client_secret",
        Hint::Example(r#""change-me""#),
    ),
    ("tls_cert", Hint::Example(r#""cert.pem""#)),
    ("tls_key", Hint::Example(r#""key.pem""#)),
    ("client_ca", Hint::Example(r#""client-ca.pem""#)),
    ("register", Hint::Example(r#""http://127.0.0.1:9090""#)),
    ("agent_id", Hint::Example(r#""my-agent""#)),
    ("heartbeat_interval", Hint::With(r#"register"#)),
    ("register_key", Hint::Example(r#""change-me""#)),
    ("register_cacert", Hint::Example(r#""gateway-ca.pem""#)),
    ("card", Hint::Example(r#""card.json""#)),
    (
        "card_url",
        Hint::Example(r#""https://agents.example.com/.well-known/agent-card.json""#),
    ),
    (
        "card_json",
        Hint::Example(r#"'{"name": "My agent", "description": "Answers", "version": "1.0.0"}'"#),
    ),
    ("extended_card", Hint::Example(r#""extended-card.json""#)),
    ("name", Hint::Example(r#""My agent""#)),
    ("description", Hint::Example(r#""Answers questions""#)),
    ("version", Hint::Example(r#""1.0.0""#)),
    (
        "card_signing_key",
        Hint::Example(r#""card-signing-key.pem""#),
    ),
    ("card_signing_key_id", Hint::Example(r#""card-key-1""#)),
    ("data_format", Hint::With(r#"agent = "exec""#)),
    ("command", Hint::Example(r#"["tr", "a-z", "A-Z"]"#)),
    ("model", Hint::Example(r#""gpt-4o-mini""#)),
    ("model_url", Hint::With(r#"agent = "llm""#)),
    ("system", Hint::Example(r#""system-prompt.txt""#)),
    (
        "mcp",
        Hint::Example(r#"["npx -y @modelcontextprotocol/server-filesystem /srv/files"]"#),
    ),
    ("mcp_url", Hint::Example(r#"["http://127.0.0.1:3001/mcp"]"#)),
    ("approve", Hint::Example(r#"["write_*"]"#)),
    ("deny", Hint::Example(r#"["delete_*"]"#)),
    ("max_steps", Hint::With(r#"agent = "llm""#)),
    ("token_budget", Hint::With(r#"agent = "llm""#)),
    ("run_time_limit", Hint::With(r#"agent = "llm""#)),
    ("tool_timeout", Hint::With(r#"agent = "llm""#)),
    ("max_tool_output", Hint::With(r#"agent = "llm""#)),
    ("model_api_key", Hint::Example(r#""change-me""#)),
    ("approval_key", Hint::Example(r#""change-me""#)),
    ("instance_id", Hint::Example(r#""instance-1""#)),
    ("max_stored_tasks", Hint::With(r#"store = "memory""#)),
    ("store_cleanup_interval", Hint::With(r#"store = "memory""#)),
    ("stuck_task_ttl", Hint::With(r#"store = "memory""#)),
    ("assume_version", Hint::Example(r#""1.0""#)),
    (
        "page_token_key",
        Hint::Example(r#""at-least-16-bytes-of-secret""#),
    ),
];

/// The notes of `a2a gateway`'s settings.
pub(super) const GATEWAY: &[(&str, Hint)] = &[
    ("metrics_bind", Hint::Example(r#""127.0.0.1:9091""#)),
    ("public_url", Hint::Example(r#""https://agent.example""#)),
    ("metrics_bind", Hint::Example(r#""127.0.0.1:9091""#)),
    ("cors_origins", Hint::Example(r#"["https://app.example"]"#)),
    ("tls_cert", Hint::Example(r#""cert.pem""#)),
    ("tls_key", Hint::Example(r#""key.pem""#)),
    ("registry_key", Hint::Example(r#""change-me""#)),
    ("card_keys", Hint::Example(r#""card-keys.json""#)),
    (
        "jwks_url",
        Hint::Example(r#""https://issuer.example/.well-known/jwks.json""#),
    ),
    ("issuer", Hint::Example(r#""https://issuer.example""#)),
    ("oidc_issuer", Hint::Example(r#""https://issuer.example""#)),
    ("audience", Hint::Example(r#""https://agent.example""#)),
];
