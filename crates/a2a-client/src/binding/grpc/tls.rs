//! The TLS settings of a gRPC channel: the roots the HTTP transport trusts (the operating
//! system's certificate store and the bundled webpki roots), plus the client's extra CAs and
//! its client certificate (mutual TLS).

use std::sync::OnceLock;

use tonic::transport::{Certificate, ClientTlsConfig, Identity};

use crate::transport::TlsOptions;

/// The channel's TLS configuration for `tls`. Both PEM texts were checked when they were
/// given to [`TlsOptions`].
pub(super) fn client_tls(tls: &TlsOptions) -> ClientTlsConfig {
    let mut config = ClientTlsConfig::new()
        .with_webpki_roots()
        .ca_certificates(tls.root_pems().iter().map(Certificate::from_pem));
    if has_native_roots() {
        config = config.with_native_roots();
    }
    if let Some(pem) = tls.identity_pem() {
        // One text holds the chain and the key; tonic reads the certificates of the first
        // argument and the first private key of the second, skipping the other sections.
        config = config.identity(Identity::from_pem(pem, pem));
    }
    config
}

/// Whether the operating system's certificate store holds any certificate. tonic refuses
/// to connect when asked to read an empty store (a minimal container without a CA bundle),
/// where reqwest goes on with its other roots; both behave as reqwest does.
fn has_native_roots() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| !rustls_native_certs::load_native_certs().certs.is_empty())
}
