//! Making a [`TaskScope`].

use super::TaskScope;

impl TaskScope {
    /// A scope for `tenant` with no owner.
    pub fn tenant(tenant: impl Into<String>) -> Self {
        Self {
            tenant: tenant.into(),
            owner: None,
        }
    }

    /// Sets the owner.
    #[must_use]
    pub fn with_owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = Some(owner.into());
        self
    }
}
