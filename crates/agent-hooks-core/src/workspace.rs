//! Where a workspace keeps what (`docs/configuration.md`). Every path the runtime reads or writes
//! is named here.

use std::path::{Path, PathBuf};

/// The environment variable that names the workspace when `--workspace` is not given.
pub const WORKSPACE_ENV: &str = "AGENT_HOOKS_WORKSPACE";

/// The environment variable that keeps approvals in a file outside the workspace, where an agent
/// confined to the workspace cannot forge them (`docs/trust.md`).
pub const APPROVALS_ENV: &str = "AGENT_HOOKS_APPROVALS";

/// The environment variable that names the runtime's own per-user state directory instead of
/// `$XDG_STATE_HOME/agent-hooks` (`docs/configuration.md`, "What agent-hooks writes where").
pub const STATE_DIR_ENV: &str = "AGENT_HOOKS_STATE_DIR";

/// The runtime's own per-user state directory: `$AGENT_HOOKS_STATE_DIR` (a relative path taken
/// from the current directory), else `$XDG_STATE_HOME/agent-hooks` (an absolute one; the XDG
/// rule ignores a relative value), else `~/.local/state/agent-hooks`. `None` when none of the
/// three is set. It holds what the runtime keeps for itself, outside every workspace: the
/// sidecar's token and allow list, and one [`Workspace::runtime_dir`] per workspace.
pub fn user_state_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var(STATE_DIR_ENV) {
        return Some(if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir()
                .map(|cwd| cwd.join(&dir))
                .unwrap_or(dir)
        });
    }
    if let Some(dir) = var("XDG_STATE_HOME").filter(|d| d.is_absolute()) {
        return Some(dir.join("agent-hooks"));
    }
    var("HOME").map(|home| home.join(".local/state/agent-hooks"))
}

/// The first 16 hex digits of the SHA-256 of `root`'s bytes: the name a workspace's own
/// directories (its [`Workspace::runtime_dir`], the sidecar's default socket) go by, the same
/// in every process that knows the workspace.
pub fn workspace_id(root: &Path) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// What marks a directory as a workspace, as [`Workspace::discover`] looks for it: the
/// runtime's own settings, an agent's project directory, or skills. A name ending in `/` must
/// be a directory.
pub const MARKERS: [&str; 7] = [
    "config/agent.yaml",
    "config/shell_hooks.yaml",
    ".claude/",
    ".codex/",
    ".gemini/",
    ".cursor/",
    "skills/",
];

/// A workspace found by walking up from a directory, with the marker that made it one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The workspace.
    pub workspace: Workspace,
    /// The marker found there (one of [`MARKERS`], or `.git`).
    pub marker: &'static str,
}

