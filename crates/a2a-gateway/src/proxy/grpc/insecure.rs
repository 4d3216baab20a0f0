//! The TLS connector of gRPC channels to agents whose certificates are not verified
//! (`agent_tls_skip_verify`, KubeMQ's AgentTLSSkipVerify): the handshake's signatures are
//! still checked, the certificate chain and name are not.

use std::io;
use std::sync::Arc;

use http::Uri;
use hyper_util::rt::TokioIo;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, SignatureScheme};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// Connects to `uri`'s host and port (443 when it names none) over TLS with ALPN `h2`,
/// accepting whatever certificate the agent shows.
#[derive(Debug, Clone)]
pub(crate) struct InsecureTls {
    config: Arc<ClientConfig>,
}

impl InsecureTls {
    /// The connector, or why rustls refused the settings.
    pub(crate) fn new() -> Result<Self, rustls::Error> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = AnyCertificate {
            algorithms: provider.signature_verification_algorithms,
        };
        let mut config = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Self {
            config: Arc::new(config),
        })
    }

    /// Opens a TLS connection to `uri`.
    pub(crate) async fn connect(self, uri: Uri) -> io::Result<TokioIo<TlsStream<TcpStream>>> {
        let host = uri
            .host()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no host"))?
            .trim_matches(['[', ']'])
            .to_owned();
        let port = uri.port_u16().unwrap_or(443);
        let tcp = TcpStream::connect((host.as_str(), port)).await?;
        let name = ServerName::try_from(host)
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
        let tls = TlsConnector::from(self.config).connect(name, tcp).await?;
        Ok(TokioIo::new(tls))
    }
}

/// Accepts every certificate; checks the handshake's signatures with the provider's
/// algorithms, so the connection is still to whoever holds the certificate's key.
#[derive(Debug)]
struct AnyCertificate {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}
