//! The syntax checks on what an agent registers: its id and its URLs.

use url::Url;

/// Why an agent id is refused (it must be lowercase letters, digits and hyphens, at least
/// two characters).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentIdError {
    /// The id is empty.
    #[error("agent_id is empty")]
    Empty,
    /// The id has one character.
    #[error("agent_id {id:?} is too short: it needs at least 2 characters")]
    TooShort {
        /// The id as given.
        id: String,
    },
    /// The id holds something other than `a`–`z`, `0`–`9` and `-`.
    #[error("agent_id {id:?} may hold only lowercase letters, digits and hyphens")]
    InvalidCharacter {
        /// The id as given.
        id: String,
    },
}

/// Checks `id` against the id rule: lowercase ASCII letters, digits and hyphens, at least two
/// characters. The proxy applies the same rule to `/a2a/{agent_id}`.
///
/// ```
/// use a2a_gateway::registry::validate_agent_id;
///
/// assert!(validate_agent_id("echo-agent-01").is_ok());
/// assert!(validate_agent_id("Echo").is_err());
/// assert!(validate_agent_id("e").is_err());
/// ```
///
/// # Errors
/// [`AgentIdError`] saying what is wrong.
pub fn validate_agent_id(id: &str) -> Result<(), AgentIdError> {
    if id.is_empty() {
        return Err(AgentIdError::Empty);
    }
    if !id
        .bytes()
        .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
    {
        return Err(AgentIdError::InvalidCharacter { id: id.to_owned() });
    }
    if id.len() < 2 {
        return Err(AgentIdError::TooShort { id: id.to_owned() });
    }
    Ok(())
}

/// `url` when it is absolute, `http` or `https`, with a host: something the proxy can call.
pub(crate) fn absolute_http_url(url: &str) -> Option<Url> {
    let parsed = Url::parse(url.trim()).ok()?;
    let callable = matches!(parsed.scheme(), "http" | "https")
        && parsed.host_str().is_some_and(|host| !host.is_empty());
    callable.then_some(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids_follow_gw_02() {
        let cases = [
            ("echo-agent", true),
            ("a1", true),
            ("0-9", true),
            ("--", true),
            ("", false),
            ("a", false),
            ("Echo", false),
            ("echo_agent", false),
            ("echo.agent", false),
            ("echo agent", false),
            ("échо", false),
            ("agent/1", false),
        ];
        for (id, valid) in cases {
            assert_eq!(validate_agent_id(id).is_ok(), valid, "{id:?}");
        }
    }

    #[test]
    fn only_absolute_http_urls_are_callable() {
        let cases = [
            ("http://127.0.0.1:8080/", true),
            ("https://agent.example.com/a2a", true),
            (" https://agent.example.com ", true),
            ("/a2a", false),
            ("agent.example.com/a2a", false),
            ("localhost:8080", false),
            ("ftp://agent.example.com", false),
            ("http://", false),
            ("", false),
        ];
        for (url, callable) in cases {
            assert_eq!(absolute_http_url(url).is_some(), callable, "{url:?}");
        }
    }
}
