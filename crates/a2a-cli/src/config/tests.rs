//! The merge order and the checks, on the module itself: no process environment is read or
//! changed, so these tests cannot disturb each other.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use super::*;

/// `a2a serve` flags, parsed as the binary would.
#[derive(Debug, Parser)]
struct Flags {
    #[command(flatten)]
    options: ServeOptions,
}

fn flags(args: &[&str]) -> ServeOptions {
    let argv = std::iter::once("a2a-serve").chain(args.iter().copied());
    Flags::try_parse_from(argv).unwrap().options
}

fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    pairs
        .iter()
        .map(|(name, value)| (OsString::from(name), OsString::from(value)))
        .collect()
}

/// A TOML file in the temp directory, removed on drop (the `names` tests use it too).
pub(super) struct TempFile(pub(super) PathBuf);

impl TempFile {
    pub(super) fn new(name: &str, text: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("a2a-cli-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Self(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn error_text(result: Result<Settings, ConfigError>) -> String {
    result.unwrap_err().to_string()
}

/// The in-memory store's settings, which the test chose.
fn memory(settings: &Settings) -> a2a_server::store::InMemoryTaskStoreConfig {
    match &settings.store {
        StoreSetting::Memory(config) => *config,
        StoreSetting::Sql { .. } => panic!("expected the memory store"),
    }
}

#[test]
fn stores_are_sqlite_postgres_or_memory_and_their_options_are_checked() {
    let with = |store: &str, extra: ServeOptions| {
        load(
            ServeOptions {
                store: Some(store.to_owned()),
                ..extra
            },
            None,
            env(&[]),
        )
    };
    let settings = with("postgres://u:secret@db/agents", ServeOptions::default()).unwrap();
    assert!(matches!(settings.store, StoreSetting::Sql { .. }));
    assert_eq!(
        settings.store.describe(),
        "postgres",
        "no URL, no password in logs"
    );
    let settings = with("sqlite:///var/lib/a2a/tasks.db", ServeOptions::default()).unwrap();
    assert_eq!(settings.store.describe(), "sqlite:///var/lib/a2a/tasks.db");
    let unknown = error_text(with("mysql://u:secret@db/x", ServeOptions::default()));
    assert!(unknown.contains("unknown store `mysql`"), "{unknown}");
    assert!(!unknown.contains("secret"), "{unknown}");
    let capped = error_text(with(
        "sqlite://a.db",
        ServeOptions {
            max_stored_tasks: Some(5),
            ..ServeOptions::default()
        },
    ));
    assert!(capped.contains("--store memory only"), "{capped}");
    let no_pool = error_text(with(
        "sqlite://a.db",
        ServeOptions {
            store_max_connections: Some(0),
            ..ServeOptions::default()
        },
    ));
    assert!(no_pool.contains("store-max-connections"), "{no_pool}");
}

#[test]
fn nothing_given_means_the_documented_defaults() {
    let settings = load(ServeOptions::default(), None, env(&[])).unwrap();
    assert_eq!(settings.bind, "127.0.0.1:8080");
    assert_eq!(settings.public_url, None);
    assert_eq!(settings.base_path, "");
    assert_eq!(settings.card_path, "/.well-known/agent-card.json");
    assert_eq!(settings.protocol_binding, None);
    assert_eq!(settings.agent, AgentSetup::Echo);
    // By default tasks are kept in a SQLite file in the working directory.
    match &settings.store {
        StoreSetting::Sql { url, .. } => assert_eq!(url, "sqlite://a2a.db"),
        StoreSetting::Memory(_) => panic!("the default store is SQLite"),
    }
    let server = &settings.server;
    assert!(!server.default_return_immediately);
    assert_eq!(server.async_timeout, Duration::from_millis(300_000));
    assert_eq!(server.blocking_timeout, Duration::from_secs(30));
    assert_eq!(server.event_consumption_timeout, Duration::from_secs(5));
    assert_eq!(server.store_reconciliation_timeout, Duration::from_secs(1));
    assert!(server.populate_referenced_tasks);
    assert_eq!(server.max_concurrent_tasks, 0);
    assert_eq!(server.task_queue_size, 0);
    assert_eq!(server.max_payload_size, 6_291_456);
    assert_eq!(server.sse_keepalive, Duration::from_millis(15_000));
    assert_eq!(server.sse_queue_capacity, 1000);
    assert!(server.cors.is_none());
    assert_eq!(settings.shutdown_grace, Duration::from_secs(10));
    assert_eq!(settings.log_format, LogFormat::Text);
}

#[test]
fn a_flag_beats_the_environment_which_beats_the_file() {
    let file = TempFile::new(
        "precedence.toml",
        "max_concurrent_tasks = 1\ntask_queue_size = 1\nmax_payload_size = 1\n",
    );
    let environment = env(&[
        ("A2A_MAX_CONCURRENT_TASKS", "2"),
        ("A2A_TASK_QUEUE_SIZE", "2"),
    ]);
    let settings = load(
        flags(&["--max-concurrent-tasks", "3"]),
        Some(file.0.clone()),
        environment,
    )
    .unwrap();
    assert_eq!(settings.server.max_concurrent_tasks, 3, "flag");
    assert_eq!(settings.server.task_queue_size, 2, "environment");
    assert_eq!(settings.server.max_payload_size, 1, "file");
}

#[test]
fn every_option_can_be_set_in_the_file() {
    let file = TempFile::new(
        "every.toml",
        r#"
bind = "0.0.0.0:9000"
public_url = "https://agent.example.com/"
base_path = "/agents//echo/"
card_path = "card.json"
protocol_binding = "rest"
cors = true
card = "card.json"
name = "Filed"
description = "From the file"
version = "2.0.0"
agent = "exec"
command = ["tr", "a-z", "A-Z"]
store = "memory"
completed_task_ttl = "10m"
max_stored_tasks = 5
return_immediately = true
async_timeout = 1000
max_concurrent_tasks = 4
task_queue_size = 2
max_payload_size = 1024
sse_heartbeat_interval = "5s"
sse_queue_capacity = 10
shutdown_grace = "1s"
log_format = "json"
log_level = "warn"
"#,
    );
    let settings = load(ServeOptions::default(), Some(file.0.clone()), env(&[])).unwrap();
    assert_eq!(settings.bind, "0.0.0.0:9000");
    assert_eq!(
        settings.public_url.as_deref(),
        Some("https://agent.example.com")
    );
    assert_eq!(settings.base_path, "/agents/echo");
    assert_eq!(settings.card_path, "/card.json");
    assert_eq!(
        settings.protocol_binding,
        Some(a2a_types::ProtocolBinding::HttpJson)
    );
    assert!(settings.server.cors.is_some());
    // Relative to the file, not to the working directory.
    assert_eq!(
        settings.card.file,
        Some(file.0.parent().unwrap().join("card.json"))
    );
    assert_eq!(settings.card.name.as_deref(), Some("Filed"));
    assert_eq!(
        settings.agent,
        AgentSetup::Exec(ExecCommand {
            program: "tr".into(),
            args: vec!["a-z".into(), "A-Z".into()],
            data_format: super::DataFormat::Payload,
        })
    );
    assert_eq!(
        memory(&settings).completed_task_ttl,
        Duration::from_secs(600)
    );
    assert_eq!(memory(&settings).max_stored_tasks, 5);
    assert!(settings.server.default_return_immediately);
    assert_eq!(settings.server.async_timeout, Duration::from_secs(1));
    assert_eq!(settings.server.max_concurrent_tasks, 4);
    assert_eq!(settings.server.task_queue_size, 2);
    assert_eq!(settings.server.max_payload_size, 1024);
    assert_eq!(settings.server.sse_keepalive, Duration::from_secs(5));
    assert_eq!(settings.server.sse_queue_capacity, 10);
    assert_eq!(settings.shutdown_grace, Duration::from_secs(1));
    assert_eq!(settings.log_format, LogFormat::Json);
}

#[test]
fn environment_variables_are_named_after_the_flags() {
    let environment = env(&[
        ("A2A_BIND", "127.0.0.1:0"),
        ("A2A_AGENT", "conformance"),
        ("A2A_CORS", "yes"),
        ("A2A_RETURN_IMMEDIATELY", "true"),
        ("A2A_ASYNC_TIMEOUT", "2s"),
        ("A2A_SSE_HEARTBEAT_INTERVAL", "500"),
        ("A2A_NAME", "From env"),
        ("A2A_VERSION", "3.1.4"),
        // Empty means unset; unknown names are somebody else's.
        ("A2A_LOG_LEVEL", ""),
        ("A2A_SOMETHING_ELSE", "whatever"),
        ("PATH", "/bin"),
    ]);
    let settings = load(ServeOptions::default(), None, environment).unwrap();
    assert_eq!(settings.bind, "127.0.0.1:0");
    assert_eq!(settings.agent, AgentSetup::Conformance);
    assert!(settings.server.cors.is_some());
    assert!(settings.server.default_return_immediately);
    assert_eq!(settings.server.async_timeout, Duration::from_secs(2));
    assert_eq!(settings.server.sse_keepalive, Duration::from_millis(500));
    assert_eq!(settings.card.name.as_deref(), Some("From env"));
    assert_eq!(settings.card.version.as_deref(), Some("3.1.4"));
}

#[test]
fn a2a_config_names_the_file_unless_the_flag_does() {
    let from_env = TempFile::new(
        "from-env.toml",
        "store = \"memory\"\nmax_stored_tasks = 7\n",
    );
    let from_flag = TempFile::new(
        "from-flag.toml",
        "store = \"memory\"\nmax_stored_tasks = 8\n",
    );
    let environment = || env(&[("A2A_CONFIG", from_env.0.to_str().unwrap())]);
    let settings = load(ServeOptions::default(), None, environment()).unwrap();
    assert_eq!(memory(&settings).max_stored_tasks, 7);
    let settings = load(
        ServeOptions::default(),
        Some(from_flag.0.clone()),
        environment(),
    )
    .unwrap();
    assert_eq!(memory(&settings).max_stored_tasks, 8);
}

#[test]
fn bare_boolean_flags_mean_true() {
    let options = flags(&["--cors", "--return-immediately=false"]);
    assert_eq!(options.cors, Some(true));
    assert_eq!(options.return_immediately, Some(false));
}

#[test]
fn bad_values_name_their_source() {
    let bad_env = load(
        ServeOptions::default(),
        None,
        env(&[("A2A_MAX_STORED_TASKS", "many")]),
    );
    let text = error_text(bad_env);
    assert!(
        text.starts_with("environment variable A2A_MAX_STORED_TASKS: "),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");

    let file = TempFile::new(
        "typo.toml",
        "bind = \"127.0.0.1:1\"\nmax_concurent_tasks = 3\n",
    );
    let text = error_text(load(
        ServeOptions::default(),
        Some(file.0.clone()),
        env(&[]),
    ));
    assert!(
        text.contains("typo.toml: line 2: unknown key `max_concurent_tasks`"),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");

    let missing = PathBuf::from("/nonexistent/a2a.toml");
    let text = error_text(load(ServeOptions::default(), Some(missing), env(&[])));
    assert_eq!(text, "cannot read config file /nonexistent/a2a.toml");
}

#[test]
fn inconsistent_or_unavailable_choices_are_refused() {
    let cases: [(&[&str], &str); 9] = [
        (&["--agent", "exec"], "--agent: exec needs a command"),
        (
            &["--push-notifications", "--push-claim-ttl", "10s"],
            "--push-claim-ttl: must be longer than the delivery time limit (10000 ms)",
        ),
        (
            &["--push-claim-ttl", "20s"],
            "--push-claim-ttl: applies only with --push-notifications",
        ),
        (
            &["--", "tr"],
            "--agent: a command (`tr` …) is only used by --agent exec",
        ),
        (
            &["--store", "sqlite://tasks.db", "--lease-ttl", "0"],
            "--lease-ttl: must be more than 0",
        ),
        (&["--store", "redis"], "unknown store `redis`"),
        (
            &["--protocol-binding", "grpc"],
            "--protocol-binding: cannot serve `grpc`",
        ),
        (
            &["--sse-queue-capacity", "0"],
            "--sse-queue-capacity: must be more than 0",
        ),
        (
            &["--public-url", "agent.example.com"],
            "--public-url: `agent.example.com` is not",
        ),
    ];
    for (args, expected) in cases {
        let text = error_text(load(flags(args), None, env(&[])));
        assert!(text.contains(expected), "{args:?}: {text}");
    }
}

#[test]
fn only_a_listener_beyond_loopback_is_insecure() {
    let settings = load(ServeOptions::default(), None, env(&[])).unwrap();
    for local in ["127.0.0.1:8080", "[::1]:8080"] {
        assert!(
            settings
                .insecure_settings(local.parse().unwrap())
                .is_empty()
        );
    }
    // Authentication is on by default; beyond loopback without TLS, credentials travel in
    // the clear.
    let warnings = settings.insecure_settings("0.0.0.0:8080".parse().unwrap());
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("without TLS"), "{warnings:?}");

    let open = load(flags(&["--no-auth"]), None, env(&[])).unwrap();
    let warnings = open.insecure_settings("0.0.0.0:8080".parse().unwrap());
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("without authentication"),
        "{warnings:?}"
    );

    let exec = load(
        flags(&["--no-auth", "--agent", "exec", "--", "sh", "-c", "secret"]),
        None,
        env(&[]),
    )
    .unwrap();
    let warnings = exec.insecure_settings("0.0.0.0:8080".parse().unwrap());
    assert!(warnings[0].contains("runs `sh`"), "{warnings:?}");
    // The arguments may hold credentials, which never appear in logs: only the program is named.
    assert!(!warnings[0].contains("secret"), "{warnings:?}");
}

#[test]
fn security_options_are_checked_together() {
    let cases: [(&[&str], &str); 10] = [
        (
            &["--no-auth", "--api-key", "k"],
            "--no-auth: cannot be combined",
        ),
        (&["--api-key", ""], "--api-key: must not be empty"),
        (
            &["--api-key-header", "X-Key"],
            "--api-key-header: needs --api-key",
        ),
        (
            &["--api-key", "k", "--api-key-header", "bad header"],
            "is not a header name",
        ),
        (
            &["--jwks-url", "https://id.test/jwks", "--audience", "a"],
            "needs --issuer",
        ),
        (
            &["--oidc-issuer", "https://id.test"],
            "--audience: is required",
        ),
        (
            &["--oidc-issuer", "ftp://id.test", "--audience", "a"],
            "is not an http",
        ),
        (
            &["--introspection-url", "https://id.test/i"],
            "needs --introspection-client-id",
        ),
        (&["--tls-key", "k.pem"], "--tls-key: needs --tls-cert"),
        (&["--client-ca", "ca.pem"], "mutual TLS needs HTTPS"),
    ];
    for (args, expected) in cases {
        let text = error_text(load(flags(args), None, env(&[])));
        assert!(text.contains(expected), "{args:?}: {text}");
    }
    let scopes = error_text(load(
        flags(&["--api-key", "k", "--required-scopes", "a"]),
        None,
        env(&[]),
    ));
    assert!(scopes.contains("applies to issued tokens"), "{scopes}");

    let settings = load(
        flags(&[
            "--oidc-issuer",
            "https://id.test/",
            "--audience",
            "https://agent.test",
            "--required-scopes",
            "a2a:call, a2a:admin",
        ]),
        None,
        env(&[("A2A_API_KEY", "from-env")]),
    )
    .unwrap();
    let super::AuthSetting::Required(credentials) = settings.auth else {
        panic!("authentication is on");
    };
    assert_eq!(credentials.required_scopes, ["a2a:call", "a2a:admin"]);
    assert_eq!(
        credentials
            .api_key
            .as_ref()
            .map(|(key, header)| (key.expose(), header.as_str())),
        Some(("from-env", "X-API-Key"))
    );
    assert_eq!(
        credentials.jwt.map(|jwt| jwt.keys),
        Some(super::JwtKeys::Oidc {
            issuer: "https://id.test".into()
        })
    );
    // Secrets never print.
    let printed = format!(
        "{:?}",
        load(flags(&["--bearer-token", "tok-secret"]), None, env(&[])).unwrap()
    );
    assert!(!printed.contains("tok-secret"), "{printed}");
}

/// Every switch for a place where the spec and the products it grew from disagree, set
/// through each of the three sources.
#[test]
fn protocol_versions_is_a_flag_a_variable_and_a_file_key() {
    use a2a_server::config::ProtocolVersions;
    let default = load(ServeOptions::default(), None, env(&[])).unwrap();
    assert_eq!(default.server.protocol_versions, ProtocolVersions::BOTH);
    let by_flag = load(flags(&["--protocol-versions", "1.0"]), None, env(&[])).unwrap();
    assert_eq!(by_flag.server.protocol_versions, ProtocolVersions::V1_ONLY);
    let by_environment = load(
        ServeOptions::default(),
        None,
        env(&[("A2A_PROTOCOL_VERSIONS", "1.0")]),
    )
    .unwrap();
    assert_eq!(
        by_environment.server.protocol_versions,
        ProtocolVersions::V1_ONLY
    );
    let file = TempFile::new("versions.toml", "protocol_versions = \"1.0, 0.3\"\n");
    let by_file = load(ServeOptions::default(), Some(file.0.clone()), env(&[])).unwrap();
    assert_eq!(by_file.server.protocol_versions, ProtocolVersions::BOTH);
    for wrong in ["0.3", "2.0", "1.0,0.2"] {
        let error = load(flags(&["--protocol-versions", wrong]), None, env(&[])).unwrap_err();
        assert!(error.to_string().contains("protocol-versions"), "{error}");
    }
}

#[test]
fn every_protocol_choice_is_a_flag_a_variable_and_a_file_key() {
    let check = |settings: Settings| {
        let server = &settings.server;
        assert_eq!(
            server.rest_status_profile,
            a2a_types::error::RestStatusProfile::Camel
        );
        assert!(server.strict_extensions);
        assert_eq!(
            server.cross_owner,
            a2a_server::config::CrossOwner::Forbidden
        );
        assert!(server.idempotent_cancel);
        assert!(server.lenient_message_id);
        assert_eq!(server.assume_version_when_absent.as_deref(), Some("1.0"));
        assert!(server.subscribe_ends_on_interrupt);
        assert_eq!(
            server.page_token_key.as_deref(),
            Some(b"0123456789abcdef-key".as_slice())
        );
        assert_eq!(
            settings.card.extended.as_deref(),
            Some(std::path::Path::new("extended.json"))
        );
    };
    let by_flags = flags(&[
        "--rest-status-profile",
        "camel",
        "--strict-extensions",
        "--cross-owner",
        "forbidden",
        "--idempotent-cancel",
        "--lenient-message-id=true",
        "--assume-version",
        "1.0",
        "--subscribe-ends-on-interrupt",
        "--page-token-key",
        "0123456789abcdef-key",
        "--extended-card",
        "extended.json",
    ]);
    check(load(by_flags, None, env(&[])).unwrap());
    let by_environment = env(&[
        ("A2A_REST_STATUS_PROFILE", "camel"),
        ("A2A_STRICT_EXTENSIONS", "true"),
        ("A2A_CROSS_OWNER", "forbidden"),
        ("A2A_IDEMPOTENT_CANCEL", "1"),
        ("A2A_LENIENT_MESSAGE_ID", "yes"),
        ("A2A_ASSUME_VERSION", "1.0"),
        ("A2A_SUBSCRIBE_ENDS_ON_INTERRUPT", "true"),
        ("A2A_PAGE_TOKEN_KEY", "0123456789abcdef-key"),
        ("A2A_EXTENDED_CARD", "extended.json"),
    ]);
    check(load(ServeOptions::default(), None, by_environment).unwrap());
    let file = TempFile::new(
        "choices.toml",
        "rest_status_profile = \"camel\"\nstrict_extensions = true\ncross_owner = \"forbidden\"\n\
         idempotent_cancel = true\nlenient_message_id = true\nassume_version = \"1.0\"\n\
         subscribe_ends_on_interrupt = true\npage_token_key = \"0123456789abcdef-key\"\n\
         extended_card = \"extended.json\"\n",
    );
    check(load(ServeOptions::default(), Some(file.0.clone()), env(&[])).unwrap());

    // Nothing given: the spec's reading everywhere.
    let server = load(ServeOptions::default(), None, env(&[]))
        .unwrap()
        .server;
    assert_eq!(
        server.rest_status_profile,
        a2a_types::error::RestStatusProfile::Spec
    );
    assert!(!server.strict_extensions);
    assert_eq!(server.cross_owner, a2a_server::config::CrossOwner::NotFound);
    assert!(!server.idempotent_cancel && !server.lenient_message_id);
    assert_eq!(server.assume_version_when_absent, None);
    assert!(!server.subscribe_ends_on_interrupt);
    assert_eq!(server.page_token_key, None);
}

#[test]
fn protocol_choices_with_unusable_values_are_refused_without_echoing_secrets() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--rest-status-profile", "teapot"],
            "--rest-status-profile: unknown profile `teapot`; expected spec, camel or rfc7807-java",
        ),
        (
            &["--assume-version", "0.3"],
            "--assume-version: `0.3` is not a version this server speaks",
        ),
        (
            &["--assume-version", "1.x"],
            "--assume-version: `1.x` is not a version this server speaks",
        ),
        (
            &["--page-token-key", "short-secret"],
            "--page-token-key: must be at least 16 bytes, got 12",
        ),
    ];
    for (args, expected) in cases {
        let text = error_text(load(flags(args), None, env(&[])));
        assert!(text.contains(expected), "{args:?}: {text}");
        assert!(!text.contains("short-secret"), "{text}");
    }
    let argv = ["a2a-serve", "--cross-owner", "maybe"];
    assert!(Flags::try_parse_from(argv).is_err());
}

