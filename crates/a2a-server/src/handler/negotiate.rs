//! Negotiating a call once, where it enters: the protocol version, and the extensions the
//! call activates against the card.

use a2a_types::{A2aError, ErrorKind};

use super::{CallContext, RequestHandler};

impl RequestHandler {
    /// Negotiates a call, once, where it enters (the binding, or an in-process caller): the
    /// protocol version is one this server speaks, and the extensions the call activates are
    /// settled into [`CallContext::activated_extensions`], and the owner hook, when set,
    /// settles [`CallContext::owner`]. Operations trust the result and
    /// check neither again.
    ///
    /// # Errors
    /// VersionNotSupported; ExtensionSupportRequired (see
    /// [`activated_extensions`](Self::activated_extensions)).
    pub fn negotiate(&self, call: &mut CallContext) -> Result<(), A2aError> {
        self.check_version(call)?;
        call.activated_extensions = self.activated_extensions(call)?;
        self.settle_owner(call);
        Ok(())
    }

    /// Refuses a request whose `A2A-Version` this server does not speak (spec §6): any 1.x
    /// is served; a missing version means 0.3 unless configured otherwise.
    ///
    /// # Errors
    /// VersionNotSupported.
    pub fn check_version(&self, call: &CallContext) -> Result<(), A2aError> {
        let version = call
            .version
            .as_deref()
            .map(str::trim)
            .filter(|version| !version.is_empty())
            .or(self
                .inner
                .engine
                .config()
                .assume_version_when_absent
                .as_deref())
            .unwrap_or("0.3");
        if version.split('.').next() == Some("1") {
            Ok(())
        } else {
            Err(A2aError::version_not_supported(version))
        }
    }

    /// The extensions this call activates: those it requested that the card declares.
    ///
    /// # Errors
    /// ExtensionSupportRequired when the card requires one the call did not request;
    /// ExtensionSupportRequired, naming the URI, for an undeclared one under
    /// `strict_extensions`.
    pub fn activated_extensions(&self, call: &CallContext) -> Result<Vec<String>, A2aError> {
        let declared = &self.inner.card.capabilities.extensions;
        if let Some(required) = declared.iter().find(|extension| {
            extension.required && !call.requested_extensions.contains(&extension.uri)
        }) {
            return Err(A2aError::extension_support_required(&required.uri));
        }
        let mut activated = Vec::new();
        for uri in &call.requested_extensions {
            if declared.iter().any(|extension| &extension.uri == uri) {
                activated.push(uri.clone());
            } else if self.inner.engine.config().strict_extensions {
                // The strict reading refuses what the agent cannot honour with the
                // extension error itself, so a client learns which URI to drop.
                return Err(A2aError::new(
                    ErrorKind::ExtensionSupportRequired,
                    format!("extension {uri} is not supported by this agent"),
                )
                .with_metadata("extension", uri.as_str()));
            }
        }
        Ok(activated)
    }
}
