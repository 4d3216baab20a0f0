//! Rules on version negotiation.
//!
//! Rules on version negotiation: a version the interface does not serve is refused with
//! VersionNotSupportedError, and a request without A2A-Version counts as v0.3.

use std::sync::Arc;

use serde_json::json;

use crate::context::{Context, unknown_id};
use crate::expect::{self, Expected};
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};
use crate::wire::Op;

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[UNSUPPORTED, MISSING];

rule!(UNSUPPORTED, "versions.unsupported", Must, "3.6.2", V1, false,
    "A request with an A2A-Version the interface does not serve (99.0) answers VersionNotSupportedError (-32009)." => unsupported);
rule!(MISSING, "versions.missing-means-0.3", Must, "3.6.2", V1, false,
    "A v1.0 request without A2A-Version is read as v0.3: where no v0.3 interface shares the URL, it answers VersionNotSupportedError." => missing);

async fn unsupported(context: Arc<Context>) -> Checked {
    let mut options = context.options();
    options.version = Some("99.0".to_owned());
    let exchange = context
        .call_with(Op::GetTask, json!({"id": unknown_id()}), &options)
        .await?;
    expect::error(
        &context.target()?.binding,
        &exchange,
        Expected::VersionNotSupported,
    )?;
    Ok(Outcome::pass())
}

async fn missing(context: Arc<Context>) -> Checked {
    let target = context.target()?;
    let card = context.card()?;
    let shares_url = card.supported_interfaces.iter().any(|interface| {
        interface.protocol_version == "0.3"
            && interface.protocol_binding == target.binding
            && interface.url.trim_end_matches('/') == target.url.trim_end_matches('/')
    });
    if shares_url {
        return Err(Outcome::skip(
            "a v0.3 interface of this binding shares the URL, so a headerless request may be served as v0.3",
        ));
    }
    let mut options = context.options();
    options.version = None;
    let exchange = context
        .call_with(Op::GetTask, json!({"id": unknown_id()}), &options)
        .await?;
    expect::error(&target.binding, &exchange, Expected::VersionNotSupported)?;
    Ok(Outcome::pass())
}
