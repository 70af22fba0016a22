//! `agent-hooks explain '<command>'`: how security_guard reads a shell command — each simple
//! command it reaches, the program that runs after unwrapping, its effects, and the rules
//! that fired or nearly fired with their packs. The rules are the workspace's installed
//! `hooks/security_guard.yaml` when there is one, the built-in defaults otherwise.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_hooks_guards::{ExplainedCommand, ExplainedRule, Explanation, explain_command};
use agent_hooks_runtime::Workspace;

/// The rules file `agent-hooks install security_guard` writes in a workspace.
fn installed_rules(ws: &Workspace) -> PathBuf {
    ws.hooks_dir().join("security_guard.yaml")
}

/// Explains `command` as run in `cwd` (the workspace's root when not given).
pub(crate) fn run(ws: &Workspace, command: &str, cwd: Option<&Path>, json: bool) -> ExitCode {
    let path = installed_rules(ws);
    let rules = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            eprintln!("agent-hooks explain: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let cwd = cwd.map_or_else(|| ws.root().to_path_buf(), Path::to_path_buf);
    let explanation = match explain_command(rules.as_deref(), command, &cwd.to_string_lossy()) {
        Ok(explanation) => explanation,
        Err(e) => {
            eprintln!("agent-hooks explain: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let source = match rules {
        Some(_) => path.display().to_string(),
        None => "built-in defaults".to_owned(),
    };
    let out = if json {
        let mut value = serde_json::to_value(&explanation).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("rules_file".into(), source.into());
        }
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        text
    } else {
        render(&explanation, &source)
    };
    crate::print_all("explain", out.as_bytes())
}

/// The explanation as text: the answer, then each command indented by its nesting.
fn render(explanation: &Explanation, source: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "decision: {}", explanation.decision);
    if let Some(reason) = &explanation.reason {
        let _ = writeln!(out, "reason: {reason}");
    }
    let _ = writeln!(out, "rules: {source}");
    for finding in &explanation.text_findings {
        let _ = writeln!(out, "{}", rule_line(finding, "whole text"));
    }
    let _ = writeln!(out, "commands:");
    for command in &explanation.commands {
        render_command(&mut out, command);
    }
    out
}

fn render_command(out: &mut String, command: &ExplainedCommand) {
    let indent = "  ".repeat(command.depth + 1);
    let via = command
        .via
        .as_deref()
        .map_or_else(String::new, |v| format!("  (via {v})"));
    let _ = writeln!(out, "{indent}- {}{via}", shell_words(&command.words));
    match &command.program {
        Some(program) => {
            let argv: Vec<String> = std::iter::once(program.clone())
                .chain(command.args.iter().cloned())
                .collect();
            let runs = shell_words(&argv);
            let _ = writeln!(out, "{indent}  runs: {runs}");
        }
        None => {
            let _ = writeln!(out, "{indent}  runs: nothing (assignments only)");
        }
    }
    for effect in &command.effects {
        let _ = writeln!(out, "{indent}  effect: {effect}");
    }
    for rule in &command.rules {
        let _ = writeln!(out, "{indent}  {}", rule_line(rule, ""));
    }
}

/// Words as a shell would need them typed: quoted where a blank or a special byte is in one.
fn shell_words(words: &[String]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_./@%+=:,-~".contains(&b));
            if plain {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect();
    quoted.join(" ")
}

fn rule_line(rule: &ExplainedRule, scope: &str) -> String {
    let label = if rule.fired { "fired" } else { "near miss" };
    let scope = if scope.is_empty() {
        String::new()
    } else {
        format!(" on the {scope}")
    };
    format!(
        "{label}{scope}: {} [pack {}] {}: {}",
        rule.name, rule.pack, rule.answer, rule.why
    )
}
