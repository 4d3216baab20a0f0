//! What the inbox keeps of one delivery: its body, headers and how its checks went.

use serde::Serialize;
use serde_json::Value;

/// One delivery as received: when, for which connection and task, what it carried, and how
/// its checks went.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// 1, 2, 3… in order of arrival.
    pub id: u64,
    /// When it arrived (RFC 3339, UTC, milliseconds).
    pub time: String,
    /// The connection it was for: from the webhook path, or, on `/webhook`, the connection
    /// whose token it carries.
    pub connection: Option<String>,
    /// The task it is about.
    pub task_id: Option<String>,
    /// The task state it reports (`TASK_STATE_…`), when it reports one.
    pub state: Option<String>,
    /// The request's headers in order, secret values shown as `<redacted>`.
    pub headers: Vec<(String, String)>,
    /// The body: its JSON, or its text when it is not JSON.
    pub body: Value,
    /// How the token and signature checks went.
    pub checks: Checks,
    /// Whether it was answered 200.
    pub accepted: bool,
    /// Why it was refused, or why a check could not be made, in one sentence.
    pub detail: Option<String>,
}

/// The checks of one delivery.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Checks {
    /// The notification token.
    pub token: TokenCheck,
    /// The signature.
    pub signature: SignatureCheck,
    /// The key that signed, when the signature verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
}

/// How a delivery's token compared with the one the inspector gave its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TokenCheck {
    /// It carries the connection's token.
    Ok,
    /// It carries a token that is not the connection's (or a token nobody was given).
    Mismatch,
    /// It carries none.
    Absent,
}

/// How a delivery's signature checked out against the agent's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SignatureCheck {
    /// Signed by one of the agent's keys, recently.
    Verified,
    /// Signed, and the signature does not verify (wrong key, changed body, too old…).
    Invalid,
    /// Not signed.
    Unsigned,
    /// Signed, but the agent's keys are unknown or could not be fetched.
    NoKey,
}
