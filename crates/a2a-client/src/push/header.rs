//! The protected header of a delivery's JWS: the members the verifier relies on, checked.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::error::PushVerifyError;
use super::keys::Algorithm;
use super::wire::SIGNATURE_TYPE;

/// Key ids in errors are cut to this many characters; they come from the sender.
const MAX_KID_CHARS: usize = 64;

/// The protected header's members this verifier relies on.
pub(super) struct ProtectedHeader {
    pub(super) algorithm: Algorithm,
    pub(super) kid: String,
    pub(super) issued_at: u64,
}

pub(super) fn parse_protected_header(encoded: &str) -> Result<ProtectedHeader, PushVerifyError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(encoded)
        .map_err(|_| malformed("the protected header is not base64url"))?;
    let header: serde_json::Map<String, Value> = serde_json::from_slice(&bytes)
        .map_err(|_| malformed("the protected header is not a JSON object"))?;
    // RFC 7515 §4.1.11: extensions we do not understand must not be ignored.
    if header.contains_key("crit") {
        return Err(malformed("the protected header has crit"));
    }
    let alg = header
        .get("alg")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("the protected header has no alg"))?;
    let algorithm = Algorithm::from_name(alg)
        .ok_or_else(|| PushVerifyError::UnsupportedAlgorithm { alg: shorten(alg) })?;
    // RFC 7515 §4.1.9: `typ` compares case-insensitively and may carry `application/`.
    let typ = header
        .get("typ")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let typ = typ
        .get(..12)
        .filter(|prefix| prefix.eq_ignore_ascii_case("application/"))
        .map_or(typ, |_| &typ[12..]);
    if !typ.eq_ignore_ascii_case(SIGNATURE_TYPE) {
        return Err(malformed("typ is not a2a-push+jws"));
    }
    let kid = header
        .get("kid")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("the protected header has no kid"))?;
    let issued_at = header
        .get("iat")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed("the protected header has no iat in unix seconds"))?;
    Ok(ProtectedHeader {
        algorithm,
        kid: shorten(kid),
        issued_at,
    })
}

pub(super) fn malformed(reason: &'static str) -> PushVerifyError {
    PushVerifyError::MalformedSignature { reason }
}

/// A sender's value, cut to [`MAX_KID_CHARS`] characters for errors and lookups (longer
/// key ids are never published by the agent, so cutting cannot make one match).
fn shorten(value: &str) -> String {
    if value.chars().count() <= MAX_KID_CHARS {
        value.to_owned()
    } else {
        let mut short: String = value.chars().take(MAX_KID_CHARS).collect();
        short.push('…');
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sender_values_in_errors_are_cut_short() {
        let long = "k".repeat(500);
        assert_eq!(shorten(&long).chars().count(), MAX_KID_CHARS + 1);
        assert_eq!(shorten("short"), "short");
    }
}
