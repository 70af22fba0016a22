//! verify_code_changes: "done" without running anything is the commonest false finish.
//! pre_tool_call records source edits (edit tools and shell writes) and clears them when a
//! check runs; on_stop refuses to stop, once per batch, while edits remain unverified.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::rules::LazyRegex as Regex;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::answer::{self, fill};
use crate::context::{GuardContext, unix_seconds};
use crate::rules::{self, RulesError, pick};
use crate::shell::{self, Prefix, PrefixList, SimpleCommand};

pub(crate) const DEFAULT_RULES: &str = include_str!("../../rules/verify_code_changes.yaml");
const NAME: &str = "verify_code_changes";
/// How many file names a reason lists before "and N more".
const LISTED_FILES: usize = 5;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    edit_tools: Option<HashMap<String, Vec<String>>>,
    shell_tools: Option<Vec<String>>,
    command_keys: Option<Vec<String>>,
    command_prefixes: Option<HashMap<crate::rules::Text, Prefix>>,
    source_extensions: Option<Vec<String>>,
    verify_commands: Option<Vec<String>>,
    script_runners: Option<Vec<String>>,
    edit_ttl_seconds: Option<u64>,
    max_blocks_per_session: Option<u64>,
    session_ttl_seconds: Option<u64>,
    block_reason: Option<String>,
}

#[derive(Debug)]
pub(crate) struct VerifyCodeChanges {
    edit_tools: HashMap<String, Vec<String>>,
    shell_tools: Vec<String>,
    command_keys: Vec<String>,
    prefixes: PrefixList,
    source_extensions: Vec<String>,
    verify_commands: Vec<Regex>,
    script_runners: Vec<String>,
    edit_ttl: f64,
    max_blocks: u64,
    ttl: u64,
    block_reason: String,
}

/// What a shell command does, as far as this guard cares.
#[derive(Debug, Default)]
struct ShellEffect {
    edited: Vec<String>,
    verified: bool,
    /// Scripts run directly or through an interpreter; they verify only if edited.
    ran: Vec<String>,
}

impl VerifyCodeChanges {
    pub(crate) fn new(user_yaml: Option<&str>) -> Result<Self, RulesError> {
        let (user, def) = rules::load::<Raw>(DEFAULT_RULES, user_yaml)?;
        let edit_ttl: u64 = pick(user.edit_ttl_seconds, def.edit_ttl_seconds);
        Ok(Self {
            edit_tools: pick(user.edit_tools, def.edit_tools),
            shell_tools: pick(user.shell_tools, def.shell_tools),
            command_keys: pick(user.command_keys, def.command_keys),
            prefixes: shell::prefix_list(pick(user.command_prefixes, def.command_prefixes)),
            source_extensions: pick::<Vec<String>>(user.source_extensions, def.source_extensions)
                .into_iter()
                .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
                .collect(),
            verify_commands: rules::regexes(
                "verify_commands",
                &pick(user.verify_commands, def.verify_commands),
            )?,
            script_runners: pick(user.script_runners, def.script_runners),
            edit_ttl: edit_ttl as f64,
            max_blocks: pick(user.max_blocks_per_session, def.max_blocks_per_session),
            ttl: pick(user.session_ttl_seconds, def.session_ttl_seconds),
            block_reason: pick(user.block_reason, def.block_reason),
        })
    }