/// One workspace directory and the paths inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// A workspace rooted at `root`, made absolute against the current directory so that hooks,
    /// approvals and logs never depend on where the runtime was started.
    pub fn new(root: impl Into<PathBuf>) -> Workspace {
        let root = root.into();
        let root = if root.is_absolute() {
            root
        } else {
            std::env::current_dir()
                .map(|cwd| cwd.join(&root))
                .unwrap_or(root)
        };
        // Strip `.` and `..` lexically; a workspace that does not exist yet stays usable.
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        Workspace { root }
    }

    /// `--workspace DIR`, else `$AGENT_HOOKS_WORKSPACE`, else the current directory.
    pub fn resolve(flag: Option<&Path>) -> Workspace {
        match flag {
            Some(dir) => Workspace::new(dir),
            None => match std::env::var_os(WORKSPACE_ENV) {
                Some(dir) if !dir.is_empty() => Workspace::new(PathBuf::from(dir)),
                _ => Workspace::new("."),
            },
        }
    }

    /// The workspace `start` is in, found as git finds `.git`: the nearest directory from
    /// `start` up that holds one of [`MARKERS`]; failing any up to the root, the nearest that
    /// holds `.git`. The user's home directory counts only with a `config/agent.yaml` of its
    /// own: `~/.claude/`, `~/.codex/`, `~/.gemini/` and `~/.cursor/` are the agents' user
    /// settings, not a project, and a session in an unrelated directory under home must not
    /// adopt them. `None` when nothing is found.
    pub fn discover(start: &Path) -> Option<Found> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| std::fs::canonicalize(&h).unwrap_or_else(|_| PathBuf::from(h)));
        Workspace::discover_under(start, home.as_deref())
    }

    /// [`Workspace::discover`] with `home` as the user's home directory.
    fn discover_under(start: &Path, home: Option<&Path>) -> Option<Found> {
        let start = Workspace::new(start).root;
        let mut git = None;
        for dir in start.ancestors() {
            let is_home = home == Some(dir);
            for marker in MARKERS {
                if is_home && marker != "config/agent.yaml" {
                    continue;
                }
                let present = match marker.strip_suffix('/') {
                    Some(name) => dir.join(name).is_dir(),
                    None => dir.join(marker).is_file(),
                };
                if present {
                    return Some(Found {
                        workspace: Workspace {
                            root: dir.to_path_buf(),
                        },
                        marker,
                    });
                }
            }
            if git.is_none() && !is_home && dir.join(".git").exists() {
                git = Some(dir.to_path_buf());
            }
        }
        git.map(|root| Found {
            workspace: Workspace { root },
            marker: ".git",
        })
    }

    /// The absolute root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config/agent.yaml`: host settings, including the master switch.
    pub fn agent_yaml(&self) -> PathBuf {
        self.root.join("config/agent.yaml")
    }

    /// `config/shell_hooks.yaml`: the shell-hook declarations.
    pub fn shell_hooks_yaml(&self) -> PathBuf {
        self.root.join("config/shell_hooks.yaml")
    }

    /// The approved (event, command) pairs: `$AGENT_HOOKS_APPROVALS` when set (a relative
    /// path is taken from the current directory), else `config/hook_approvals.json`.
    pub fn approvals_json(&self) -> PathBuf {
        match std::env::var_os(APPROVALS_ENV) {
            Some(path) if !path.is_empty() => {
                let path = PathBuf::from(path);
                if path.is_absolute() {
                    path
                } else {
                    std::env::current_dir()
                        .map(|cwd| cwd.join(&path))
                        .unwrap_or(path)
                }
            }
            _ => self.root.join("config/hook_approvals.json"),
        }
    }

    /// Whether approvals live outside the workspace (`$AGENT_HOOKS_APPROVALS` is set).
    pub fn approvals_outside(&self) -> bool {
        std::env::var_os(APPROVALS_ENV).is_some_and(|p| !p.is_empty())
    }

    /// `skills/`: one directory per skill, each may carry a `hooks.json`.
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }

    /// `hooks/`: the workspace's hook programs, and the rules files of installed guards.
    pub fn hooks_dir(&self) -> PathBuf {
        self.root.join("hooks")
    }

    /// `logs/events.jsonl`: the diagnostic event log.
    pub fn events_log(&self) -> PathBuf {
        self.root.join("logs/events.jsonl")
    }

    /// `logs/chat-history.jsonl`: the host's transcript, handed to skill and Claude Code hooks.
    pub fn chat_history(&self) -> PathBuf {
        self.root.join("logs/chat-history.jsonl")
    }

    /// `state/`: one subdirectory per hook for state it keeps between runs.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join("state")
    }

    /// The runtime's own bookkeeping for this workspace, never in the host's files: file locks,
    /// the decision log, the `hook_decision` records, the memory of configuration errors
    /// already logged, the last configuration that parsed. `<user state dir>/workspaces/<id>`
    /// ([`user_state_dir`], [`workspace_id`]); where no user state directory can be found (no
    /// `HOME`), `state/.agent-hooks` in the workspace, as a last resort that keeps the runtime
    /// working.
    pub fn runtime_dir(&self) -> PathBuf {
        match user_state_dir() {
            Some(dir) => dir.join("workspaces").join(workspace_id(&self.root)),
            None => self.state_dir().join(".agent-hooks"),
        }
    }

    /// Creates `dir`, the missing directory of a log file about to be written: the runtime's
    /// own directory private, as [`Workspace::create_runtime_dir`] makes it; any other (a file
    /// the configuration names) as the user would.
    pub fn create_log_dir(&self, dir: &Path) -> std::io::Result<()> {
        if dir == self.runtime_dir()
            && let Err(err) = self.create_runtime_dir()
        {
            tracing::warn!(dir = %dir.display(), %err, "cannot create the runtime's directory");
        }
        std::fs::create_dir_all(dir)
    }

    /// Creates [`Workspace::runtime_dir`] (mode `0700`, as every directory it makes on the
    /// way) with a `workspace` file naming the root, so a user looking through the state
    /// directory can tell which workspace each one keeps; returns it.
    ///
    /// # Errors
    ///
    /// The directory cannot be created.
    pub fn create_runtime_dir(&self) -> std::io::Result<PathBuf> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = self.runtime_dir();
        if dir.is_dir() {
            return Ok(dir);
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        let mut named = self.root.as_os_str().as_encoded_bytes().to_vec();
        named.push(b'\n');
        // Only a label for people; the runtime never reads it back.
        let _ = std::fs::write(dir.join("workspace"), named);
        Ok(dir)
    }

    /// `path` relative to the workspace when it lies inside it, for messages.
    pub fn display<'a>(&self, path: &'a Path) -> std::borrow::Cow<'a, str> {
        match path.strip_prefix(&self.root) {
            Ok(rel) => rel.to_string_lossy().into_owned().into(),
            Err(_) => path.to_string_lossy(),
        }
    }

    /// Resolves a path written in configuration: absolute stays, relative is taken from the
    /// workspace root.
    pub fn resolve_path(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dirs: &[&str], files: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        for dir in dirs {
            std::fs::create_dir_all(root.path().join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
        }
        for file in files {
            let path = root.path().join(file);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{file}: {e}"));
            }
            std::fs::write(&path, "").unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        root
    }

    fn found(root: &tempfile::TempDir, from: &str) -> Option<(String, &'static str)> {
        found_with_home(root, from, None)
    }

    fn found_with_home(
        root: &tempfile::TempDir,
        from: &str,
        home: Option<&str>,
    ) -> Option<(String, &'static str)> {
        let top = std::fs::canonicalize(root.path()).unwrap_or_default();
        let home = home.map(|h| top.join(h));
        Workspace::discover_under(&root.path().join(from), home.as_deref()).map(|f| {
            let rel = f.workspace.root().strip_prefix(&top).map(Path::to_path_buf);
            (
                rel.map(|p| p.display().to_string())
                    .unwrap_or_else(|_| "outside".into()),
                f.marker,
            )
        })
    }

    #[test]
    fn the_nearest_marker_wins_and_git_only_when_nothing_else_is_found() {
        let root = tree(
            &[
                "proj/src/deep",
                "proj/.claude",
                "proj/.git",
                "other/.git/x",
                "other/a",
            ],
            &[],
        );
        assert_eq!(
            found(&root, "proj/src/deep"),
            Some(("proj".into(), ".claude/"))
        );
        assert_eq!(found(&root, "other/a"), Some(("other".into(), ".git")));
        let nested = tree(
            &["outer/.cursor", "outer/inner/.git", "outer/inner/src"],
            &[],
        );
        assert_eq!(
            found(&nested, "outer/inner/src"),
            Some(("outer".into(), ".cursor/")),
            "a real marker further up is preferred over a nearer .git"
        );
        let settings = tree(&["ws/a/b"], &["ws/config/agent.yaml"]);
        assert_eq!(
            found(&settings, "ws/a/b"),
            Some(("ws".into(), "config/agent.yaml"))
        );
        let file_named_like_a_dir = tree(&["x/y"], &["x/.claude"]);
        assert_ne!(
            found(&file_named_like_a_dir, "x/y"),
            Some(("x".into(), ".claude/"))
        );
    }

    #[test]
    fn home_counts_only_with_its_own_agent_yaml() {
        let root = tree(&["home/.claude", "home/.git", "home/scratch/notes"], &[]);
        let under_home = found_with_home(&root, "home/scratch/notes", Some("home"));
        assert_ne!(
            under_home.as_ref().map(|f| f.0.as_str()),
            Some("home"),
            "{under_home:?}"
        );
        let root = tree(
            &["home/.claude", "home/scratch"],
            &["home/config/agent.yaml"],
        );
        assert_eq!(
            found_with_home(&root, "home/scratch", Some("home")),
            Some(("home".into(), "config/agent.yaml"))
        );
    }
}
