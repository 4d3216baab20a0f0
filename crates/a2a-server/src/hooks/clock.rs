//! Where the server's timestamps come from: the [`Clock`].

/// Where the server's timestamps come from: the status timestamps of tasks it writes.
///
/// Any `Fn() -> Timestamp` is one; the default is the system clock.
pub trait Clock: Send + Sync + 'static {
    /// Now.
    fn now(&self) -> a2a_types::Timestamp;
}

impl<F> Clock for F
where
    F: Fn() -> a2a_types::Timestamp + Send + Sync + 'static,
{
    fn now(&self) -> a2a_types::Timestamp {
        self()
    }
}
