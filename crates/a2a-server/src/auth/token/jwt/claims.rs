//! The checks of a token's registered claims: times, issuer and audience.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use super::super::TokenError;

/// Checks `exp` (required when `require_exp`), `nbf` and `iat` against the clock.
pub(in crate::auth::token) fn check_times(
    claims: &Map<String, Value>,
    leeway: Duration,
    require_exp: bool,
) -> Result<(), TokenError> {
    let now = now();
    let leeway = leeway.as_secs_f64();
    match numeric_date(claims, "exp")? {
        Some(exp) if now >= exp + leeway => return Err(TokenError::Expired),
        Some(_) => {}
        None if require_exp => return Err(TokenError::Claim("exp".into())),
        None => {}
    }
    for name in ["nbf", "iat"] {
        if numeric_date(claims, name)?.is_some_and(|at| at > now + leeway) {
            return Err(TokenError::NotYetValid);
        }
    }
    Ok(())
}

/// The seconds since the epoch now, as the time claims count them.
pub(in crate::auth::token) fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|since| since.as_secs_f64())
        .unwrap_or_default()
}

/// `exp`, when it is a NumericDate.
pub(in crate::auth::token) fn expiry(claims: &Map<String, Value>) -> Option<f64> {
    numeric_date(claims, "exp").ok().flatten()
}

/// A NumericDate claim (RFC 7519 §2): seconds since the epoch, possibly fractional.
fn numeric_date(claims: &Map<String, Value>, name: &str) -> Result<Option<f64>, TokenError> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => number
            .as_f64()
            .map(Some)
            .ok_or_else(|| TokenError::Claim(name.into())),
        Some(_) => Err(TokenError::Claim(name.into())),
    }
}

/// `iss` must be `expected`, exactly.
pub(in crate::auth::token) fn check_issuer(
    claims: &Map<String, Value>,
    expected: &str,
) -> Result<(), TokenError> {
    match claims.get("iss") {
        Some(Value::String(issuer)) if issuer == expected => Ok(()),
        _ => Err(TokenError::Issuer),
    }
}

/// `aud` (a string or a list) must name one of `accepted`; an empty `accepted` accepts all.
pub(in crate::auth::token) fn check_audience(
    claims: &Map<String, Value>,
    accepted: &[String],
) -> Result<(), TokenError> {
    if accepted.is_empty() {
        return Ok(());
    }
    let named = |audience: &str| accepted.iter().any(|one| one == audience);
    let found = match claims.get("aud") {
        Some(Value::String(audience)) => named(audience),
        Some(Value::Array(audiences)) => audiences.iter().filter_map(Value::as_str).any(named),
        _ => false,
    };
    if found {
        Ok(())
    } else {
        Err(TokenError::Audience)
    }
}
