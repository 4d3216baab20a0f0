//! [`ClientCertificate`]: the certificate a client presented in the TLS handshake, which the
//! TLS layer puts into each request's extensions once it verified the chain.

use std::sync::Arc;

use x509_parser::prelude::{FromDer, X509Certificate};

/// A client's leaf certificate (DER), verified by the TLS layer against the configured
/// client CAs. Whoever serves TLS inserts it into every request of the connection
/// (the server's own TLS serving does); the mutual-TLS scheme reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCertificate {
    der: Arc<[u8]>,
}

/// Who a certificate names.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CertificateIdentity {
    /// The subject's distinguished name (RFC 4514 text).
    pub subject: String,
    /// The subject's common name, when it has one.
    pub common_name: Option<String>,
    /// The issuer's distinguished name.
    pub issuer: String,
}

/// A certificate that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the client certificate cannot be read")]
pub struct CertificateError;

impl ClientCertificate {
    /// The certificate in DER.
    pub fn new(der: impl Into<Arc<[u8]>>) -> Self {
        Self { der: der.into() }
    }

    /// The DER bytes.
    #[must_use]
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The subject and issuer.
    ///
    /// # Errors
    /// [`CertificateError`] when the bytes are not an X.509 certificate.
    pub fn identity(&self) -> Result<CertificateIdentity, CertificateError> {
        let (_, certificate) =
            X509Certificate::from_der(&self.der).map_err(|_| CertificateError)?;
        let common_name = certificate
            .subject()
            .iter_common_name()
            .next()
            .and_then(|name| name.as_str().ok())
            .map(str::to_owned);
        Ok(CertificateIdentity {
            subject: certificate.subject().to_string(),
            common_name,
            issuer: certificate.issuer().to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_and_issuer_come_from_the_certificate() {
        let mut params = rcgen::CertificateParams::new(vec!["client.test".to_owned()])
            .unwrap_or_else(|error| panic!("{error}"));
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "alice");
        let key = rcgen::KeyPair::generate().unwrap_or_else(|error| panic!("{error}"));
        let certificate = params
            .self_signed(&key)
            .unwrap_or_else(|error| panic!("{error}"));
        let identity = ClientCertificate::new(certificate.der().to_vec())
            .identity()
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(identity.common_name.as_deref(), Some("alice"));
        assert_eq!(identity.subject, "CN=alice");
        assert_eq!(identity.issuer, "CN=alice");
        assert!(ClientCertificate::new(vec![1, 2, 3]).identity().is_err());
    }
}
