//! The hooks a builder was given.

use std::sync::Arc;

use super::authorizer::Authorizer;
use super::deps::Deps;
use super::extension::ExtensionHandler;
use super::failure::FailureMessage;
use super::owner::OwnerHook;
use super::return_immediately::ReturnImmediatelyHook;
use super::stream::StreamHooks;
use super::subscriber::Subscriber;

/// The hooks a builder was given.
#[derive(Default)]
pub(crate) struct Hooks {
    pub(crate) owner: Option<Arc<dyn OwnerHook>>,
    pub(crate) authorizer: Option<Arc<dyn Authorizer>>,
    pub(crate) return_immediately: Option<Arc<dyn ReturnImmediatelyHook>>,
    pub(crate) subscribers: Vec<Subscriber>,
    pub(crate) streams: Option<Arc<dyn StreamHooks>>,
    pub(crate) failure_message: Option<Arc<dyn FailureMessage>>,
    pub(crate) extensions: Vec<Arc<dyn ExtensionHandler>>,
    pub(crate) deps: Deps,
}
