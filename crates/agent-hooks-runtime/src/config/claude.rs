//! The Claude Code source: hooks declared in `.claude/settings.json` and
//! `.claude/settings.local.json` (and `~/.claude/settings.json` when `config/agent.yaml` says
//! `claude_hooks: {user_settings: true}`). Each (event, matcher, command) becomes a [`Hook`]
//! that runs through `sh -c` in the workspace with `CLAUDE_PROJECT_DIR` set, goes through the
//! trust gate like a shell hook, and speaks the Claude Code dialect.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use super::agent::AgentSettings;
use super::claude_hooks::{Declared, load_hooks};
use super::claude_plugins::Plugin;
use super::claude_settings::{HookSettings, Settings};
use super::typed::from_object;
use super::{ConfigError, FileLoad, FileState};
use crate::hook::SourceKind;
use agent_hooks_core::config_error::Location;
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::claude::ToolAliases;
use agent_hooks_transports::JudgeEndpoint;

/// The settings files this source reads, in order.
pub(crate) fn settings_files(ws: &Workspace, agent: &AgentSettings) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if agent.claude_user_settings
        && let Some(home) = std::env::var_os("HOME")
    {
        files.push(PathBuf::from(home).join(".claude/settings.json"));
    }
    files.push(ws.root().join(".claude/settings.json"));
    files.push(ws.root().join(".claude/settings.local.json"));
    files
}

/// The settings files that exist and parse, with their JSON, in order (one that does not parse
/// is reported by [`load_file`]).
fn settings_docs(files: &[PathBuf]) -> Vec<(PathBuf, Value)> {
    files
        .iter()
        .filter_map(|file| {
            let text = agent_hooks_core::store::read_optional(file).ok()??;
            let doc = serde_json::from_str::<Value>(&text).ok()?;
            Some((file.clone(), doc))
        })
        .collect()
}

pub(crate) fn load(ws: &Workspace, agent: &AgentSettings) -> Vec<FileLoad> {
    let aliases = agent.tool_aliases.clone();
    let files = settings_files(ws, agent);
    let docs = settings_docs(&files);
    let settings = HookSettings::read(&docs);
    let mut loads: Vec<FileLoad> = Vec::new();
    for path in files {
        // A HOME that is the workspace names the same file twice; read it once.
        if loads.iter().any(|l| l.path == path) {
            continue;
        }
        let load = load_file(
            ws,
            path,
            &aliases,
            &agent.judge,
            &settings,
            None,
            &mut loads,
        );
        loads.push(load);
    }
    // `disableAllHooks`: Claude Code runs none of them, and neither does this host.
    if let Some((true, file)) = &settings.disable_all {
        for load in &mut loads {
            load.hooks.clear();
            if &load.path == file {
                let display = load.display.clone();
                load.warnings.push(ConfigError::whole_file(
                    display,
                    "disableAllHooks is true: no Claude Code hook of the settings or of plugins runs (as in Claude Code)",
                ));
            }
        }
        return loads;
    }
    // Enabled plugins' hooks, each file with its plugin's root. A plugin's copy of a handler
    // stays separate from the settings' (as in Claude Code), so nothing is deduplicated
    // across them.
    let (plugins, problems) = super::claude_plugins::enabled(ws, &docs);
    for plugin in &plugins {
        for file in &plugin.hook_files {
            if loads.iter().any(|l| &l.path == file) {
                continue;
            }
            let load = load_file(
                ws,
                file.clone(),
                &aliases,
                &agent.judge,
                &settings,
                Some(plugin),
                &mut [],
            );
            loads.push(load);
        }
    }
    if !problems.is_empty()
        && let Some(project) = loads
            .iter_mut()
            .find(|l| l.path == ws.root().join(".claude/settings.json"))
    {
        for message in problems {
            project
                .warnings
                .push(ConfigError::whole_file(&project.display, message));
        }
    }
    loads
}

