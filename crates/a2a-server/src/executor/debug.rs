//! How an executor shows in debug output: by its role only.

use super::AgentExecutor;

impl std::fmt::Debug for dyn AgentExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentExecutor")
    }
}
