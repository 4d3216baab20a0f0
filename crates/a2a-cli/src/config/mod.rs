//! The options of `a2a serve` from their three sources, merged in one place:
//! flag > environment variable `A2A_<OPTION>` > TOML file (`--config`, keys in snake_case) >
//! default.
//!
//! Environment variable names come from the flag names (`--max-concurrent-tasks` →
//! `A2A_MAX_CONCURRENT_TASKS`) and their values are parsed by the same clap parsers as the
//! flags, so the three sources cannot disagree on what a value means. The exec agent's
//! command has no variable: a word list does not survive a single string. `A2A_*` variables
//! that name no option are ignored, as they may belong to other tools.
//!
//! `a2a gateway` follows the same model with the same names (`--agent-ttl` ↔
//! `A2A_AGENT_TTL` ↔ `agent_ttl`), its older `A2A_GATEWAY_*` and KubeMQ's `KUBEMQ_A2A_*`
//! names read as aliases below `A2A_*` ([`layered`]). Durations are read by one parser,
//! [`crate::duration::Millis`], everywhere.

mod connections;
mod cors;
mod environment;
mod error;
mod file;
mod layers;
mod load;
mod options;
mod print;
mod push;
mod register;
mod samples;
mod security;
mod settings;

pub(crate) use self::error::ConfigError;
pub(crate) use self::layers::{Layered, layered, variable_of};
pub(crate) use self::load::{load, merge};
pub(crate) use self::options::{LogFormat, ServeOptions};
pub(crate) use self::print::{Sample, hidden, render};
pub(crate) use self::register::RegisterSetting;
pub(crate) use self::security::{
    AuthSetting, Credentials, IntrospectionSetting, JwtKeys, JwtSetting,
};
pub(crate) use self::settings::{
    AgentSetup, DataFormat, ExecCommand, LlmSetup, Settings, StoreSetting,
};
pub(crate) use crate::duration::Millis;

/// Names the configuration file when `--config` does not.
const CONFIG_VARIABLE: &str = "A2A_CONFIG";
const PREFIX: &str = "A2A_";
/// Flags of `serve` and `gateway` that are not settings: no variable, no file key.
pub(crate) const NOT_SETTINGS: [&str; 4] = ["config", "help", "print-config", "color"];

#[cfg(test)]
mod names;
#[cfg(test)]
mod tests;
