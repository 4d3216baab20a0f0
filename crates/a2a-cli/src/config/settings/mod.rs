//! [`Settings`]: the merged options with their defaults applied and every value checked, so
//! the rest of the command never sees an invalid or missing option.

mod agent;
mod checks;
mod log;
mod model;
mod resolve;
mod store;
mod urls;

pub(crate) use self::model::{
    AgentSetup, CardSource, DEFAULT_BIND, DEFAULT_MODEL_URL, DataFormat, ExecCommand, LlmSetup,
    Settings,
};
pub(crate) use self::store::StoreSetting;
