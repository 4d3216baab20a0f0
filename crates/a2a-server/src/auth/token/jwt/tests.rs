use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

use super::*;
use crate::auth::token::{TokenConfigError, TokenError};

fn segment(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

fn claims(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("test claims are objects"),
    }
}

fn now() -> i64 {
    i64::try_from(jsonwebtoken::get_current_timestamp()).unwrap()
}

#[test]
fn headers_are_read_strictly() {
    let payload = segment(&json!({ "exp": now() + 60 }));
    let signature = URL_SAFE_NO_PAD.encode([7; 64]);
    let with_header = |header: Value| format!("{}.{payload}.{signature}", segment(&header));
    let cases = [
        (json!({ "alg": "none" }), "algorithm"),
        (json!({ "alg": "NONE" }), "algorithm"),
        (json!({ "alg": "HS256" }), "algorithm"),
        (json!({ "alg": "ES512" }), "algorithm"),
        (json!({ "alg": 256 }), "malformed"),
        (json!({ "typ": "JWT" }), "malformed"),
        (json!({ "alg": "RS256", "crit": ["exp"] }), "malformed"),
        (json!({ "alg": "RS256", "kid": 7 }), "malformed"),
        (json!(["RS256"]), "malformed"),
    ];
    for (header, expected) in cases {
        let error = Token::parse(&with_header(header.clone()), 16 * 1024)
            .err()
            .unwrap();
        let kind = match error {
            TokenError::Algorithm(_) => "algorithm",
            TokenError::Malformed(_) => "malformed",
            _ => "other",
        };
        assert_eq!(kind, expected, "{header}");
    }
    let token = with_header(json!({ "alg": "ES256", "kid": "k" }));
    let good = Token::parse(&token, 16 * 1024).ok().unwrap();
    assert_eq!(good.alg, Algorithm::ES256);
    assert_eq!(good.kid.as_deref(), Some("k"));
    assert_eq!(good.signature, signature);
    assert!(good.signing_input.ends_with(&payload));
}

#[test]
fn segments_and_sizes_are_bounded() {
    let header = segment(&json!({ "alg": "RS256" }));
    let payload = segment(&json!({ "exp": now() + 60 }));
    let cases = [
        String::new(),
        "a.b".into(),
        format!("{header}.{payload}"),
        format!("{header}.{payload}."),
        format!("{header}.{payload}.sig=="),
        format!("{header}.{payload}.c2ln.extra"),
        format!("{header}..c2ln"),
        format!("{header}.{}.c2ln", URL_SAFE_NO_PAD.encode("[1]")),
        format!("{header}.{payload}.{}", "A".repeat(20_000)),
    ];
    for token in cases {
        assert!(
            matches!(
                Token::parse(&token, 16 * 1024),
                Err(TokenError::Malformed(_))
            ),
            "{token:.60}"
        );
    }
}

#[test]
fn errors_never_repeat_the_token() {
    let secretish = "c2VjcmV0LXRva2VuLXRleHQ";
    let token = format!(
        "{}.{secretish}.{secretish}",
        segment(&json!({ "alg": secretish }))
    );
    let error = Token::parse(&token, 16 * 1024).err().unwrap();
    assert!(!error.to_string().contains(secretish));
}

#[test]
fn time_claims() {
    let leeway = Duration::from_secs(60);
    let now = now();
    let cases = [
        (json!({ "exp": now + 10 }), Ok(())),
        (json!({ "exp": now - 30 }), Ok(())),
        (json!({ "exp": (now + 10) as f64 + 0.5 }), Ok(())),
        (json!({ "exp": now - 61 }), Err(TokenError::Expired)),
        (json!({}), Err(TokenError::Claim("exp".into()))),
        (
            json!({ "exp": "tomorrow" }),
            Err(TokenError::Claim("exp".into())),
        ),
        (json!({ "exp": now + 10, "nbf": now + 30 }), Ok(())),
        (
            json!({ "exp": now + 900, "nbf": now + 120 }),
            Err(TokenError::NotYetValid),
        ),
        (
            json!({ "exp": now + 900, "iat": now + 120 }),
            Err(TokenError::NotYetValid),
        ),
        (json!({ "exp": now + 900, "iat": now - 120 }), Ok(())),
        (
            json!({ "exp": now + 900, "nbf": "soon" }),
            Err(TokenError::Claim("nbf".into())),
        ),
        (json!({ "exp": -1 }), Err(TokenError::Expired)),
        (json!({ "exp": 1e300 }), Ok(())),
    ];
    for (value, expected) in cases {
        assert_eq!(
            check_times(&claims(value.clone()), leeway, true),
            expected,
            "{value}"
        );
    }
    assert_eq!(check_times(&claims(json!({})), leeway, false), Ok(()));
}

#[test]
fn issuer_and_audience_claims() {
    let token = claims(json!({ "iss": "https://idp", "aud": ["a", "b"] }));
    assert_eq!(check_issuer(&token, "https://idp"), Ok(()));
    assert_eq!(
        check_issuer(&token, "https://idp/"),
        Err(TokenError::Issuer)
    );
    assert_eq!(
        check_issuer(&claims(json!({})), "https://idp"),
        Err(TokenError::Issuer)
    );
    assert_eq!(check_audience(&token, &["b".into()]), Ok(()));
    assert_eq!(
        check_audience(&token, &["c".into()]),
        Err(TokenError::Audience)
    );
    assert_eq!(
        check_audience(&claims(json!({ "aud": "c" })), &["c".into()]),
        Ok(())
    );
    assert_eq!(
        check_audience(&claims(json!({})), &["c".into()]),
        Err(TokenError::Audience)
    );
    assert_eq!(check_audience(&claims(json!({})), &[]), Ok(()));
}

#[test]
fn configuration_must_say_who_issues_and_for_whom() {
    let keys = || JwksSource::Keys(JwkSet { keys: Vec::new() });
    let error = |config: JwtConfig| JwtVerifier::new(config).err();
    assert_eq!(
        error(JwtConfig::new(keys()).with_audience("a")),
        Some(TokenConfigError::MissingIssuer)
    );
    assert_eq!(
        error(JwtConfig::new(keys()).with_issuer("i")),
        Some(TokenConfigError::MissingAudience)
    );
    assert_eq!(
        error(
            JwtConfig::new(keys())
                .with_issuer("i")
                .with_audience("a")
                .with_algorithms([Algorithm::RS256, Algorithm::HS256])
        ),
        Some(TokenConfigError::SymmetricAlgorithm(Algorithm::HS256))
    );
    assert_eq!(
        error(
            JwtConfig::new(keys())
                .with_issuer("i")
                .with_audience("a")
                .with_algorithms([])
        ),
        Some(TokenConfigError::NoAlgorithm)
    );
    assert!(JwtVerifier::new(JwtConfig::new(keys()).with_any_issuer().with_any_audience()).is_ok());
    let discovered = JwtConfig::new(JwksSource::OidcIssuer(
        Url::parse("https://idp.example").unwrap(),
    ))
    .with_audience("a");
    assert!(JwtVerifier::new(discovered).is_ok());
    assert_eq!(
        JwtVerifier::from_openid_connect_url("not a url", ["a"]).err(),
        Some(TokenConfigError::InvalidUrl {
            what: "the OpenID Connect discovery url"
        })
    );
    assert!(
        JwtVerifier::from_openid_connect_url(
            "https://idp.example/.well-known/openid-configuration",
            ["a"]
        )
        .is_ok()
    );
}
