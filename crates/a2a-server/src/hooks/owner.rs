//! Who owns the tasks a call creates and sees: the [`OwnerHook`].

use crate::handler::CallContext;

/// Decides the owner of a call: the identity whose tasks it creates and may see.
///
/// It gets the call with [`CallContext::owner`] already set to the default (the
/// authenticated caller's identity, or `None` with authentication off) and returns the owner
/// to use. Return an identity you verified; `None` shares the tasks of the tenant with every
/// other `None` caller, the random task ids then being the only protection.
///
/// Any `Fn(&CallContext) -> Option<String>` is one.
pub trait OwnerHook: Send + Sync + 'static {
    /// The owner of `call`'s tasks.
    fn owner(&self, call: &CallContext) -> Option<String>;
}

impl<F> OwnerHook for F
where
    F: Fn(&CallContext) -> Option<String> + Send + Sync + 'static,
{
    fn owner(&self, call: &CallContext) -> Option<String> {
        self(call)
    }
}
