//! A policy to replay under, in a scratch copy of its own: a workspace directory copied, or a
//! git revision of the workspace written out with `git archive`. The user's tree, its state,
//! logs and approvals are never touched: guards keep their per-session state, and hooks that
//! run (`--run-hooks`) write their files, in the copy, which is removed with the replay.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_hooks_runtime::{Engine, Workspace, hook_listing};

use crate::error::ReplayError;

/// Directories a copy leaves out: the runtime's own state and logs (a replay starts from none),
/// and what is large and holds no policy.
const NOT_COPIED: &[&str] = &[".git", "state", "logs", "target", "node_modules"];

/// A policy as the command line named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicySpec {
    /// A workspace directory.
    Dir(PathBuf),
    /// A git revision of the workspace (`HEAD`, `main~3`, a commit).
    Revision(String),
    /// A policy bundle its caller has verified and unpacked into `dir` (the replay crate
    /// reads no bundle itself: bundles and their keys are the service's). It is copied like a
    /// directory, and paths of the workspace in its configuration are repointed to the copy,
    /// since a bundle is built from a workspace like the one replayed.
    Unpacked {
        /// Where the verified files are.
        dir: PathBuf,
        /// The bundle as the user named it (`policy.tar.zst`).
        bundle: PathBuf,
    },
}

impl PolicySpec {
    /// `text` as a policy: an existing directory, else a git revision of `workspace`.
    pub fn parse(text: &str) -> PolicySpec {
        let path = Path::new(text);
        if path.is_dir() {
            PolicySpec::Dir(path.to_path_buf())
        } else {
            PolicySpec::Revision(text.to_owned())
        }
    }

    /// How reports name it.
    pub fn label(&self) -> String {
        match self {
            PolicySpec::Dir(dir) => dir.display().to_string(),
            PolicySpec::Revision(rev) => format!("git revision {rev}"),
            PolicySpec::Unpacked { bundle, .. } => format!("bundle {}", bundle.display()),
        }
    }
}

/// A policy loaded in its scratch copy; the copy is removed when this is dropped.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub engine: Engine,
    /// What the user named.
    pub label: String,
    /// The names of its command hooks (an AHP backend is one too): the report says of each
    /// that ran which network it had.
    pub commands: BTreeSet<String>,
    _scratch: tempfile::TempDir,
}

impl Loaded {
    /// Copies `spec` (a revision is one of `workspace`) into a scratch directory and opens it.
    pub(crate) fn open(spec: &PolicySpec, workspace: &Path) -> Result<Loaded, ReplayError> {
        let scratch = tempfile::Builder::new()
            .prefix("agent-hooks-replay-")
            .tempdir()
            .map_err(|e| ReplayError::Scratch(e.to_string()))?;
        let (root, original) = match spec {
            PolicySpec::Dir(dir) => {
                let root = scratch.path().join("workspace");
                copy_tree(dir, &root)
                    .map_err(|e| ReplayError::Scratch(format!("copying {}: {e}", dir.display())))?;
                (root, dir.as_path())
            }
            PolicySpec::Revision(rev) => (checkout(workspace, rev, scratch.path())?, workspace),
            PolicySpec::Unpacked { dir, .. } => {
                let root = scratch.path().join("workspace");
                copy_tree(dir, &root)
                    .map_err(|e| ReplayError::Scratch(format!("copying {}: {e}", dir.display())))?;
                (root, workspace)
            }
        };
        let original = Workspace::new(original);
        repoint(&root, original.root())
            .map_err(|e| ReplayError::Scratch(format!("{}: {e}", root.display())))?;
        let engine = Engine::open(Workspace::new(root));
        let commands = hook_listing(&engine)
            .hooks
            .iter()
            .filter(|h| h["transport"] == "command" || h["transport"] == "ahp")
            .filter_map(|h| h["name"].as_str().map(str::to_owned))
            .collect();
        Ok(Loaded {
            engine,
            label: spec.label(),
            commands,
            _scratch: scratch,
        })
    }
}

/// Configuration files name files of their workspace by absolute path (`agent-hooks install`
/// writes the rules file's): in the copy, each such path is made to name the copy's file, so
/// the policy runs on its own rules and scripts, never on the live workspace's.
fn repoint(copy: &Path, original: &Path) -> std::io::Result<()> {
    let from = format!("{}/", original.display());
    let to = format!("{}/", copy.display());
    if from == to {
        return Ok(());
    }
    let mut pending = vec![copy.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            let configuration = path
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| matches!(x, "yaml" | "yml" | "json" | "toml"));
            if !kind.is_file() || !configuration || entry.metadata()?.len() > CONFIG_LIMIT {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if text.contains(&from) {
                std::fs::write(&path, text.replace(&from, &to))?;
            }
        }
    }
    Ok(())
}

/// Configuration files larger than this are data, not configuration: left as they are.
const CONFIG_LIMIT: u64 = 1 << 20;

/// Copies the tree at `from` to `to`, leaving out [`NOT_COPIED`] at its top; symbolic links
/// are copied as links, never followed.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fn copy(from: &Path, to: &Path, top: bool) -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            let name = entry.file_name();
            if top && NOT_COPIED.iter().any(|n| name == *n) {
                continue;
            }
            let kind = entry.file_type()?;
            let target = to.join(&name);
            if kind.is_dir() {
                copy(&entry.path(), &target, false)?;
            } else if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
            } else if kind.is_file() {
                std::fs::copy(entry.path(), &target)?;
            }
        }
        Ok(())
    }
    copy(from, to, true)
}

/// Writes revision `rev` of the git repository holding `workspace` under `scratch` with
/// `git archive` (nothing of the repository changes), and returns the workspace's directory
/// in it.
fn checkout(workspace: &Path, rev: &str, scratch: &Path) -> Result<PathBuf, ReplayError> {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(workspace)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| ReplayError::Revision {
                rev: rev.to_owned(),
                why: format!("cannot run git: {e}"),
            })
    };
    let verify = git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("{rev}^{{commit}}"),
    ])?;
    if !verify.status.success() {
        return Err(ReplayError::Revision {
            rev: rev.to_owned(),
            why: format!(
                "neither a directory nor a commit of the git repository at {}",
                workspace.display()
            ),
        });
    }
    let prefix = git(&["rev-parse", "--show-prefix"])?;
    let prefix = String::from_utf8_lossy(&prefix.stdout).trim().to_owned();
    let tar = scratch.join("revision.tar");
    let tar_text = tar.to_string_lossy().into_owned();
    let tree = if prefix.is_empty() {
        rev.to_owned()
    } else {
        format!("{rev}:{prefix}")
    };
    let archive = git(&["archive", "--format=tar", "-o", &tar_text, &tree])?;
    if !archive.status.success() {
        return Err(ReplayError::Revision {
            rev: rev.to_owned(),
            why: format!(
                "git archive: {}",
                String::from_utf8_lossy(&archive.stderr).trim()
            ),
        });
    }
    let root = scratch.join("workspace");
    std::fs::create_dir_all(&root).map_err(|e| ReplayError::Scratch(e.to_string()))?;
    let untar = Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(&root)
        .output()
        .map_err(|e| ReplayError::Scratch(format!("cannot run tar: {e}")))?;
    if !untar.status.success() {
        return Err(ReplayError::Scratch(format!(
            "tar: {}",
            String::from_utf8_lossy(&untar.stderr).trim()
        )));
    }
    let _ = std::fs::remove_file(&tar);
    Ok(root)
}
