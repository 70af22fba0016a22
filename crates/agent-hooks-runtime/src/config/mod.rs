//! Loading a workspace's configuration: the master switch from `config/agent.yaml` and the hooks of
//! every source. Each source is one module that turns its files into [`Hook`]s and
//! [`ConfigError`]s; adding a source is adding a module and a line to [`SOURCES`]. A file that
//! fails to parse loses only its own hooks — and on reload it keeps its previous good ones
//! (`docs/configuration.md`, issue "reload").

pub(crate) mod agent;
pub(crate) mod agent_files;
pub(crate) mod ask;
mod builtin;
pub(crate) mod claude;
mod claude_hooks;
pub(crate) mod claude_plugins;
mod claude_settings;
pub(crate) mod codex;
mod copilot;
mod cursor;
mod document;
mod gemini;
pub(crate) mod shell;
mod shell_entry;
pub(crate) mod skill;
mod typed;
mod windsurf;
mod yaml;

use std::path::PathBuf;
use std::sync::Arc;

use crate::hook::{Hook, SourceKind};
use agent_hooks_core::workspace::Workspace;

pub(crate) use agent_hooks_core::config_error::ConfigError;

/// The outcome of reading one configuration file.
#[derive(Debug, Clone)]
pub(crate) struct FileLoad {
    /// Which kind of source the file belongs to.
    pub source: SourceKind,
    /// The file, absolute.
    pub path: PathBuf,
    /// The file as shown to users (workspace-relative).
    pub display: String,
    /// Whether it loaded.
    pub state: FileState,
    /// Hooks that loaded (entries with errors are left out and listed in `errors`).
    pub hooks: Vec<Hook>,
    /// Entry-level errors (the rest of the file still loads), or the one file-level error.
    pub errors: Vec<ConfigError>,
    /// Unknown keys, clamped values: things the user should know that do not stop a hook.
    pub warnings: Vec<ConfigError>,
    /// Claude Code events this settings file wires to the agent-hooks bridge (`claude-install`):
    /// Claude Code runs those entries, this runtime does not.
    pub bridge: Vec<String>,
}

/// How reading one configuration file went.
impl FileLoad {
    /// A file of `source` at `path` with nothing read yet (a missing file stays so).
    pub(crate) fn new(ws: &Workspace, source: SourceKind, path: PathBuf) -> FileLoad {
        FileLoad {
            source,
            display: ws.display(&path).into_owned(),
            path,
            state: FileState::Missing,
            hooks: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            bridge: Vec::new(),
        }
    }
}

/// How reading a configuration file went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileState {
    /// The file does not exist: no hooks from it, and no error.
    Missing,
    /// The file parsed (entries with errors may still have been left out).
    Loaded,
    /// The file could not be read or parsed: none of its hooks run (unless kept from before).
    Broken,
    /// Broken now; the hooks shown are the last good ones, still running.
    BrokenKeptPrevious,
}

/// A source of hooks: reads its files from the workspace (some sources take settings from
/// `config/agent.yaml`).
pub(crate) type SourceLoader = fn(&Workspace, &agent::AgentSettings) -> Vec<FileLoad>;

/// Every source, in run order (`docs/configuration.md`).
pub(crate) const SOURCES: &[SourceLoader] = &[
    shell::load,
    skill::load,
    claude::load,
    codex::load,
    gemini::load,
    cursor::load,
    copilot::load,
    windsurf::load,
];

/// Everything loaded from a workspace at one moment. Immutable; a reload builds a new one.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// The master switch (`shell_hooks.enabled`); off unless `config/agent.yaml` says `true`.
    pub master_enabled: bool,
    /// What `config/agent.yaml` says.
    pub agent: agent::AgentSettings,
    /// Every file read, present or not, in source order.
    pub files: Vec<FileLoad>,
    /// Every hook that loaded, in run order.
    pub hooks: Vec<Arc<Hook>>,
}

impl Config {
    /// Reads every source. With `previous`, a file that is broken now keeps its previous hooks.
    pub(crate) fn load(ws: &Workspace, previous: Option<&Config>) -> Config {
        let mut agent = agent::AgentSettings::load(ws);
        if agent.unreadable {
            // agent.yaml stopped parsing: keep the last good self-approve setting, and with none
            // known, refuse (fail closed) rather than fall back to the default "on".
            agent.self_approve = previous.is_some_and(|p| p.agent.self_approve);
        }
        let mut files: Vec<FileLoad> = SOURCES.iter().flat_map(|load| load(ws, &agent)).collect();
        if let Some(prev) = previous {
            for file in &mut files {
                if file.state != FileState::Broken {
                    continue;
                }
                if let Some(old) = prev.files.iter().find(|f| f.path == file.path)
                    && !old.hooks.is_empty()
                {
                    file.hooks = old.hooks.clone();
                    file.state = FileState::BrokenKeptPrevious;
                }
            }
        }
        let master_enabled = match (&agent.error, previous) {
            // A broken agent.yaml keeps the switch where it was rather than silently flipping it.
            (Some(_), Some(prev)) => prev.master_enabled,
            _ => agent.shell_hooks_enabled,
        };
        let hooks = files
            .iter()
            .flat_map(|f| f.hooks.iter().cloned().map(Arc::new))
            .collect();
        Config {
            master_enabled,
            agent,
            files,
            hooks,
        }
    }

    /// Every error of every file, `config/agent.yaml` first.
    pub(crate) fn errors(&self) -> impl Iterator<Item = &ConfigError> {
        self.agent
            .error
            .iter()
            .chain(self.files.iter().flat_map(|f| f.errors.iter()))
    }

    /// The declared hooks whose approval key is `key`.
    pub(crate) fn hooks_with_key<'a>(
        &'a self,
        key: &'a str,
    ) -> impl Iterator<Item = &'a Arc<Hook>> {
        self.hooks
            .iter()
            .filter(move |h| h.approval_key.as_deref() == Some(key))
    }
}
