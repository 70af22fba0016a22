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

use serde::Deserialize;
use serde_json::Value;

use super::typed::{Entries, Given, Object, Typed, from_object};
use agent_hooks_core::workspace::Workspace;

/// What a settings file says about plugins: `enabledPlugins`, plugin id → on or off (the ids
/// are data, so the map is read in full).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PluginSwitches {
    enabled_plugins: Option<Typed<Entries<Typed<bool>>>>,
}

/// `installed_plugins.json`: plugin id → its installs.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Registry {
    plugins: Option<Typed<BTreeMap<String, Installs>>>,
}

/// A plugin's installs as written: a list, each an object when well formed.
type Installs = Typed<Vec<Typed<Object<Install>>>>;

/// One install of a plugin: user-wide, or for the project at `projectPath`.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Install {
    install_path: Option<Typed<String>>,
    /// Written at all (even as null): the install is for one project, not user-wide.
    project_path: Given<Typed<String>>,
}

/// The parts of a plugin's `.claude-plugin/plugin.json` read here.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Manifest {
    name: Option<Typed<String>>,
    hooks: Option<Typed<ManifestHooks>>,
}

/// A manifest's `hooks`: a hook file, a list of them, or the hooks themselves.
#[derive(Deserialize)]
#[serde(untagged)]
enum ManifestHooks {
    File(String),
    Files(Vec<Typed<String>>),
    Inline(
        #[expect(
            dead_code,
            reason = "the manifest file itself is read as the hook file"
        )]
        serde_json::Map<String, Value>,
    ),
}

/// The value of an optional field, when written with the declared type.
fn valid<T>(field: &Option<Typed<T>>) -> Option<&T> {
    field.as_ref().and_then(|typed| typed.get().ok())
}

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
        let read = from_object::<PluginSwitches>(doc).unwrap_or_default();
        if let Some(Entries(map)) = valid(&read.enabled_plugins) {
            for (id, on) in map {
                if let Ok(on) = on.get() {
                    switches.insert(id.clone(), *on);
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
/// A registry that is missing, broken or of another shape lists no plugin.
fn read_registry(path: &Path, problems: &mut Vec<String>) -> Registry {
    match agent_hooks_core::store::read_optional(path) {
        Ok(None) => Registry::default(),
        Ok(Some(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(doc) => from_object(&doc).unwrap_or_default(),
            Err(e) => {
                problems.push(format!("{} is not valid JSON: {e}", path.display()));
                Registry::default()
            }
        },
        Err(e) => {
            problems.push(format!("cannot read {}: {e}", path.display()));
            Registry::default()
        }
    }
}

/// Where `id` is installed for this workspace: an install for this project (`projectPath`)
/// before a user-wide one.
/// An entry that is not an object is an install with neither path: user-wide, and nowhere.
fn install_path(registry: &Registry, id: &str, workspace: &Path) -> Option<PathBuf> {
    let entries = valid(&registry.plugins)?.get(id)?.get().ok()?;
    let nowhere = Install::default();
    let installs = entries.iter().map(|entry| match entry {
        Typed::Valid(Object(install)) => install,
        Typed::Wrong(_) => &nowhere,
    });
    let path_of = |install: &Install| valid(&install.install_path).map(PathBuf::from);
    let for_project = installs.clone().find(|install| {
        install
            .project_path
            .0
            .as_ref()
            .and_then(|p| p.get().ok())
            .is_some_and(|p| Path::new(p) == workspace)
    });
    let user_wide = installs
        .clone()
        .find(|install| install.project_path.0.is_none());
    for_project
        .or(user_wide)
        .and_then(path_of)
        .filter(|p| p.is_dir())
}

/// A plugin's manifest, when it can be read as JSON; its fields, when written as an object.
fn read_manifest(text: &str) -> Result<Manifest, serde_json::Error> {
    let doc: Value = serde_json::from_str(text)?;
    Ok(from_object(&doc).unwrap_or_default())
}

fn manifest_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let read = read_manifest(&text).ok()?;
    valid(&read.name).cloned()
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
    let read = match read_manifest(&text) {
        Ok(read) => read,
        Err(e) => {
            problems.push(format!("{} is not valid JSON: {e}", manifest.display()));
            return files;
        }
    };
    let named: Vec<&str> = match valid(&read.hooks) {
        Some(ManifestHooks::File(path)) => vec![path.as_str()],
        Some(ManifestHooks::Files(paths)) => paths
            .iter()
            .filter_map(|p| p.get().ok())
            .map(String::as_str)
            .collect(),
        Some(ManifestHooks::Inline(_)) => {
            files.push(manifest.clone());
            Vec::new()
        }
        None => Vec::new(),
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn registry(written: Value) -> Registry {
        from_object(&written).expect("a registry object")
    }

    #[test]
    fn an_install_for_this_project_comes_before_the_first_user_wide_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let [project, user, other] = ["project", "user", "other"].map(|d| dir.path().join(d));
        for installed in [&project, &user, &other] {
            std::fs::create_dir_all(installed).expect("install dir");
        }
        let ws = dir.path().join("ws");
        let found = |written: Value| install_path(&registry(written), "p@m", &ws);
        assert_eq!(
            found(json!({"plugins": {"p@m": [
                {"installPath": user},
                {"installPath": other, "projectPath": "/elsewhere"},
                {"installPath": project, "projectPath": ws},
            ]}})),
            Some(project.clone())
        );
        // A projectPath written as null is still no user-wide install.
        assert_eq!(
            found(json!({"plugins": {"p@m": [
                {"installPath": other, "projectPath": null},
                {"installPath": user},
            ]}})),
            Some(user.clone())
        );
        // An entry that is no object is user-wide and installed nowhere.
        assert_eq!(
            found(json!({"plugins": {"p@m": [3, {"installPath": user}]}})),
            None
        );
        assert_eq!(
            found(json!({"plugins": {"p@m": {"installPath": user}}})),
            None
        );
        assert_eq!(found(json!({"plugins": []})), None);
    }

    #[test]
    fn a_manifest_names_hook_files_or_holds_the_hooks_itself() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let manifest = root.join(".claude-plugin/plugin.json");
        std::fs::create_dir_all(root.join(".claude-plugin")).expect("manifest dir");
        let files = |written: Value| {
            std::fs::write(&manifest, written.to_string()).expect("write manifest");
            let mut problems = Vec::new();
            let files = hook_files(root, &mut problems);
            (files, problems.len())
        };
        assert_eq!(
            files(json!({"name": "n", "hooks": ["./a.json", 3, "../x.json"]})),
            (vec![root.join("a.json")], 1)
        );
        assert_eq!(
            files(json!({"hooks": "b.json"})),
            (vec![root.join("b.json")], 0)
        );
        assert_eq!(
            files(json!({"hooks": {"PreToolUse": []}})),
            (vec![manifest.clone()], 0)
        );
        assert_eq!(files(json!({"hooks": null})), (Vec::new(), 0));
        assert_eq!(files(json!(["hooks"])), (Vec::new(), 0));
        assert_eq!(manifest_name(&manifest), None);
        std::fs::write(&manifest, r#"{"name": "named"}"#).expect("write manifest");
        assert_eq!(manifest_name(&manifest).as_deref(), Some("named"));
    }
}
