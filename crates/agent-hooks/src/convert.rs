//! `agent-hooks convert --from <agent> --to <agent>`: one agent's hook configuration rewritten
//! in another's, for a user moving a policy by hand. Events go through the canonical event
//! (each agent's table), tool-name matchers through each agent's tool names, timeouts into the
//! target's unit. Whatever has no equivalent is reported, never dropped: an event the target
//! lacks is listed with its JSON, and a handler field the target does not know is kept as
//! written and named.

use serde_json::{Map, Value, json};

use agent_hooks_core::event::Event;
use agent_hooks_dialects::agent::Agent;
use agent_hooks_dialects::claude::tool_names;
use agent_hooks_dialects::home::Selector;

/// The converted configuration and what could not be carried over as it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The target agent's configuration, one JSON object.
    pub output: Value,
    /// One line per thing with no equivalent (or converted with a caveat), for the user.
    pub notes: Vec<String>,
}

/// Why a configuration cannot be converted.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The input is not JSON (or TOML for Codex's `config.toml`).
    #[error("the {agent} configuration is not valid: {error}")]
    Unreadable {
        /// The agent it was read as.
        agent: Agent,
        /// What the parser said.
        error: String,
    },
    /// The input has no `hooks` object.
    #[error("the {0} configuration has no \"hooks\" object")]
    NoHooks(Agent),
}

/// One handler, in no agent's terms.
#[derive(Debug, Clone)]
struct Entry {
    /// Where it was, for notes (`hooks.PreToolUse[0].hooks[1]`).
    at: String,
    event: Event,
    /// The source agent's event name.
    from_event: String,
    /// The source agent declared it for failed tool calls only.
    failure: bool,
    /// Tool names (host names) the matcher lists, when it is a plain list of names.
    tools: Option<Vec<String>>,
    /// The matcher as written, when it is not a plain list of tool names.
    pattern: Option<String>,
    command: String,
    timeout_secs: Option<f64>,
    /// Fields the neutral form does not carry (kept as written in the output).
    extra: Map<String, Value>,
}

/// Converts `text` (the `from` agent's configuration file) into the `to` agent's.
///
/// # Errors
///
/// [`ConvertError`] when `text` does not parse or has no `hooks` object.
pub fn convert(from: Agent, to: Agent, text: &str) -> Result<Conversion, ConvertError> {
    let doc = from
        .home()
        .parse_config(text)
        .map_err(|error| ConvertError::Unreadable { agent: from, error })?;
    let Some(Value::Object(hooks)) = doc.get("hooks") else {
        return Err(ConvertError::NoHooks(from));
    };
    let mut notes = Vec::new();
    let entries = read(from, hooks, &mut notes);
    let output = write(from, to, &entries, &mut notes);
    if !entries.is_empty() && from != to {
        notes.push(format!(
            "commands are copied as written: a script that reads {}'s input or prints its answers must be adapted to {}'s (docs/agents.md compares them)",
            from.label(),
            to.label()
        ));
    }
    Ok(Conversion { output, notes })
}

/// The canonical event of `from`'s event `name`; `Err` with why not.
fn canonical(from: Agent, name: &str) -> Result<Event, String> {
    let home = from.home();
    home.twin_of(name).ok_or_else(|| {
        if home.unmapped_events().contains(&name) {
            format!("{name} has no counterpart in agent-hooks")
        } else {
            format!("{name} is not a {} event", from.label())
        }
    })
}

/// A matcher read as a list of host tool names, when it is a plain `A|B` list.
fn tool_list(from: Agent, pattern: &str) -> Option<Vec<String>> {
    let aliases = from.home().tool_aliases();
    let names = tool_names(pattern)?;
    Some(
        names
            .into_iter()
            .map(|n| aliases.to_host(n).to_owned())
            .collect(),
    )
}

