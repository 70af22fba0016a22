//! The Claude Code source: hooks declared in `.claude/settings.json` and
//! `.claude/settings.local.json` (and `~/.claude/settings.json` when `config/agent.yaml` says
//! `claude_hooks: {user_settings: true}`). Each (event, matcher, command) becomes a [`Hook`]
//! that runs through `sh -c` in the workspace with `CLAUDE_PROJECT_DIR` set, goes through the
//! trust gate like a shell hook, and speaks the Claude Code dialect.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::agent::AgentSettings;
use super::claude_hooks::load_hooks;
use super::claude_plugins::Plugin;
use super::typed::{Given, Typed, from_object};
use super::{ConfigError, FileLoad, FileState};
use crate::hook::SourceKind;
use agent_hooks_core::config_error::Location;
use agent_hooks_core::wording::kind_of as json_kind;
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::claude::ToolAliases;
use agent_hooks_transports::JudgeEndpoint;

/// Claude Code's default hook timeout; agent-hooks caps every hook at 120 s.
pub(crate) const CLAUDE_DEFAULT_TIMEOUT_SECS: f64 = 600.0;

/// Claude Code's default timeout of a `SessionEnd` hook that sets none.
pub(super) const SESSION_END_TIMEOUT_SECS: f64 = 1.5;

/// Whether a command is an agent-hooks bridge (`agent-hooks claude-hook`, `codex-hook`, ...),
/// which the agent runs; running it from here would dispatch the workspace into itself.
pub(crate) fn is_bridge_command(command: &str) -> bool {
    bridge_agent(command).is_some()
}

/// The agent whose bridge `command` runs (`agent-hooks codex-hook` → Codex), if it is one.
pub(crate) fn bridge_agent(command: &str) -> Option<Agent> {
    let words = shell_words::split(command).unwrap_or_default();
    if !words
        .iter()
        .any(|w| w.rsplit('/').next().is_some_and(|b| b == "agent-hooks"))
    {
        return None;
    }
    Agent::ALL
        .into_iter()
        .find(|agent| words.iter().any(|w| w == agent.hook_command()))
}

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

/// The parts of a Claude Code settings file this source reads; the rest is Claude Code's.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Settings {
    disable_all_hooks: Option<Typed<bool>>,
    /// Written at all (even as null, which lists nothing), the URLs an HTTP hook may post to.
    allowed_http_hook_urls: Given<Typed<Vec<Typed<String>>>>,
    /// Written at all (even as null, which lists nothing), the variables HTTP hooks may send.
    http_hook_allowed_env_vars: Given<Typed<Vec<Typed<String>>>>,
    /// Event name → matcher groups: the event names are data, so [`load_hooks`] walks the map.
    hooks: Option<Value>,
}

/// The strings of a list as written; nothing when it is no list.
fn strings(list: &Typed<Vec<Typed<String>>>) -> impl Iterator<Item = String> + '_ {
    list.get()
        .into_iter()
        .flatten()
        .filter_map(|item| item.get().ok())
        .cloned()
}

