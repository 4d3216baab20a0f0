//! The TLS settings of a gRPC channel: the webpki roots, as the HTTP transport trusts, plus
//! the client's extra CAs and its client certificate (mutual TLS).

use tonic::transport::{Certificate, ClientTlsConfig, Identity};

use crate::transport::TlsOptions;

/// The channel's TLS configuration for `tls`. Both PEM texts were checked when they were
/// given to [`TlsOptions`].
pub(super) fn client_tls(tls: &TlsOptions) -> ClientTlsConfig {
    let mut config = ClientTlsConfig::new()
        .with_webpki_roots()
        .ca_certificates(tls.root_pems().iter().map(Certificate::from_pem));
    if let Some(pem) = tls.identity_pem() {
        // One text holds the chain and the key; tonic reads the certificates of the first
        // argument and the first private key of the second, skipping the other sections.
        config = config.identity(Identity::from_pem(pem, pem));
    }
    config
}
