//! `a2a webhook --listen ADDR [--jwks URL] [--token TOKEN] [--json]`: a development receiver
//! for push notifications. It accepts POST on any path, checks each delivery's signature
//! (`A2A-Notification-Signature`, against the agent's JWK Set) and token
//! (`X-A2A-Notification-Token` or `A2A-Notification-Token`), prints one line per delivery,
//! and answers 200, or 401 when a configured check fails (spec §10.5).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use a2a_client::push::{
    self, LEGACY_TOKEN_HEADER, PushVerifier, PushVerifyError, SIGNATURE_HEADER, TOKEN_HEADER,
};
use a2a_types::{StreamResponse, TaskState};
use anyhow::Context as _;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::response::{IntoResponse as _, Response};
use http::{HeaderMap, Method, StatusCode, Uri, header};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::client_args::Secret;
use crate::error::{BindError, UnreachableError};
use crate::output;
use crate::render::state_name;
use crate::serving::WebhookConnectionArgs;

/// Deliveries larger than this are refused (413) unread.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// An unknown `kid` fetches the keys again at most this often: anyone can send one.
const REFETCH_COOLDOWN: Duration = Duration::from_secs(10);
/// Texts from the body are cut to this many characters in the human line.
const SUMMARY_CHARS: usize = 60;

/// `a2a webhook`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Each delivery prints one line: time, path, task, state or artifact, and the checks \
(`signature: ok|INVALID (reason)|absent|unchecked`, `token: ok|INVALID (reason)|absent|unchecked`). \
The answer is 200, 401 when --jwks or --token is given and its check fails, 400 for a body \
that is not a StreamResponse.

Examples:
  a2a webhook --listen 127.0.0.1:9000
  a2a webhook --listen 127.0.0.1:9000 --jwks http://localhost:8080 --token s3cret")]
pub(crate) struct WebhookArgs {
    /// The address to listen on (port 0 picks a free port)
    #[arg(long, value_name = "ADDR")]
    listen: String,

    /// The agent's push keys: its base URL or its JWK Set URL. Deliveries must then be signed
    /// by one of them; an unknown key id fetches the keys again
    #[arg(long, value_name = "URL")]
    jwks: Option<String>,

    /// The push config's token; deliveries must then carry it
    #[arg(long, value_name = "TOKEN")]
    token: Option<Secret>,

    /// Print each delivery as one line of JSON: the body and the checks
    #[arg(long)]
    json: bool,

    #[command(flatten, next_help_heading = "Connections")]
    connections: WebhookConnectionArgs,
}

/// Receives deliveries until SIGINT or SIGTERM.
pub(crate) async fn run(args: WebhookArgs) -> anyhow::Result<()> {
    let verifier = match &args.jwks {
        Some(url) => Some(fetch_keys(url).await?),
        None => None,
    };
    let listener = TcpListener::bind(&args.listen).await.map_err(|source| {
        UnreachableError::from(BindError {
            address: args.listen.clone(),
            source,
        })
    })?;
    let address = listener
        .local_addr()
        .context("cannot read the bound address")?;
    let receiver = Arc::new(Receiver {
        verifier,
        token: args.token,
        json: args.json,
        last_refetch: Mutex::new(None),
    });
    let router = axum::Router::new()
        .fallback(receive)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(receiver);
    // Watch the signals before announcing the address, so a caller that stops us as soon as
    // it sees the line still gets a clean stop.
    let termination = crate::serving::termination()?;
    output::listening("http", address);
    let limits = args.connections.limits();
    crate::serving::serving(listener, router, None, limits, termination, false)
        .await
        .context("the webhook receiver stopped")
}

/// The agent's keys, fetched before listening: a receiver that cannot check signatures is
/// of no use once `--jwks` was asked for.
async fn fetch_keys(url: &str) -> anyhow::Result<PushVerifier> {
    PushVerifier::fetch(url).await.map_err(|error| match error {
        // The client error decides the exit code (3 when the agent cannot be reached).
        PushVerifyError::Fetch { url, source } => {
            anyhow::Error::new(*source).context(format!("cannot fetch the push keys at {url}"))
        }
        other => anyhow::Error::new(other).context(format!("cannot use the push keys at {url}")),
    })
}

