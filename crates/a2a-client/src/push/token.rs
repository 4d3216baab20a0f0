//! The push config's token, checked in constant time.

use http::HeaderMap;

use super::error::PushVerifyError;
use super::wire::{LEGACY_TOKEN_HEADER, TOKEN_HEADER};

/// Checks that the delivery carries `expected` in [`TOKEN_HEADER`] or
/// [`LEGACY_TOKEN_HEADER`]; every such header present must hold it. The comparison takes
/// the same time wherever the values differ.
///
/// # Errors
/// [`PushVerifyError::MissingToken`] when neither header is present,
/// [`PushVerifyError::TokenMismatch`] when one holds something else.
pub fn check_token(headers: &HeaderMap, expected: &str) -> Result<(), PushVerifyError> {
    let mut seen = false;
    let mut all_match = true;
    for name in [TOKEN_HEADER, LEGACY_TOKEN_HEADER] {
        for value in headers.get_all(name) {
            seen = true;
            all_match &= same_secret(value.as_bytes(), expected.as_bytes());
        }
    }
    match (seen, all_match) {
        (false, _) => Err(PushVerifyError::MissingToken),
        (true, false) => Err(PushVerifyError::TokenMismatch),
        (true, true) => Ok(()),
    }
}

/// Compares SHA-256 digests byte by byte without stopping early, so the time taken says
/// nothing about where the values differ, nor about their lengths.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let given = ring::digest::digest(&ring::digest::SHA256, given);
    let expected = ring::digest::digest(&ring::digest::SHA256, expected);
    given
        .as_ref()
        .iter()
        .zip(expected.as_ref())
        .fold(0u8, |difference, (a, b)| difference | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    #[test]
    fn tokens_must_all_match() {
        let mut headers = HeaderMap::new();
        assert!(matches!(
            check_token(&headers, "t1"),
            Err(PushVerifyError::MissingToken)
        ));
        headers.insert(LEGACY_TOKEN_HEADER, HeaderValue::from_static("t1"));
        check_token(&headers, "t1").unwrap();
        headers.insert(TOKEN_HEADER, HeaderValue::from_static("t2"));
        let error = check_token(&headers, "t1").unwrap_err();
        assert!(matches!(error, PushVerifyError::TokenMismatch));
        assert!(!error.to_string().contains("t2") && !error.to_string().contains("t1"));
        assert!(!same_secret(b"t1", b"t1x"));
        assert!(same_secret(b"", b""));
    }
}