    pub(crate) fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        match event {
            "pre_tool_call" => {
                self.record(payload, ctx);
                answer::noop()
            }
            "on_stop" => self.stop(payload, ctx),
            _ => answer::noop(),
        }
    }

    fn record(&self, payload: &Value, ctx: &mut GuardContext) {
        let (tool, alias) = answer::tool_name(payload);
        let Some(input) = payload.get("tool_input").and_then(Value::as_object) else {
            return;
        };
        let mut effect = ShellEffect::default();
        // The tool's own entry first: an alias's entry may name other keys (`Edit` reads
        // `file_path` where a host's `edit_file` has `path`).
        let entry = |name: &str| {
            self.edit_tools
                .iter()
                .find(|(listed, _)| listed.eq_ignore_ascii_case(name))
        };
        if let Some((_, keys)) = entry(tool).or_else(|| alias.and_then(entry)) {
            for key in keys {
                if let Some(path) = input.get(key).and_then(Value::as_str)
                    && self.is_source(path)
                {
                    effect.edited.push(path.to_owned());
                }
            }
        }
        if answer::tool_is(&self.shell_tools, payload) {
            for key in &self.command_keys {
                if let Some(command) = input.get(key).and_then(Value::as_str) {
                    self.shell_effect(command, &mut effect);
                }
            }
        }
        if effect.edited.is_empty() && !effect.verified && effect.ran.is_empty() {
            return;
        }
        let session = answer::session(payload).to_owned();
        let mut state = ctx.load(NAME, &session);
        let now = unix_seconds(ctx.now());
        let mut pending: Vec<Value> = state
            .get("pending")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut batch_blocked = state
            .get("batch_blocked")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let ran_edited = effect.ran.iter().any(|script| {
            pending.iter().any(|p| {
                p.get("path")
                    .and_then(Value::as_str)
                    .is_some_and(|path| same_file(path, script))
            })
        });
        if effect.verified || ran_edited {
            // A check ran: the batch so far is verified, whatever it covered.
            pending.clear();
            batch_blocked = false;
        }
        for path in effect.edited {
            pending.retain(|p| p.get("path").and_then(Value::as_str) != Some(path.as_str()));
            pending.push(json!({"path": path, "at": now}));
            // A new edit after a refused stop starts a new batch.
            batch_blocked = false;
        }
        let blocks = state.get("blocks").cloned().unwrap_or(json!(0));
        state = json!({"pending": pending, "batch_blocked": batch_blocked, "blocks": blocks});
        ctx.save(NAME, &session, &state, self.ttl);
    }

    fn stop(&self, payload: &Value, ctx: &mut GuardContext) -> Value {
        if answer::stop_hook_active(payload) {
            return answer::noop();
        }
        let session = answer::session(payload).to_owned();
        let mut state = ctx.load(NAME, &session);
        let now = unix_seconds(ctx.now());
        let blocks = state.get("blocks").and_then(Value::as_u64).unwrap_or(0);
        let batch_blocked = state
            .get("batch_blocked")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let fresh: Vec<String> = state
            .get("pending")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter(|p| {
                        p.get("at")
                            .and_then(Value::as_f64)
                            .is_some_and(|at| now - at < self.edit_ttl)
                    })
                    .filter_map(|p| p.get("path").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if fresh.is_empty() || batch_blocked || blocks >= self.max_blocks {
            return answer::noop();
        }
        if let Some(map) = state.as_object_mut() {
            map.insert("blocks".into(), json!(blocks + 1));
            map.insert("batch_blocked".into(), json!(true));
        }
        ctx.save(NAME, &session, &state, self.ttl);
        let mut files = fresh
            .iter()
            .take(LISTED_FILES)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if fresh.len() > LISTED_FILES {
            files.push_str(&format!(" and {} more", fresh.len() - LISTED_FILES));
        }
        answer::block(fill(&self.block_reason, &[("files", &files)]))
    }

    fn is_source(&self, path: &str) -> bool {
        let name = shell::basename(path);
        match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => {
                let ext = ext.to_ascii_lowercase();
                self.source_extensions.contains(&ext)
            }
            _ => false,
        }
    }

    fn shell_effect(&self, command: &str, effect: &mut ShellEffect) {
        let script = shell::parse(command);
        for simple in script.commands() {
            for redirect in simple.redirects.iter().filter(|r| r.writes()) {
                if self.is_source(&redirect.target) {
                    effect.edited.push(redirect.target.to_string());
                }
            }
            let Some((program, args)) = simple.argv(&self.prefixes) else {
                continue;
            };
            self.writes_in_place(program, args, effect);
            if self.verifies(program, args) {
                effect.verified = true;
            }
            if let Some(script) = self.script_run(&simple, program, args) {
                if effect.edited.iter().any(|e| same_file(e, &script)) {
                    // Written and run in one command (`cat > t.py <<EOF ... && python t.py`).
                    effect.edited.retain(|e| !same_file(e, &script));
                }
                effect.ran.push(script);
            }
        }
    }

    fn writes_in_place(&self, program: &str, args: &[Cow<'_, str>], effect: &mut ShellEffect) {
        let in_place = match program {
            "tee" => true,
            "sed" => args
                .iter()
                .any(|a| a.starts_with("-i") || a.starts_with("--in-place")),
            // perl bundles switches: -pi, -pie, -i.bak.
            "perl" => args
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('i')),
            _ => false,
        };
        if in_place {
            for arg in args.iter().filter(|a| !a.starts_with('-')) {
                if self.is_source(arg) {
                    effect.edited.push(arg.to_string());
                }
            }
        }
    }

    fn verifies(&self, program: &str, args: &[Cow<'_, str>]) -> bool {
        let line = std::iter::once(program)
            .chain(args.iter().map(AsRef::as_ref))
            .collect::<Vec<_>>()
            .join(" ");
        self.verify_commands.iter().any(|re| re.is_match(&line))
    }

    /// The script this command runs: `./build.sh`, or `python tool.py`.
    fn script_run(
        &self,
        simple: &SimpleCommand,
        program: &str,
        args: &[Cow<'_, str>],
    ) -> Option<String> {
        let program_word = simple
            .program_index(&self.prefixes)
            .and_then(|i| simple.words.get(i))?;
        if program_word.contains('/') && self.is_source(program_word) {
            return Some(program_word.to_string());
        }
        if self.script_runners.iter().any(|r| r == program) {
            return args
                .iter()
                .find(|a| !a.starts_with('-'))
                .filter(|script| self.is_source(script))
                .map(|script| script.to_string());
        }
        None
    }
}

/// Paths as written by different tools: `./app.py`, `app.py`, `/work/app.py`.
fn same_file(a: &str, b: &str) -> bool {
    let a = a.trim_start_matches("./");
    let b = b.trim_start_matches("./");
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}
