//! Opaque `ListTasks` page tokens, bound to the filters and the caller.
//!
//! A token is base64url of `{"t": millis, "i": task id, "m": mac}`, where the MAC is an
//! HMAC-SHA256 over the cursor, the filters and the scope. A token replayed with other
//! filters or by another caller, edited, or made up (a number, an offset) fails the check.

use a2a_types::A2aError;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::store::{TaskCursor, TaskQuery, TaskScope};

type HmacSha256 = Hmac<Sha256>;

#[derive(Debug, Serialize, Deserialize)]
struct Token {
    t: i64,
    i: String,
    m: String,
}

/// The name of the page-token key among the store's shared secrets.
pub(super) const KEY_NAME: &str = "list-tasks-page-token";

/// Signs and checks page tokens with one key.
#[derive(Debug)]
pub(super) struct PageTokens {
    key: Vec<u8>,
}

impl PageTokens {
    /// Uses `key`, or a random one (tokens then only work on this process).
    pub(super) fn new(key: Option<Vec<u8>>) -> Self {
        let key = key.unwrap_or_else(|| {
            let mut key = Vec::with_capacity(32);
            key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
            key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
            key
        });
        Self { key }
    }

    fn mac(&self, cursor: &TaskCursor, query: &TaskQuery, scope: &TaskScope) -> Option<HmacSha256> {
        let mut mac = HmacSha256::new_from_slice(&self.key).ok()?;
        // Length-prefixed fields, so no two different inputs hash alike.
        let mut field = |bytes: &[u8]| {
            mac.update(&(bytes.len() as u64).to_be_bytes());
            mac.update(bytes);
        };
        field(&cursor.timestamp_millis.to_be_bytes());
        field(cursor.task_id.as_str().as_bytes());
        field(scope.tenant.as_bytes());
        field(scope.owner.as_deref().unwrap_or("\u{0}").as_bytes());
        field(
            query
                .context_id
                .as_ref()
                .map_or("\u{0}", |id| id.as_str())
                .as_bytes(),
        );
        for state in &query.states {
            field(state.as_str().as_bytes());
        }
        field(b"|");
        field(
            query
                .status_timestamp_after
                .as_ref()
                .map_or(i64::MIN, a2a_types::Timestamp::unix_millis)
                .to_be_bytes()
                .as_slice(),
        );
        field(&(query.page_size as u64).to_be_bytes());
        Some(mac)
    }

    /// The token for the page after `cursor`.
    pub(super) fn encode(
        &self,
        cursor: &TaskCursor,
        query: &TaskQuery,
        scope: &TaskScope,
    ) -> String {
        let mac = self
            .mac(cursor, query, scope)
            .map(|mac| URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
            .unwrap_or_default();
        let token = Token {
            t: cursor.timestamp_millis,
            i: cursor.task_id.as_str().to_owned(),
            m: mac,
        };
        // Serialising three plain fields cannot fail; an empty token would restart paging.
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap_or_default())
    }

    /// The cursor a token names, when it was issued for these filters and this caller.
    pub(super) fn decode(
        &self,
        text: &str,
        query: &TaskQuery,
        scope: &TaskScope,
    ) -> Result<TaskCursor, A2aError> {
        let invalid =
            || A2aError::invalid_field("pageToken", "not a page token issued for this query");
        let bytes = URL_SAFE_NO_PAD.decode(text.trim()).map_err(|_| invalid())?;
        let token: Token = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
        let cursor = TaskCursor {
            timestamp_millis: token.t,
            task_id: token.i.into(),
        };
        let mac = URL_SAFE_NO_PAD.decode(&token.m).map_err(|_| invalid())?;
        self.mac(&cursor, query, scope)
            .ok_or_else(invalid)?
            .verify_slice(&mac)
            .map_err(|_| invalid())?;
        Ok(cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor() -> TaskCursor {
        TaskCursor {
            timestamp_millis: 1_700_000_000_000,
            task_id: "t-9".into(),
        }
    }

    #[test]
    fn a_token_round_trips_for_the_same_query_and_caller() {
        let tokens = PageTokens::new(None);
        let (query, scope) = (TaskQuery::default(), TaskScope::tenant("acme"));
        let token = tokens.encode(&cursor(), &query, &scope);
        assert_eq!(tokens.decode(&token, &query, &scope).unwrap(), cursor());
    }

    #[test]
    fn changed_filters_other_callers_numbers_and_edits_are_refused() {
        let tokens = PageTokens::new(None);
        let (query, scope) = (TaskQuery::default(), TaskScope::tenant("acme"));
        let token = tokens.encode(&cursor(), &query, &scope);
        let other_filter = TaskQuery {
            context_id: Some("c".into()),
            ..TaskQuery::default()
        };
        assert!(tokens.decode(&token, &other_filter, &scope).is_err());
        assert!(
            tokens
                .decode(&token, &query, &scope.clone().with_owner("mallory"))
                .is_err()
        );
        assert!(tokens.decode("50", &query, &scope).is_err());
        let mut edited = token.into_bytes();
        edited[3] ^= 1;
        assert!(
            tokens
                .decode(&String::from_utf8_lossy(&edited), &query, &scope)
                .is_err()
        );
    }

    #[test]
    fn tokens_from_another_key_are_refused() {
        let (query, scope) = (TaskQuery::default(), TaskScope::default());
        let token = PageTokens::new(Some(b"one".to_vec())).encode(&cursor(), &query, &scope);
        assert!(
            PageTokens::new(Some(b"two".to_vec()))
                .decode(&token, &query, &scope)
                .is_err()
        );
    }
}
