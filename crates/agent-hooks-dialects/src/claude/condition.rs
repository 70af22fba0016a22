//! A Claude Code handler's `if`: one permission rule (`Bash(git push *)`, `Edit(src/**)`,
//! `Read`) that narrows, beyond the matcher, which tool calls run the hook. Evaluated only on
//! the tool events; a hook with `if` on any other event never runs, as in Claude Code.

use std::path::Path;

use agent_hooks_core::glob::{BadGlob, PathGlob};
use serde_json::{Map, Value};

use super::event::ClaudeEvent;
use crate::home::ToolAliases;

/// Why an `if` rule does not parse.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BadRule {
    /// An opening parenthesis without its closing one.
    #[error(
        "\"{rule}\" is not a permission rule such as \"Bash(git push *)\" (no closing parenthesis)"
    )]
    Unclosed {
        /// The rule as written.
        rule: String,
    },
    /// No tool name before the parenthesis (or characters a tool name cannot have).
    #[error("\"{rule}\" is not a permission rule such as \"Bash(git push *)\" or \"Edit(src/**)\"")]
    NotARule {
        /// The rule as written.
        rule: String,
    },
    /// A `Bash(...)` pattern that does not compile.
    #[error("{0}")]
    Pattern(#[from] regex::Error),
    /// A file tool's path glob that does not compile.
    #[error(transparent)]
    Glob(#[from] BadGlob),
}

/// A parsed `if` rule.
#[derive(Debug, Clone)]
pub struct Condition {
    /// The rule as written, which is also what two conditions are compared by.
    rule: String,
    tool: String,
    /// The specifier between the parentheses, compiled; `None` matches every call of `tool`.
    specifier: Option<Specifier>,
}

impl PartialEq for Condition {
    fn eq(&self, other: &Condition) -> bool {
        self.rule == other.rule
    }
}

impl Eq for Condition {}

#[derive(Debug, Clone)]
enum Specifier {
    /// `Bash(...)`: a command pattern, `*` matching anything.
    Command {
        regex: regex::Regex,
        names_more: bool,
    },
    /// A file tool's path glob, relative to the working directory unless absolute.
    Path(PathGlob),
    /// A specifier this host does not read (`WebFetch(domain:…)`): the hook runs, as Claude
    /// Code's best-effort filter does when it cannot decide.
    Unread,
}

const FILE_TOOLS: &[&str] = &["Edit", "Write", "Read", "MultiEdit", "NotebookEdit"];

impl Condition {
    /// Parses `Tool` or `Tool(specifier)`.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Condition, BadRule> {
        let text = text.trim();
        let (tool, specifier) = match text.split_once('(') {
            None => (text, None),
            Some((tool, rest)) => {
                let Some(inner) = rest.strip_suffix(')') else {
                    return Err(BadRule::Unclosed {
                        rule: text.to_owned(),
                    });
                };
                (tool.trim(), Some(inner.trim()))
            }
        };
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(BadRule::NotARule {
                rule: text.to_owned(),
            });
        }
        let specifier = match specifier {
            None | Some("" | "*") => None,
            Some(spec) if tool == "Bash" => Some(command_specifier(spec)?),
            Some(spec) if FILE_TOOLS.contains(&tool) => Some(Specifier::Path(PathGlob::new(spec)?)),
            Some(_) => Some(Specifier::Unread),
        };
        Ok(Condition {
            rule: text.to_owned(),
            tool: tool.to_owned(),
            specifier,
        })
    }

    /// The rule as written (what an approval binds).
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// Whether a hook with this `if` runs on `payload` at `claude`.
    pub fn allows(
        &self,
        claude: ClaudeEvent,
        payload: &Map<String, Value>,
        aliases: &ToolAliases,
    ) -> bool {
        if !claude.is_tool_event() {
            return false;
        }
        let tool = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if aliases.to_claude(tool) != self.tool {
            return false;
        }
        let input = payload.get("tool_input");
        let field = |k: &str| input.and_then(|i| i.get(k)).and_then(Value::as_str);
        match &self.specifier {
            None | Some(Specifier::Unread) => true,
            Some(Specifier::Command { regex, names_more }) => {
                command_matches(regex, *names_more, field("command").unwrap_or(""))
            }
            Some(Specifier::Path(glob)) => {
                let Some(path) = field("file_path").or_else(|| field("notebook_path")) else {
                    return true;
                };
                let cwd = payload.get("cwd").and_then(Value::as_str).unwrap_or("");
                let relative = Path::new(path)
                    .strip_prefix(cwd)
                    .map_or(path.to_owned(), |p| p.to_string_lossy().into_owned());
                glob.is_match(&relative) || glob.is_match(path)
            }
        }
    }
}