#[test]
fn the_stuck_task_ttl_is_read_from_each_source_and_refused_for_sql_stores() {
    let settings = load(ServeOptions::default(), None, env(&[])).unwrap();
    assert_eq!(
        settings.server.stuck_task_ttl,
        Duration::ZERO,
        "off by default"
    );
    let settings = load(
        flags(&["--store", "memory", "--stuck-task-ttl", "10m"]),
        None,
        env(&[]),
    )
    .unwrap();
    assert_eq!(settings.server.stuck_task_ttl, Duration::from_secs(600));
    let settings = load(
        flags(&["--store", "memory"]),
        None,
        env(&[("A2A_STUCK_TASK_TTL", "1500")]),
    )
    .unwrap();
    assert_eq!(settings.server.stuck_task_ttl, Duration::from_millis(1500));
    let file = TempFile::new(
        "stuck.toml",
        "store = \"memory\"\nstuck_task_ttl = \"2s\"\n",
    );
    let settings = load(ServeOptions::default(), Some(file.0.clone()), env(&[])).unwrap();
    assert_eq!(settings.server.stuck_task_ttl, Duration::from_secs(2));

    let refused = error_text(load(
        flags(&["--store", "sqlite://a.db", "--stuck-task-ttl", "10m"]),
        None,
        env(&[]),
    ));
    assert!(refused.contains("stuck-task-ttl"), "{refused}");
    assert!(refused.contains("--store memory only"), "{refused}");
    let off = load(
        flags(&["--store", "sqlite://a.db", "--stuck-task-ttl", "0"]),
        None,
        env(&[]),
    );
    assert!(off.is_ok(), "0 is off, which any store accepts");
}

