//! The constructors of [`Credentials`].

use super::{ApiKeyPlacement, Credentials, OAuth2ClientCredentials, Secret};

impl Credentials {
    /// An API key placed as the card says.
    pub fn api_key(key: impl Into<Secret>) -> Self {
        Self::ApiKey {
            key: key.into(),
            placement: None,
        }
    }

    /// An API key placed explicitly.
    pub fn api_key_in(key: impl Into<Secret>, placement: ApiKeyPlacement) -> Self {
        Self::ApiKey {
            key: key.into(),
            placement: Some(placement),
        }
    }

    /// A static bearer token.
    pub fn bearer(token: impl Into<Secret>) -> Self {
        Self::Bearer(token.into())
    }

    /// OAuth 2.0 client credentials; see [`OAuth2ClientCredentials`] for scopes and the token
    /// endpoint.
    pub fn oauth2(credentials: OAuth2ClientCredentials) -> Self {
        Self::OAuth2ClientCredentials(credentials)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_show_in_debug() {
        let credentials =
            Credentials::oauth2(OAuth2ClientCredentials::new("client-1", "hunter2").scope("read"));
        let text = format!("{credentials:?} {:?}", Credentials::bearer("tok-hunter3"));
        assert!(!text.contains("hunter"), "{text}");
        assert!(text.contains("client-1"));
    }
}