/// Reads one settings file. `earlier` are the files read before it: a command already declared
/// there for the same event is not declared again (Claude Code runs identical commands once).
fn load_file(
    ws: &Workspace,
    path: PathBuf,
    aliases: &Arc<ToolAliases>,
    judge: &JudgeEndpoint,
    settings: &HookSettings,
    plugin: Option<&Plugin>,
    earlier: &mut [FileLoad],
) -> FileLoad {
    let mut load = FileLoad::new(ws, SourceKind::ClaudeCode, path.clone());
    let display = load.display.clone();
    let note = |message: String| ConfigError::whole_file(&display, message);
    let text = match agent_hooks_core::store::read_optional(&path) {
        Ok(None) => return load,
        Ok(Some(text)) => text,
        Err(e) => {
            load.state = FileState::Broken;
            load.errors.push(note(format!("cannot read: {e}")));
            return load;
        }
    };
    let doc: Value = match serde_json::from_str(&text) {
        Ok(doc) => doc,
        Err(e) => {
            load.state = FileState::Broken;
            load.errors.push(ConfigError::located(
                &display,
                Location::from_parser(e.line() as u64, e.column() as u64),
                format!("not valid JSON: {e}"),
            ));
            return load;
        }
    };
    if !doc.is_object() {
        load.state = FileState::Broken;
        load.errors.push(note(format!(
            "the settings must be one JSON object, found {}",
            json_kind(&doc)
        )));
        return load;
    }
    load.state = FileState::Loaded;
    let declared = Declared {
        agent: Agent::ClaudeCode,
        aliases,
        judge,
        settings,
        plugin,
    };
    let read = from_object::<Settings>(&doc).unwrap_or_default();
    load_hooks(ws, &mut load, read.hooks.as_ref(), &declared, earlier);
    load
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_hooks_transports::TransportSpec;

    #[test]
    fn the_switches_are_read_across_the_files_and_a_list_written_as_null_lists_nothing() {
        let docs = vec![
            (
                PathBuf::from("a"),
                serde_json::json!({"disableAllHooks": true, "allowedHttpHookUrls": ["https://a/*", 3], "httpHookAllowedEnvVars": null}),
            ),
            (
                PathBuf::from("b"),
                serde_json::json!({"disableAllHooks": "yes", "allowedHttpHookUrls": ["https://b/*"]}),
            ),
            (PathBuf::from("c"), serde_json::json!(["not", "settings"])),
        ];
        let read = HookSettings::read(&docs);
        assert_eq!(read.disable_all, Some((true, PathBuf::from("a"))));
        assert_eq!(
            read.http_urls,
            Some(vec!["https://a/*".to_owned(), "https://b/*".to_owned()])
        );
        assert_eq!(read.http_env, Some(Vec::new()));
        assert!(read.allows_url("https://b/hook") && !read.allows_url("https://c/hook"));
        assert_eq!(HookSettings::read(&[]).http_urls, None);
    }

    fn loaded(settings: &str) -> Vec<FileLoad> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), settings).unwrap();
        load(&Workspace::new(dir.path()), &AgentSettings::default())
    }

    fn loaded_with_local(settings: &str, local: &str) -> Vec<FileLoad> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), settings).unwrap();
        std::fs::write(dir.path().join(".claude/settings.local.json"), local).unwrap();
        load(&Workspace::new(dir.path()), &AgentSettings::default())
    }

    const TWO_HOOKS: &str = r#"{"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "a"},
        {"type": "http", "url": "https://Hooks.Example.com./stop",
         "headers": {"Authorization": "Bearer $TOKEN", "X-Key": "$KEY"},
         "allowedEnvVars": ["TOKEN", "KEY"]}]}]}}"#;

    #[test]
    fn disable_all_hooks_turns_every_claude_code_hook_off_the_last_file_deciding() {
        let off = loaded_with_local(TWO_HOOKS, r#"{"disableAllHooks": true}"#);
        assert!(off.iter().all(|f| f.hooks.is_empty()));
        assert!(
            off[1].warnings[0]
                .message()
                .contains("disableAllHooks is true")
        );
        let project = TWO_HOOKS.replacen('{', r#"{"disableAllHooks": true, "#, 1);
        let back_on = loaded_with_local(&project, r#"{"disableAllHooks": false}"#);
        assert_eq!(back_on[0].hooks.len(), 2, "{:?}", back_on[0].errors);
    }

    #[test]
    fn allowed_http_hook_urls_and_env_vars_limit_http_hooks_across_files() {
        let allowed = loaded_with_local(
            TWO_HOOKS,
            r#"{"allowedHttpHookUrls": ["https://hooks.example.com/*"],
                "httpHookAllowedEnvVars": ["TOKEN"]}"#,
        );
        let http = allowed[0]
            .hooks
            .iter()
            .find_map(|h| match &h.transport {
                TransportSpec::Http(spec) => Some(spec),
                _ => None,
            })
            .expect("the http hook is allowed");
        assert_eq!(http.allowed_env, vec!["TOKEN".to_owned()]);
        assert!(
            allowed[0]
                .warnings
                .iter()
                .any(|w| w.message().contains("$KEY is not in allowedEnvVars")),
            "{:?}",
            allowed[0].warnings
        );
        let refused = loaded_with_local(
            TWO_HOOKS,
            r#"{"allowedHttpHookUrls": ["https://other.example.com/*"]}"#,
        );
        assert_eq!(refused[0].hooks.len(), 1, "only the command hook");
        assert!(
            refused[0].warnings[0]
                .message()
                .contains("matches no pattern of allowedHttpHookUrls")
        );
        let none = loaded_with_local(TWO_HOOKS, r#"{"allowedHttpHookUrls": []}"#);
        assert_eq!(
            none[0].hooks.len(),
            1,
            "an empty list blocks every HTTP hook"
        );
    }

    #[test]
    fn a_matcher_that_is_not_a_string_skips_its_group_with_an_error() {
        let files = loaded(
            r#"{"hooks": {"PreToolUse": [
                {"matcher": {"tool": "Bash"}, "hooks": [{"type": "command", "command": "a"}]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "b"}]}
            ]}}"#,
        );
        let names: Vec<&str> = files[0].hooks.iter().map(|h| &*h.name).collect();
        assert_eq!(names, vec!["b"]);
        assert_eq!(files[0].errors.len(), 1);
        assert!(files[0].errors[0].message().contains("must be a string"));
    }

    #[test]
    fn settings_that_are_not_an_object_are_a_broken_file() {
        let files = loaded("[1, 2]");
        assert_eq!(files[0].state, FileState::Broken);
        assert!(
            files[0].errors[0].message().contains("found a list"),
            "{:?}",
            files[0].errors
        );
    }

    #[test]
    fn timeouts_default_to_claude_codes_600_s_capped_at_120() {
        let files = loaded(
            r#"{"hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": "a"},
                {"type": "command", "command": "b", "timeout": 5},
                {"type": "command", "command": "c", "timeout": 900}
            ]}]}}"#,
        );
        let secs: Vec<u64> = files[0].hooks.iter().map(|h| h.timeout.as_secs()).collect();
        assert_eq!(secs, vec![120, 5, 120]);
    }

    #[test]
    fn user_prompt_submit_and_session_end_hooks_have_claude_codes_shorter_defaults() {
        let files = loaded(
            r#"{"hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": "a"},
                {"type": "command", "command": "b", "timeout": 90}
            ]}], "SessionEnd": [{"hooks": [
                {"type": "command", "command": "c"},
                {"type": "command", "command": "d", "timeout": 10}
            ]}]}}"#,
        );
        let ms: Vec<u128> = files[0]
            .hooks
            .iter()
            .map(|h| h.timeout.as_millis())
            .collect();
        assert_eq!(ms, vec![30_000, 90_000, 1_500, 10_000]);
    }

    #[test]
    fn unmapped_events_and_other_types_are_warnings_not_hooks() {
        let files = loaded(
            r#"{"hooks": {
                "PreCompact": [{"hooks": [{"type": "command", "command": "a"}]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "mcp_tool", "server": "s", "tool": "t"}
                ]}]
            }}"#,
        );
        assert!(files[0].hooks.is_empty());
        assert!(files[0].errors.is_empty());
        let warnings: Vec<String> = files[0]
            .warnings
            .iter()
            .map(|w| w.message().to_owned())
            .collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("PreCompact hooks never fire in this host"));
        assert!(warnings[1].contains("type \"mcp_tool\""));
    }
}