/// What every request shares.
struct Receiver {
    verifier: Option<PushVerifier>,
    token: Option<Secret>,
    json: bool,
    /// When an unknown key id last caused a fetch.
    last_refetch: Mutex<Option<Instant>>,
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Check {
    Ok,
    /// A configured check failed, with the reason (never the token).
    Invalid(String),
    /// Nothing was sent and nothing was required.
    Absent,
    /// Something was sent but nothing was configured to check it with.
    Unchecked,
}

impl Check {
    fn human(&self) -> String {
        match self {
            Self::Ok => "ok".to_owned(),
            Self::Invalid(reason) => format!("INVALID ({})", one_line(reason)),
            Self::Absent => "absent".to_owned(),
            Self::Unchecked => "unchecked".to_owned(),
        }
    }

    fn json(&self) -> Value {
        match self {
            Self::Ok => json!({"result": "ok"}),
            Self::Invalid(reason) => json!({"result": "invalid", "reason": reason}),
            Self::Absent => json!({"result": "absent"}),
            Self::Unchecked => json!({"result": "unchecked"}),
        }
    }
}

async fn receive(
    State(receiver): State<Arc<Receiver>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if method != Method::POST {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "POST")],
            "a webhook takes POST\n",
        )
            .into_response();
    }
    let time = chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string();
    let (signature, kid) = receiver.check_signature(&headers, &body).await;
    let token = receiver.check_token(&headers);
    let event = push::decode_body(&body).map_err(|error| error.to_string());
    let status = if matches!(signature, Check::Invalid(_)) || matches!(token, Check::Invalid(_)) {
        StatusCode::UNAUTHORIZED
    } else if event.is_err() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    let path = uri.path();
    let printed = if receiver.json {
        let mut signature_json = signature.json();
        if let (Some(kid), Some(object)) = (&kid, signature_json.as_object_mut()) {
            object.insert("kid".into(), json!(kid));
        }
        let event_check = match &event {
            Ok(_) => Check::Ok,
            Err(reason) => Check::Invalid(reason.clone()),
        };
        output::json_line(&json!({
            "time": time,
            "path": path,
            "status": status.as_u16(),
            "checks": {
                "signature": signature_json,
                "token": token.json(),
                "body": event_check.json(),
            },
            "body": body_json(&body),
        }))
    } else {
        let about = match &event {
            Ok(event) => summary(event),
            Err(reason) => format!("body: INVALID ({})", one_line(reason)),
        };
        output::text(&format!(
            "{time} {} {about}  signature: {}  token: {}  -> {}\n",
            one_line(path),
            signature.human(),
            token.human(),
            status.as_u16()
        ))
        .map_err(anyhow::Error::from)
    };
    if let Err(error) = printed {
        tracing::warn!(error = %error, "cannot print the delivery");
    }
    status.into_response()
}

impl Receiver {
    /// The signature's check, and the key that signed when it is valid. An unknown key id
    /// fetches the keys again (the agent may have rotated its key), at most once per
    /// [`REFETCH_COOLDOWN`].
    async fn check_signature(&self, headers: &HeaderMap, body: &[u8]) -> (Check, Option<String>) {
        let Some(verifier) = &self.verifier else {
            let check = if headers.contains_key(SIGNATURE_HEADER) {
                Check::Unchecked
            } else {
                Check::Absent
            };
            return (check, None);
        };
        let mut verified = verifier.verify_signature(headers, body);
        if matches!(verified, Err(PushVerifyError::UnknownKey { .. })) && self.may_refetch() {
            match verifier.refresh().await {
                Ok(()) => verified = verifier.verify_signature(headers, body),
                Err(error) => tracing::warn!(error = %error, "cannot fetch the push keys again"),
            }
        }
        match verified {
            Ok(signature) => (Check::Ok, Some(signature.kid)),
            Err(error) => (Check::Invalid(error.to_string()), None),
        }
    }

    fn may_refetch(&self) -> bool {
        let mut last = self
            .last_refetch
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if last.is_some_and(|last| now.duration_since(last) < REFETCH_COOLDOWN) {
            return false;
        }
        *last = Some(now);
        true
    }

    fn check_token(&self, headers: &HeaderMap) -> Check {
        match &self.token {
            Some(expected) => match push::check_token(headers, expected.expose()) {
                Ok(()) => Check::Ok,
                Err(error) => Check::Invalid(error.to_string()),
            },
            None if headers.contains_key(TOKEN_HEADER)
                || headers.contains_key(LEGACY_TOKEN_HEADER) =>
            {
                Check::Unchecked
            }
            None => Check::Absent,
        }
    }
}