/// `git push *` → `^git push(?: .*)?$`: `*` is anything, a trailing ` *` or `:*` also
/// matches the bare command.
fn command_specifier(spec: &str) -> Result<Specifier, regex::Error> {
    let (stem, open_tail) = match spec.strip_suffix(" *").or_else(|| spec.strip_suffix(":*")) {
        Some(stem) => (stem, true),
        None => (spec, false),
    };
    let mut pattern = String::from("^");
    for (i, part) in stem.split('*').enumerate() {
        if i > 0 {
            pattern.push_str(".*");
        }
        pattern.push_str(&regex::escape(part));
    }
    if open_tail {
        pattern.push_str("(?:\\s.*)?");
    }
    pattern.push('$');
    let regex = regex::Regex::new(&pattern)?;
    Ok(Specifier::Command {
        regex,
        names_more: stem.trim().contains(' '),
    })
}

/// Whether some simple command of `command` matches, leading `VAR=value` words stripped. A
/// pattern naming more than the program runs the hook anyway when the command hides words in
/// `$(…)`, backticks or `$VAR`, as Claude Code's filter does.
fn command_matches(regex: &regex::Regex, names_more: bool, command: &str) -> bool {
    if names_more && (command.contains("$(") || command.contains('`') || command.contains('$')) {
        return true;
    }
    let flattened = command.replace(['`', '(', ')'], ";").replace("$;", ";");
    flattened
        .split(['\n', ';', '|', '&'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|simple| {
            let words: Vec<&str> = simple.split_whitespace().collect();
            let start = words
                .iter()
                .position(|w| !is_assignment(w))
                .unwrap_or(words.len());
            words[start..].join(" ")
        })
        .any(|simple| regex.is_match(&simple))
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(tool: &str, input: Value) -> Map<String, Value> {
        let payload = json!({"tool_name": tool, "tool_input": input, "cwd": "/w"});
        payload.as_object().cloned().unwrap_or_default()
    }

    fn allows(rule: &str, payload: &Map<String, Value>) -> bool {
        let condition = Condition::parse(rule).expect("a rule");
        condition.allows(ClaudeEvent::PreToolUse, payload, &ToolAliases::default())
    }

    #[test]
    fn a_double_star_path_rule_covers_files_directly_under_its_folder() {
        let rule = "Edit(src/**/*.rs)";
        let edit = |path: &str| call("Edit", json!({"file_path": path}));
        assert!(allows(rule, &edit("/w/src/lib.rs")));
        assert!(allows(rule, &edit("/w/src/a/b.rs")));
        assert!(!allows(rule, &edit("/w/tests/a.rs")));
    }

    #[test]
    fn bash_rules_match_subcommands_as_the_reference_table_says() {
        let push = "Bash(git push *)";
        assert!(!allows(push, &call("bash", json!({"command": "ls"}))));
        assert!(allows(
            push,
            &call("bash", json!({"command": "git push origin main"}))
        ));
        assert!(allows(
            push,
            &call("Bash", json!({"command": "FOO=bar git push"}))
        ));
        assert!(allows(
            "Bash(git *)",
            &call("Bash", json!({"command": "npm test && git push"}))
        ));
        assert!(allows(
            "Bash(rm *)",
            &call("Bash", json!({"command": "echo $(rm -rf /)"}))
        ));
        assert!(!allows(
            "Bash(rm *)",
            &call("Bash", json!({"command": "echo $(date)"}))
        ));
        assert!(allows(
            push,
            &call("Bash", json!({"command": "echo $(date)"}))
        ));
        assert!(!allows(
            push,
            &call("edit_file", json!({"file_path": "/w/a"}))
        ));
    }

    #[test]
    fn file_rules_match_paths_under_the_working_directory() {
        let rule = "Edit(src/**)";
        assert!(allows(
            rule,
            &call("Edit", json!({"file_path": "/w/src/lib/a.rs"}))
        ));
        assert!(!allows(
            rule,
            &call("Edit", json!({"file_path": "/w/docs/a.md"}))
        ));
        assert!(!allows(
            rule,
            &call("Edit", json!({"file_path": "/w/x/src/a.rs"}))
        ));
        assert!(allows(
            "Edit(*.ts)",
            &call("Edit", json!({"file_path": "/w/a.ts"}))
        ));
    }

    #[test]
    fn if_never_runs_a_hook_off_the_tool_events_and_bad_rules_are_errors() {
        let condition = Condition::parse("Bash").expect("a rule");
        let payload = call("Bash", json!({"command": "ls"}));
        let aliases = ToolAliases::default();
        assert!(condition.allows(ClaudeEvent::PostToolUse, &payload, &aliases));
        assert!(!condition.allows(ClaudeEvent::Stop, &payload, &aliases));
        assert!(Condition::parse("Bash(git push *").is_err());
        assert!(Condition::parse("not a rule").is_err());
    }
}
