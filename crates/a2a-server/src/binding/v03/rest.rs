//! v0.3 REST under an HTTP+JSON endpoint: the paths of the v0.3 SDKs' REST transports
//! (`/v1/message:send`, `/v1/tasks/{id}:cancel`, …, `/v1/card`), with v0.3 protobuf JSON
//! bodies, v0.3 stream elements, and errors as `{code, message, data}` with the v0.3
//! JSON-RPC code (what the v0.3 JS SDK reads; the Python SDK reads the HTTP status, which
//! is the one the 1.0 binding gives the same error).

use a2a_types::v03::Method;
use a2a_types::{A2aError, GetExtendedAgentCardRequest};
use axum::extract::Request;
use axum::response::Response;
use http::{Method as HttpMethod, StatusCode};
use serde_json::{Map, Value};

use super::super::state::Bindings;
use super::super::{Endpoint, body, call, media, response, sse};
use super::proto;
use super::run::{Answer, run};
use super::version::speaks_v03;
use crate::handler::CallContext;
use crate::percent;

/// The prefix of every v0.3 REST path.
const PREFIX: &str = "v1";

/// Whether `path` (what follows the endpoint's path) is under the v0.3 prefix.
pub(in crate::binding) fn is_v03_path(path: &str) -> bool {
    path.strip_prefix(PREFIX)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// One v0.3 REST operation, with the ids its path carries.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    Send,
    Stream,
    Card,
    Get(String),
    Cancel(String),
    Subscribe(String),
    SetPush(String),
    ListPush(String),
    GetPush(String, String),
    DeletePush(String, String),
}

