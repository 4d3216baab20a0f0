//! The gRPC routes: `/lf.a2a.v1.A2AService/{rpc}`, every call authenticated first, the same
//! way as on the HTTP bindings (bearer tokens, API keys in metadata, client certificates).

use a2a_grpc::proto::a2a_service_server::A2aServiceServer;
use a2a_grpc::status::to_status;
use a2a_types::A2aError;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;

use super::super::call::Authenticated;
use super::service::GrpcService;
use crate::auth::AuthFailure;
use crate::handler::RequestHandler;

/// The router of the gRPC service. `tenant` is the one the card gives the gRPC interface;
/// messages larger than `max_message_bytes` are refused.
pub(crate) fn router(
    handler: RequestHandler,
    tenant: String,
    max_message_bytes: usize,
) -> axum::Router {
    let service = A2aServiceServer::new(GrpcService {
        handler: handler.clone(),
        tenant,
    })
    .max_decoding_message_size(max_message_bytes);
    let edge = Edge {
        handler,
        max_message_bytes,
    };
    axum::Router::new()
        .route_service("/lf.a2a.v1.A2AService/{rpc}", service)
        .fallback(unimplemented)
        .layer(middleware::from_fn_with_state(edge, authenticate))
}

/// What every call passes before the service.
#[derive(Debug, Clone)]
struct Edge {
    handler: RequestHandler,
    max_message_bytes: usize,
}

/// The start of tonic's message when a request message is over the decoding limit.
const TOO_LARGE: &str = "Error, decoded message length too large";

async fn authenticate(State(edge): State<Edge>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    if let Some(method) = parts
        .uri
        .path()
        .strip_prefix("/lf.a2a.v1.A2AService/")
        .and_then(a2a_types::jsonrpc::Method::from_name)
    {
        crate::access::note_operation(method.as_str());
    }
    match edge.handler.authenticator().authenticate(&parts).await {
        Ok(Some(caller)) => {
            parts.extensions.insert(Authenticated(caller));
        }
        Ok(None) => {}
        Err(failure) => return refuse(failure),
    }
    let response = next.run(Request::from_parts(parts, body)).await;
    // tonic refuses an oversized message with OUT_OF_RANGE and no details; the payload
    // limit is PayloadTooLarge (RESOURCE_EXHAUSTED) with its ErrorInfo on every binding.
    match tonic::Status::from_header_map(response.headers()) {
        Some(status)
            if status.code() == tonic::Code::OutOfRange
                && status.message().starts_with(TOO_LARGE) =>
        {
            let limit = u64::try_from(edge.max_message_bytes).unwrap_or(u64::MAX);
            to_status(&A2aError::payload_too_large(limit)).into_http::<axum::body::Body>()
        }
        Some(_) | None => response,
    }
}

/// UNAUTHENTICATED (or PERMISSION_DENIED for a missing scope) with the challenges.
fn refuse(failure: AuthFailure) -> Response {
    let mut response = to_status(&failure.error).into_http::<axum::body::Body>();
    for challenge in failure.challenges {
        response
            .headers_mut()
            .append(http::header::WWW_AUTHENTICATE, challenge);
    }
    response
}

/// A path outside the service: UNIMPLEMENTED, as gRPC answers an unknown method.
async fn unimplemented(request: Request) -> Response {
    tonic::Status::unimplemented(format!("no such method: {}", request.uri().path()))
        .into_http::<axum::body::Body>()
}
