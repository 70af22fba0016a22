//! TLS for a team service: the server's certificate chain and key from PEM files, and, with a
//! client CA, client certificates verified against it (mutual TLS). rustls on the ring provider,
//! the one the HTTP hooks' client uses, so the binary carries one TLS stack.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};

/// The files a TLS listener is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsFiles {
    /// The server's certificate chain (PEM), leaf first.
    pub cert: PathBuf,
    /// The server's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// With it, clients may present a certificate signed by one of these CAs (PEM); one that
    /// presents another is refused during the handshake.
    pub client_ca: Option<PathBuf>,
}

impl TlsFiles {
    /// The server's certificate and key, no client certificates.
    pub fn new(cert: PathBuf, key: PathBuf) -> TlsFiles {
        TlsFiles {
            cert,
            key,
            client_ca: None,
        }
    }

    /// With client certificates signed by the CAs of `ca` (PEM).
    pub fn with_client_ca(mut self, ca: PathBuf) -> TlsFiles {
        self.client_ca = Some(ca);
        self
    }
}

/// Why TLS could not be set up, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("TLS: {}: {why}", path.display())]
pub struct TlsError {
    path: PathBuf,
    why: String,
}

fn tls_error(path: &Path, why: impl std::fmt::Display) -> TlsError {
    TlsError {
        path: path.to_path_buf(),
        why: why.to_string(),
    }
}

fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| tls_error(path, e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| tls_error(path, e))?;
    if certs.is_empty() {
        return Err(tls_error(
            path,
            "no certificate in it (expected PEM: -----BEGIN CERTIFICATE-----)",
        ));
    }
    Ok(certs)
}

/// The acceptor of `files`, checked whole before the service starts: a key that does not
/// match its certificate is refused here, not at the first client.
pub(crate) fn acceptor(files: &TlsFiles) -> Result<tokio_rustls::TlsAcceptor, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let chain = certificates(&files.cert)?;
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| {
        tls_error(
            &files.key,
            format!("no private key read from it ({e}); expected PEM (PKCS#8, PKCS#1 or SEC1)"),
        )
    })?;
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(&files.cert, e))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in certificates(ca)? {
                roots.add(cert).map_err(|e| tls_error(ca, e))?;
            }
            // Optional: a caller may show a token instead; a certificate shown must verify.
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .allow_unauthenticated()
            .build()
            .map_err(|e| tls_error(ca, e))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(chain, key)
        .map_err(|e| tls_error(&files.key, format!("it does not fit the certificate: {e}")))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// How a verified client certificate is named in logs: `cert:` and the first 16 hex digits of
/// the SHA-256 of its DER, which `openssl x509 -fingerprint -sha256` shows too.
pub(crate) fn client_name(cert: &CertificateDer<'_>) -> String {
    let digest = Sha256::digest(cert.as_ref());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("cert:{hex}")
}
