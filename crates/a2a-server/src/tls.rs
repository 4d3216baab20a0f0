//! HTTPS and mutual TLS: a [`TlsConfig`] read from PEM, and [`serve_tls`], an accept loop that
//! serves a router over TLS and hands each request the client certificate the handshake
//! verified, as a [`ClientCertificate`] extension.
//!
//! ```no_run
//! use std::path::Path;
//! use a2a_server::tls::{TlsConfig, serve_tls};
//!
//! # async fn run(router: axum::Router) -> Result<(), Box<dyn std::error::Error>> {
//! let config = TlsConfig::from_pem_files(Path::new("cert.pem"), Path::new("key.pem"))?
//!     .client_ca_pem_file(Path::new("clients-ca.pem"))?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8443").await?;
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! # drop(stop);
//! serve_tls(listener, router, config, async {
//!     let _ = stopped.await;
//! })
//! .await?;
//! # Ok(()) }
//! ```

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::RootCertStore;
use rustls::crypto::CryptoProvider;
use rustls::server::WebPkiClientVerifier;
use rustls::sign::{CertifiedKey, SingleCertAndKey};
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

#[cfg(doc)]
use crate::auth::certificate::ClientCertificate;

mod serve;

pub use self::serve::{serve_tls, serve_tls_h2};

/// How long a client gets to complete the TLS handshake by default.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A boxed error from the TLS stack.
type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The server's certificate and key, and which client certificates it accepts.
///
/// Built from PEM with [`from_pem`](Self::from_pem) or [`from_pem_files`](Self::from_pem_files),
/// which check that the key fits the certificate. Without client CAs the server asks for no
/// client certificate. With them ([`client_ca_pem`](Self::client_ca_pem)) it asks for one and
/// verifies it against those CAs; a client may still connect without one, because the card can
/// offer other schemes, unless [`require_client_certificate`](Self::require_client_certificate)
/// is set. ALPN offers `http/1.1`.
///
/// `Debug` never shows the private key.
#[derive(Clone)]
#[must_use]
pub struct TlsConfig {
    certified_key: Arc<CertifiedKey>,
    client_roots: Vec<CertificateDer<'static>>,
    require_client_certificate: bool,
    handshake_timeout: Duration,
}

/// A TLS configuration that cannot be used. Messages name the file or the part at fault and
/// never contain key material.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A PEM file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// PEM text that holds no certificate, or a certificate that cannot be parsed.
    #[error("{what} holds no usable certificate")]
    Certificate {
        /// Which input, e.g. `the certificate chain` or `the client CA file ca.pem`.
        what: String,
        /// The parse failure, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// PEM text that holds no private key. Its parse error is not kept: it could quote the
    /// key.
    #[error("{what} holds no private key (unencrypted PKCS#8, PKCS#1 or SEC1 PEM expected)")]
    PrivateKey {
        /// Which input, e.g. `the private key` or `the key file key.pem`.
        what: String,
    },
    /// The key is of a kind the TLS stack does not support, or does not belong to the
    /// certificate.
    #[error("the private key cannot be used with the certificate")]
    KeyMismatch {
        /// Why.
        #[source]
        source: BoxError,
    },
    /// The client CAs cannot verify client certificates.
    #[error("the client CA certificates cannot be used")]
    ClientCa {
        /// Why.
        #[source]
        source: BoxError,
    },
    /// The TLS library refused the configuration (no protocol version in common with its
    /// cipher suites).
    #[error("the TLS library cannot be set up")]
    Setup {
        /// Why.
        #[source]
        source: BoxError,
    },
}

impl TlsConfig {
    /// A configuration from a PEM certificate chain (leaf first) and its private key
    /// (PKCS#8, PKCS#1 or SEC1).
    ///
    /// # Errors
    /// [`TlsError::Certificate`], [`TlsError::PrivateKey`] or [`TlsError::KeyMismatch`].
    pub fn from_pem(cert_chain_pem: &[u8], key_pem: &[u8]) -> Result<Self, TlsError> {
        Self::parse(
            cert_chain_pem,
            "the certificate chain",
            key_pem,
            "the private key",
        )
    }