fn read(from: Agent, hooks: &Map<String, Value>, notes: &mut Vec<String>) -> Vec<Entry> {
    let home = from.home();
    let file = home.hooks_file();
    let mut entries = Vec::new();
    for (name, groups) in hooks {
        let event = match canonical(from, name) {
            Ok(event) => event,
            Err(why) => {
                notes.push(format!("not converted: hooks.{name}: {why}: {groups}"));
                continue;
            }
        };
        let Some(groups) = groups.as_array() else {
            notes.push(format!(
                "not converted: hooks.{name} is not a list: {groups}"
            ));
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            // Grouped files put handlers under a matcher; the others (Cursor) list them.
            let (handlers, group_at, group_fields): (Vec<Value>, String, Map<String, Value>) =
                if !file.grouped {
                    (
                        vec![group.clone()],
                        format!("hooks.{name}[{g}]"),
                        Map::new(),
                    )
                } else {
                    let handlers = group
                        .get("hooks")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let mut fields = group.as_object().cloned().unwrap_or_default();
                    fields.remove("hooks");
                    (handlers, format!("hooks.{name}[{g}]"), fields)
                };
            let mut group_fields = group_fields;
            let matcher = group_fields
                .remove("matcher")
                .and_then(|m| m.as_str().map(str::to_owned));
            for (h, handler) in handlers.iter().enumerate() {
                let at = if !file.grouped {
                    group_at.clone()
                } else {
                    format!("{group_at}.hooks[{h}]")
                };
                let Some(handler) = handler.as_object() else {
                    notes.push(format!("not converted: {at} is not an object: {handler}"));
                    continue;
                };
                let mut extra = handler.clone();
                let kind = extra
                    .remove("type")
                    .and_then(|t| t.as_str().map(str::to_owned))
                    .unwrap_or_else(|| "command".into());
                let keys = home.handler_keys();
                let command = keys
                    .command
                    .iter()
                    .filter_map(|k| extra.remove(*k))
                    .find_map(|c| c.as_str().map(str::to_owned));
                let Some(command) = command else {
                    notes.push(format!(
                        "not converted: {at}: a \"{kind}\" handler has no command to carry over: {}",
                        Value::Object(handler.clone())
                    ));
                    continue;
                };
                if kind != "command" {
                    notes.push(format!(
                        "not converted: {at}: type \"{kind}\" has no equivalent: {}",
                        Value::Object(handler.clone())
                    ));
                    continue;
                }
                // Copilot's `timeoutSec` has `timeout` for an alias.
                let timeout_secs = keys
                    .timeout
                    .and_then(|k| extra.remove(k))
                    .or_else(|| keys.timeout.and_then(|_| extra.remove("timeout")))
                    .and_then(|t| t.as_f64())
                    .map(|t| file.timeout_unit.to_secs(t));
                let matcher = if !file.grouped {
                    extra
                        .remove("matcher")
                        .and_then(|m| m.as_str().map(str::to_owned))
                } else {
                    matcher.clone()
                };
                let (tools, pattern) = home
                    .tools_of(name)
                    .map(|t| (Some(t), matcher.clone()))
                    .unwrap_or_else(|| match matcher.as_deref().map(str::trim) {
                        None | Some("" | "*") => (None, None),
                        Some(p) => match tool_list(from, p) {
                            Some(list) if is_tool_event(event) => (Some(list), None),
                            _ => (None, Some(p.to_owned())),
                        },
                    });
                for (key, value) in &group_fields {
                    extra.insert(key.clone(), value.clone());
                }
                if !keys.matchers && is_tool_event(event) && tools.is_none() {
                    notes.push(format!(
                        "converted for every tool: {at} ({name}): {} runs it for the tools it has no event of their own for (MCP tools); add a matcher if the target should narrow it: {command}",
                        from.label()
                    ));
                }
                entries.push(Entry {
                    at,
                    event,
                    from_event: name.clone(),
                    failure: home.is_failure_event(name),
                    tools,
                    pattern,
                    command,
                    timeout_secs,
                    extra,
                });
            }
        }
    }
    entries
}

fn is_tool_event(event: Event) -> bool {
    matches!(event, Event::PreToolCall | Event::PostToolCall)
}

/// The target's event names for `entry` (an agent may split a tool event by tool).
fn target_events(to: Agent, entry: &Entry) -> Vec<&'static str> {
    to.home().events_for(&Selector {
        event: entry.event,
        failure: entry.failure,
        tools: entry.tools.as_deref(),
        pattern: entry.pattern.as_deref(),
    })
}