/// Why no route matched: unknown path, or the methods the path takes.
enum Miss {
    NotFound,
    WrongMethod(&'static [HttpMethod]),
}

fn resolve(path: &str, method: &HttpMethod) -> Result<Route, Miss> {
    let rest = path
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or_default();
    let segments: Vec<&str> = rest.split('/').collect();
    let id = |segment: &str| percent::decode(segment, false);
    let (get, post, delete) = (
        method == HttpMethod::GET,
        method == HttpMethod::POST,
        method == HttpMethod::DELETE,
    );
    const GET: &[HttpMethod] = &[HttpMethod::GET];
    const POST: &[HttpMethod] = &[HttpMethod::POST];
    const GET_POST: &[HttpMethod] = &[HttpMethod::GET, HttpMethod::POST];
    const GET_DELETE: &[HttpMethod] = &[HttpMethod::GET, HttpMethod::DELETE];
    match segments.as_slice() {
        ["message:send"] if post => Ok(Route::Send),
        ["message:stream"] if post => Ok(Route::Stream),
        ["message:send" | "message:stream"] => Err(Miss::WrongMethod(POST)),
        ["card"] if get => Ok(Route::Card),
        ["card"] => Err(Miss::WrongMethod(GET)),
        ["tasks", task] if !task.is_empty() => {
            if let Some(task) = task.strip_suffix(":cancel") {
                if post {
                    Ok(Route::Cancel(id(task)))
                } else {
                    Err(Miss::WrongMethod(POST))
                }
            } else if let Some(task) = task.strip_suffix(":subscribe") {
                if get || post {
                    Ok(Route::Subscribe(id(task)))
                } else {
                    Err(Miss::WrongMethod(GET_POST))
                }
            } else if get {
                Ok(Route::Get(id(task)))
            } else {
                Err(Miss::WrongMethod(GET))
            }
        }
        ["tasks", task, "pushNotificationConfigs"] if !task.is_empty() => {
            if post {
                Ok(Route::SetPush(id(task)))
            } else if get {
                Ok(Route::ListPush(id(task)))
            } else {
                Err(Miss::WrongMethod(GET_POST))
            }
        }
        ["tasks", task, "pushNotificationConfigs", config]
            if !task.is_empty() && !config.is_empty() =>
        {
            if get {
                Ok(Route::GetPush(id(task), id(config)))
            } else if delete {
                Ok(Route::DeletePush(id(task), id(config)))
            } else {
                Err(Miss::WrongMethod(GET_DELETE))
            }
        }
        _ => Err(Miss::NotFound),
    }
}

/// Whether this request under an HTTP+JSON endpoint is v0.3: a `/v1/` path, v0.3 on, and
/// no 1.x version (a 1.x request there names a tenant `v1`).
pub(in crate::binding) fn wants(
    bindings: &Bindings,
    path: &str,
    headers: &http::HeaderMap,
    uri: &http::Uri,
) -> bool {
    if !is_v03_path(path) || !bindings.handler.config().protocol_versions.v0_3 {
        return false;
    }
    let query = percent::query_pairs(uri.query().unwrap_or_default());
    let call = call::call_context(
        headers,
        &http::Extensions::new(),
        &query,
        bindings.handler.credential_names(),
    );
    speaks_v03(&bindings.handler, call.version.as_deref())
}

/// A refusal of a v0.3 REST request before it reached the binding (authentication): the
/// v0.3 error body with `status`.
pub(in crate::binding) fn refusal(error: &A2aError, status: StatusCode) -> Response {
    Errors::response_with_status(error, status)
}

/// Serves one v0.3 REST request; `path` is what follows the endpoint's path.
pub(in crate::binding) async fn serve(
    bindings: &Bindings,
    endpoint: &Endpoint,
    path: &str,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let errors = Errors {
        profile: bindings.profile,
    };
    let route = match resolve(path, &parts.method) {
        Ok(route) => route,
        Err(Miss::NotFound) => {
            let error = A2aError::method_not_found(parts.uri.path());
            return Errors::response_with_status(&error, StatusCode::NOT_FOUND);
        }
        Err(Miss::WrongMethod(allowed)) => {
            let error = A2aError::method_not_found(parts.method.as_str())
                .with_metadata("path", parts.uri.path());
            let response = Errors::response_with_status(&error, StatusCode::METHOD_NOT_ALLOWED);
            return response::with_allow(response, allowed);
        }
    };
    crate::trace::note_binding("HTTP+JSON v0.3");
    let query = percent::query_pairs(parts.uri.query().unwrap_or_default());
    let mut call = call::call_context(
        &parts.headers,
        &parts.extensions,
        &query,
        bindings.handler.credential_names(),
    );
    call.tenant.clone_from(&endpoint.tenant);
    let needs_body = matches!(route, Route::Send | Route::Stream | Route::SetPush(_));
    let document = if needs_body {
        if let Err(error) = media::check_request_type(&parts.headers) {
            return Errors::response_with_status(&error, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        }
        let bytes = match body::read_limited(body, &parts.headers, bindings.max_body_bytes).await {
            Ok(bytes) => bytes,
            Err(error) => return errors.response(&error),
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            Value::Object(Map::new())
        } else {
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(document) => document,
                Err(_) => return errors.response(&A2aError::parse_error()),
            }
        }
    } else {
        Value::Null
    };
    let params = match request_params(&route, &document, &query) {
        Ok(params) => params,
        Err(error) => return errors.response(&error),
    };
    if route == Route::Card {
        return match card(bindings, &mut call).await {
            Ok(document) => match serde_json::to_vec(&document) {
                Ok(body) => response::with_extensions(
                    response::bytes(StatusCode::OK, media::APPLICATION_JSON, body),
                    &call.activated_extensions,
                ),
                Err(_) => errors.response(&A2aError::internal()),
            },
            Err(error) => errors.response(&error),
        };
    }
    let method = route.method();
    let answer = match run(&bindings.handler, method, params, &mut call).await {
        Ok(Answer::Result(result)) => {
            let document = route.result(&result);
            match serde_json::to_vec(&document) {
                Ok(body) => response::bytes(StatusCode::OK, media::APPLICATION_JSON, body),
                Err(_) => return errors.response(&A2aError::internal()),
            }
        }
        Ok(Answer::Stream(events)) => {
            sse::response(events, sse::Framing::HttpJsonV03, bindings.sse_keepalive)
        }
        Err(error) => return errors.response(&error),
    };
    response::with_extensions(answer, &call.activated_extensions)
}

/// The extended card for `/v1/card`: the v0.3 card, its security schemes in both v0.3
/// forms at once. The v0.3 SDKs disagree on this path: the Python one reads the v0.3 JSON
/// card, the JS one the v0.3 protobuf JSON card, whose schemes are wrappers
/// (`{"apiKeySecurityScheme": {…}}`). The served card's schemes already carry both (the
/// wrapper, which is also the 1.0 form, and the v0.3 members beside it), and every other
/// member reads the same in both, or is ignored by the reader that does not know it.
async fn card(bindings: &Bindings, call: &mut CallContext) -> Result<Value, A2aError> {
    let handler = &bindings.handler;
    call.activated_extensions = handler.activated_extensions(call)?;
    let request = GetExtendedAgentCardRequest {
        tenant: call.tenant.clone(),
    };
    let card = handler.get_extended_agent_card(call, request).await?;
    let mut document = serde_json::to_value(a2a_types::v03::AgentCard::from(&card))
        .map_err(|_| A2aError::internal())?;
    if !card.security_schemes.is_empty()
        && let Some(object) = document.as_object_mut()
    {
        let schemes =
            serde_json::to_value(&card.security_schemes).map_err(|_| A2aError::internal())?;
        object.insert("securitySchemes".into(), schemes);
    }
    Ok(document)
}

/// The v0.3 JSON-RPC params of a route, from its path, query and body.
fn request_params(
    route: &Route,
    body: &Value,
    query: &[(String, String)],
) -> Result<Value, A2aError> {
    let with_id = |id: &str| {
        let mut params = Map::new();
        params.insert("id".into(), Value::String(id.to_owned()));
        params
    };
    Ok(match route {
        Route::Send | Route::Stream => proto::send_params(body)?,
        Route::Card => Value::Null,
        Route::Get(task) => {
            let mut params = with_id(task);
            if let Some((_, length)) = query.iter().find(|(name, _)| name == "historyLength") {
                let length: i64 = length
                    .trim()
                    .parse()
                    .map_err(|_| A2aError::invalid_field("historyLength", "must be an integer"))?;
                params.insert("historyLength".into(), Value::from(length));
            }
            Value::Object(params)
        }
        Route::Cancel(task) | Route::Subscribe(task) | Route::ListPush(task) => {
            Value::Object(with_id(task))
        }
        Route::SetPush(task) => proto::push_config_from(body, task)?,
        Route::GetPush(task, config) | Route::DeletePush(task, config) => {
            let mut params = with_id(task);
            params.insert(
                "pushNotificationConfigId".into(),
                Value::String(config.clone()),
            );
            Value::Object(params)
        }
    })
}

impl Route {
    fn method(&self) -> Method {
        match self {
            Self::Send => Method::MessageSend,
            Self::Stream => Method::MessageStream,
            Self::Card => Method::GetAuthenticatedExtendedCard,
            Self::Get(_) => Method::TasksGet,
            Self::Cancel(_) => Method::TasksCancel,
            Self::Subscribe(_) => Method::TasksResubscribe,
            Self::SetPush(_) => Method::PushConfigSet,
            Self::ListPush(_) => Method::PushConfigList,
            Self::GetPush(..) => Method::PushConfigGet,
            Self::DeletePush(..) => Method::PushConfigDelete,
        }
    }

