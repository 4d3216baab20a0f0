//! Bearer-token checks at the gateway: who is calling, or -32010.

use a2a_server::auth::token::TokenVerifier;
use http::header::{AUTHORIZATION, HeaderMap};

use super::error::GatewayError;

/// The caller id agents see when the gateway checks no tokens.
pub(crate) const ANONYMOUS: &str = "anonymous";

/// The caller id to send to the agent ([`CALLER_ID_HEADER`](super::CALLER_ID_HEADER)): the
/// token's subject, else its client id or user name, when `verifier` is set; [`ANONYMOUS`]
/// otherwise.
///
/// # Errors
/// [`GatewayError::Unauthenticated`] when a verifier is set and the request has no bearer
/// token, or the verifier refuses it. The reason names the failed check, never the token.
pub(crate) async fn caller_id(
    verifier: Option<&dyn TokenVerifier>,
    headers: &HeaderMap,
) -> Result<String, GatewayError> {
    let Some(verifier) = verifier else {
        return Ok(ANONYMOUS.to_owned());
    };
    let token = bearer_token(headers).ok_or_else(|| GatewayError::Unauthenticated {
        reason: "a bearer token is required".to_owned(),
    })?;
    let verified = verifier
        .verify(token)
        .await
        .map_err(|error| GatewayError::Unauthenticated {
            reason: error.to_string(),
        })?;
    Ok(verified
        .subject
        .or(verified.client_id)
        .or(verified.username)
        .unwrap_or_else(|| "authenticated".to_owned()))
}

/// The token of an `Authorization: Bearer <token>` header (scheme in any case).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn only_bearer_credentials_are_tokens() {
        let cases = [
            ("Bearer abc", Some("abc")),
            ("bearer  abc ", Some("abc")),
            ("Basic abc", None),
            ("Bearer ", None),
            ("Bearer", None),
        ];
        for (header, token) in cases {
            let mut headers = HeaderMap::new();
            headers.insert(AUTHORIZATION, HeaderValue::from_static(header));
            assert_eq!(bearer_token(&headers), token, "{header:?}");
        }
    }
}
