//! TLS for a team service: the server's certificate chain and key from PEM files, and, with a
//! client CA, client certificates verified against it (mutual TLS). rustls on the ring provider,
//! the one the HTTP hooks' client uses, so the binary carries one TLS stack. The files are
//! followed: when they change (certbot's or cert-manager's atomic rename, or a plain rewrite),
//! the whole setup is rebuilt and checked, and only a setup that holds replaces the one in force,
//! for the handshakes that follow; connections already open keep theirs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

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

/// A file as read: its path, for messages, and its bytes.
struct Read {
    path: PathBuf,
    bytes: Vec<u8>,
}

fn read(path: &Path) -> Result<Read, TlsError> {
    let bytes = std::fs::read(path).map_err(|e| tls_error(path, e))?;
    Ok(Read {
        path: path.to_path_buf(),
        bytes,
    })
}

fn certificates(file: &Read) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_slice_iter(&file.bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| tls_error(&file.path, e))?;
    if certs.is_empty() {
        return Err(tls_error(
            &file.path,
            "no certificate in it (expected PEM: -----BEGIN CERTIFICATE-----)",
        ));
    }
    Ok(certs)
}

/// The files of a setup, read once: what is built from them and what is compared with the
/// setup in force are the same bytes.
struct Files {
    cert: Read,
    key: Read,
    client_ca: Option<Read>,
}

impl Files {
    fn read(files: &TlsFiles) -> Result<Files, TlsError> {
        Ok(Files {
            cert: read(&files.cert)?,
            key: read(&files.key)?,
            client_ca: files.client_ca.as_deref().map(read).transpose()?,
        })
    }

    /// What the files hold, as one digest.
    fn digest(&self) -> [u8; 32] {
        let mut digest = Sha256::new();
        for file in [Some(&self.cert), Some(&self.key), self.client_ca.as_ref()] {
            let bytes = file.map_or(&[][..], |f| &f.bytes);
            digest.update((bytes.len() as u64).to_le_bytes());
            digest.update(bytes);
        }
        digest.finalize().into()
    }
}

/// The acceptor of `files`, checked whole: a key that does not fit its certificate is refused
/// here, not at the first client.
fn build(files: &Files) -> Result<tokio_rustls::TlsAcceptor, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let chain = certificates(&files.cert)?;
    let key = PrivateKeyDer::from_pem_slice(&files.key.bytes).map_err(|e| {
        tls_error(
            &files.key.path,
            format!("no private key read from it ({e}); expected PEM (PKCS#8, PKCS#1 or SEC1)"),
        )
    })?;
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(&files.cert.path, e))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in certificates(ca)? {
                roots.add(cert).map_err(|e| tls_error(&ca.path, e))?;
            }
            // Optional: a caller may show a token instead; a certificate shown must verify.
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .allow_unauthenticated()
            .build()
            .map_err(|e| tls_error(&ca.path, e))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder.with_single_cert(chain, key).map_err(|e| {
        tls_error(
            &files.key.path,
            format!("it does not fit the certificate: {e}"),
        )
    })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// How long the files must be still before they are read: a renewal writes the certificate and
/// the key one after the other, and the pair is read once both are there.
const SETTLE: Duration = Duration::from_millis(200);

/// The longest a burst of changes is let run before the files are read anyway.
const SETTLE_AT_MOST: Duration = Duration::from_secs(2);

/// The TLS setup in force, rebuilt from its files when they change.
pub(crate) struct Acceptor {
    files: TlsFiles,
    current: RwLock<tokio_rustls::TlsAcceptor>,
    /// The digest of the files last tried, whether they held or not: the same bytes are
    /// neither loaded nor refused twice.
    tried: Mutex<[u8; 32]>,
}

