//! The gateway registration options of `a2a serve`, checked.

use std::time::Duration;

use a2a_gateway::registry::validate_agent_id;
use a2a_server::auth::Secret;

use super::ConfigError;
use super::options::ServeOptions;

/// Time between heartbeats unless `--heartbeat-interval` says otherwise: within the 30–60 s
/// gateways ask of agents, and under a third of a gateway's default agent TTL (300 s), so
/// two heartbeats can be lost before the registration expires.
pub(crate) const DEFAULT_HEARTBEAT_INTERVAL: Duration = Duration::from_secs(60);

/// Registration with a gateway, as configured; `None` in [`super::Settings::register`]
/// when `--register` is not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegisterSetting {
    /// The gateway's root URL, without a trailing `/`.
    pub(crate) gateway: String,
    /// The id to register under (lowercase letters, digits and hyphens, at least two
    /// characters); `None`: derived from the card's name at start.
    pub(crate) agent_id: Option<String>,
    /// Time between heartbeats.
    pub(crate) heartbeat_interval: Duration,
    /// The gateway's registry key, when it wants one.
    pub(crate) key: Option<Secret>,
    /// PEM certificates of the CAs to trust for the gateway, beside the system's, read at
    /// start.
    pub(crate) ca_pem: Option<Vec<u8>>,
}

impl RegisterSetting {
    /// The configured id, else one made from `card_name`: lowercased, every run of
    /// characters other than ASCII letters and digits made one `-`, hyphens trimmed
    /// (`"Echo Agent"` → `echo-agent`); `a2a-agent` when that leaves fewer than 2
    /// characters.
    pub(crate) fn agent_id_for(&self, card_name: &str) -> String {
        if let Some(agent_id) = &self.agent_id {
            return agent_id.clone();
        }
        let mut derived = String::new();
        for c in card_name.chars() {
            if c.is_ascii_alphanumeric() {
                derived.push(c.to_ascii_lowercase());
            } else if !derived.is_empty() && !derived.ends_with('-') {
                derived.push('-');
            }
        }
        let derived = derived.trim_end_matches('-');
        if derived.len() < 2 {
            "a2a-agent".to_owned()
        } else {
            derived.to_owned()
        }
    }
}

/// The checked registration options.
pub(crate) fn register(options: &ServeOptions) -> Result<Option<RegisterSetting>, ConfigError> {
    let Some(gateway) = &options.register else {
        let stray = [
            (options.agent_id.is_some(), "agent-id"),
            (options.heartbeat_interval.is_some(), "heartbeat-interval"),
            (options.register_key.is_some(), "register-key"),
            (options.register_cacert.is_some(), "register-cacert"),
        ];
        if let Some((_, option)) = stray.iter().find(|(given, _)| *given) {
            return Err(invalid(option, "applies only with --register"));
        }
        return Ok(None);
    };
    let agent_id = match &options.agent_id {
        Some(agent_id) => {
            let agent_id = agent_id.trim();
            validate_agent_id(agent_id).map_err(|error| invalid("agent-id", error.to_string()))?;
            Some(agent_id.to_owned())
        }
        None => None,
    };
    let heartbeat_interval = match options.heartbeat_interval {
        Some(interval) if interval.0.is_zero() => {
            return Err(invalid("heartbeat-interval", "must be more than 0"));
        }
        Some(interval) => interval.0,
        None => DEFAULT_HEARTBEAT_INTERVAL,
    };
    Ok(Some(RegisterSetting {
        gateway: gateway_url(gateway)?,
        agent_id,
        heartbeat_interval,
        key: options.register_key.clone().filter(|key| !key.is_empty()),
        ca_pem: match &options.register_cacert {
            Some(path) => Some(ca_bundle(path)?),
            None => None,
        },
    }))
}

