//! Rules on the Agent Card's signatures.
//!
//! Rules on the Agent Card's signatures (when it has any): each is a JWS whose protected
//! header names its algorithm, key and type, and the card as served verifies with the key
//! the header points at.

use std::sync::Arc;

use a2a_signature::{CardSignature, CardSignatureError, VerifyingKey};
use base64::Engine as _;
use serde_json::Value;

use crate::card::{card_failure, card_json};
use crate::context::Context;
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[STRUCTURE, VERIFIES];

rule!(STRUCTURE, "card.signatures", Must, "8.4.2", Card, false,
    "Each card signature (when present) has protected and signature members, and its protected header holds alg, kid and typ." => structure);
rule!(VERIFIES, "card.signature-verifies", Must, "8.4.3", Card, false,
    "A signed card verifies: a signature checks over the card as served (RFC 8785, signatures left out) with the key its kid names in the JWK Set at its jku, else at the agent's /.well-known/jwks.json, and none fails with its own key." => verifies);

/// The largest JWK Set read.
const MAX_JWKS_BYTES: usize = 1024 * 1024;

async fn structure(context: Arc<Context>) -> Checked {
    let card = card_json(&context)?;
    let Some(signatures) = card.get("signatures").and_then(Value::as_array) else {
        return Err(Outcome::skip("the card is not signed"));
    };
    let mut problems = Vec::new();
    for (index, signature) in signatures.iter().enumerate() {
        let at = format!("signatures[{index}]");
        if !signature.get("signature").is_some_and(Value::is_string) {
            problems.push(format!("{at}.signature is missing"));
        }
        let Some(protected) = signature.get("protected").and_then(Value::as_str) else {
            problems.push(format!("{at}.protected is missing"));
            continue;
        };
        let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(protected.trim_end_matches('='))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
        let Some(header) = header else {
            problems.push(format!("{at}.protected is not base64url of a JSON object"));
            continue;
        };
        for member in ["alg", "kid", "typ"] {
            if !header.get(member).is_some_and(Value::is_string) {
                problems.push(format!("{at}'s protected header lacks {member}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(card_failure(
            &context,
            problems.join("; "),
            "JWS signatures whose protected header has alg, kid and typ",
        ))
    }
}

/// Where the keys of one signature are published.
#[derive(Debug, Clone, PartialEq, Eq)]
struct KeySource {
    url: url::Url,
    /// Named by the signature's `jku`, rather than the agent's default key set.
    named: bool,
}

async fn verifies(context: Arc<Context>) -> Checked {
    let card = card_json(&context)?;
    let Some(signatures) = card.get("signatures").and_then(Value::as_array) else {
        return Err(Outcome::skip("the card is not signed"));
    };
    let default = a2a_client::push::agent_jwks_url(context.card.url.as_str())
        .map_err(|error| Outcome::skip(format!("no key set URL for this card: {error}")))?;
    // The key set each signature points at; a signature that cannot be read is the
    // structure rule's finding, and is left to the verdict below.
    let mut sources: Vec<KeySource> = Vec::new();
    for (index, signature) in signatures.iter().enumerate() {
        let source = match CardSignature::parse(index, signature)
            .ok()
            .and_then(|parsed| parsed.jku().map(str::to_owned))
        {
            Some(jku) => KeySource {
                url: context.card.url.join(&jku).map_err(|error| {
                    card_failure(
                        &context,
                        format!("signatures[{index}]'s jku {jku:?} is not a URL ({error})"),
                        "a jku naming the JWK Set that holds the signing key",
                    )
                })?,
                named: true,
            },
            None => KeySource {
                url: default.clone(),
                named: false,
            },
        };
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    let mut keys = Vec::new();
    let mut missing = Vec::new();
    for source in &sources {
        match fetch_keys(&context, &source.url).await {
            Ok(found) => keys.extend(found),
            Err(reason) if source.named => {
                return Err(card_failure(
                    &context,
                    format!(
                        "the JWK Set a signature's jku names, {}: {reason}",
                        source.url
                    ),
                    "the signing key in the JWK Set at the jku",
                ));
            }
            Err(reason) => missing.push(format!("{}: {reason}", source.url)),
        }
    }
    if keys.is_empty() {
        return Err(Outcome::skip(format!(
            "no key to verify with (the signatures name no jku, and {}); the agent may give its keys out another way",
            missing.join("; ")
        )));
    }
    let checked = a2a_signature::check_card(card, &keys).and_then(a2a_signature::verdict);
    match checked {
        Ok(_) => Ok(Outcome::pass()),
        Err(CardSignatureError::UnknownKey { .. })
            if sources.iter().all(|source| !source.named) =>
        {
            Err(Outcome::skip(format!(
                "the agent's key set {default} has no key a signature names; the agent may give its keys out another way"
            )))
        }
        Err(error) => Err(card_failure(
            &context,
            format!("{error}"),
            "a signature that verifies over the card as served",
        )),
    }
}

/// The verifying keys of the JWK Set at `url`.
async fn fetch_keys(context: &Context, url: &url::Url) -> Result<Vec<VerifyingKey>, String> {
    let response = context
        .http
        .client
        .get(url.clone())
        .header(
            http::header::ACCEPT,
            "application/jwk-set+json, application/json",
        )
        .timeout(context.timeout)
        .send()
        .await
        .map_err(|error| format!("not fetched ({error})"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("HTTP {}", status.as_u16()));
    }
    let body = response
        .bytes()
        .await
        .map_err(|error| format!("body not read ({error})"))?;
    if body.len() > MAX_JWKS_BYTES {
        return Err(format!("larger than {MAX_JWKS_BYTES} bytes"));
    }
    let jwks: Value =
        serde_json::from_slice(&body).map_err(|error| format!("not JSON ({error})"))?;
    VerifyingKey::from_jwk_set(&jwks).map_err(|error| error.to_string())
}
