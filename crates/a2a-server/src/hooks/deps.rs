//! The clock and id source a server uses, by default the system's.

use std::sync::Arc;

use super::clock::Clock;
use super::ids::IdSource;

/// The system clock and random UUIDs.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemDeps;

impl Clock for SystemDeps {
    fn now(&self) -> a2a_types::Timestamp {
        a2a_types::Timestamp::now()
    }
}

impl IdSource for SystemDeps {}

/// The clock and id source of a server.
#[derive(Clone)]
pub(crate) struct Deps {
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: Arc<dyn IdSource>,
}

impl Default for Deps {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemDeps),
            ids: Arc::new(SystemDeps),
        }
    }
}

impl std::fmt::Debug for Deps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deps").finish_non_exhaustive()
    }
}
