//! What `a2a serve` accepts from callers: the security options turned into the card's
//! schemes (when the card declares none) and into the server's [`Authentication`].

use std::sync::Arc;

use a2a_server::auth::Authentication;
use a2a_server::auth::token::{
    IntrospectionConfig, Introspector, JwksSource, JwtConfig, JwtVerifier, TokenError,
    TokenVerifier, VerifiedToken,
};
use a2a_types::AgentCard;
use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};
use anyhow::Context as _;

use crate::config::{AuthSetting, Credentials, IntrospectionSetting, JwtKeys, JwtSetting};

/// The card's name of each scheme this command declares.
const API_KEY: &str = "apiKey";
const BEARER: &str = "bearer";
const JWT: &str = "jwt";
const OIDC: &str = "oidc";
const INTROSPECTION: &str = "oauth2";
const MTLS: &str = "mtls";

/// Declares a scheme per configured credential, each an alternative of its own, when the
/// card declares none. A card file with schemes keeps them: its author said what is accepted.
pub(crate) fn declare(card: &mut AgentCard, auth: &AuthSetting) {
    let AuthSetting::Required(credentials) = auth else {
        return;
    };
    if !card.security_schemes.is_empty() {
        return;
    }
    let mut add = |name: &str, scheme: SecurityScheme, scopes: &[String]| {
        card.security_schemes.insert(name.to_owned(), scheme);
        card.security_requirements
            .push(SecurityRequirement::scheme(name, scopes.iter().cloned()));
    };
    let scopes = &credentials.required_scopes;
    if let Some((_, header)) = &credentials.api_key {
        add(
            API_KEY,
            SecurityScheme::api_key(ApiKeyLocation::Header, header),
            &[],
        );
    }
    if credentials.bearer_token.is_some() {
        add(BEARER, SecurityScheme::bearer(""), &[]);
    }
    if let Some(jwt) = &credentials.jwt {
        match &jwt.keys {
            JwtKeys::Jwks { .. } => add(JWT, SecurityScheme::bearer("JWT"), scopes),
            JwtKeys::Oidc { issuer } => add(
                OIDC,
                SecurityScheme::open_id_connect(format!(
                    "{issuer}/.well-known/openid-configuration"
                )),
                scopes,
            ),
        }
    }
    if credentials.introspection.is_some() {
        add(INTROSPECTION, SecurityScheme::bearer(""), scopes);
    }
    if credentials.client_certificates {
        add(MTLS, SecurityScheme::mutual_tls(), &[]);
    }
}

/// The server's [`Authentication`] for `auth`. Schemes this command declared get their own
/// verifier; a card file's token schemes share one (JWT, else introspection, else both).
pub(crate) fn build(auth: &AuthSetting) -> anyhow::Result<Authentication> {
    let credentials = match auth {
        AuthSetting::Disabled => return Ok(Authentication::disabled()),
        AuthSetting::Required(credentials) => credentials,
    };
    let mut authentication = Authentication::required();
    if let Some((key, _)) = &credentials.api_key {
        authentication = authentication.api_key(key.clone());
    }
    if let Some(token) = &credentials.bearer_token {
        authentication = authentication.bearer_token(token.clone());
    }
    let jwt = credentials.jwt.as_ref().map(jwt_verifier).transpose()?;
    let introspector = credentials
        .introspection
        .as_ref()
        .map(introspector)
        .transpose()?;
    if let (Some(jwt), Some(setting)) = (&jwt, &credentials.jwt) {
        let scheme = match setting.keys {
            JwtKeys::Jwks { .. } => JWT,
            JwtKeys::Oidc { .. } => OIDC,
        };
        authentication = authentication.scheme_verifier(scheme, Arc::clone(jwt));
    }
    if let Some(introspector) = &introspector {
        authentication = authentication.scheme_verifier(INTROSPECTION, Arc::clone(introspector));
    }
    let shared: Option<Arc<dyn TokenVerifier>> = match (jwt, introspector) {
        (Some(jwt), Some(introspector)) => Some(Arc::new(JwtOrOpaque { jwt, introspector })),
        (Some(jwt), None) => Some(jwt),
        (None, Some(introspector)) => Some(introspector),
        (None, None) => None,
    };
    if let Some(shared) = shared {
        authentication = authentication.token_verifier(shared);
    }
    Ok(authentication)
}

/// A start-up warning when nothing would be accepted.
pub(crate) fn warnings(auth: &AuthSetting) -> Vec<String> {
    match auth {
        AuthSetting::Disabled => vec![
            "authentication is off (--no-auth): anyone who reaches the server uses the agent, \
             and all callers share tasks"
                .to_owned(),
        ],
        AuthSetting::Required(credentials) if is_closed(credentials) => vec![
            "no credential is configured, so every operation is refused with 401: give \
             --api-key, --bearer-token, --jwks-url, --oidc-issuer, --introspection-url or \
             --client-ca (or --no-auth for local development)"
                .to_owned(),
        ],
        AuthSetting::Required(_) => Vec::new(),
    }
}

fn is_closed(credentials: &Credentials) -> bool {
    credentials.is_empty()
}

/// The verifier of JWTs `setting` names (also the gateway's).
pub(crate) fn jwt_verifier(setting: &JwtSetting) -> anyhow::Result<Arc<dyn TokenVerifier>> {
    let config = match &setting.keys {
        JwtKeys::Jwks { url, issuer } => {
            let url = url::Url::parse(url).context("--jwks-url")?;
            JwtConfig::new(JwksSource::Url(url)).with_issuer(issuer.clone())
        }
        JwtKeys::Oidc { issuer } => {
            let url = url::Url::parse(issuer).context("--oidc-issuer")?;
            JwtConfig::new(JwksSource::OidcIssuer(url)).with_issuer(issuer.clone())
        }
    }
    .with_audience(setting.audience.clone());
    let verifier = JwtVerifier::new(config).context("JWT verification")?;
    Ok(Arc::new(verifier))
}

fn introspector(setting: &IntrospectionSetting) -> anyhow::Result<Arc<dyn TokenVerifier>> {
    let url = url::Url::parse(&setting.url).context("--introspection-url")?;
    let mut config = IntrospectionConfig::new(
        url,
        setting.client_id.clone(),
        setting.client_secret.expose().to_owned(),
    );
    if let Some(audience) = &setting.audience {
        config = config.with_audience(audience.clone());
    }
    let introspector = Introspector::new(config).context("token introspection")?;
    Ok(Arc::new(introspector))
}

/// JWTs (three dot-separated segments) to the JWT verifier, anything else to introspection.
#[derive(Debug)]
struct JwtOrOpaque {
    jwt: Arc<dyn TokenVerifier>,
    introspector: Arc<dyn TokenVerifier>,
}

#[async_trait::async_trait]
impl TokenVerifier for JwtOrOpaque {
    async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        if token.split('.').count() == 3 {
            self.jwt.verify(token).await
        } else {
            self.introspector.verify(token).await
        }
    }
}