/// `task ID STATE`, `task ID artifact NAME (…)` or `message ID from ROLE: "TEXT"`.
fn summary(event: &StreamResponse) -> String {
    match event {
        StreamResponse::Task(task) => {
            let mut line = format!(
                "task {} {}",
                one_line(task.id.as_ref()),
                state(task.status.state)
            );
            if !task.artifacts.is_empty() {
                line.push_str(&format!(" ({} artifacts)", task.artifacts.len()));
            }
            line
        }
        StreamResponse::StatusUpdate(update) => {
            let mut line = format!(
                "task {} {}",
                one_line(update.task_id.as_ref()),
                state(update.status.state)
            );
            if let Some(message) = &update.status.message {
                line.push_str(&format!(" \"{}\"", one_line(&message.text())));
            }
            line
        }
        StreamResponse::ArtifactUpdate(update) => {
            let artifact = &update.artifact;
            let name = if artifact.name.is_empty() {
                artifact.artifact_id.as_ref()
            } else {
                artifact.name.as_str()
            };
            let mut about = vec![format!("{} parts", artifact.parts.len())];
            if update.append {
                about.push("append".to_owned());
            }
            if update.last_chunk {
                about.push("last chunk".to_owned());
            }
            format!(
                "task {} artifact {} ({})",
                one_line(update.task_id.as_ref()),
                one_line(name),
                about.join(", ")
            )
        }
        StreamResponse::Message(message) => {
            let task = message
                .task_id
                .as_ref()
                .map(|task_id| format!("task {} ", one_line(task_id.as_ref())))
                .unwrap_or_default();
            format!(
                "{task}message {} from {}: \"{}\"",
                one_line(message.message_id.as_ref()),
                crate::render::task::role(message.role),
                one_line(&message.text())
            )
        }
    }
}

fn state(state: TaskState) -> &'static str {
    state_name(state)
}

/// The body as JSON when it is JSON, else as text.
fn body_json(body: &[u8]) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
}

/// A sender's text on one line: control characters become spaces, and it is cut to
/// [`SUMMARY_CHARS`] characters, so a delivery cannot break or flood the output.
fn one_line(text: &str) -> String {
    let mut line: String = text
        .chars()
        .take(SUMMARY_CHARS)
        .map(|character| {
            if character.is_control() {
                ' '
            } else {
                character
            }
        })
        .collect();
    if text.chars().nth(SUMMARY_CHARS).is_some() {
        line.push('…');
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sender_text_stays_on_one_short_line() {
        assert_eq!(one_line("a\nb\x1b[31m"), "a b [31m");
        let long = "x".repeat(100);
        assert_eq!(one_line(&long).chars().count(), SUMMARY_CHARS + 1);
    }

    #[test]
    fn deliveries_are_summarised_by_kind() {
        let cases = [
            (
                json!({"statusUpdate": {"taskId": "t1", "contextId": "c1",
                    "status": {"state": "TASK_STATE_WORKING",
                        "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "busy\nnow"}]}}}}),
                "task t1 WORKING \"busy now\"",
            ),
            (
                json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1", "append": true,
                    "lastChunk": true, "artifact": {"artifactId": "a1", "parts": [{"text": "x"}]}}}),
                "task t1 artifact a1 (1 parts, append, last chunk)",
            ),
            (
                json!({"task": {"id": "t2", "contextId": "c1", "status": {"state": "TASK_STATE_FAILED"}}}),
                "task t2 FAILED",
            ),
            (
                json!({"message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}),
                "message m1 from agent: \"hi\"",
            ),
        ];
        for (body, expected) in cases {
            let event = push::decode_body(body.to_string().as_bytes()).unwrap();
            assert_eq!(summary(&event), expected);
        }
    }

    #[test]
    fn checks_read_as_documented() {
        assert_eq!(Check::Ok.human(), "ok");
        assert_eq!(
            Check::Invalid("wrong notification token".into()).human(),
            "INVALID (wrong notification token)"
        );
        assert_eq!(Check::Absent.human(), "absent");
        assert_eq!(
            Check::Invalid("x".into()).json(),
            json!({"result": "invalid", "reason": "x"})
        );
    }
}
