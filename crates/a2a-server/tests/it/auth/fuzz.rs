//! 10 000 random or mangled credentials through the whole authentication path: never a
//! panic, never an acceptance (issue 7). In process (the router, no socket) so the run stays
//! short; every request is a full HTTP request through the same code a socket reaches.

use a2a_server::A2aServer;
use a2a_server::auth::Authentication;
use a2a_types::card::{ApiKeyLocation, SecurityScheme};
use axum::body::Body;
use http::{HeaderValue, Request};
use tower::ServiceExt as _;

use super::{KnownTokens, secured_card, send_body};
use crate::support::BindingEcho;

const KEY: &str = "k3y-0123456789abcdef";
const TOKEN: &str = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";

/// xorshift64*: deterministic, so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Bytes a header value may hold: visible ASCII, space, tab and obs-text.
    fn header_bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len)
            .map(|_| match self.below(10) {
                0 => b' ',
                1 => b'\t',
                2 => 0x80 + self.below(0x80) as u8,
                _ => 0x21 + self.below(0x5e) as u8,
            })
            .collect()
    }
}

/// A credential mangled one of many ways from a valid one (or from nothing).
fn mangle(rng: &mut Rng, valid: &str) -> Vec<u8> {
    let mut bytes = valid.as_bytes().to_vec();
    match rng.below(12) {
        0 => {
            let len = 1 + rng.below(64);
            return rng.header_bytes(len);
        }
        1 => {
            let at = rng.below(bytes.len());
            bytes[at] = if bytes[at] == b'a' { b'b' } else { b'a' };
        }
        2 => bytes.truncate(rng.below(bytes.len())),
        3 => bytes.push(b'=' + rng.below(3) as u8),
        4 => bytes.insert(0, b' '),
        5 => bytes = bytes.to_ascii_uppercase(),
        6 => {
            let len = 1 + rng.below(8);
            bytes.extend(rng.header_bytes(len));
        }
        7 => bytes = [bytes.clone(), bytes].concat(),
        8 => {
            let len = 16 * 1024 + rng.below(8 * 1024);
            bytes = rng.header_bytes(len);
        }
        9 => bytes = "é".repeat(1 + rng.below(20)).into_bytes(),
        10 => {
            let at = rng.below(bytes.len());
            bytes.insert(at, b'.');
        }
        _ => bytes.reverse(),
    }
    // Surrounding whitespace is not part of a header value (HTTP's OWS), so a value that
    // trims to the valid one is not mangled.
    if bytes.trim_ascii() == valid.as_bytes() {
        bytes.push(b'x');
    }
    bytes
}

fn request(headers: Vec<(&'static str, Vec<u8>)>, query: &str) -> Option<Request<Body>> {
    let mut request = Request::post(format!("/a2a{query}"))
        .header("A2A-Version", "1.0")
        .header("Content-Type", "application/json");
    for (name, value) in headers {
        request = request.header(name, HeaderValue::from_bytes(&value).ok()?);
    }
    request.body(Body::from(send_body("fuzz"))).ok()
}

#[tokio::test]
async fn ten_thousand_mangled_credentials_are_all_refused_without_a_panic() {
    let card = secured_card(
        &[
            (
                "key",
                SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
            ),
            (
                "query",
                SecurityScheme::api_key(ApiKeyLocation::Query, "key"),
            ),
            (
                "cookie",
                SecurityScheme::api_key(ApiKeyLocation::Cookie, "session"),
            ),
            ("bearer", SecurityScheme::bearer("JWT")),
        ],
        &[],
    );
    let server = A2aServer::builder(card, BindingEcho)
        .authentication(
            Authentication::required()
                .api_key(KEY)
                .bearer_token("static-bearer")
                .token_verifier(KnownTokens::default().with(TOKEN, "alice", &[])),
        )
        .build()
        .unwrap();
    let router = server.router();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut sent = 0;
    let mut statuses = std::collections::BTreeMap::new();
    while sent < 10_000 {
        let (headers, query): (Vec<(&'static str, Vec<u8>)>, String) = match rng.below(7) {
            0 => (vec![("X-API-Key", mangle(&mut rng, KEY))], String::new()),
            1 => {
                let mut value = b"Bearer ".to_vec();
                value.extend(mangle(&mut rng, TOKEN));
                (vec![("Authorization", value)], String::new())
            }
            2 => {
                let mut value = b"Bearer ".to_vec();
                value.extend(mangle(&mut rng, "static-bearer"));
                (vec![("Authorization", value)], String::new())
            }
            3 => (
                vec![(
                    "Authorization",
                    mangle(&mut rng, &format!("Bearer {TOKEN}")),
                )],
                String::new(),
            ),
            4 => {
                let mut value = b"session=".to_vec();
                value.extend(mangle(&mut rng, KEY));
                (vec![("Cookie", value)], String::new())
            }
            5 => {
                let mangled = mangle(&mut rng, KEY);
                let text: String = mangled.iter().map(|byte| format!("%{byte:02X}")).collect();
                (Vec::new(), format!("?key={text}"))
            }
            _ => (
                vec![
                    ("Authorization", format!("Bearer {TOKEN}").into_bytes()),
                    ("Authorization", format!("Bearer {TOKEN}").into_bytes()),
                ],
                String::new(),
            ),
        };
        let Some(request) = request(headers, &query) else {
            continue;
        };
        let response = router.clone().oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        *statuses.entry(status).or_insert(0) += 1;
        assert!(
            status == 401 || status == 400,
            "accepted or failed: {status}"
        );
        sent += 1;
    }
    assert_eq!(statuses.values().sum::<i32>(), 10_000);

    // Still serving, and the real credentials still work.
    let valid = request(vec![("X-API-Key", KEY.as_bytes().to_vec())], "").unwrap();
    assert_eq!(router.clone().oneshot(valid).await.unwrap().status(), 200);
    let token = request(
        vec![("Authorization", format!("Bearer {TOKEN}").into_bytes())],
        "",
    )
    .unwrap();
    assert_eq!(router.oneshot(token).await.unwrap().status(), 200);
}