    /// The v0.3 protobuf JSON body for the v0.3 JSON-RPC result of this route.
    fn result(&self, result: &Value) -> Value {
        match self {
            Self::Send => proto::send_result(result),
            Self::Get(_) | Self::Cancel(_) => proto::task(result),
            Self::SetPush(_) | Self::GetPush(..) => proto::push_config_to(result),
            Self::ListPush(_) => proto::push_configs_to(result),
            Self::DeletePush(..) => Value::Object(Map::new()),
            // The card is answered by `card`; streams answer with events.
            Self::Card | Self::Stream | Self::Subscribe(_) => result.clone(),
        }
    }
}

/// How v0.3 REST errors are written.
struct Errors {
    profile: a2a_types::error::RestStatusProfile,
}

impl Errors {
    fn response(&self, error: &A2aError) -> Response {
        let status = StatusCode::from_u16(error.kind().http_status(self.profile))
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        Self::response_with_status(error, status)
    }

    fn response_with_status(error: &A2aError, status: StatusCode) -> Response {
        match serde_json::to_vec(&a2a_types::v03::JsonRpcError::from(error)) {
            Ok(body) => response::bytes(status, media::APPLICATION_JSON, body),
            Err(_) => response::empty(StatusCode::INTERNAL_SERVER_ERROR),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v03_rest_paths_resolve() {
        assert!(is_v03_path("v1/message:send"));
        assert!(is_v03_path("v1"));
        assert!(!is_v03_path("v1x/tasks"));
        assert_eq!(
            resolve("v1/tasks/a%2Fb:cancel", &HttpMethod::POST).ok(),
            Some(Route::Cancel("a/b".into()))
        );
        assert_eq!(
            resolve(
                "v1/tasks/t1/pushNotificationConfigs/p1",
                &HttpMethod::DELETE
            )
            .ok(),
            Some(Route::DeletePush("t1".into(), "p1".into()))
        );
        assert_eq!(
            resolve("v1/tasks/t1:subscribe", &HttpMethod::GET).ok(),
            Some(Route::Subscribe("t1".into()))
        );
        assert!(matches!(
            resolve("v1/tasks/t1", &HttpMethod::POST),
            Err(Miss::WrongMethod(_))
        ));
        assert!(matches!(
            resolve("v1/nothing", &HttpMethod::GET),
            Err(Miss::NotFound)
        ));
    }
}
