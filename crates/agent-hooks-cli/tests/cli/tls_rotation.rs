//! Rotating a team service's credentials while it runs, through the real binary and a real TLS
//! client (rustls): a certificate and key replaced as certbot and cert-manager replace them (an
//! atomic rename) are served to the next handshake, a connection already open keeps being
//! answered, and a new pair that does not hold (a key of another certificate, a half-written
//! file) is refused with an error in the log while the pair in force keeps serving. Tokens added
//! and revoked with `agent-hooks token` apply at the next request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

use crate::support::{self, Server};
use crate::team::{Team, authority, guarded, leaf, logged};

/// A TLS connection to the service, kept open across requests (HTTP/1.1 keep-alive).
struct Connection {
    tls: rustls::StreamOwned<rustls::ClientConnection, TcpStream>,
}

impl Connection {
    fn open(port: u16, ca: &Path) -> Connection {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(ca).expect("read the CA") {
            roots.add(cert.expect("a CA certificate")).expect("a root");
        }
        let config = rustls::ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = ServerName::try_from("localhost").expect("a server name");
        let client = rustls::ClientConnection::new(Arc::new(config), name).expect("a TLS client");
        let tcp = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        tcp.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a read timeout");
        let mut tls = rustls::StreamOwned::new(client, tcp);
        while tls.conn.is_handshaking() {
            tls.conn
                .complete_io(&mut tls.sock)
                .expect("the TLS handshake");
        }
        Connection { tls }
    }

    /// The certificate the service showed on this connection (DER).
    fn leaf(&self) -> Vec<u8> {
        self.tls
            .conn
            .peer_certificates()
            .and_then(|chain| chain.first())
            .expect("a server certificate")
            .to_vec()
    }

    /// `GET /v1/health` on this connection, which stays open: the status code.
    fn health(&mut self) -> u16 {
        self.tls
            .write_all(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .expect("send a request");
        let mut reader = BufReader::new(&mut self.tls);
        let mut status = String::new();
        reader.read_line(&mut status).expect("a status line");
        let mut length = 0;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).expect("a header");
            if header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a length");
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).expect("the body");
        status
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {status:?}"))
    }
}

/// The DER of the one certificate in a PEM text.
fn der(pem: &str) -> Vec<u8> {
    CertificateDer::from_pem_slice(pem.as_bytes())
        .expect("a PEM certificate")
        .to_vec()
}

/// Replaces `path` with `text` as certbot and cert-manager do: written beside it, then renamed
/// over it.
fn replace(path: &Path, text: &str) {
    let beside = path.with_extension("new");
    std::fs::write(&beside, text).expect("write the new file");
    std::fs::rename(&beside, path).expect("rename it into place");
}

/// A certificate for the service's names, with its serial number and key, from `issuer`.
fn server_pair(issuer: &rcgen::Issuer<'_, rcgen::KeyPair>) -> (String, String) {
    leaf(issuer, vec!["localhost".into(), "127.0.0.1".into()])
}

