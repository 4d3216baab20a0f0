//! The TLS settings of a run's connections.
//!
//! The extra certificate authorities and the client certificate (mutual TLS) a run is given,
//! applied alike to the HTTP client (the card, JSON-RPC, HTTP+JSON, key sets) and to every
//! gRPC channel, on top of the roots both trust by default.

use a2a_client::transport::TlsOptions;
use tonic::transport::{Certificate, ClientTlsConfig, Identity};

/// `builder` trusting the extra CAs of `tls` and presenting its client certificate.
///
/// # Errors
/// The reason when a PEM text cannot be used; it never quotes the text.
pub(crate) fn http_client(
    builder: reqwest::ClientBuilder,
    tls: Option<&TlsOptions>,
) -> Result<reqwest::ClientBuilder, String> {
    let Some(tls) = tls else {
        return Ok(builder);
    };
    let mut builder = builder;
    for pem in tls.root_pems() {
        let roots = reqwest::Certificate::from_pem_bundle(pem)
            .map_err(|_| "a CA PEM holds no usable certificate".to_owned())?;
        for root in roots {
            builder = builder.add_root_certificate(root);
        }
    }
    if let Some(pem) = tls.identity_pem() {
        let identity = reqwest::Identity::from_pem(pem).map_err(|_| {
            "the client certificate PEM must hold a certificate and its unencrypted private key"
                .to_owned()
        })?;
        builder = builder.identity(identity);
    }
    Ok(builder)
}

/// A gRPC channel's TLS configuration: the default roots, plus the extra CAs and the
/// client certificate of `tls`.
pub(crate) fn grpc(tls: Option<&TlsOptions>) -> ClientTlsConfig {
    let config = ClientTlsConfig::new().with_enabled_roots();
    let Some(tls) = tls else {
        return config;
    };
    let mut config = config.ca_certificates(tls.root_pems().iter().map(Certificate::from_pem));
    if let Some(pem) = tls.identity_pem() {
        // One text holds the chain and the key: tonic takes the certificates of the first
        // argument and the first private key of the second, skipping the other sections.
        config = config.identity(Identity::from_pem(pem, pem));
    }
    config
}
