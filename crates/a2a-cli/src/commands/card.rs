//! `a2a card URL`: fetches an agent's card, checks that it can be called, and prints a
//! summary (or the card's JSON).

use a2a_types::{AgentCard, ProtocolBinding};

use crate::client_args::ClientArgs;
use crate::connection;
use crate::output;
use crate::render;

/// `a2a card`.
#[derive(Debug, clap::Args)]
pub(crate) struct CardArgs {
    #[command(flatten)]
    client: ClientArgs,
}

/// Fetches and prints the card; problems that would stop a client from calling the agent
/// are warnings on stderr.
pub(crate) async fn run(args: CardArgs) -> anyhow::Result<()> {
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
