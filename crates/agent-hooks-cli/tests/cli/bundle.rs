//! Policy bundles through the real binary: `bundle keygen`, `build`, `sign`, `verify`; one
//! changed byte of one script is refused with the file named, by `verify` and by a service;
//! `serve --policy` serves a signed bundle and, under load, takes a new version within 2 s with
//! no failed request during the swap, while a tampered version is refused and the one in force
//! stays; a directory holding an unpacked bundle is served too, and one caught half-updated is
//! not taken until it is whole.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{self, Entry, Server, Ws};

/// A guard that blocks commands holding `word`.
fn blocking(word: &str) -> String {
    format!(
        r#"case "$(cat)" in *'{word}'*) echo '{{"decision": "block", "reason": "no {word}"}}' ;; esac"#
    )
}

fn policy(word: &str) -> Ws {
    Ws::new()
        .master(true)
        .sh("hooks/guard.sh", &blocking(word))
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all()
}

fn agent_hooks(args: &[&str], dir: &Path) -> Output {
    Command::new(support::BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run agent-hooks")
}

/// A key pair, a private state directory, and an empty workspace to start `serve` in (the
/// policy is the bundle's).
struct Signer {
    dir: tempfile::TempDir,
    ws: Ws,
}

impl Signer {
    fn new() -> Signer {
        let dir = tempfile::tempdir().expect("tempdir");
        support::set_mode(dir.path(), 0o700);
        let made = agent_hooks(
            &[
                "bundle",
                "keygen",
                "--private",
                "key.pem",
                "--public",
                "key.pub",
            ],
            dir.path(),
        );
        assert!(made.status.success(), "{made:?}");
        Signer { dir, ws: Ws::new() }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `ws` built and signed into `name`, written beside and renamed into place.
    fn bundle(&self, ws: &Ws, name: &str) -> PathBuf {
        let staged = self.path(&format!(".{name}.new"));
        let staged_text = staged.display().to_string();
        let root = ws.root().display().to_string();
        let built = agent_hooks(
            &["bundle", "build", &root, "-o", &staged_text],
            self.dir.path(),
        );
        assert!(built.status.success(), "{built:?}");
        let signed = agent_hooks(
            &["bundle", "sign", &staged_text, "--key", "key.pem"],
            self.dir.path(),
        );
        assert!(signed.status.success(), "{signed:?}");
        let target = self.path(name);
        std::fs::rename(&staged, &target).expect("rename the bundle into place");
        target
    }

    /// The sidecar token of the state directory (made by the first `serve --listen`).
    fn token(&self) -> String {
        std::fs::read_to_string(self.path("sidecar.token"))
            .expect("the token")
            .trim()
            .to_owned()
    }

    fn verify(&self, bundle: &Path) -> Output {
        let text = bundle.display().to_string();
        agent_hooks(
            &["bundle", "verify", &text, "--key", "key.pub"],
            self.dir.path(),
        )
    }

    fn serve(&self, ws: &Ws, source: &Path) -> Command {
        let source = source.display().to_string();
        let key = self.path("key.pub").display().to_string();
        let mut cmd = ws.command(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--policy",
            &source,
            "--policy-key",
            &key,
        ]);
        cmd.env(agent_hooks_server::STATE_DIR_ENV, self.dir.path());
        cmd
    }
}

/// The bundle at `path` with one byte of `file` changed, and its manifest and signatures kept.
pub(crate) fn tamper(path: &Path, file: &str) {
    let bytes = std::fs::read(path).expect("read the bundle");
    let tar = zstd::decode_all(bytes.as_slice()).expect("zstd");
    let mut archive = tar::Archive::new(tar.as_slice());
    let mut out = tar::Builder::new(Vec::new());
    for entry in archive.entries().expect("entries") {
        let mut entry = entry.expect("an entry");
        let name = entry.path().expect("a path").display().to_string();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).expect("read");
        if name == file {
            let last = data.len() - 2;
            data[last] ^= 0x20;
        }
        let mut header = entry.header().clone();
        out.append_data(&mut header, &name, data.as_slice())
            .expect("append");
    }
    let tar = out.into_inner().expect("the archive");
    let packed = zstd::encode_all(tar.as_slice(), 3).expect("zstd");
    let tmp = path.with_extension("tampered");
    std::fs::write(&tmp, packed).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
}

