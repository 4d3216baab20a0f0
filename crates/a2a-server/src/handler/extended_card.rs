//! GetExtendedAgentCard (spec §2.11, §11.3).

use a2a_types::{A2aError, AgentCard, GetExtendedAgentCardRequest};

use super::{CallContext, RequestHandler};

impl RequestHandler {
    /// Returns the extended agent card.
    ///
    /// # Errors
    /// Authentication when authentication is on and the call names no caller;
    /// UnsupportedOperation when the card does not declare `extendedAgentCard`;
    /// ExtendedAgentCardNotConfigured when it does but none was given to the server.
    pub async fn get_extended_agent_card(
        &self,
        call: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2aError> {
        let _ = request;
        // Only for authenticated callers. The bindings authenticate every request
        // when authentication is on; an in-process call must name its caller.
        if self.inner.authenticator.is_enabled() && call.caller.is_none() {
            return Err(A2aError::new(
                a2a_types::ErrorKind::Authentication,
                "the extended agent card is only for authenticated callers",
            ));
        }
        if !self.inner.card.capabilities.supports_extended_agent_card() {
            return Err(A2aError::unsupported_operation(
                "this agent does not offer an extended agent card",
            ));
        }
        self.inner
            .extended_card
            .as_deref()
            .cloned()
            .ok_or_else(A2aError::extended_agent_card_not_configured)
    }
}
