//! A private certificate authority for the TLS tests: made with rcgen in memory, fresh in
//! every test, so no certificate is checked in and none can expire.
//!
//! [`Authority`] issues server and client certificates; [`Pki`] is what most tests need (a
//! CA, a server certificate for `127.0.0.1` and `localhost`, one client certificate), and
//! [`Pki::files`] writes it as PEM files for the command-line tests.

use std::path::Path;
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use tempfile::TempDir;

/// The common name of the CA a [`Pki`] makes.
pub const TEST_CA: &str = "Test CA";

/// How long a request of [`Authority::https_client`] may take.
const REQUEST_LIMIT: Duration = Duration::from_secs(10);

/// A self-signed CA that issues certificates.
#[derive(Debug)]
pub struct Authority {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Authority {
    /// A new CA whose common name is `name`.
    ///
    /// # Panics
    /// When rcgen cannot make it.
    #[must_use]
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new())
            .unwrap_or_else(|error| panic!("cannot make the CA's parameters: {error}"));
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key =
            KeyPair::generate().unwrap_or_else(|error| panic!("cannot make the CA's key: {error}"));
        let issuer = CertifiedIssuer::self_signed(params, key)
            .unwrap_or_else(|error| panic!("cannot sign the CA: {error}"));
        Self { issuer }
    }

    /// The CA's certificate as PEM: what a peer that trusts this CA is given.
    #[must_use]
    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server certificate for `127.0.0.1` and `localhost`, common name `localhost`.
    #[must_use]
    pub fn server(&self) -> Issued {
        self.issue(
            &["127.0.0.1", "localhost"],
            "localhost",
            ExtendedKeyUsagePurpose::ServerAuth,
        )
    }

    /// A client certificate whose common name is `name` (and no subject alternative name).
    #[must_use]
    pub fn client(&self, name: &str) -> Issued {
        self.issue(&[], name, ExtendedKeyUsagePurpose::ClientAuth)
    }

    /// A certificate for the DNS names or IP addresses `names`, with common name
    /// `common_name`, for `usage`.
    ///
    /// # Panics
    /// When a name is not a valid subject alternative name, or rcgen cannot sign.
    #[must_use]
    pub fn issue(
        &self,
        names: &[&str],
        common_name: &str,
        usage: ExtendedKeyUsagePurpose,
    ) -> Issued {
        let alt_names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let mut params = CertificateParams::new(alt_names)
            .unwrap_or_else(|error| panic!("cannot make the parameters for {names:?}: {error}"));
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        params.extended_key_usages = vec![usage];
        let key = KeyPair::generate().unwrap_or_else(|error| panic!("cannot make a key: {error}"));
        let cert = params
            .signed_by(&key, &self.issuer)
            .unwrap_or_else(|error| {
                panic!("cannot sign the certificate for {common_name}: {error}")
            });
        Issued {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    }

    /// An HTTPS client that trusts this CA (and no other) and presents `identity` when given;
    /// each request may take ten seconds.
    ///
    /// # Panics
    /// When reqwest refuses the PEM.
    #[must_use]
    pub fn https_client(&self, identity: Option<&Issued>) -> reqwest::Client {
        let root = reqwest::Certificate::from_pem(self.pem().as_bytes())
            .unwrap_or_else(|error| panic!("reqwest refuses the CA's PEM: {error}"));
        let mut builder = reqwest::Client::builder()
            .add_root_certificate(root)
            .timeout(REQUEST_LIMIT);
        if let Some(identity) = identity {
            let identity = reqwest::Identity::from_pem(identity.identity().as_bytes())
                .unwrap_or_else(|error| panic!("reqwest refuses the client identity: {error}"));
            builder = builder.identity(identity);
        }
        builder
            .build()
            .unwrap_or_else(|error| panic!("cannot build the HTTPS client: {error}"))
    }
}

/// A certificate and its private key, as PEM.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The certificate.
    pub cert: String,
    /// Its private key.
    pub key: String,
}

impl Issued {
    /// The certificate followed by its key in one PEM, as a client identity is often given.
    #[must_use]
    pub fn identity(&self) -> String {
        format!("{}{}", self.cert, self.key)
    }
}

/// A CA named [`TEST_CA`], the server certificate it issued ([`Authority::server`]) and one
/// client certificate.
#[derive(Debug)]
pub struct Pki {
    /// The CA, to issue more.
    pub authority: Authority,
    /// The CA's certificate as PEM.
    pub ca: String,
    /// For `127.0.0.1` and `localhost`.
    pub server: Issued,
    /// With the common name given to [`Pki::new`].
    pub client: Issued,
}

impl Pki {
    /// A fresh CA, its server certificate, and a client certificate with common name `client`.
    #[must_use]
    pub fn new(client: &str) -> Self {
        let authority = Authority::new(TEST_CA);
        Self {
            ca: authority.pem(),
            server: authority.server(),
            client: authority.client(client),
            authority,
        }
    }

    /// An HTTPS client that trusts the CA and presents `identity` when given.
    #[must_use]
    pub fn https_client(&self, identity: Option<&Issued>) -> reqwest::Client {
        self.authority.https_client(identity)
    }

    /// Everything as PEM files in a fresh temporary directory, removed when the [`PemFiles`]
    /// are dropped.
    ///
    /// # Panics
    /// When the directory or a file cannot be written.
    #[must_use]
    pub fn files(&self) -> PemFiles {
        let dir = tempfile::Builder::new()
            .prefix("a2a-tls-")
            .tempdir()
            .unwrap_or_else(|error| panic!("cannot make a temporary directory: {error}"));
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text)
                .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
            utf8(&path)
        };
        PemFiles {
            ca: write("ca.pem", &self.ca),
            server_cert: write("server.pem", &self.server.cert),
            server_key: write("server.key", &self.server.key),
            client_cert: write("client.pem", &self.client.cert),
            client_key: write("client.key", &self.client.key),
            client_identity: write("client-both.pem", &self.client.identity()),
            _dir: dir,
        }
    }
}

/// A [`Pki`] as PEM files; each field is a file's path, ready to pass as an argument.
#[derive(Debug)]
pub struct PemFiles {
    /// The CA's certificate.
    pub ca: String,
    /// The server's certificate.
    pub server_cert: String,
    /// The server's key.
    pub server_key: String,
    /// The client's certificate.
    pub client_cert: String,
    /// The client's key.
    pub client_key: String,
    /// The client's certificate with its key in the same file.
    pub client_identity: String,
    /// Removed, with the files, on drop.
    _dir: TempDir,
}

fn utf8(path: &Path) -> String {
    path.to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", path.display()))
        .to_owned()
}