fn write(from: Agent, to: Agent, entries: &[Entry], notes: &mut Vec<String>) -> Value {
    let home = to.home();
    let file = home.hooks_file();
    let mut hooks: Map<String, Value> = Map::new();
    let aliases = home.tool_aliases();
    let keys = home.handler_keys();
    for entry in entries {
        let names = target_events(to, entry);
        let missing = home.tools_without_hook(entry.event);
        for tool in entry
            .tools
            .iter()
            .flatten()
            .filter(|t| missing.contains(&t.as_str()))
        {
            notes.push(format!(
                "not converted: {} ({}): {} has no {} hook for {tool}: {}",
                entry.at,
                entry.from_event,
                to.label(),
                entry.event.name(),
                entry.command
            ));
        }
        if names.is_empty() {
            notes.push(format!(
                "not converted: {} ({}): {} has no {} event for it: {}",
                entry.at,
                entry.from_event,
                entry.event.name(),
                to.label(),
                entry.command
            ));
            continue;
        }
        // Without matchers (Windsurf), a hook for some tools only could only become a hook
        // for more of them.
        let widened = entry.pattern.is_some()
            || (entry.tools.is_some() && names.iter().any(|n| home.tools_of(n).is_none()));
        if !keys.matchers && widened {
            notes.push(format!(
                "not converted: {} ({}): {} hooks have no matcher, so it would run for more than {}: {}",
                entry.at,
                entry.from_event,
                to.label(),
                entry
                    .pattern
                    .clone()
                    .or_else(|| entry.tools.as_ref().map(|t| t.join(", ")))
                    .unwrap_or_default(),
                entry.command
            ));
            continue;
        }
        let mut handler = Map::new();
        if file.typed {
            handler.insert("type".into(), json!("command"));
        }
        handler.insert(keys.command[0].into(), json!(entry.command));
        if let Some(secs) = entry.timeout_secs {
            match keys.timeout {
                Some(key) => {
                    handler.insert(key.into(), file.timeout_unit.from_secs(secs));
                }
                None => notes.push(format!(
                    "not kept: {}.timeout ({secs}s): {} hooks have no timeout",
                    entry.at,
                    to.label()
                )),
            }
        }
        for (key, value) in &entry.extra {
            if keys.known.contains(&key.as_str()) {
                handler.insert(key.clone(), value.clone());
                continue;
            }
            notes.push(format!(
                "kept as written: {}.{key}: {} has no such field (it ignores it): {value}",
                entry.at,
                to.label()
            ));
            handler.insert(key.clone(), value.clone());
        }
        let matcher = match (&entry.tools, &entry.pattern) {
            (Some(list), pattern) if file.grouped || keys.matcher_lists_tools => {
                if let Some(pattern) = pattern {
                    notes.push(format!(
                        "not converted: {}.matcher \"{pattern}\": {} matches it against the command or file, {} matches tool names only",
                        entry.at,
                        from.label(),
                        to.label()
                    ));
                }
                Some(
                    list.iter()
                        .map(|t| aliases.to_claude(t).to_owned())
                        .collect::<Vec<_>>()
                        .join("|"),
                )
            }
            (_, Some(pattern)) => {
                notes.push(format!(
                    "kept as written: {}: the matcher \"{pattern}\" is a pattern, not a list of tool names; check it against {}'s names",
                    entry.at,
                    to.label()
                ));
                Some(pattern.clone())
            }
            _ => None,
        };
        for name in names {
            let list = hooks
                .entry(name)
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(list) = list else { continue };
            if !file.grouped {
                let mut handler = handler.clone();
                if keys.matcher_lists_tools {
                    if let Some(matcher) = &matcher {
                        handler.insert("matcher".into(), json!(matcher));
                    }
                } else if let Some(pattern) = &entry.pattern {
                    handler.insert("matcher".into(), json!(pattern));
                }
                list.push(Value::Object(handler));
            } else {
                let mut group = Map::new();
                if let Some(matcher) = &matcher {
                    group.insert("matcher".into(), json!(matcher));
                }
                group.insert("hooks".into(), json!([handler.clone()]));
                list.push(Value::Object(group));
            }
        }
    }
    let mut out = Map::new();
    if let Some(version) = file.version {
        out.insert("version".into(), json!(version));
    }
    out.insert("hooks".into(), Value::Object(hooks));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_bash_guard_becomes_a_gemini_shell_guard_in_milliseconds() {
        let claude = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "guard.sh", "timeout": 5, "statusMessage": "checking"}]}],
            "PreCompact": [{"hooks": [{"type": "command", "command": "save.sh"}]}]}}"#;
        let Ok(c) = convert(Agent::ClaudeCode, Agent::Gemini, claude) else {
            unreachable!("valid input")
        };
        let group = &c.output["hooks"]["BeforeTool"][0];
        assert_eq!(group["matcher"], "run_shell_command");
        assert_eq!(group["hooks"][0]["timeout"], 5000);
        assert_eq!(group["hooks"][0]["statusMessage"], "checking");
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("PreCompact") && n.contains("save.sh"))
        );
        assert!(c.notes.iter().any(|n| n.contains("statusMessage")));
    }

    #[test]
    fn a_cursor_shell_hook_becomes_a_codex_bash_hook_and_back() {
        let cursor =
            r#"{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./hooks/g.sh"}]}}"#;
        let Ok(c) = convert(Agent::Cursor, Agent::Codex, cursor) else {
            unreachable!("valid input")
        };
        assert_eq!(c.output["hooks"]["PreToolUse"][0]["matcher"], "Bash");
        let back = convert(Agent::Codex, Agent::Cursor, &c.output.to_string());
        let Ok(back) = back else {
            unreachable!("valid input")
        };
        assert_eq!(
            back.output["hooks"]["beforeShellExecution"][0]["command"],
            "./hooks/g.sh"
        );
        assert!(back.output["hooks"].get("beforeMCPExecution").is_none());
    }

    #[test]
    fn every_pair_converts_without_losing_a_mapped_hook() {
        let claude = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "prompt.sh"}]}]}}"#;
        for to in Agent::ALL {
            let Ok(c) = convert(Agent::ClaudeCode, to, claude) else {
                unreachable!("valid input")
            };
            let text = c.output.to_string();
            // Windsurf has no event at the end of a turn: its Stop hook is named, not lost.
            let stops = |a: Agent| a.reaches(Event::OnStop);
            assert!(
                text.contains("stop.sh") == stops(to) && text.contains("prompt.sh"),
                "{to}: {text}"
            );
            assert!(stops(to) || c.notes.iter().any(|n| n.contains("stop.sh")));
            for back in Agent::ALL {
                let Ok(again) = convert(to, back, &text) else {
                    unreachable!("{to} → {back}")
                };
                let again = again.output.to_string();
                assert!(
                    again.contains("stop.sh") == (stops(to) && stops(back))
                        && again.contains("prompt.sh"),
                    "{to} → {back}: {again}"
                );
            }
        }
    }
}