impl std::fmt::Debug for Acceptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Acceptor")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl Acceptor {
    /// The setup of `files`, checked whole before the service starts.
    pub(crate) fn open(files: &TlsFiles) -> Result<Arc<Acceptor>, TlsError> {
        let read = Files::read(files)?;
        let acceptor = build(&read)?;
        Ok(Arc::new(Acceptor {
            files: files.clone(),
            current: RwLock::new(acceptor),
            tried: Mutex::new(read.digest()),
        }))
    }

    /// The acceptor for the next handshake.
    pub(crate) fn current(&self) -> tokio_rustls::TlsAcceptor {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Reads the files again and puts the setup they make in force if it holds; if it does
    /// not, the one in force stays, and the log says why.
    fn reload(&self) {
        let read = match Files::read(&self.files) {
            Ok(read) => read,
            Err(e) => {
                tracing::error!("{e}; the TLS certificate and key in force are kept");
                return;
            }
        };
        let digest = read.digest();
        {
            let mut tried = self.tried.lock().unwrap_or_else(|p| p.into_inner());
            if *tried == digest {
                return;
            }
            *tried = digest;
        }
        match build(&read) {
            Ok(acceptor) => {
                *self.current.write().unwrap_or_else(|p| p.into_inner()) = acceptor;
                let leaf = certificates(&read.cert)
                    .ok()
                    .and_then(|chain| chain.into_iter().next())
                    .map_or_else(String::new, |leaf| format!(" ({})", fingerprint(&leaf)));
                tracing::info!(
                    "TLS: the certificate and key of {} and {} are in force for new connections{leaf}",
                    self.files.cert.display(),
                    self.files.key.display()
                );
            }
            Err(e) => {
                tracing::error!("{e}; the TLS certificate and key in force are kept");
            }
        }
    }

    /// Follows the files: each change (in their directories, where an atomic rename or a
    /// symlink swap happens) reloads them once they have settled. Stops when the returned
    /// watcher is dropped.
    ///
    /// # Errors
    ///
    /// When a directory cannot be watched; the setup in force then serves until a restart.
    pub(crate) fn follow(self: &Arc<Acceptor>) -> Result<Following, TlsError> {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<()>(1);
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if event.is_ok_and(|e| !e.kind.is_access()) {
                    // A change already waiting covers this one.
                    let _ = tx.try_send(());
                }
            })
            .map_err(|e| tls_error(&self.files.cert, format!("cannot follow it: {e}")))?;
        let files = [
            Some(&self.files.cert),
            Some(&self.files.key),
            self.files.client_ca.as_ref(),
        ];
        let mut dirs: Vec<PathBuf> = Vec::new();
        for file in files.into_iter().flatten() {
            let dir = match file.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if dirs.contains(&dir) {
                continue;
            }
            watcher
                .watch(&dir, RecursiveMode::NonRecursive)
                .map_err(|e| tls_error(file, format!("cannot follow its directory: {e}")))?;
            dirs.push(dir);
        }
        let acceptor = self.clone();
        tokio::spawn(async move {
            while rx.recv().await.is_some() {
                // Let the burst settle: every change within SETTLE of the last one is the same.
                let deadline = tokio::time::Instant::now() + SETTLE_AT_MOST;
                while tokio::time::Instant::now() < deadline
                    && let Ok(Some(())) = tokio::time::timeout(SETTLE, rx.recv()).await
                {
                }
                let acceptor = acceptor.clone();
                let _ = tokio::task::spawn_blocking(move || acceptor.reload()).await;
            }
        });
        Ok(Following { _watcher: watcher })
    }
}

/// Keeps the files followed; dropping it stops following them.
pub(crate) struct Following {
    _watcher: RecommendedWatcher,
}

impl std::fmt::Debug for Following {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Following")
    }
}

/// How a verified client certificate is named in logs: `cert:` and its [`fingerprint`].
pub(crate) fn client_name(cert: &CertificateDer<'_>) -> String {
    format!("cert:{}", fingerprint(cert))
}

/// The first 16 hex digits of the SHA-256 of a certificate's DER, which `openssl x509
/// -fingerprint -sha256` shows too.
fn fingerprint(cert: &CertificateDer<'_>) -> String {
    let digest = Sha256::digest(cert.as_ref());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}
