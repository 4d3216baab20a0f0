use super::operation::operation_of;
use super::redact::{REDACTED, redact_form, redact_json};
use super::replay::shell_quote;

#[test]
fn shell_quoting_keeps_plain_words_and_escapes_quotes() {
    assert_eq!(shell_quote("http://a/b"), "http://a/b");
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
}

#[test]
fn secret_members_are_redacted_at_any_depth() {
    let value = serde_json::json!({"a": {"access_token": "x", "b": [{"client_secret": "y"}]}});
    let redacted = redact_json(value);
    assert_eq!(redacted["a"]["access_token"], REDACTED);
    assert_eq!(redacted["a"]["b"][0]["client_secret"], REDACTED);
    assert_eq!(
        redact_form("grant_type=x&client_secret=s"),
        "grant_type=x&client_secret=<redacted>"
    );
}

#[test]
fn rest_routes_name_their_operation() {
    let post = http::Method::POST;
    assert_eq!(
        operation_of(&post, "/rest/message:stream", Some(&serde_json::json!({}))).0,
        "SendStreamingMessage"
    );
    assert_eq!(
        operation_of(&http::Method::GET, "/rest/tasks/t1", None).0,
        "GetTask"
    );
    assert_eq!(
        operation_of(&http::Method::GET, "/.well-known/agent-card.json", None).0,
        "GetAgentCard"
    );
}
