//! One module per subcommand.

pub(crate) mod agents;
pub(crate) mod cancel;
pub(crate) mod card;
pub(crate) mod chat;
pub(crate) mod completions;
pub(crate) mod gateway;
pub(crate) mod get;
pub(crate) mod inspect;
pub(crate) mod list;
pub(crate) mod man;
pub(crate) mod mcp;
pub(crate) mod push;
pub(crate) mod send;
pub(crate) mod serve;
pub(crate) mod subscribe;
pub(crate) mod test;
pub(crate) mod webhook;
