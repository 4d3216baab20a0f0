//! `jwks`: the token issuer of the authentication benchmark (`bench/auth.sh`). Makes a fresh
//! ES256 (P-256) key pair, writes to `--token-out` one JWT signed with it (`iss`, `aud`,
//! `sub`, `iat`, `exp` `--ttl-s` from now, header `kid`), then serves the public key as a
//! JWK Set at `GET /jwks.json`, for `a2a serve --jwks-url`. Prints `listening on
//! http://ADDR` once the token is written.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, anyhow};
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use clap::Parser;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};

/// The key id of the one key, in the JWKS and in the token's header.
const KID: &str = "bench-es256";

/// Flags of `jwks`.
#[derive(Debug, Parser)]
#[command(about = "Serves a JWKS of one fresh ES256 key and writes a token signed with it")]
struct Args {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: String,
    /// The token's `iss`.
    #[arg(long, default_value = "https://issuer.bench")]
    issuer: String,
    /// The token's `aud`.
    #[arg(long, default_value = "https://agent.bench")]
    audience: String,
    /// The token's `sub`.
    #[arg(long, default_value = "bench")]
    subject: String,
    /// The token expires this many seconds from now.
    #[arg(long, default_value_t = 3600)]
    ttl_s: u64,
    /// Where the token goes (the compact JWT, no newline).
    #[arg(long)]
    token_out: PathBuf,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
        .map_err(|_| anyhow!("cannot generate a P-256 key"))?;
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
        .map_err(|_| anyhow!("cannot read the generated key"))?;
    // An uncompressed point: 0x04, then x and y, 32 bytes each.
    let point = pair.public_key().as_ref();
    let (x, y) = (&point[1..33], &point[33..65]);
    let jwks = serde_json::json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": KID, "alg": "ES256", "use": "sig",
        "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y),
    }]})
    .to_string();

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the clock is before 1970")?
        .as_secs();
    let header = jsonwebtoken::Header {
        kid: Some(KID.to_owned()),
        ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256)
    };
    let claims = serde_json::json!({
        "iss": args.issuer, "aud": args.audience, "sub": args.subject,
        "iat": now, "exp": now + args.ttl_s,
    });
    let key = jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref());
    let token = jsonwebtoken::encode(&header, &claims, &key).context("cannot sign the token")?;
    std::fs::write(&args.token_out, token)
        .with_context(|| format!("cannot write {}", args.token_out.display()))?;

    let app = axum::Router::new().route(
        "/jwks.json",
        get(move || {
            let jwks = jwks.clone();
            async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/jwk-set+json")],
                    jwks,
                )
            }
        }),
    );
    a2a_bench::serve(&args.bind, app).await?;
    Ok(())
}