#[test]
fn the_blocking_timeouts_and_library_limits_are_read_from_each_source() {
    let settings = load(
        flags(&[
            "--blocking-timeout",
            "2s",
            "--event-consumption-timeout",
            "300ms",
            "--store-reconciliation-timeout",
            "250",
            "--populate-referenced-tasks=false",
            "--push-notifications",
            "--max-push-configs-per-task",
            "3",
        ]),
        None,
        env(&[]),
    )
    .unwrap();
    let server = &settings.server;
    assert_eq!(server.blocking_timeout, Duration::from_secs(2));
    assert_eq!(server.event_consumption_timeout, Duration::from_millis(300));
    assert_eq!(
        server.store_reconciliation_timeout,
        Duration::from_millis(250)
    );
    assert!(!server.populate_referenced_tasks);
    assert_eq!(server.push.max_configs_per_task, 3);

    let settings = load(
        ServeOptions::default(),
        None,
        env(&[
            ("A2A_EVENT_CONSUMPTION_TIMEOUT", "7s"),
            ("A2A_STORE_RECONCILIATION_TIMEOUT", "2s"),
            ("A2A_POPULATE_REFERENCED_TASKS", "false"),
            ("A2A_PUSH_NOTIFICATIONS", "true"),
            ("A2A_MAX_PUSH_CONFIGS_PER_TASK", "4"),
        ]),
    )
    .unwrap();
    assert_eq!(
        settings.server.event_consumption_timeout,
        Duration::from_secs(7)
    );
    assert_eq!(
        settings.server.store_reconciliation_timeout,
        Duration::from_secs(2)
    );
    assert!(!settings.server.populate_referenced_tasks);
    assert_eq!(settings.server.push.max_configs_per_task, 4);

    let file = TempFile::new(
        "limits.toml",
        "blocking_timeout = \"0ms\"\nevent_consumption_timeout = \"1s\"\n\
         store_reconciliation_timeout = \"3s\"\npopulate_referenced_tasks = false\n\
         push_notifications = true\nmax_push_configs_per_task = 5\n",
    );
    let settings = load(ServeOptions::default(), Some(file.0.clone()), env(&[])).unwrap();
    assert_eq!(settings.server.blocking_timeout, Duration::ZERO);
    assert_eq!(
        settings.server.event_consumption_timeout,
        Duration::from_secs(1)
    );
    assert_eq!(
        settings.server.store_reconciliation_timeout,
        Duration::from_secs(3)
    );
    assert!(!settings.server.populate_referenced_tasks);
    assert_eq!(settings.server.push.max_configs_per_task, 5);

    let refused = error_text(load(
        flags(&["--max-push-configs-per-task", "3"]),
        None,
        env(&[]),
    ));
    assert!(refused.contains("--push-notifications"), "{refused}");
    let refused = error_text(load(
        flags(&["--push-notifications", "--max-push-configs-per-task", "0"]),
        None,
        env(&[]),
    ));
    assert!(refused.contains("max-push-configs-per-task"), "{refused}");
}