/// What the settings files say about all hooks at once, read across them as Claude Code
/// reads them: the last file that sets a switch wins, lists merge.
#[derive(Debug, Default)]
pub(crate) struct HookSettings {
    /// `disableAllHooks`, with the file whose value holds.
    disable_all: Option<(bool, PathBuf)>,
    /// `allowedHttpHookUrls`: when some file sets it, an HTTP hook runs only if its URL
    /// matches one of these patterns (`*` is any text).
    http_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`: when some file sets it, an outer limit on every HTTP hook's
    /// `allowedEnvVars`.
    pub(super) http_env: Option<Vec<String>>,
}

impl HookSettings {
    fn read(docs: &[(PathBuf, Value)]) -> HookSettings {
        let mut out = HookSettings::default();
        for (file, doc) in docs {
            let read = from_object::<Settings>(doc).unwrap_or_default();
            if let Some(Ok(off)) = read.disable_all_hooks.as_ref().map(Typed::get) {
                out.disable_all = Some((*off, file.clone()));
            }
            if let Given(Some(urls)) = &read.allowed_http_hook_urls {
                out.http_urls.get_or_insert_default().extend(strings(urls));
            }
            if let Given(Some(names)) = &read.http_hook_allowed_env_vars {
                out.http_env.get_or_insert_default().extend(strings(names));
            }
        }
        out
    }

    /// Whether `allowedHttpHookUrls` lets an HTTP hook POST to `url`. Scheme and host compare
    /// without case, and a host's trailing dot is ignored, as in Claude Code.
    pub(super) fn allows_url(&self, url: &str) -> bool {
        let Some(patterns) = &self.http_urls else {
            return true;
        };
        let url = normalized_origin(url);
        patterns.iter().any(|pattern| {
            let regex = format!(
                "^{}$",
                normalized_origin(pattern)
                    .split('*')
                    .map(regex::escape)
                    .collect::<Vec<_>>()
                    .join(".*")
            );
            regex::Regex::new(&regex).is_ok_and(|r| r.is_match(&url))
        })
    }
}

/// `url` with its scheme and host lowercased and a trailing dot of the host dropped.
fn normalized_origin(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = authority.to_ascii_lowercase();
    let authority = match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit() || c == '*') => {
            format!("{}:{port}", host.trim_end_matches('.'))
        }
        _ => authority.trim_end_matches('.').to_owned(),
    };
    format!("{}://{authority}{tail}", scheme.to_ascii_lowercase())
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

/// Warns about each key of the object `written` (at `at`) that the struct `T` does not
/// declare, saying why it is ignored (`why`).
pub(super) fn warn_unknown_keys<T: serde::de::DeserializeOwned>(
    load: &mut FileLoad,
    at: &str,
    written: &Value,
    why: &str,
) {
    for key in super::typed::unknown_keys::<T>(written) {
        let warning = ConfigError::whole_file(
            &load.display,
            format!("{at}: unknown key \"{key}\" ({why}); ignored"),
        );
        load.warnings.push(warning);
    }
}

/// The agent's event named `event_name` (`parsed`, read by the caller's dialect) and the list
/// declared under it. An event this host has no twin for, or one the agent does not have, is
/// a warning; a value that is not a list is an error saying what it should list (`what`).
/// Either way the hooks under it are skipped (`None`).
pub(super) fn declared_event<'v, E>(
    load: &mut FileLoad,
    agent: Agent,
    (event_name, value): (&str, &'v Value),
    (parsed, unmapped): (Option<E>, &[&str]),
    what: &str,
) -> Option<(E, &'v [Value])> {
    let Some(event) = parsed else {
        let warning =
            ConfigError::whole_file(&load.display, skipped_event(agent, event_name, unmapped));
        load.warnings.push(warning);
        return None;
    };
    let list = value.as_array();
    if list.is_none() {
        let error = ConfigError::whole_file(
            &load.display,
            format!(
                "hooks.{event_name} must be a list of {what}, found {}",
                json_kind(value)
            ),
        );
        load.errors.push(error);
    }
    Some((event, list?.as_slice()))
}

/// Why the hooks an agent's file declares on `event_name` are skipped: the agent has the event
/// but this host has no twin of it (`unmapped`), or the agent has no such event.
fn skipped_event(agent: Agent, event_name: &str, unmapped: &[&str]) -> String {
    if unmapped.contains(&event_name) {
        format!("{event_name} hooks never fire in this host (it has no such event); skipped")
    } else {
        format!(
            "unknown {} event \"{event_name}\"; its hooks are skipped",
            agent.label()
        )
    }
}

/// What the hooks of one file are declared for: the agent whose event names and conventions
/// they use, and what they share.
pub(crate) struct Declared<'a> {
    pub(crate) agent: Agent,
    pub(crate) aliases: &'a Arc<ToolAliases>,
    pub(crate) judge: &'a JudgeEndpoint,
    pub(crate) settings: &'a HookSettings,
    pub(crate) plugin: Option<&'a Plugin>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_hooks_transports::TransportSpec;

    #[test]
    fn bridge_commands_are_recognised() {
        assert!(is_bridge_command(
            "/usr/local/bin/agent-hooks claude-hook --workspace \"$CLAUDE_PROJECT_DIR\""
        ));
        assert!(is_bridge_command("agent-hooks claude-hook"));
        assert!(!is_bridge_command("python3 guard.py"));
    }

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