    /// A configuration from a PEM certificate chain file and a private key file; see
    /// [`from_pem`](Self::from_pem).
    ///
    /// # Errors
    /// [`TlsError::Read`] for a file that cannot be read, otherwise as
    /// [`from_pem`](Self::from_pem), naming the file.
    pub fn from_pem_files(cert_chain: &Path, key: &Path) -> Result<Self, TlsError> {
        let cert_pem = read(cert_chain)?;
        let key_pem = read(key)?;
        Self::parse(
            &cert_pem,
            &format!("the certificate file {}", cert_chain.display()),
            &key_pem,
            &format!("the key file {}", key.display()),
        )
    }

    fn parse(
        cert_pem: &[u8],
        cert_what: &str,
        key_pem: &[u8],
        key_what: &str,
    ) -> Result<Self, TlsError> {
        let chain = certificates(cert_pem, cert_what)?;
        // The parse error is dropped on purpose: it may quote part of the key.
        let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|_| TlsError::PrivateKey {
            what: key_what.to_owned(),
        })?;
        let certified_key = CertifiedKey::from_der(chain, key, &provider()).map_err(|error| {
            TlsError::KeyMismatch {
                source: Box::new(error),
            }
        })?;
        Ok(Self {
            certified_key: Arc::new(certified_key),
            client_roots: Vec::new(),
            require_client_certificate: false,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
        })
    }

    /// Asks clients for a certificate and accepts those issued by the CAs in `pem` (one or
    /// more certificates), in addition to CAs given before.
    ///
    /// # Errors
    /// [`TlsError::Certificate`] when `pem` holds no certificate, [`TlsError::ClientCa`] when
    /// one cannot serve as a trust anchor.
    pub fn client_ca_pem(self, pem: &[u8]) -> Result<Self, TlsError> {
        self.add_client_cas(pem, "the client CA certificates")
    }

    /// [`client_ca_pem`](Self::client_ca_pem) with the PEM read from `path`.
    ///
    /// # Errors
    /// [`TlsError::Read`] for a file that cannot be read, otherwise as
    /// [`client_ca_pem`](Self::client_ca_pem).
    pub fn client_ca_pem_file(self, path: &Path) -> Result<Self, TlsError> {
        let pem = read(path)?;
        self.add_client_cas(&pem, &format!("the client CA file {}", path.display()))
    }

    fn add_client_cas(mut self, pem: &[u8], what: &str) -> Result<Self, TlsError> {
        let cas = certificates(pem, what)?;
        let mut roots = RootCertStore::empty();
        for ca in &cas {
            roots.add(ca.clone()).map_err(|error| TlsError::ClientCa {
                source: Box::new(error),
            })?;
        }
        self.client_roots.extend(cas);
        Ok(self)
    }

    /// Refuses the handshake of a client that presents no certificate (default: such a client
    /// is let in, and must then authenticate otherwise). Has an effect only with client CAs.
    pub fn require_client_certificate(mut self, required: bool) -> Self {
        self.require_client_certificate = required;
        self
    }

    /// Drops a connection whose handshake takes longer than `timeout` (default 10 s), so a
    /// client that never speaks cannot hold it open.
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// The handshake timeout set, for the accept loop.
    pub(crate) fn configured_handshake_timeout(&self) -> Duration {
        self.handshake_timeout
    }

    /// Whether client certificates are asked for.
    #[must_use]
    pub fn verifies_client_certificates(&self) -> bool {
        !self.client_roots.is_empty()
    }

    /// The rustls configuration this describes, for serving TLS with your own accept loop.
    /// Insert the verified leaf certificate into each request as a [`ClientCertificate`] for
    /// the mutual-TLS scheme to see it.
    ///
    /// # Errors
    /// [`TlsError::ClientCa`] when the client CAs cannot make a verifier.
    pub fn server_config(&self) -> Result<Arc<rustls::ServerConfig>, TlsError> {
        let provider = Arc::new(provider());
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|error| TlsError::Setup {
                source: Box::new(error),
            })?;
        let builder = if self.client_roots.is_empty() {
            builder.with_no_client_auth()
        } else {
            let mut roots = RootCertStore::empty();
            for ca in &self.client_roots {
                roots.add(ca.clone()).map_err(|error| TlsError::ClientCa {
                    source: Box::new(error),
                })?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            let verifier = if self.require_client_certificate {
                verifier
            } else {
                verifier.allow_unauthenticated()
            };
            let verifier = verifier.build().map_err(|error| TlsError::ClientCa {
                source: Box::new(error),
            })?;
            builder.with_client_cert_verifier(verifier)
        };
        let mut config = builder.with_cert_resolver(Arc::new(SingleCertAndKey::from(Arc::clone(
            &self.certified_key,
        ))));
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("certificates", &self.certified_key.cert.len())
            .field("key", &"<redacted>")
            .field("client_cas", &self.client_roots.len())
            .field(
                "require_client_certificate",
                &self.require_client_certificate,
            )
            .field("handshake_timeout", &self.handshake_timeout)
            .finish()
    }
}

