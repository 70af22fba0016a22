//! Where a workspace keeps what (`docs/configuration.md`). Every path the runtime reads or writes
//! is named here.

use std::path::{Path, PathBuf};

/// The environment variable that names the workspace when `--workspace` is not given.
pub const WORKSPACE_ENV: &str = "AGENT_HOOKS_WORKSPACE";

/// The environment variable that keeps approvals in a file outside the workspace, where an agent
/// confined to the workspace cannot forge them (`docs/trust.md`).
pub const APPROVALS_ENV: &str = "AGENT_HOOKS_APPROVALS";

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
