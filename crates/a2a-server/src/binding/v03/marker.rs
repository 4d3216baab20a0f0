//! The push marker: which push configs a v0.3 client registered.
//!
//! A webhook registered over v0.3 expects v0.3 deliveries (the whole Task, `kind: "task"`),
//! so the server must remember, per config, which version registered it, in every push
//! store (memory, SQLite, PostgreSQL) and across restarts. Rather than a new column in each
//! store, the marker rides in what every store already persists as given: the webhook URL,
//! as a fragment member (`#a2a-push=0.3`). A fragment is never sent over HTTP (the address
//! check drops it before each delivery), so the webhook sees the URL it registered; the v0.3
//! answers strip the marker again, and a 1.0 reader sees it and learns the deliveries are
//! v0.3-shaped. A 1.0 client that re-registers the URL without it gets 1.0 deliveries.

use serde_json::Value;

/// The fragment member that marks a v0.3 registration.
const PUSH_MARKER: &str = "a2a-push=0.3";

/// `url` with the v0.3 marker.
pub(super) fn mark_url(url: &str) -> String {
    if is_marked(url) {
        return url.to_owned();
    }
    let separator = if url.contains('#') { '&' } else { '#' };
    format!("{url}{separator}{PUSH_MARKER}")
}

/// Whether `url` was registered over v0.3.
pub(crate) fn is_marked(url: &str) -> bool {
    url.strip_suffix(PUSH_MARKER)
        .is_some_and(|rest| rest.ends_with(['#', '&']))
}

/// `url` without the v0.3 marker.
pub(super) fn unmark_url(url: &str) -> &str {
    match url.strip_suffix(PUSH_MARKER) {
        Some(rest) if rest.ends_with(['#', '&']) => &rest[..rest.len() - 1],
        _ => url,
    }
}

/// Marks the URL of a 1.0 push config (JSON).
pub(super) fn mark_push_request(request: &mut Value) {
    if let Some(url) = request.get_mut("url")
        && let Some(text) = url.as_str()
    {
        *url = Value::String(mark_url(text));
    }
}

/// Strips the marker from the push configs of a v0.3 result (one config or a list).
pub(super) fn unmark_result(result: &mut Value) {
    let configs: Vec<&mut Value> = match result {
        Value::Array(items) => items.iter_mut().collect(),
        single => vec![single],
    };
    for config in configs {
        if let Some(url) = config
            .get_mut("pushNotificationConfig")
            .and_then(|push| push.get_mut("url"))
            && let Some(text) = url.as_str()
        {
            *url = Value::String(unmark_url(text).to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_push_marker_rides_in_the_fragment_and_comes_off_again() {
        let marked = mark_url("https://hook.example/a?b=1");
        assert_eq!(marked, "https://hook.example/a?b=1#a2a-push=0.3");
        assert!(is_marked(&marked));
        assert_eq!(unmark_url(&marked), "https://hook.example/a?b=1");
        let with_fragment = mark_url("https://hook.example/a#x");
        assert_eq!(with_fragment, "https://hook.example/a#x&a2a-push=0.3");
        assert_eq!(unmark_url(&with_fragment), "https://hook.example/a#x");
        assert_eq!(mark_url(&marked), marked);
        assert!(!is_marked("https://hook.example/a2a-push=0.3"));
        assert_eq!(
            unmark_url("https://hook.example/xa2a-push=0.3"),
            "https://hook.example/xa2a-push=0.3"
        );
    }
}
