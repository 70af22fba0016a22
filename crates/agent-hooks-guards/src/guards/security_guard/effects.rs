//! Effects across tools: a file tool's call (Claude Code's Write, Codex's apply_patch, Gemini
//! CLI's write_file, an MCP filesystem server's move_file, ...) is read as the shell command
//! with the same effect — write, read, delete, move — and judged by the same rules, so that
//! switching tools does not switch the answer. The tool-name map is data (`file_tools`).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Map, Value};

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

/// The file tools by name: the user's, or the shipped ones, read on first use (a guard
/// process answering a shell call never needs them).
#[derive(Debug)]
pub(crate) struct FileTools {
    by_name: std::sync::OnceLock<HashMap<Text, FileTool>>,
    defaults: fn() -> BTreeMap<Text, FileTool>,
}

impl FileTools {
    /// The user's map if the rules file has one, else `defaults` when first needed.
    pub(crate) fn new(
        user: Option<BTreeMap<Text, FileTool>>,
        defaults: fn() -> BTreeMap<Text, FileTool>,
    ) -> FileTools {
        let by_name = std::sync::OnceLock::new();
        if let Some(tools) = user {
            let _ = by_name.set(tools.into_iter().collect());
        }
        FileTools { by_name, defaults }
    }

    fn by_name(&self) -> &HashMap<Text, FileTool> {
        self.by_name
            .get_or_init(|| (self.defaults)().into_iter().collect())
    }

    /// The shell commands that do what this call does, when its tool is a file tool.
    pub(crate) fn stands(&self, payload: &Value, input: &Map<String, Value>) -> Vec<Stand> {
        match self.find(payload) {
            Some((tool, name)) => stands(tool, &name, input),
            None => Vec::new(),
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
            .find_map(|n| self.by_name().get(n))
            .map(|tool| (tool, name.to_owned()))
    }
}

/// One shell command standing for part of a file tool's call, and how a reason shows it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Stand {
    /// The command's words (quoted into a command text by the caller).
    pub(crate) words: Vec<String>,
    /// The file its output is redirected to (`: > FILE`), if any.
    pub(crate) redirect_to: Option<String>,
    /// What the user is shown instead: the tool and the file.
    pub(crate) shown: String,
}

impl Stand {
    fn new(words: &[&str], redirect_to: Option<&str>, shown: String) -> Stand {
        Stand {
            words: words.iter().map(|w| (*w).to_owned()).collect(),
            redirect_to: redirect_to.map(str::to_owned),
            shown,
        }
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
    fn each_effect_stands_as_its_shell_command() {
        let s = stand(Effect::Write, "/home/u/my rc", "Write /home/u/my rc".into());
        assert_eq!(s.words, [":"]);
        assert_eq!(s.redirect_to.as_deref(), Some("/home/u/my rc"));
        let s = stand(Effect::DeleteTree, "build", String::new());
        assert_eq!(s.words, ["rm", "-rf", "--", "build"]);
        assert_eq!(s.redirect_to, None);
    }
}
