//! The credentials check of a connect: one authenticated call, so that a refused key is said
//! when connecting rather than on the first message.

use a2a_client::{A2aClient, ClientError};
use a2a_types::{AgentCard, GetExtendedAgentCardRequest, ListTasksRequest};
use serde_json::{Value, json};

use crate::connection::{Auth, Connection};
use crate::error::{ApiError, ErrorKindName};

/// What the check found.
#[derive(Debug)]
pub(crate) enum CredentialCheck {
    /// No credentials were given and the card asks for none: nothing to check.
    NotNeeded,
    /// The call succeeded with the credentials; `extended_card` when it was
    /// `GetExtendedAgentCard`.
    Accepted {
        operation: &'static str,
        extended_card: Option<Value>,
    },
    /// The agent refused them (401 or 403, or its A2A equivalents), or they could not be
    /// obtained (an OAuth token endpoint's refusal).
    Refused {
        operation: &'static str,
        error: ApiError,
    },
    /// The call failed for another reason (the agent lists no tasks, a timeout…), so
    /// nothing is known of the credentials.
    Unchecked {
        operation: &'static str,
        error: ApiError,
    },
}

impl CredentialCheck {
    /// `{"status": "not_needed"|"accepted"|"refused"|"unchecked", "operation", "error",
    /// "extendedCard"}`.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            Self::NotNeeded => json!({ "status": "not_needed" }),
            Self::Accepted {
                operation,
                extended_card,
            } => json!({
                "status": "accepted",
                "operation": operation,
                "extendedCard": extended_card,
            }),
            Self::Refused { operation, error } => json!({
                "status": "refused",
                "operation": operation,
                "error": error,
            }),
            Self::Unchecked { operation, error } => json!({
                "status": "unchecked",
                "operation": operation,
                "error": error,
            }),
        }
    }
}

/// Checks `connection`'s credentials with `client` when there are any, or when the card asks
/// for some.
///
/// The call is `GetExtendedAgentCard` when the card offers an extended card (which is what
/// credentials are for there, and the page then shows it), else `ListTasks` for one task:
/// both change nothing on the agent. When the extended card is not configured after all,
/// `ListTasks` is tried instead.
pub(crate) async fn check(connection: &Connection, client: &A2aClient) -> CredentialCheck {
    let card = connection.card.as_ref();
    let asked_for = card.is_some_and(requires_credentials);
    if matches!(connection.auth, Auth::None) && !asked_for {
        return CredentialCheck::NotNeeded;
    }
    if card.is_some_and(offers_extended_card) {
        let operation = "GetExtendedAgentCard";
        let request = GetExtendedAgentCardRequest::default();
        let call = client.get_extended_agent_card(request.clone());
        match connection.unary(client, operation, &request, call).await {
            Ok(extended) => {
                return CredentialCheck::Accepted {
                    operation,
                    extended_card: serde_json::to_value(extended).ok(),
                };
            }
            Err(error) => {
                let api = connection.error(&error);
                if refused(&api) {
                    return CredentialCheck::Refused {
                        operation,
                        error: api,
                    };
                }
                if !unsupported(&error) {
                    return CredentialCheck::Unchecked {
                        operation,
                        error: api,
                    };
                }
            }
        }
    }
    let operation = "ListTasks";
    let request = ListTasksRequest {
        page_size: Some(1),
        ..ListTasksRequest::default()
    };
    let call = client.list_tasks(request.clone());
    match connection.unary(client, operation, &request, call).await {
        Ok(_) => CredentialCheck::Accepted {
            operation,
            extended_card: None,
        },
        Err(error) => {
            let api = connection.error(&error);
            if refused(&api) {
                CredentialCheck::Refused {
                    operation,
                    error: api,
                }
            } else {
                CredentialCheck::Unchecked {
                    operation,
                    error: api,
                }
            }
        }
    }
}

/// Whether the failure says the credentials were refused or could not be obtained.
fn refused(error: &ApiError) -> bool {
    matches!(
        error.kind,
        ErrorKindName::Unauthorized | ErrorKindName::Forbidden
    )
}

/// Whether the agent said it has no extended card to give, or no such operation.
fn unsupported(error: &ClientError) -> bool {
    use a2a_types::error::ErrorKind;
    matches!(
        error.kind(),
        Some(
            ErrorKind::UnsupportedOperation
                | ErrorKind::ExtendedAgentCardNotConfigured
                | ErrorKind::MethodNotFound
        )
    ) || matches!(error.http_status(), Some(404 | 405 | 501))
}

/// Whether the card asks for credentials: a security requirement that names a scheme (a
/// v0.3 card's `security` is read into the same requirements).
fn requires_credentials(card: &AgentCard) -> bool {
    card.security_requirements
        .iter()
        .any(|requirement| !requirement.schemes.is_empty())
}

/// Whether the card declares an extended card (`capabilities.extendedAgentCard`, or a v0.3
/// card's `supportsAuthenticatedExtendedCard`, read into it).
pub(crate) fn offers_extended_card(card: &AgentCard) -> bool {
    card.capabilities.extended_agent_card == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(json: Value) -> AgentCard {
        let mut card = json!({
            "name": "n", "description": "d", "version": "1", "capabilities": {},
            "supportedInterfaces": [
                {"url": "http://127.0.0.1:1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ],
        });
        if let (Some(card), Value::Object(extra)) = (card.as_object_mut(), json) {
            card.extend(extra);
        }
        a2a_types::json::from_value(card).unwrap()
    }

    #[test]
    fn a_card_asks_for_credentials_when_a_requirement_names_a_scheme() {
        let named = card(json!({"securityRequirements": [{"schemes": {"key": {"list": []}}}]}));
        let empty = card(json!({"securityRequirements": [{"schemes": {}}]}));
        assert!(requires_credentials(&named));
        assert!(!requires_credentials(&empty));
        assert!(!requires_credentials(&card(json!({}))));
    }

    #[test]
    fn an_extended_card_is_offered_by_the_capability() {
        let offered = card(json!({"capabilities": {"extendedAgentCard": true}}));
        let declined = card(json!({"capabilities": {"extendedAgentCard": false}}));
        assert!(offers_extended_card(&offered));
        assert!(!offers_extended_card(&declined));
        assert!(!offers_extended_card(&card(json!({}))));
    }
}
