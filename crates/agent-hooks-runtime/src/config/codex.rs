//! The Codex source: hooks declared in the project's `.codex/hooks.json` and in the inline
//! `[hooks]` tables of `.codex/config.toml`. Both use Claude Code's layout (event → matcher
//! groups → handlers) with Codex's event names, so they are read by the Claude Code source's
//! reader (`claude::load_hooks`) and run in the Codex flavour of that dialect, behind the same
//! trust gate.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::agent::AgentSettings;
use super::claude_hooks::{Declared, load_hooks};
use super::claude_settings::HookSettings;
use super::document::{Located, parse_json, read};
use super::typed::{from_object, unknown_keys};
use super::{ConfigError, FileLoad};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;

/// `.codex/config.toml`, relative to the workspace.
pub(crate) const CONFIG_TOML: &str = ".codex/config.toml";

/// A Codex hooks file (`.codex/hooks.json`, or `.codex/config.toml`, whose other keys are
/// Codex's own settings).
#[derive(Deserialize, Default)]
#[serde(default)]
struct HooksFile {
    /// Declared so it is not called unknown; Codex shows it, this host does not.
    description: Option<IgnoredAny>,
    /// Event name → matcher groups: the event names are data, read by [`load_hooks`].
    hooks: Option<Value>,
}

pub(crate) fn load(ws: &Workspace, agent: &AgentSettings) -> Vec<FileLoad> {
    let aliases = agent.tool_aliases.clone();
    // Claude Code's settings about all hooks are not Codex's.
    let settings = HookSettings::default();
    let declared = Declared {
        agent: Agent::Codex,
        aliases: &aliases,
        judge: &agent.judge,
        settings: &settings,
        plugin: None,
    };
    let json_path = ws.root().join(Agent::Codex.config_file());
    let mut json = FileLoad::new(ws, Agent::Codex.source(), json_path);
    if let Some(doc) = read(&mut json, parse_json) {
        warn_unknown_root_keys(&mut json, &doc);
        let file = from_object::<HooksFile>(&doc).unwrap_or_default();
        load_hooks(ws, &mut json, file.hooks.as_ref(), &declared, &mut []);
    }
    let mut toml = FileLoad::new(ws, Agent::Codex.source(), ws.root().join(CONFIG_TOML));
    if let Some(doc) = read(&mut toml, parse_toml) {
        // `[hooks.state]` is where Codex keeps per-hook enablement and trust; it is not an event.
        let hooks = from_object::<HooksFile>(&doc)
            .and_then(|file| file.hooks)
            .map(|mut hooks| {
                if let Value::Object(map) = &mut hooks {
                    map.remove("state");
                }
                hooks
            });
        // Codex runs the hooks of both files; a command in both runs once here, as in a
        // Claude Code settings pair.
        load_hooks(
            ws,
            &mut toml,
            hooks.as_ref(),
            &declared,
            std::slice::from_mut(&mut json),
        );
    }
    vec![json, toml]
}

fn parse_toml(text: &str) -> Result<Value, Located> {
    toml::from_str::<Value>(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((0, 0), |span| line_column(text, span.start));
        Located {
            line,
            column,
            message: format!("not valid TOML: {}", e.message()),
        }
    })
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line as u64, column as u64)
}

/// Codex refuses a `hooks.json` whose root has keys other than `description` and `hooks`.
fn warn_unknown_root_keys(load: &mut FileLoad, doc: &Value) {
    for key in unknown_keys::<HooksFile>(doc) {
        let warning = ConfigError::whole_file(
            &load.display,
            format!(
                "unknown key \"{key}\" (Codex accepts only \"description\" and \"hooks\" here, and refuses the file otherwise)"
            ),
        );
        load.warnings.push(warning);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FileState;

    fn loaded(files: &[(&str, &str)]) -> Vec<FileLoad> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".codex")).unwrap();
        for (rel, text) in files {
            std::fs::write(dir.path().join(rel), text).unwrap();
        }
        load(&Workspace::new(dir.path()), &AgentSettings::default())
    }

    #[test]
    fn inline_toml_hooks_load_like_the_json_file() {
        let files = loaded(&[(
            CONFIG_TOML,
            r#"model = "gpt-5"

[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "sh .codex/hooks/guard.sh"
timeout = 30

[hooks.state]
"x" = { enabled = true }
"#,
        )]);
        let toml = &files[1];
        assert_eq!(toml.state, FileState::Loaded, "{:?}", toml.errors);
        assert!(
            toml.errors.is_empty() && toml.warnings.is_empty(),
            "{:?}",
            toml.warnings
        );
        assert_eq!(toml.hooks.len(), 1);
        assert_eq!(toml.hooks[0].source, crate::hook::SourceKind::Codex);
        assert_eq!(toml.hooks[0].timeout.as_secs(), 30);
    }

    #[test]
    fn broken_toml_is_located_and_unmapped_events_are_warned_about() {
        let files = loaded(&[
            (CONFIG_TOML, "[hooks\nPreToolUse = 1\n"),
            (
                Agent::Codex.config_file(),
                r#"{"hooks": {"PermissionRequest": [{"hooks": [{"type": "command", "command": "a"}]}],
                              "Notification": [{"hooks": [{"type": "command", "command": "b"}]}]},
                    "$schema": "x"}"#,
            ),
        ]);
        assert_eq!(files[1].state, FileState::Broken);
        assert_eq!(
            files[1].errors[0].location().map(|l| l.line()),
            Some(1),
            "{:?}",
            files[1].errors
        );
        let warnings: Vec<&str> = files[0].warnings.iter().map(|w| w.message()).collect();
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings.iter().any(|w| w.contains("$schema")));
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("PermissionRequest hooks never fire"))
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("unknown Codex event \"Notification\""))
        );
    }
}
