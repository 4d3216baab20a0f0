//! [`HttpTransport`]: the network transport, on reqwest, with redirects off by default, and
//! its [`TlsOptions`]: extra trusted CAs and a client certificate for mutual TLS.
//!
//! Servers are trusted when a root of the operating system's certificate store (read once
//! per transport through `rustls-native-certs`: the files `SSL_CERT_FILE` and `SSL_CERT_DIR`
//! name when either is set, else the system bundle on Linux, the keychain on macOS, the
//! Windows store), a
//! bundled webpki (Mozilla) root, or one of [`TlsOptions`]'s CAs issued their certificate.

use std::time::Duration;

use bytes::Bytes;
use futures::TryStreamExt as _;

use super::request::request_url;
use super::{ResponseBody, Transport};
use crate::error::{ClientError, TimeoutKind};

/// The default connect timeout.
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends requests over HTTP(S) with reqwest (rustls).
///
/// Built by [`HttpTransport::new`] it never follows redirects and gives up
/// connecting after the connect timeout; it sets no overall timeout, because a stream may
/// rightly stay open for hours; the client bounds each request itself.
#[derive(Debug, Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
}

impl HttpTransport {
    /// A transport with the default connect timeout (30 s).
    ///
    /// # Errors
    /// [`ClientError::Config`] when the TLS backend cannot be initialised.
    pub fn new() -> Result<Self, ClientError> {
        Self::with_connect_timeout(DEFAULT_CONNECT_TIMEOUT)
    }

    /// A transport that gives up connecting after `connect_timeout`.
    ///
    /// # Errors
    /// [`ClientError::Config`] when the TLS backend cannot be initialised.
    pub fn with_connect_timeout(connect_timeout: Duration) -> Result<Self, ClientError> {
        Self::with_tls(connect_timeout, &TlsOptions::default())
    }

    /// A transport that gives up connecting after `connect_timeout` and uses `tls`: its CAs
    /// are trusted besides the operating system's store and the bundled webpki roots, and its client certificate is presented to
    /// servers that ask for one.
    ///
    /// # Errors
    /// [`ClientError::Config`] when the TLS backend refuses the settings (a private key of an
    /// unsupported kind, a CA that is not a valid certificate).
    pub fn with_tls(connect_timeout: Duration, tls: &TlsOptions) -> Result<Self, ClientError> {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(connect_timeout);
        for root in &tls.roots {
            builder = builder.add_root_certificate(root.clone());
        }
        if let Some(identity) = &tls.identity {
            builder = builder.identity(identity.clone());
        }
        let client = builder.build().map_err(|error| {
            // The TLS stack's reason (e.g. an unsupported key) is the useful part; it never
            // holds key material.
            let reason = std::error::Error::source(&error)
                .map(|source| format!(": {source}"))
                .unwrap_or_default();
            ClientError::config(format!("cannot build the HTTP client{reason}"))
        })?;
        Ok(Self { client })
    }

    /// A transport over a reqwest client you configured. Its redirect policy and timeouts
    /// are yours: keep redirects off (`redirect::Policy::none()`) and leave the overall
    /// timeout unset, or streams will be cut at that timeout.
    #[must_use]
    pub fn from_client(client: reqwest::Client) -> Self {
        Self { client }
    }
}

/// TLS settings of an [`HttpTransport`] beyond the defaults: certificate authorities to trust
/// besides the operating system's store and the bundled webpki roots (a private CA), and a client certificate for servers that ask
/// for one (mutual TLS).
///
/// ```
/// use a2a_client::transport::TlsOptions;
///
/// let error = TlsOptions::new().root_certificate_pem(b"not a certificate").unwrap_err();
/// assert!(error.to_string().contains("CA"));
/// ```
///
/// `Debug` shows neither certificates nor key. The same settings apply to the gRPC binding's
/// connections.
#[derive(Clone, Default)]
#[must_use]
pub struct TlsOptions {
    roots: Vec<reqwest::Certificate>,
    identity: Option<reqwest::Identity>,
    /// The PEM texts the settings came from, for the gRPC channel's TLS stack.
    root_pems: Vec<Bytes>,
    identity_pem: Option<Bytes>,
}

