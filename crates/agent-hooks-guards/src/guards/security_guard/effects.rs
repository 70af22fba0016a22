//! Effects across tools: a file tool's call (Claude Code's Write, Codex's apply_patch, Gemini
//! CLI's write_file, an MCP filesystem server's move_file, ...) is read as the shell command
//! with the same effect — write, read, delete, move — and judged by the same rules, so that
//! switching tools does not switch the answer. The tool-name map is data (`file_tools`).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::paths::Cwd;
use super::scan::{Finding, Scan, quote_words};
use super::{SecurityGuard, quote};
use crate::answer;
use crate::rules::Text;

/// What a file tool does with the files its input names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(rename_all = "snake_case")]
pub(crate) enum Effect {
    /// Writes (creates, overwrites or edits) each file: judged as `: > FILE`.
    Write,
    /// Reads each file: judged as `cat -- FILE`.
    Read,
    /// Deletes each file: judged as `rm -f -- FILE`.
    Delete,
    /// Deletes each directory with what is in it: judged as `rm -rf -- DIR`.
    DeleteTree,
    /// Moves the `paths` file to the `to` file: judged as `mv -- FROM TO` and a write of TO.
    Move,
    /// The `paths` keys hold a patch in apply_patch's format, whose `*** Add File:`,
    /// `*** Update File:`, `*** Move to:` lines write and `*** Delete File:` lines delete.
    Patch,
}

/// One file tool as the rules file spells it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct FileTool {
    pub(crate) effect: Effect,
    /// The input keys that name the files (a string or a list of strings each); for
    /// `patch`, the keys that hold the patch text.
    pub(crate) paths: Vec<Text>,
    /// For `move`: the input keys that name where the file goes.
    #[serde(default)]
    pub(crate) to: Vec<Text>,
}

/// The file tools by name.
#[derive(Debug, Default)]
pub(crate) struct FileTools {
    by_name: HashMap<Text, FileTool>,
}

impl FileTools {
    pub(crate) fn new(tools: BTreeMap<Text, FileTool>) -> FileTools {
        FileTools {
            by_name: tools.into_iter().collect(),
        }
    }

    /// The tool a call's name stands for: the name itself, the name the workspace's tool
    /// aliases give it, or an MCP tool's own name (`mcp__server__write_file`).
    fn find(&self, payload: &Value) -> Option<(&FileTool, String)> {
        let (name, alias) = answer::tool_name(payload);
        let mcp = name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.rsplit_once("__"))
            .map(|(_, tool)| tool);
        [Some(name), alias, mcp]
            .into_iter()
            .flatten()
            .find_map(|n| self.by_name.get(n))
            .map(|tool| (tool, name.to_owned()))
    }
}

/// One shell command standing for part of a file tool's call, and how a reason shows it.
struct Stand {
    /// The command's words, as the rule's reason quotes them.
    words: Vec<String>,
    /// The command text the rules read.
    text: String,
    /// What the user is shown instead: the tool and the file.
    shown: String,
}

impl Stand {
    fn new(words: &[&str], redirect_to: Option<&str>, shown: String) -> Stand {
        let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        let mut text = quote_words(&words);
        if let Some(target) = redirect_to {
            text.push_str(" > ");
            text.push_str(&quote_words(&[target.to_owned()]));
        }
        Stand { words, text, shown }
    }
}

impl SecurityGuard {
    /// The finding for a file tool's call, if what it does is something a rule answers.
    pub(crate) fn file_tool(&self, payload: &Value, input: &Map<String, Value>) -> Option<Finding> {
        let (tool, name) = self.file_tools.find(payload)?;
        let cwd = Cwd::from_payload(answer::str_field(payload, "cwd"));
        let mut found: Option<Finding> = None;
        for stand in stands(tool, &name, input) {
            let mut scan = Scan::new(self, cwd.clone());
            scan.check(&stand.text, 0);
            let Some(mut finding) = scan.found else {
                continue;
            };
            // The rule quotes the command that stands for the call; the user sees the call.
            let quoted = quote(&stand.words.join(" "));
            if let Some(head) = finding.reason.strip_suffix(quoted.as_str()) {
                finding.reason = format!("{head}{}", quote(&stand.shown));
            }
            if found.as_ref().is_none_or(|f| finding.answer > f.answer) {
                found = Some(finding);
            }
        }
        found
    }
}

/// The shell commands that do what this call does.
fn stands(tool: &FileTool, name: &str, input: &Map<String, Value>) -> Vec<Stand> {
    let mut out = Vec::new();
    let shown = |path: &str| format!("{name} {path}");
    if tool.effect == Effect::Patch {
        for text in strings(input, &tool.paths) {
            for (effect, path) in patch_files(text) {
                out.push(stand(effect, path, shown(path)));
            }
        }
        return out;
    }
    let from = strings(input, &tool.paths);
    if tool.effect == Effect::Move {
        for to in strings(input, &tool.to) {
            for path in &from {
                let seen = format!("{name} {path} {to}");
                out.push(Stand::new(&["mv", "--", path, to], None, seen.clone()));
                out.push(Stand::new(&[":"], Some(to), seen));
            }
        }
        return out;
    }
    for path in from {
        out.push(stand(tool.effect, path, shown(path)));
    }
    out
}

fn stand(effect: Effect, path: &str, shown: String) -> Stand {
    match effect {
        Effect::Read => Stand::new(&["cat", "--", path], None, shown),
        Effect::Delete => Stand::new(&["rm", "-f", "--", path], None, shown),
        Effect::DeleteTree => Stand::new(&["rm", "-rf", "--", path], None, shown),
        Effect::Write | Effect::Move | Effect::Patch => Stand::new(&[":"], Some(path), shown),
    }
}

/// The string values of `keys` in `input`, a list's strings each.
fn strings<'a>(input: &'a Map<String, Value>, keys: &[Text]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for key in keys {
        match input.get(key.as_str()) {
            Some(Value::String(s)) if !s.is_empty() => out.push(s.as_str()),
            Some(Value::Array(items)) => out.extend(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|s| !s.is_empty()),
            ),
            _ => {}
        }
    }
    out
}

/// The files a patch in apply_patch's format writes and deletes.
fn patch_files(patch: &str) -> Vec<(Effect, &str)> {
    let mut out = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end();
        let found = [
            ("*** Add File: ", Effect::Write),
            ("*** Update File: ", Effect::Write),
            ("*** Move to: ", Effect::Write),
            ("*** Delete File: ", Effect::Delete),
        ]
        .into_iter()
        .find_map(|(head, effect)| line.strip_prefix(head).map(|path| (effect, path.trim())));
        if let Some((effect, path)) = found
            && !path.is_empty()
        {
            out.push((effect, path));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_names_what_it_writes_and_deletes() {
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Delete File: old.txt\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** Update File: b.rs\n*** Move to: c.rs\n*** End Patch\n";
        assert_eq!(
            patch_files(patch),
            vec![
                (Effect::Write, "src/a.rs"),
                (Effect::Delete, "old.txt"),
                (Effect::Write, ".git/hooks/pre-commit"),
                (Effect::Write, "b.rs"),
                (Effect::Write, "c.rs"),
            ]
        );
    }

    #[test]
    fn a_stand_in_quotes_the_file_as_one_word() {
        let s = stand(Effect::Write, "/home/u/my rc", "Write /home/u/my rc".into());
        assert_eq!(s.text, ": > '/home/u/my rc'");
        let s = stand(Effect::DeleteTree, "build", String::new());
        assert_eq!(s.text, "rm -rf -- build");
    }
}
