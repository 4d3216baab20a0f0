//! The options of `a2a serve` from their three sources, merged in one place:
//! flag > environment variable `A2A_<OPTION>` > TOML file (`--config`, keys in snake_case) >
//! default.
//!
//! Environment variable names come from the flag names (`--max-concurrent-tasks` →
//! `A2A_MAX_CONCURRENT_TASKS`) and their values are parsed by the same clap parsers as the
//! flags, so the three sources cannot disagree on what a value means. The exec agent's
//! command has no variable: a word list does not survive a single string. `A2A_*` variables
//! that name no option are ignored, as they may belong to other tools.

mod connections;
mod environment;
mod error;
mod file;
mod load;
mod millis;
mod options;
mod push;
mod register;
mod security;
mod settings;

pub(crate) use self::error::ConfigError;
pub(crate) use self::load::load;
pub(crate) use self::millis::Millis;
pub(crate) use self::options::{LogFormat, ServeOptions};
pub(crate) use self::register::RegisterSetting;
pub(crate) use self::security::{
    AuthSetting, Credentials, IntrospectionSetting, JwtKeys, JwtSetting,
};
pub(crate) use self::settings::{AgentSetup, ExecCommand, LlmSetup, Settings, StoreSetting};

/// Names the configuration file when `--config` does not.
const CONFIG_VARIABLE: &str = "A2A_CONFIG";
const PREFIX: &str = "A2A_";

#[cfg(test)]
mod tests;
