//! `a2a card URL`: fetches an agent's card, checks that it can be called, and prints a
//! summary (or the card's JSON). With `--verify`, also whether each of its signatures
//! verifies, failing unless one does.

use std::path::PathBuf;

use a2a_types::{AgentCard, ProtocolBinding};

use crate::client_args::ClientArgs;
use crate::connection;
use crate::error::UsageError;
use crate::output;
use crate::render;

/// `a2a card`.
#[derive(Debug, clap::Args)]
pub(crate) struct CardArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// Check the card's signatures: print whether each verifies and fail unless one does. Keys: --jwks, --verify-key, else the agent's /.well-known/jwks.json
    #[arg(long, help_heading = "Signatures")]
    verify: bool,
    /// URL of the JWK Set holding the signing keys
    #[arg(
        long,
        value_name = "URL",
        requires = "verify",
        conflicts_with = "verify_key",
        help_heading = "Signatures"
    )]
    jwks: Option<String>,
    /// File with the signing public key(s): a JWK or a JWK Set (JSON)
    #[arg(
        long,
        value_name = "FILE",
        requires = "verify",
        help_heading = "Signatures"
    )]
    verify_key: Option<PathBuf>,
}

/// Fetches and prints the card; problems that would stop a client from calling the agent
/// are warnings on stderr.
pub(crate) async fn run(args: CardArgs) -> anyhow::Result<()> {
    if args.verify {
        return verify(&args).await;
    }
    let card = connection::fetch_card(&args.client).await?;
    for problem in problems(&card) {
        output::error_line(&format!("warning: {problem}"));
    }
    if args.client.json {
        output::json_line(&card)
    } else {
        output::text(&render::card::card(args.client.style(), &card))?;
        Ok(())
    }
}

/// `--verify`: the card, then one line per signature; an error unless one verifies.
async fn verify(args: &CardArgs) -> anyhow::Result<()> {
    let verifier = verifier(args)?;
    let (card, checks) = connection::fetch_card_signatures(&args.client, verifier).await?;
    if args.client.json {
        output::json_line(&card)?;
    } else {
        output::text(&render::card::card(args.client.style(), &card))?;
    }
    let mut lines = String::new();
    for (index, check) in checks.iter().enumerate() {
        let line = match check {
            Ok(verified) => format!(
                "signature {index}: verified (key {}, {})",
                verified.kid, verified.alg
            ),
            Err(error) => format!("signature {index}: NOT verified: {error}"),
        };
        lines.push_str(&line);
        lines.push('\n');
    }
    if args.client.json {
        for line in lines.lines() {
            output::error_line(line);
        }
    } else {
        output::text(&lines)?;
    }
    a2a_signature::verdict(checks)
        .map(|_| ())
        .map_err(|error| a2a_client::ClientError::CardSignature(error).into())
}

/// The keys of `--verify-key`, `--jwks`, or the agent's JWK Set beside its card.
fn verifier(args: &CardArgs) -> Result<a2a_client::CardVerifier, UsageError> {
    if let Some(path) = &args.verify_key {
        let text = std::fs::read(path).map_err(|error| {
            UsageError::new(format!(
                "--verify-key: cannot read {}: {error}",
                path.display()
            ))
        })?;
        let jwks: serde_json::Value = serde_json::from_slice(&text).map_err(|_| {
            UsageError::new(format!(
                "--verify-key: {} is not JSON (a JWK or a JWK Set)",
                path.display()
            ))
        })?;
        return a2a_client::CardVerifier::from_jwks(&jwks)
            .map_err(|error| UsageError::new(format!("--verify-key {}: {error}", path.display())));
    }
    let url = match &args.jwks {
        Some(url) => url.clone(),
        None => default_jwks_url(&args.client.url)?,
    };
    a2a_client::CardVerifier::jwks_url(&url)
        .map_err(|error| UsageError::new(format!("--jwks: {error}")))
}

/// The agent's `/.well-known/jwks.json`: beside the card when the URL names the card file,
/// else under the agent's URL.
fn default_jwks_url(agent: &str) -> Result<String, UsageError> {
    a2a_client::push::agent_jwks_url(agent)
        .map(|url| url.to_string())
        .map_err(|error| UsageError::new(format!("cannot find the JWK Set of {agent}: {error}")))
}

/// What is wrong with a card, from a caller's point of view.
fn problems(card: &AgentCard) -> Vec<String> {
    let mut problems = Vec::new();
    for (field, value) in [
        ("name", &card.name),
        ("description", &card.description),
        ("version", &card.version),
    ] {
        if value.trim().is_empty() {
            problems.push(format!("the card has no {field}"));
        }
    }
    let callable = card.supported_interfaces.iter().any(|interface| {
        let version = interface
            .protocol_version
            .split('.')
            .take(2)
            .collect::<Vec<_>>();
        (interface.is_v1() || version == ["0", "3"])
            && matches!(
                interface.protocol_binding,
                ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson
            )
    });
    if !callable {
        problems.push(
            "the card has no JSONRPC or HTTP+JSON interface for protocol 1.x or 0.3: a2a cannot call this agent"
                .to_owned(),
        );
    }
    for scheme in card
        .security_requirements
        .iter()
        .flat_map(|requirement| requirement.schemes.keys())
    {
        if !card.security_schemes.contains_key(scheme) {
            problems.push(format!(
                "the card requires security scheme `{scheme}` but does not define it"
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use a2a_types::AgentInterface;

    use super::*;

    #[test]
    fn a_card_without_a_callable_interface_is_a_problem() {
        let card = AgentCard::new("A", "B", "1");
        assert_eq!(problems(&card).len(), 1);
        let card = card.with_interface(AgentInterface::new("http://h", ProtocolBinding::Grpc));
        assert_eq!(problems(&card).len(), 1);
        let card = card.with_interface(AgentInterface::new("http://h", ProtocolBinding::JsonRpc));
        assert!(problems(&card).is_empty());
    }
}
