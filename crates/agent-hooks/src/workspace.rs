//! Where a workspace keeps what (SPEC §2). Every path the runtime reads or writes is named here.

use std::path::{Path, PathBuf};

/// The environment variable that names the workspace when `--workspace` is not given.
pub const WORKSPACE_ENV: &str = "AGENT_HOOKS_WORKSPACE";

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

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn agent_yaml(&self) -> PathBuf {
        self.root.join("config/agent.yaml")
    }

    pub fn shell_hooks_yaml(&self) -> PathBuf {
        self.root.join("config/shell_hooks.yaml")
    }

    pub fn approvals_json(&self) -> PathBuf {
        self.root.join("config/hook_approvals.json")
    }

    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }

    pub fn hooks_dir(&self) -> PathBuf {
        self.root.join("hooks")
    }

    pub fn events_log(&self) -> PathBuf {
        self.root.join("logs/events.jsonl")
    }

    pub fn chat_history(&self) -> PathBuf {
        self.root.join("logs/chat-history.jsonl")
    }

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