#[test]
fn a_renewed_certificate_is_served_to_new_connections_and_open_ones_are_kept() {
    let team = Team::new();
    let ws = guarded();
    let dir = tempfile::tempdir().expect("tempdir");
    let (ca, issuer) = authority("agent-hooks test CA");
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca).expect("write the CA");
    let cert: PathBuf = dir.path().join("fullchain.pem");
    let key: PathBuf = dir.path().join("key.pem");
    let (first, first_key) = server_pair(&issuer);
    std::fs::write(&cert, &first).expect("write the certificate");
    std::fs::write(&key, &first_key).expect("write the key");

    let log = tempfile::NamedTempFile::new().expect("a log file");
    let cert_flag = cert.display().to_string();
    let key_flag = key.display().to_string();
    let mut serve = logged(
        &team.serve(
            &ws,
            "127.0.0.1:0",
            &["--tls-cert", &cert_flag, "--tls-key", &key_flag],
        ),
        log.path(),
    );
    serve.env("AGENT_HOOKS_LOG", "info");
    let server = Server::spawn(serve);
    let mut kept = Connection::open(server.port, &ca_file);
    assert_eq!(kept.leaf(), der(&first));
    assert_eq!(kept.health(), 200);

    // Renewed: the key first, then the certificate, each renamed into place.
    let (second, second_key) = server_pair(&issuer);
    replace(&key, &second_key);
    replace(&cert, &second);
    assert!(
        support::eventually(Duration::from_secs(15), || {
            Connection::open(server.port, &ca_file).leaf() == der(&second)
        }),
        "new connections never got the renewed certificate; the log:\n{}",
        std::fs::read_to_string(log.path()).unwrap_or_default()
    );
    let mut fresh = Connection::open(server.port, &ca_file);
    assert_eq!(fresh.health(), 200);
    // The connection opened before the renewal is still answered, on its own certificate.
    assert_eq!(kept.health(), 200);
    assert_eq!(kept.leaf(), der(&first));

    // A new certificate with a key of another: refused, said in the log, the renewed pair kept.
    let (third, _) = server_pair(&issuer);
    let (_, stranger_key) = server_pair(&issuer);
    replace(&key, &stranger_key);
    replace(&cert, &third);
    let said = || std::fs::read_to_string(log.path()).unwrap_or_default();
    assert!(
        support::eventually(Duration::from_secs(15), || {
            said().contains("does not fit the certificate")
        }),
        "no error for a key that does not fit; the log:\n{}",
        said()
    );
    let error = said()
        .lines()
        .find(|l| l.contains("does not fit the certificate"))
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("ERROR"), "{error}");
    assert!(
        error.contains(&key_flag),
        "the key file is not named: {error}"
    );
    assert!(error.contains("kept"), "{error}");
    let mut after = Connection::open(server.port, &ca_file);
    assert_eq!(after.leaf(), der(&second));
    assert_eq!(after.health(), 200);

    // A certificate file caught half-written: refused the same way.
    std::fs::write(&key, &second_key).expect("put the key back");
    std::fs::write(&cert, &third[..third.len() / 2]).expect("write half a certificate");
    assert!(
        support::eventually(Duration::from_secs(15), || {
            said()
                .lines()
                .any(|l| l.contains("ERROR") && l.contains(&cert_flag) && l.contains("kept"))
        }),
        "no error for a half-written certificate; the log:\n{}",
        said()
    );
    assert_eq!(Connection::open(server.port, &ca_file).leaf(), der(&second));
    assert_eq!(kept.health(), 200);
}

/// `agent-hooks token` on the service's store.
fn token(team: &Team, args: &[&str]) -> String {
    let out = Command::new(support::BIN)
        .arg("token")
        .args(args)
        .arg("--tokens")
        .arg(team.tokens())
        .output()
        .expect("run agent-hooks token");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn a_token_rotated_while_the_service_runs_applies_at_the_next_request() {
    let team = Team::new();
    let ws = guarded();
    let server = Server::spawn(team.serve(&ws, "127.0.0.1:0", &[]));
    let dispatch = |token: &str| {
        support::http_with(
            server.port,
            "POST",
            "/v1/events/pre_tool_call",
            br#"{"tool_name": "bash", "tool_input": {"command": "ls"}}"#,
            "127.0.0.1",
            &format!("Authorization: Bearer {token}\r\n"),
        )
        .0
    };
    assert_eq!(dispatch(&team.agent), 200);
    // The documented rotation: a new token under a new name, then the old one revoked.
    let renewed = token(&team, &["add", "laptop-1-2027", "--role", "agent"]);
    assert_eq!(dispatch(&renewed), 200);
    assert_eq!(dispatch(&team.agent), 200);
    token(&team, &["revoke", "laptop-1"]);
    assert_eq!(dispatch(&team.agent), 401);
    assert_eq!(dispatch(&renewed), 200);
}