/// The PEM file `--register-cacert` names, checked to hold certificates.
fn ca_bundle(path: &std::path::Path) -> Result<Vec<u8>, ConfigError> {
    let fail = |why: String| invalid("register-cacert", format!("{}: {why}", path.display()));
    let pem = std::fs::read(path).map_err(|error| fail(error.to_string()))?;
    match reqwest::Certificate::from_pem_bundle(&pem) {
        Ok(certificates) if !certificates.is_empty() => Ok(pem),
        Ok(_) => Err(fail("no PEM certificate in it".to_owned())),
        Err(error) => Err(fail(error.to_string())),
    }
}

/// `http(s)://host[:port][/path]`, without a trailing `/`.
fn gateway_url(url: &str) -> Result<String, ConfigError> {
    let trimmed = url.trim().trim_end_matches('/');
    match url::Url::parse(trimmed) {
        Ok(parsed)
            if matches!(parsed.scheme(), "http" | "https")
                && parsed.host_str().is_some_and(|host| !host.is_empty()) =>
        {
            Ok(trimmed.to_owned())
        }
        Ok(_) | Err(_) => Err(invalid(
            "register",
            format!("`{url}` is not an http:// or https:// URL"),
        )),
    }
}

fn invalid(option: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        option,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duration::Millis;

    fn options(register: Option<&str>, agent_id: Option<&str>) -> ServeOptions {
        ServeOptions {
            register: register.map(str::to_owned),
            agent_id: agent_id.map(str::to_owned),
            ..ServeOptions::default()
        }
    }

    #[test]
    fn registration_is_off_unless_a_gateway_is_named() {
        assert_eq!(register(&ServeOptions::default()).unwrap(), None);
        let stray = [
            options(None, Some("echo")),
            ServeOptions {
                heartbeat_interval: Some(Millis(Duration::from_secs(1))),
                ..ServeOptions::default()
            },
        ];
        for options in stray {
            let error = register(&options).unwrap_err().to_string();
            assert!(error.contains("applies only with --register"), "{error}");
        }
    }

    #[test]
    fn the_gateway_url_and_agent_id_are_checked() {
        let setting = register(&options(Some("http://gw.example:9090/"), Some("echo-1")))
            .unwrap()
            .unwrap();
        assert_eq!(setting.gateway, "http://gw.example:9090");
        assert_eq!(setting.agent_id.as_deref(), Some("echo-1"));
        assert_eq!(setting.heartbeat_interval, DEFAULT_HEARTBEAT_INTERVAL);
        for (gateway, agent_id, message) in [
            (
                "gw.example:9090",
                None,
                "--register: `gw.example:9090` is not",
            ),
            (
                "ftp://gw.example",
                None,
                "is not an http:// or https:// URL",
            ),
            (
                "http://gw.example",
                Some("Echo"),
                "--agent-id: agent_id \"Echo\"",
            ),
            ("http://gw.example", Some("e"), "at least 2 characters"),
            ("http://gw.example", Some("echo_1"), "lowercase letters"),
        ] {
            let error = register(&options(Some(gateway), agent_id))
                .unwrap_err()
                .to_string();
            assert!(error.contains(message), "{error:?} lacks {message:?}");
        }
        let zero = ServeOptions {
            heartbeat_interval: Some(Millis(Duration::ZERO)),
            ..options(Some("http://gw.example"), None)
        };
        assert!(register(&zero).is_err());
    }

    #[test]
    fn the_default_agent_id_comes_from_the_card_name() {
        let setting = register(&options(Some("http://gw.example"), None))
            .unwrap()
            .unwrap();
        for (name, agent_id) in [
            ("Echo", "echo"),
            ("Echo Agent", "echo-agent"),
            ("  My  A2A agent (v2)! ", "my-a2a-agent-v2"),
            ("tr", "tr"),
            ("X", "a2a-agent"),
            ("日本語", "a2a-agent"),
        ] {
            assert_eq!(setting.agent_id_for(name), agent_id, "{name:?}");
            assert!(validate_agent_id(&setting.agent_id_for(name)).is_ok());
        }
        let named = register(&options(Some("http://gw.example"), Some("fixed")))
            .unwrap()
            .unwrap();
        assert_eq!(named.agent_id_for("Echo"), "fixed");
    }
}
