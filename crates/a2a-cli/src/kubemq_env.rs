//! KubeMQ's variable names for `a2a gateway` (requirements GW-25, CFG-40): read beside
//! ours by turning them into flags before the command line is parsed.
//!
//! * Every `A2A_GATEWAY_<NAME>` an option of `a2a gateway` reads may also be given as
//!   `KUBEMQ_A2A_<NAME>`.
//! * KubeMQ's own names, with their units: `KUBEMQ_A2A_PORT` (`--bind 0.0.0.0:PORT`, as
//!   KubeMQ listens), `KUBEMQ_A2A_DEFAULT_TIMEOUT_SECONDS`, `KUBEMQ_A2A_MAX_TIMEOUT_SECONDS`,
//!   `KUBEMQ_A2A_MAX_SSE_IDLE_SECONDS` (seconds, where a bare number of ours is
//!   milliseconds), `KUBEMQ_A2A_AGENT_MAX_CONCURRENCY`, `KUBEMQ_A2A_AGENT_MAX_RESPONSE_BYTES`,
//!   `KUBEMQ_A2A_AGENT_TLS_SKIP_VERIFY`, `KUBEMQ_A2A_TRUSTED_ORIGINS`.
//!
//! A flag on the command line wins, then our variable, then KubeMQ's. `KUBEMQ_A2A_ENABLE`
//! is not read: running `a2a gateway` is what enables the gateway.

use std::ffi::{OsStr, OsString};

/// The prefix of our gateway variables.
const OURS: &str = "A2A_GATEWAY_";
/// The prefix of KubeMQ's.
const THEIRS: &str = "KUBEMQ_A2A_";

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

/// `args` (the program's, program name first) with a `--flag=VALUE` added after
/// `gateway` for each KubeMQ variable `lookup` finds whose option is set neither by a flag
/// in `args` nor by our own variable. `gateway` describes the subcommand's options. Other
/// subcommands' arguments are returned unchanged.
pub(crate) fn with_aliases(
    mut args: Vec<OsString>,
    gateway: &clap::Command,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Vec<OsString> {
    if args.get(1).map(OsString::as_os_str) != Some(OsStr::new("gateway")) {
        return args;
    }
    let given = |long: &str| {
        args.iter().skip(2).any(|arg| {
            let arg = arg.to_string_lossy();
            arg == format!("--{long}") || arg.starts_with(&format!("--{long}="))
        })
    };
    let mut added: Vec<OsString> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for option in gateway.get_arguments() {
        let (Some(long), Some(env)) = (option.get_long(), option.get_env()) else {
            continue;
        };
        let ours = env.to_string_lossy();
        let Some(suffix) = ours.strip_prefix(OURS) else {
            continue;
        };
        if given(long) || lookup(&ours).is_some() {
            taken.push(long.to_owned());
            continue;
        }
        if let Some(value) = lookup(&format!("{THEIRS}{suffix}")) {
            added.push(flag(long, &value));
            taken.push(long.to_owned());
        }
    }
    for (name, long, convert) in NATIVE {
        if taken.iter().any(|taken| taken == long) {
            continue;
        }
        if let Some(value) = lookup(name) {
            let value = convert(&value.to_string_lossy());
            added.push(flag(long, OsStr::new(&value)));
            taken.push(long.to_owned());
        }
    }
    args.splice(2..2, added);
    args
}

fn flag(long: &str, value: &OsStr) -> OsString {
    let mut flag = OsString::from(format!("--{long}="));
    flag.push(value);
    flag
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
        with_aliases(args.iter().map(OsString::from).collect(), gateway, |name| {
            env.get(name).cloned()
        })
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
            !args.iter().any(|arg| arg.starts_with("--max-concurrency")),
            "{args:?}"
        );
        assert!(
            !args.iter().any(|arg| arg.contains("theirs.db")),
            "{args:?}"
        );
        assert!(<crate::Cli as clap::Parser>::try_parse_from(args).is_ok());
    }

    #[test]
    fn other_commands_are_left_alone() {
        let args = aliased(&["a2a", "serve"], &[("KUBEMQ_A2A_PORT", "9090")]);
        assert_eq!(args, ["a2a", "serve"]);
        let args = aliased(&["a2a", "gateway"], &[("KUBEMQ_A2A_PORT", "9090")]);
        assert_eq!(args, ["a2a", "gateway", "--bind=0.0.0.0:9090"]);
    }
}