/// The crypto provider, named rather than taken from the process default, so that another
/// crate enabling a second rustls provider cannot make the choice ambiguous.
fn provider() -> CryptoProvider {
    rustls::crypto::ring::default_provider()
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_owned(),
        source,
    })
}

fn certificates(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| TlsError::Certificate {
            what: what.to_owned(),
            source: Some(Box::new(error)),
        })?;
    if certificates.is_empty() {
        return Err(TlsError::Certificate {
            what: what.to_owned(),
            source: None,
        });
    }
    Ok(certificates)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Pair {
        cert: String,
        key: String,
    }

    fn self_signed(name: &str) -> Pair {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec![name.to_owned()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        Pair {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    }

    #[test]
    fn a_certificate_and_its_key_make_a_config_whose_debug_hides_the_key() {
        let pair = self_signed("localhost");
        let config = TlsConfig::from_pem(pair.cert.as_bytes(), pair.key.as_bytes()).unwrap();
        let debug = format!("{config:?}");
        assert!(debug.contains("<redacted>"), "{debug}");
        let key_body = pair.key.lines().nth(1).unwrap();
        assert!(!debug.contains(key_body), "{debug}");
        assert!(!config.verifies_client_certificates());
        let server = config.server_config().unwrap();
        assert_eq!(server.alpn_protocols, [b"http/1.1".to_vec()]);
    }

    #[test]
    fn unusable_input_is_refused_without_quoting_the_key() {
        let pair = self_signed("localhost");
        let other = self_signed("other");
        let cases = [
            (
                b"not pem".as_slice(),
                pair.key.as_bytes(),
                "no usable certificate",
            ),
            (
                pair.cert.as_bytes(),
                b"not pem".as_slice(),
                "no private key",
            ),
            (pair.cert.as_bytes(), pair.cert.as_bytes(), "no private key"),
            (pair.cert.as_bytes(), other.key.as_bytes(), "cannot be used"),
        ];
        for (cert, key, expected) in cases {
            let error = TlsConfig::from_pem(cert, key).unwrap_err();
            let text = format!("{error} {error:?}");
            assert!(text.contains(expected), "{text}");
            for line in pair.key.lines().chain(other.key.lines()).skip(1) {
                if !line.starts_with("-----") {
                    assert!(!text.contains(line), "{text}");
                }
            }
        }
    }

    #[test]
    fn client_cas_must_be_certificates_and_files_are_named() {
        let pair = self_signed("localhost");
        let config = TlsConfig::from_pem(pair.cert.as_bytes(), pair.key.as_bytes()).unwrap();
        let error = config.clone().client_ca_pem(b"nothing").unwrap_err();
        assert!(matches!(error, TlsError::Certificate { .. }), "{error:?}");
        let ca = self_signed("ca");
        let config = config.client_ca_pem(ca.cert.as_bytes()).unwrap();
        assert!(config.verifies_client_certificates());
        config.server_config().unwrap();

        let missing = Path::new("/nonexistent/a2a-tls-test/cert.pem");
        let error = TlsConfig::from_pem_files(missing, missing).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot read /nonexistent/a2a-tls-test/cert.pem"
        );
    }
}
