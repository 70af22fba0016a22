//! Claude Code plugins' hooks: which plugins are enabled, where they are installed, and which
//! hook files they declare. The hook files themselves are read by the settings reader
//! ([`super::claude`]), with the plugin's root for `${CLAUDE_PLUGIN_ROOT}`.
//!
//! As Claude Code finds them: a plugin is enabled by `"enabledPlugins": {"name@marketplace":
//! true}` in a settings file this source reads (a later file overrides an earlier one: user,
//! project, local); an enabled plugin's directory is its `installPath` in
//! `~/.claude/plugins/installed_plugins.json` (what `claude plugin install` writes). A folder
//! `.claude/skills/<dir>/` of the workspace with a `.claude-plugin/plugin.json` is a plugin
//! `<name>@skills-dir`, loaded in place unless `enabledPlugins` turns it off. A plugin's hooks
//! are `hooks/hooks.json` under its root, plus the files its manifest's `hooks` names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use agent_hooks_core::workspace::Workspace;

/// An enabled plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plugin {
    /// `name@marketplace`.
    pub id: String,
    /// Its installation directory: `${CLAUDE_PLUGIN_ROOT}`.
    pub root: PathBuf,
    /// `${CLAUDE_PLUGIN_DATA}`: `~/.claude/plugins/data/<id, made safe>/`.
    pub data: PathBuf,
    /// Its hook files, in the order Claude Code reads them.
    pub hook_files: Vec<PathBuf>,
}

/// The enabled plugins, and what could not be resolved (enabled but not installed, a broken
/// registry or manifest), as messages.
pub(crate) fn enabled(ws: &Workspace, settings: &[(PathBuf, Value)]) -> (Vec<Plugin>, Vec<String>) {
    let mut switches: BTreeMap<String, bool> = BTreeMap::new();
    for (_, doc) in settings {
        if let Some(map) = doc.get("enabledPlugins").and_then(Value::as_object) {
            for (id, on) in map {
                if let Some(on) = on.as_bool() {
                    switches.insert(id.clone(), on);
                }
            }
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut problems = Vec::new();
    let mut plugins = Vec::new();
    let wanted: Vec<&String> = switches
        .iter()
        .filter(|(id, on)| **on && !id.ends_with("@skills-dir"))
        .map(|(id, _)| id)
        .collect();
    if !wanted.is_empty() {
        match &home {
            None => problems.push(
                "plugins are enabled but HOME is not set, so ~/.claude/plugins cannot be read"
                    .to_owned(),
            ),
            Some(home) => {
                let registry = home.join(".claude/plugins/installed_plugins.json");
                let installed = read_registry(&registry, &mut problems);
                for id in wanted {
                    match install_path(&installed, id, ws.root()) {
                        Some(root) => plugins.push(plugin(id, root, home)),
                        None => problems.push(format!(
                            "plugin {id} is enabled but not installed (not in {}); its hooks are not loaded",
                            registry.display()
                        )),
                    }
                }
            }
        }
    }
    // Plugins in the project's skills directory load in place.
    if let Ok(entries) = std::fs::read_dir(ws.root().join(".claude/skills")) {
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            let manifest = dir.join(".claude-plugin/plugin.json");
            if !manifest.is_file() {
                continue;
            }
            let name = manifest_name(&manifest)
                .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            let id = format!("{name}@skills-dir");
            if switches.get(&id) == Some(&false) {
                continue;
            }
            let home = home.clone().unwrap_or_default();
            plugins.push(plugin(&id, dir, &home));
        }
    }
    for plugin in &mut plugins {
        plugin.hook_files = hook_files(&plugin.root, &mut problems);
    }
    (plugins, problems)
}

impl Plugin {
    /// `text` with `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` written out, as Claude
    /// Code substitutes them anywhere in a plugin's hook command.
    pub(crate) fn expand(&self, text: &str) -> String {
        text.replace("${CLAUDE_PLUGIN_ROOT}", &self.root.to_string_lossy())
            .replace("${CLAUDE_PLUGIN_DATA}", &self.data.to_string_lossy())
    }

    /// The variables a plugin's hooks get.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        vec![
            (
                "CLAUDE_PLUGIN_ROOT".to_owned(),
                self.root.to_string_lossy().into_owned(),
            ),
            (
                "CLAUDE_PLUGIN_DATA".to_owned(),
                self.data.to_string_lossy().into_owned(),
            ),
        ]
    }
}

fn plugin(id: &str, root: PathBuf, home: &Path) -> Plugin {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    Plugin {
        id: id.to_owned(),
        root,
        data: home.join(".claude/plugins/data").join(safe),
        hook_files: Vec::new(),
    }
}

/// `installed_plugins.json`: `{"plugins": {"name@mkt": [{"scope", "installPath",
/// "projectPath"?}, …]}}`.
fn read_registry(path: &Path, problems: &mut Vec<String>) -> Value {
    match agent_hooks_core::store::read_optional(path) {
        Ok(None) => Value::Null,
        Ok(Some(text)) => serde_json::from_str(&text).unwrap_or_else(|e| {
            problems.push(format!("{} is not valid JSON: {e}", path.display()));
            Value::Null
        }),
        Err(e) => {
            problems.push(format!("cannot read {}: {e}", path.display()));
            Value::Null
        }
    }
}

/// Where `id` is installed for this workspace: an install for this project (`projectPath`)
/// before a user-wide one.
fn install_path(registry: &Value, id: &str, workspace: &Path) -> Option<PathBuf> {
    let entries = registry.get("plugins")?.get(id)?.as_array()?;
    let path_of = |e: &Value| {
        e.get("installPath")
            .and_then(Value::as_str)
            .map(PathBuf::from)
    };
    let for_project = entries.iter().find(|e| {
        e.get("projectPath")
            .and_then(Value::as_str)
            .is_some_and(|p| Path::new(p) == workspace)
    });
    let user_wide = entries.iter().find(|e| e.get("projectPath").is_none());
    for_project
        .or(user_wide)
        .and_then(path_of)
        .filter(|p| p.is_dir())
}

fn manifest_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    doc.get("name").and_then(Value::as_str).map(str::to_owned)
}

/// `hooks/hooks.json` when it exists, then each file the manifest's `hooks` names (a path or
/// a list of paths, relative to the root). An inline `hooks` object in the manifest is read as
/// the manifest file itself.
fn hook_files(root: &Path, problems: &mut Vec<String>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let default = root.join("hooks/hooks.json");
    if default.is_file() {
        files.push(default);
    }
    let manifest = root.join(".claude-plugin/plugin.json");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        return files;
    };
    let doc: Value = match serde_json::from_str(&text) {
        Ok(doc) => doc,
        Err(e) => {
            problems.push(format!("{} is not valid JSON: {e}", manifest.display()));
            return files;
        }
    };
    let named: Vec<&str> = match doc.get("hooks") {
        Some(Value::String(path)) => vec![path.as_str()],
        Some(Value::Array(paths)) => paths.iter().filter_map(Value::as_str).collect(),
        Some(Value::Object(_)) => {
            files.push(manifest.clone());
            Vec::new()
        }
        _ => Vec::new(),
    };
    for path in named {
        let file = root.join(path.trim_start_matches("./"));
        if !file.starts_with(root) || path.contains("..") {
            problems.push(format!(
                "{}: hooks path \"{path}\" leaves the plugin; ignored",
                manifest.display()
            ));
        } else if !files.contains(&file) {
            files.push(file);
        }
    }
    files
}