/// A dispatch of a bash command to a service started by [`Signer::serve`], with the token of
/// the signer's state directory; its status and decision.
fn decision(server: &Server, token: &str, command: &str) -> (u16, String) {
    let body = json!({"tool_name": "bash", "tool_input": {"command": command}}).to_string();
    let (status, outcome) = support::http_with(
        server.port,
        "POST",
        "/v1/events/pre_tool_call",
        body.as_bytes(),
        "127.0.0.1",
        &format!("Authorization: Bearer {token}\r\n"),
    );
    (
        status,
        outcome["decision"].as_str().unwrap_or("").to_owned(),
    )
}

#[test]
fn a_bundle_is_built_signed_and_verified_and_one_changed_byte_is_refused_with_the_file_named() {
    let signer = Signer::new();
    let bundle = signer.bundle(&policy("rm -rf"), "policy.tar.zst");
    let verified = signer.verify(&bundle);
    assert!(verified.status.success(), "{verified:?}");

    // Signed by a key the verifier does not trust.
    let other = Signer::new();
    let text = bundle.display().to_string();
    let untrusted = agent_hooks(
        &["bundle", "verify", &text, "--key", "key.pub"],
        other.dir.path(),
    );
    assert_eq!(untrusted.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&untrusted.stderr).contains("signed by no trusted key"));

    tamper(&bundle, "hooks/guard.sh");
    let refused = signer.verify(&bundle);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{err}");
    assert!(
        err.contains("hooks/guard.sh"),
        "the file is not named: {err}"
    );
    assert!(err.contains("SHA-256 differs"), "{err}");

    // A service refuses to start on it, naming the file.
    let out = signer
        .serve(&signer.ws, &bundle)
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("hooks/guard.sh") && err.contains("SHA-256 differs"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "it announced an address: {out:?}");

    // An unsigned bundle is refused too.
    let unsigned = signer.path("unsigned.tar.zst");
    let other_policy = policy("x");
    let root = other_policy.root().display().to_string();
    let unsigned_text = unsigned.display().to_string();
    assert!(
        agent_hooks(
            &["bundle", "build", &root, "-o", &unsigned_text],
            signer.dir.path()
        )
        .status
        .success()
    );
    let refused = signer.verify(&unsigned);
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not signed"),
        "{refused:?}"
    );
}