impl std::fmt::Debug for TlsOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsOptions")
            .field("roots", &self.roots.len())
            .field("identity", &self.identity.is_some())
            .finish()
    }
}

impl TlsOptions {
    /// No extra CA and no client certificate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts the certificate authorities in `pem` (one or more PEM certificates) for HTTPS,
    /// besides the operating system's store and the bundled webpki roots.
    ///
    /// # Errors
    /// [`ClientError::Config`] when `pem` holds no certificate.
    pub fn root_certificate_pem(mut self, pem: &[u8]) -> Result<Self, ClientError> {
        let roots = reqwest::Certificate::from_pem_bundle(pem)
            .ok()
            .filter(|roots| !roots.is_empty())
            .ok_or_else(|| ClientError::config("the CA PEM holds no certificate"))?;
        self.roots.extend(roots);
        self.root_pems.push(Bytes::copy_from_slice(pem));
        Ok(self)
    }

    /// Presents the client certificate in `pem` to servers that ask for one: the certificate
    /// chain (leaf first) and its private key (PKCS#8, PKCS#1 or SEC1), in one PEM text.
    /// Replaces a certificate given before.
    ///
    /// # Errors
    /// [`ClientError::Config`] when `pem` does not hold both; the message never quotes it.
    pub fn client_identity_pem(mut self, pem: &[u8]) -> Result<Self, ClientError> {
        // reqwest's error is dropped: the message is ours, so it cannot quote the key.
        let identity = reqwest::Identity::from_pem(pem).map_err(|_| {
            ClientError::config(
                "the client certificate PEM must hold a certificate and its unencrypted private key",
            )
        })?;
        self.identity = Some(identity);
        self.identity_pem = Some(Bytes::copy_from_slice(pem));
        Ok(self)
    }

    /// True when nothing is set.
    pub(crate) fn is_empty(&self) -> bool {
        self.roots.is_empty() && self.identity.is_none()
    }

    /// The PEM texts of the extra CAs, as given, for a TLS stack of the caller's own (a
    /// gRPC channel, another HTTP client).
    #[must_use]
    pub fn root_pems(&self) -> &[Bytes] {
        &self.root_pems
    }

    /// The PEM text of the client certificate and its key, as given, for a TLS stack of the
    /// caller's own. It holds the private key: keep it out of logs and errors.
    #[must_use]
    pub fn identity_pem(&self) -> Option<&Bytes> {
        self.identity_pem.as_ref()
    }
}

#[async_trait::async_trait]
impl Transport for HttpTransport {
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        let url = request_url(&request)?;
        let request = reqwest::Request::try_from(request).map_err(|error| {
            ClientError::config(format!("invalid request: {}", error.without_url()))
        })?;
        let response = self
            .client
            .execute(request)
            .await
            .map_err(|error| map_error(&url, error))?;
        let mut builder = http::Response::builder().status(response.status());
        if let Some(headers) = builder.headers_mut() {
            headers.extend(
                response
                    .headers()
                    .iter()
                    .map(|(name, value)| (name.clone(), value.clone())),
            );
        }
        let body_url = url.clone();
        let body = response
            .bytes_stream()
            .map_err(move |error| map_error(&body_url, error));
        builder
            .body(ResponseBody::from_stream(body))
            .map_err(|error| ClientError::transport(&url, error))
    }
}

/// reqwest's errors carry the URL, query included; it is removed before the error is kept.
fn map_error(url: &url::Url, error: reqwest::Error) -> ClientError {
    if error.is_timeout() && error.is_connect() {
        return ClientError::Timeout(TimeoutKind::Connect);
    }
    ClientError::transport(url, error.without_url())
}
