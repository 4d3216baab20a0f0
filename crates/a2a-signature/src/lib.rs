//! Signed agent cards and the JWK/JWS code the A2A server, client and gateway share.
//!
//! An agent card may carry JWS signatures (spec §11.5): each covers the card without
//! `signatures`, default values dropped, in RFC 8785 (JCS) form ([`signed_payload`]). This
//! crate signs cards with a PEM key ([`SigningKey`]: EC P-256, P-384, Ed25519, RSA), checks
//! them against public keys read from JWKs ([`VerifyingKey`], on `jsonwebtoken`'s [`Jwk`]
//! type), and computes RFC 7638 thumbprints used as key ids.
//!
//! ```
//! use a2a_signature::{CardSignatureError, SigningKey, VerifyingKey, sign_card, verify_card};
//! use serde_json::json;
//!
//! let key = SigningKey::generate_es256()?;
//! let mut card = json!({"name": "Echo", "description": "Echoes.", "version": "1.0.0"});
//! let signature = sign_card(card.as_object().unwrap(), &key, None)?;
//! card["signatures"] = json!([signature]);
//!
//! let trusted = [VerifyingKey::from_jwk(key.public_jwk())?];
//! assert!(verify_card(card.as_object().unwrap(), &trusted).is_ok());
//!
//! card["name"] = json!("Not Echo");
//! assert!(matches!(
//!     verify_card(card.as_object().unwrap(), &trusted),
//!     Err(CardSignatureError::BadSignature { .. })
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Feature flags
//!
//! None: everything is always built.
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod canonical;
mod card;
mod keys;

pub use jsonwebtoken::Algorithm;
pub use jsonwebtoken::jwk::{Jwk, JwkSet};

pub use self::canonical::{canonical_json, signed_payload};
pub use self::card::{
    CardSignature, CardSignatureError, JOSE_TYPE, VerifiedCardSignature, card_signatures,
    check_card, encoded_payload, sign_agent_card, sign_card, verdict, verify_card,
};
pub use self::keys::{
    KeyError, SigningKey, VerifyError, VerifyingKey, algorithm, algorithm_name, jwk_set, thumbprint,
};
