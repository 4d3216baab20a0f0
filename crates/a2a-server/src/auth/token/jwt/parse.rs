//! Reading a JWS in compact form: its header, claims and signature, strictly, before any
//! check.

use std::str::FromStr as _;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::Algorithm;
use serde_json::{Map, Value};

use super::super::TokenError;
use super::{ASYMMETRIC, Token};

impl<'a> Token<'a> {
    pub(super) fn parse(token: &'a str, max_bytes: usize) -> Result<Self, TokenError> {
        let malformed = |why: &str| TokenError::Malformed(why.to_owned());
        if token.len() > max_bytes {
            return Err(TokenError::Malformed(format!(
                "the token is longer than {max_bytes} bytes"
            )));
        }
        let mut segments = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) = (
            segments.next(),
            segments.next(),
            segments.next(),
            segments.next(),
        ) else {
            return Err(malformed("a JWT has three segments"));
        };
        let header = decode_object(header)
            .ok_or_else(|| malformed("the header is not a base64url-encoded JSON object"))?;
        let Some(Value::String(alg)) = header.get("alg") else {
            return Err(malformed("the header names no algorithm"));
        };
        if alg.eq_ignore_ascii_case("none") {
            return Err(TokenError::Algorithm(
                "unsigned tokens are never accepted".into(),
            ));
        }
        // The name is the caller's text, so it is not repeated in the error.
        let alg = Algorithm::from_str(alg)
            .map_err(|_| TokenError::Algorithm("the algorithm is not supported".into()))?;
        if !ASYMMETRIC.contains(&alg) {
            return Err(TokenError::Algorithm(
                "symmetric algorithms are never accepted".into(),
            ));
        }
        // RFC 7515 §4.1.11: a recipient must refuse extensions it does not understand, and
        // this verifier understands none.
        if header.contains_key("crit") {
            return Err(malformed("the header has critical extensions"));
        }
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.clone()),
            Some(_) => return Err(malformed("the key id is not a string")),
        };
        if signature.is_empty() || URL_SAFE_NO_PAD.decode(signature).is_err() {
            return Err(malformed("the signature is not base64url"));
        }
        let claims = decode_object(payload)
            .ok_or_else(|| malformed("the payload is not a base64url-encoded JSON object"))?;
        Ok(Self {
            alg,
            kid,
            claims,
            signing_input: &token[..token.len() - signature.len() - 1],
            signature,
        })
    }
}

fn decode_object(segment: &str) -> Option<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(segment).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}
