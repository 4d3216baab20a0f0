//! What a request presents: API keys in a header, query parameter or cookie, a bearer token
//! in `Authorization`, a client certificate from the TLS layer. Reading never fails: what
//! cannot be read is simply not presented, and a malformed credential fails its check.

use http::request::Parts;
use http::{HeaderMap, HeaderName};

use super::certificate::ClientCertificate;

/// The longest credential read; anything longer is not a credential we issued or accept.
const MAX_CREDENTIAL_BYTES: usize = 16 * 1024;

/// The credentials of one request.
#[derive(Debug)]
pub(super) struct Presented<'a> {
    headers: &'a HeaderMap,
    /// The raw query string: parsed only when a scheme reads a key from it, so requests to
    /// cards without query-parameter keys never pay for it.
    query: &'a str,
    certificate: Option<&'a ClientCertificate>,
}

/// A bearer token as presented: absent, present, or an `Authorization` header that is not a
/// usable bearer token.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Bearer<'a> {
    /// No `Authorization: Bearer` header.
    Absent,
    /// The token.
    Token(&'a str),
    /// Several `Authorization` headers, a bearer header with no token or with characters a
    /// token cannot have, or one too long.
    Malformed,
}

impl<'a> Presented<'a> {
    /// The credentials of a request.
    pub(super) fn of(parts: &'a Parts) -> Self {
        Self {
            headers: &parts.headers,
            query: parts.uri.query().unwrap_or_default(),
            certificate: parts.extensions.get::<ClientCertificate>(),
        }
    }

    /// The value of header `name`, when exactly one is present and it is not too long.
    pub(super) fn header(&self, name: &HeaderName) -> Option<&'a [u8]> {
        let mut values = self.headers.get_all(name).iter();
        let value = values.next()?;
        if values.next().is_some() || value.len() > MAX_CREDENTIAL_BYTES {
            return None;
        }
        Some(value.as_bytes())
    }

    /// The value of query parameter `name`, when exactly one is present.
    pub(super) fn query(&self, name: &str) -> Option<String> {
        let pairs = crate::percent::query_pairs(self.query);
        let mut values = pairs
            .into_iter()
            .filter(|(key, _)| key == name)
            .map(|(_, value)| value);
        let value = values.next()?;
        if values.next().is_some() || value.len() > MAX_CREDENTIAL_BYTES {
            return None;
        }
        Some(value)
    }

    /// The value of cookie `name`, when exactly one is present across `Cookie` headers.
    pub(super) fn cookie(&self, name: &str) -> Option<&'a str> {
        let mut values = self
            .headers
            .get_all(http::header::COOKIE)
            .iter()
            .filter_map(|header| header.to_str().ok())
            .flat_map(|header| header.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(|(key, _)| *key == name)
            .map(|(_, value)| value.trim().trim_matches('"'));
        let value = values.next()?;
        if values.next().is_some() || value.len() > MAX_CREDENTIAL_BYTES {
            return None;
        }
        Some(value)
    }

    /// The bearer token of `Authorization` (RFC 6750 §2.1: the scheme in any case, then
    /// the token68).
    pub(super) fn bearer(&self) -> Bearer<'a> {
        let mut values = self.headers.get_all(http::header::AUTHORIZATION).iter();
        let Some(value) = values.next() else {
            return Bearer::Absent;
        };
        let Ok(text) = value.to_str() else {
            return Bearer::Absent;
        };
        let Some((scheme, token)) = text.trim().split_once(' ') else {
            return if text.trim().eq_ignore_ascii_case("bearer") {
                Bearer::Malformed
            } else {
                Bearer::Absent
            };
        };
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Bearer::Absent;
        }
        if values.next().is_some() {
            return Bearer::Malformed;
        }
        let token = token.trim_start();
        if token.is_empty() || token.len() > MAX_CREDENTIAL_BYTES || !is_token68(token) {
            return Bearer::Malformed;
        }
        Bearer::Token(token)
    }

    /// The client certificate the TLS layer verified, if any.
    pub(super) fn certificate(&self) -> Option<&'a ClientCertificate> {
        self.certificate
    }

    /// True when the request presents nothing that looks like a credential, so a refusal
    /// can say "authentication required" rather than "invalid credentials".
    pub(super) fn has_authorization(&self) -> bool {
        self.headers.contains_key(http::header::AUTHORIZATION)
    }
}

/// RFC 7235 token68: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_token68(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    // One table lookup a byte: a JWT is a few hundred bytes, and testing each against the
    // six punctuation characters in turn cost more than the rest of reading the header.
    !body.is_empty() && body.bytes().all(|byte| TOKEN68[usize::from(byte)])
}

/// The bytes of a token68 before its padding.
const TOKEN68: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] =
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
        byte += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(uri: &str, headers: &[(&str, &str)]) -> Parts {
        let mut request = http::Request::builder().uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request
            .body(())
            .unwrap_or_else(|error| panic!("{error}"))
            .into_parts()
            .0
    }

    #[test]
    fn bearer_tokens_are_read_strictly() {
        let cases: [(&[(&str, &str)], Bearer<'_>); 8] = [
            (&[], Bearer::Absent),
            (
                &[("authorization", "Bearer abc.def-ghi")],
                Bearer::Token("abc.def-ghi"),
            ),
            (
                &[("authorization", "bearer  abc==")],
                Bearer::Token("abc=="),
            ),
            (&[("authorization", "Basic dXNlcjpwdw==")], Bearer::Absent),
            (&[("authorization", "Bearer")], Bearer::Malformed),
            (&[("authorization", "Bearer a b")], Bearer::Malformed),
            (&[("authorization", "Bearer a=b")], Bearer::Malformed),
            (
                &[("authorization", "Bearer a"), ("authorization", "Bearer b")],
                Bearer::Malformed,
            ),
        ];
        for (headers, expected) in cases {
            let parts = parts("/", headers);
            assert_eq!(Presented::of(&parts).bearer(), expected, "{headers:?}");
        }
    }

    #[test]
    fn token68_is_letters_digits_six_marks_and_trailing_padding() {
        for good in ["a", "A-._~+/9", "abc==", "x="] {
            assert!(is_token68(good), "{good}");
        }
        for bad in [
            "", "=", "a=b", "a b", "a,b", "a\u{e9}", "a\"b", "a:b", "a\tb",
        ] {
            assert!(!is_token68(bad), "{bad}");
        }
    }

    #[test]
    fn keys_come_from_one_header_query_parameter_or_cookie() {
        let parts = parts(
            "/x?api_key=q1&dup=1&dup=2",
            &[
                ("x-api-key", "h1"),
                ("cookie", "a=1; key=c1"),
                ("cookie", "b=2"),
                ("x-twice", "1"),
                ("x-twice", "2"),
            ],
        );
        let presented = Presented::of(&parts);
        let header = HeaderName::from_static;
        assert_eq!(presented.header(&header("x-api-key")), Some(&b"h1"[..]));
        assert_eq!(presented.header(&header("x-twice")), None);
        assert_eq!(presented.header(&header("x-missing")), None);
        assert_eq!(presented.query("api_key").as_deref(), Some("q1"));
        assert_eq!(presented.query("dup"), None);
        assert_eq!(presented.cookie("key"), Some("c1"));
        assert_eq!(presented.cookie("b"), Some("2"));
        assert_eq!(presented.cookie("missing"), None);
    }
}
