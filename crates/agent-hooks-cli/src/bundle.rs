//! `agent-hooks bundle`: a workspace's policy as one signed file (`docs/deploy.md`): build it,
//! sign it, verify it, and make the signing key.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

/// What `agent-hooks bundle` does.
#[derive(Debug, Subcommand)]
pub(crate) enum Action {
    /// Pack a workspace's policy (configuration, hook scripts, rules, approvals; not state/,
    /// logs/ or .git/) into a .tar.zst with a manifest of SHA-256s.
    Build {
        /// The workspace.
        workspace: PathBuf,
        /// The bundle to write.
        #[arg(short, long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Sign a bundle's manifest with an ed25519 private key (PKCS#8 PEM), in place.
    Sign {
        /// The bundle.
        bundle: PathBuf,
        /// The private key (`bundle keygen`, or `openssl genpkey -algorithm ed25519`).
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
    },
    /// Check a bundle (or a directory holding an unpacked one): a signature by one of the keys,
    /// and every file against the manifest. Exits 1 naming the first file that does not match.
    Verify {
        /// The bundle or directory.
        bundle: PathBuf,
        /// A trusted public key (PEM); repeat for more.
        #[arg(long = "key", value_name = "FILE", required = true)]
        keys: Vec<PathBuf>,
    },
    /// Make an ed25519 key pair for signing bundles.
    Keygen {
        /// Where the private key goes (made 0600; refused if it exists).
        #[arg(long, value_name = "FILE")]
        private: PathBuf,
        /// Where the public key goes (the one services trust: serve --policy-key).
        #[arg(long, value_name = "FILE")]
        public: PathBuf,
    },
}

/// The public keys of `paths`.
pub(crate) fn keys(paths: &[PathBuf]) -> Result<Vec<ed25519_dalek::VerifyingKey>, String> {
    paths
        .iter()
        .map(|p| agent_hooks_server::read_public_key(p).map_err(|e| e.to_string()))
        .collect()
}

pub(crate) fn run(action: Action) -> ExitCode {
    let done = match action {
        Action::Build { workspace, out } => agent_hooks_server::build_bundle(&workspace, &out)
            .map(|files| {
                println!(
                    "agent-hooks bundle: {} files of {} in {} (unsigned: agent-hooks bundle sign)",
                    files.len(),
                    workspace.display(),
                    out.display()
                );
            })
            .map_err(|e| e.to_string()),
        Action::Sign { bundle, key } => agent_hooks_server::sign_bundle(&bundle, &key)
            .map(|public| {
                println!(
                    "agent-hooks bundle: {} signed by {}",
                    bundle.display(),
                    &public[..16]
                );
            })
            .map_err(|e| e.to_string()),
        Action::Verify {
            bundle,
            keys: paths,
        } => keys(&paths).and_then(|keys| {
            agent_hooks_server::verify_bundle(&bundle, &keys)
                .map(|verified| {
                    println!(
                        "agent-hooks bundle: {} verified: {} files, manifest {}, signed by {}",
                        bundle.display(),
                        verified.len(),
                        &verified.digest[..16],
                        &verified.signer[..16]
                    );
                })
                .map_err(|e| e.to_string())
        }),
        Action::Keygen { private, public } => agent_hooks_server::keygen(&private, &public)
            .map(|key| {
                println!(
                    "agent-hooks bundle: private key in {}, public key {} in {}",
                    private.display(),
                    &key[..16],
                    public.display()
                );
            })
            .map_err(|e| e.to_string()),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent-hooks bundle: {e}");
            ExitCode::FAILURE
        }
    }
}