#[test]
fn serve_takes_a_new_bundle_within_2_s_with_no_failed_request_and_keeps_it_over_a_tampered_one() {
    let signer = Signer::new();
    let source = signer.bundle(&policy("rm -rf"), "policy.tar.zst");
    let log = tempfile::NamedTempFile::new().expect("a log file");
    let serve = crate::team::logged(&signer.serve(&signer.ws, &source), log.path());
    let server = Arc::new(Server::spawn(serve));
    let token = signer.token();
    assert_eq!(decision(&server, &token, "rm -rf /"), (200, "block".into()));
    assert_eq!(
        decision(&server, &token, "git push --force"),
        (200, "continue".into())
    );

    // Load: four clients dispatch without a pause through the swap; every answer must be a 200
    // with one version's decision or the other's.
    let running = Arc::new(AtomicBool::new(true));
    let (answered, failed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (server, running, token) = (server.clone(), running.clone(), token.clone());
            let (answered, failed) = (answered.clone(), failed.clone());
            std::thread::spawn(move || {
                while running.load(Ordering::Relaxed) {
                    let (status, decision) = decision(&server, &token, "rm -rf /tmp/x");
                    answered.fetch_add(1, Ordering::Relaxed);
                    if status != 200 || !["block", "continue"].contains(&decision.as_str()) {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();

    let swapped_at = Instant::now();
    signer.bundle(&policy("git push --force"), "policy.tar.zst");
    let took = support::eventually(Duration::from_secs(2), || {
        decision(&server, &token, "git push --force").1 == "block"
    });
    let elapsed = swapped_at.elapsed();
    assert!(took, "the new bundle was not in force within 2 s");
    eprintln!(
        "the new bundle was in force {} ms after it was written",
        elapsed.as_millis()
    );
    assert_eq!(
        decision(&server, &token, "rm -rf /"),
        (200, "continue".into())
    );

    // A tampered third version is refused; the second stays in force.
    let third = signer.bundle(&policy("echo"), ".third.tar.zst");
    tamper(&third, "hooks/guard.sh");
    std::fs::rename(&third, &source).expect("put the tampered bundle in place");
    let logged = support::eventually(Duration::from_secs(10), || {
        std::fs::read_to_string(log.path()).is_ok_and(|l| l.contains("refused a new version"))
    });
    let text = std::fs::read_to_string(log.path()).unwrap_or_default();
    assert!(logged, "no refusal in the log: {text}");
    assert!(
        text.contains("hooks/guard.sh"),
        "the file is not named: {text}"
    );
    assert_eq!(decision(&server, &token, "git push --force").1, "block");
    assert_eq!(decision(&server, &token, "echo hi").1, "continue");

    running.store(false, Ordering::Relaxed);
    for client in clients {
        client.join().expect("a client");
    }
    let (answered, failed) = (
        answered.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed),
    );
    assert!(answered > 0, "the load sent nothing");
    assert_eq!(
        failed, 0,
        "{failed} of {answered} requests failed during the swaps"
    );
}

#[test]
fn a_directory_caught_half_updated_is_not_served_until_it_is_whole() {
    let signer = Signer::new();
    let first = signer.bundle(&policy("rm -rf"), "v1.tar.zst");
    let dir = signer.path("checkout");
    unpack(&first, &dir);
    let log = tempfile::NamedTempFile::new().expect("a log file");
    let server = Server::spawn(crate::team::logged(
        &signer.serve(&signer.ws, &dir),
        log.path(),
    ));
    let token = signer.token();
    assert_eq!(decision(&server, &token, "rm -rf /").1, "block");

    // The new manifest and signatures arrive before the files they sign.
    let second = signer.bundle(&policy("git push --force"), "v2.tar.zst");
    let staged = signer.path("staged");
    unpack(&second, &staged);
    for name in [agent_hooks_server::MANIFEST, agent_hooks_server::SIGNATURES] {
        std::fs::copy(staged.join(name), dir.join(name)).expect("copy");
    }
    // The service looks, refuses the half-updated directory (its log says so), and keeps the
    // version in force.
    assert!(support::eventually(Duration::from_secs(10), || {
        std::fs::read_to_string(log.path()).is_ok_and(|l| l.contains("refused a new version"))
    }));
    assert_eq!(
        decision(&server, &token, "rm -rf /").1,
        "block",
        "a half-applied policy was served"
    );
    assert_eq!(decision(&server, &token, "git push --force").1, "continue");
    // The rest arrives: the whole new version is taken.
    unpack(&second, &dir);
    assert!(support::eventually(Duration::from_secs(5), || {
        decision(&server, &token, "git push --force").1 == "block"
    }));
    assert_eq!(decision(&server, &token, "rm -rf /").1, "continue");
}

/// The files of `bundle` written under `dir`, as `tar --zstd -xf` would.
fn unpack(bundle: &Path, dir: &Path) {
    let bytes = std::fs::read(bundle).expect("read the bundle");
    let tar = zstd::decode_all(bytes.as_slice()).expect("zstd");
    let mut archive = tar::Archive::new(tar.as_slice());
    archive.set_preserve_permissions(true);
    std::fs::create_dir_all(dir).expect("mkdir");
    archive.unpack(dir).expect("unpack");
}
