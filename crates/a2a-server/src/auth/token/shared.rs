//! A shared verifier is a verifier: one JWKS cache can serve several schemes.

use std::sync::Arc;

use super::{TokenError, TokenVerifier, VerifiedToken};

#[async_trait::async_trait]
impl<T: TokenVerifier + ?Sized> TokenVerifier for Arc<T> {
    async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        (**self).verify(token).await
    }
}
