//! KubeMQ's variable names for `a2a gateway` (requirements GW-25, CFG-40): read beside
//! ours by turning them into flags before the command line is parsed
//! ([`crate::config::layered`]).
//!
//! * Every `A2A_<NAME>` an option of `a2a gateway` reads may also be given as
//!   `KUBEMQ_A2A_<NAME>`.
//! * KubeMQ's own names, with their units: `KUBEMQ_A2A_PORT` (`--bind 0.0.0.0:PORT`, as
//!   KubeMQ listens), `KUBEMQ_A2A_DEFAULT_TIMEOUT_SECONDS`, `KUBEMQ_A2A_MAX_TIMEOUT_SECONDS`,
//!   `KUBEMQ_A2A_MAX_SSE_IDLE_SECONDS` (seconds, where a bare number of ours is
//!   milliseconds), `KUBEMQ_A2A_AGENT_MAX_CONCURRENCY`, `KUBEMQ_A2A_AGENT_MAX_RESPONSE_BYTES`,
//!   `KUBEMQ_A2A_AGENT_TLS_SKIP_VERIFY`, `KUBEMQ_A2A_TRUSTED_ORIGINS`.
//!
//! A flag on the command line wins, then our variables (`A2A_*`, then `A2A_GATEWAY_*`), then
//! KubeMQ's, then the configuration file. `KUBEMQ_A2A_ENABLE`
//! is not read: running `a2a gateway` is what enables the gateway.

use std::ffi::OsString;

/// How a KubeMQ value becomes the value of our flag.
type Convert = fn(&str) -> String;

/// KubeMQ's own names: the variable, our flag, and how its value becomes the flag's.
const NATIVE: [(&str, &str, Convert); 8] = [
    ("KUBEMQ_A2A_PORT", "bind", |port| {
        format!("0.0.0.0:{}", port.trim())
    }),
    ("KUBEMQ_A2A_DEFAULT_TIMEOUT_SECONDS", "timeout", seconds),
    ("KUBEMQ_A2A_MAX_TIMEOUT_SECONDS", "max-timeout", seconds),
    ("KUBEMQ_A2A_MAX_SSE_IDLE_SECONDS", "max-sse-idle", seconds),
    (
        "KUBEMQ_A2A_AGENT_MAX_CONCURRENCY",
        "max-concurrency-per-agent",
        same,
    ),
    (
        "KUBEMQ_A2A_AGENT_MAX_RESPONSE_BYTES",
        "max-response-bytes",
        same,
    ),
    (
        "KUBEMQ_A2A_AGENT_TLS_SKIP_VERIFY",
        "agent-tls-skip-verify",
        same,
    ),
    ("KUBEMQ_A2A_TRUSTED_ORIGINS", "cors-origins", same),
];

fn seconds(value: &str) -> String {
    format!("{}s", value.trim())
}

fn same(value: &str) -> String {
    value.to_owned()
}

/// KubeMQ's own variable for the option `--long`, if `lookup` finds it set: its name and
/// its value converted to our flag's. The layers of [`crate::config::layered`] read it below
/// `A2A_<NAME>`, `A2A_GATEWAY_<NAME>` and `KUBEMQ_A2A_<NAME>`.
pub(crate) fn native(
    long: &str,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Option<(&'static str, OsString)> {
    NATIVE
        .iter()
        .filter(|(_, flag, _)| *flag == long)
        .find_map(|(name, _, convert)| {
            let value = lookup(name)?;
            Some((*name, OsString::from(convert(&value.to_string_lossy()))))
        })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use clap::CommandFactory as _;

    use super::*;

    fn aliased(args: &[&str], env: &[(&str, &str)]) -> Vec<String> {
        let env: HashMap<String, OsString> = env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), OsString::from(value)))
            .collect();
        let command = crate::Cli::command();
        let gateway = command.find_subcommand("gateway").unwrap();
        crate::config::layered(args.iter().map(OsString::from).collect(), gateway, |name| {
            env.get(name).cloned()
        })
        .unwrap()
        .args
        .into_iter()
        .map(|arg| arg.into_string().unwrap())
        .collect()
    }

    #[test]
    fn kubemq_names_become_flags_unless_ours_are_set() {
        let args = aliased(
            &["a2a", "gateway", "--store", "sqlite::memory:"],
            &[
                ("KUBEMQ_A2A_REGISTRY_KEY", "theirs"),
                ("KUBEMQ_A2A_LEGACY_CODES", "true"),
                ("KUBEMQ_A2A_DEFAULT_TIMEOUT_SECONDS", "30"),
                ("KUBEMQ_A2A_AGENT_MAX_CONCURRENCY", "5"),
                ("KUBEMQ_A2A_STORE", "sqlite://theirs.db"),
                ("A2A_GATEWAY_MAX_CONCURRENCY_PER_AGENT", "7"),
            ],
        );
        assert_eq!(&args[..2], ["a2a", "gateway"]);
        assert!(
            args.contains(&"--registry-key=theirs".to_owned()),
            "{args:?}"
        );
        assert!(args.contains(&"--legacy-codes=true".to_owned()), "{args:?}");
        assert!(args.contains(&"--timeout=30s".to_owned()), "{args:?}");
        // Our variable wins over KubeMQ's; a flag over both.
        assert!(
            args.contains(&"--max-concurrency-per-agent=7".to_owned()),
            "{args:?}"
        );
        assert!(
            !args.iter().any(|arg| arg.contains("theirs.db")),
            "{args:?}"
        );
        assert!(<crate::Cli as clap::Parser>::try_parse_from(args).is_ok());
    }

    #[test]
    fn kubemq_port_binds_every_address_unless_ours_is_set() {
        let args = aliased(&["a2a", "gateway"], &[("KUBEMQ_A2A_PORT", "9090")]);
        assert_eq!(args, ["a2a", "gateway", "--bind=0.0.0.0:9090"]);
        let args = aliased(
            &["a2a", "gateway"],
            &[
                ("KUBEMQ_A2A_PORT", "9090"),
                ("A2A_GATEWAY_BIND", "127.0.0.1:1"),
            ],
        );
        assert_eq!(args, ["a2a", "gateway", "--bind=127.0.0.1:1"]);
    }
}
