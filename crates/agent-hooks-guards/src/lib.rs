//! The ready-made hooks of agent-hooks as pure functions: a canonical payload in, a
//! decision-protocol answer (SPEC §5) out. No processes and no networking; the only I/O
//! is what a guard's rules name (evidence files to read, an audit log to append to).
//!
//! How it fits together:
//! - [`GUARDS`] lists the nine guards in the order `help` numbers them, with the events
//!   each handles and a suggested matcher; [`default_rules`] gives each one's rules file.
//! - [`Guard::new`] compiles a guard from its name and (optional) rules YAML; keys the user
//!   leaves out keep their defaults, and a bad file is a [`RulesError`] with line:column.
//! - [`Guard::evaluate`] answers one event. It never panics: any internal problem is `{}`
//!   (continue), so a broken guard cannot break the agent.
//! - [`GuardContext`] carries what spans events: per-session state through a
//!   [`StateStore`] ([`MemoryState`] in-process, [`DirState`] under `STATE_DIR` as a
//!   command), the clock, the workspace for relative paths, and the optional balance lookup.

#![cfg_attr(not(test), warn(unused_crate_dependencies))]

mod answer;
mod context;
mod guards;
mod records;
mod rules;
mod secrets;
mod shell;

use serde_json::Value;

pub use context::{BalanceLookup, Clock, DirState, GuardContext, MemoryState, StateStore};
pub use rules::RulesError;

use guards::Kind;

/// One event a guard handles, with a matcher to declare it with (SPEC §5) where a narrower
/// one than "always" is safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardEvent {
    /// The canonical event name (`pre_tool_call`, ...).
    pub event: &'static str,
    /// A regex for the entry's `matcher`, or `None` to run on every occurrence.
    pub matcher: Option<&'static str>,
}

/// A ready-made guard as `help` and `install` show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardInfo {
    /// The name users install it by.
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    /// The events it handles; `install` declares it for each.
    pub events: &'static [GuardEvent],
    /// The events on which answering may wait on the network (a balance lookup), so an
    /// in-process runner keeps it off its async threads there.
    pub waits_on: &'static [&'static str],
}

const fn on(event: &'static str) -> GuardEvent {
    GuardEvent {
        event,
        matcher: None,
    }
}

/// The nine ready-made guards, in the order `help` numbers them (1-based).
pub const GUARDS: &[GuardInfo] = &[
    GuardInfo {
        name: "security_guard",
        waits_on: &[],
        summary: "Blocks pasted or exfiltrated credentials and irreversible shell commands; masks keys in replies and messages.",
        events: &[
            on("on_user_message"),
            GuardEvent {
                event: "pre_tool_call",
                // A pre-filter only: every program and tool the default rules look at
                // (`tests/cases.rs` checks that every refused case gets through it).
                matcher: Some(
                    r"rm|dd|mkfs|mke2fs|mkswap|newfs|chmod|chown|chgrp|reset|\(\)|/dev/|curl|wget|nc|socat|telnet|scp|sftp|rsync|ftp|http|xh|env|eval|sh|send|message|post|notify|git|find|remove|unlink|fork|wipe|shred|blkdiscard|disk|\.ssh|\.aws|credential|secret|id_rsa|id_ed|fetch|socket",
                ),
            },
            on("transform_tool_result"),
            on("on_response_end"),
            on("on_outbound_message"),
        ],
    },
    GuardInfo {
        name: "verify_publish_claims",
        waits_on: &[],
        summary: "Refuses a past-tense 'published/deployed' claim whose link or id is not in the publish records.",
        events: &[
            on("on_stop"),
            on("on_completion_claim"),
            on("on_response_end"),
        ],
    },
    GuardInfo {
        name: "verify_code_changes",
        waits_on: &[],
        summary: "Makes the agent run tests, a build or a linter before it stops after editing source files.",
        events: &[on("pre_tool_call"), on("on_stop")],
    },
    GuardInfo {
        name: "verify_commitments",
        waits_on: &[],
        summary: "Refuses to stop when the reply promises a later notification but nothing was scheduled.",
        events: &[on("on_stop")],
    },
    GuardInfo {
        name: "runtime_footer",
        waits_on: &["on_response_end"],
        summary: "Replaces a model-typed footer with the real model and cost of the turn.",
        events: &[on("on_response_end"), on("pre_llm_call")],
    },
    GuardInfo {
        name: "pii_redactor",
        waits_on: &[],
        summary: "Masks email addresses and phone numbers in replies; notes them in tool results.",
        events: &[
            GuardEvent {
                event: "transform_tool_result",
                matcher: Some(r"@|\+?\d[\d\s().-]{6,}\d"),
            },
            GuardEvent {
                event: "on_response_end",
                matcher: Some(r"@|\+?\d[\d\s().-]{6,}\d"),
            },
        ],
    },
    GuardInfo {
        name: "tool_audit_log",
        waits_on: &[],
        summary: "Appends one JSON line per tool call to an audit log.",
        events: &[on("post_tool_call")],
    },
    GuardInfo {
        name: "budget_alert",
        waits_on: &[],
        summary: "Warns when a turn costs more than a threshold.",
        events: &[on("on_response_end")],
    },
    GuardInfo {
        name: "inject_reminder",
        waits_on: &[],
        summary: "Adds a standing reminder from the rules file to every model call.",
        events: &[on("pre_llm_call")],
    },
];

/// The guard with this name, if there is one.
pub fn guard_info(name: &str) -> Option<&'static GuardInfo> {
    GUARDS.iter().find(|g| g.name == name)
}

/// The default rules file of a guard: commented YAML that `--print-rules` prints and
/// `install` writes for the user to edit.
pub fn default_rules(name: &str) -> Option<&'static str> {
    guards::default_rules(name)
}

/// A compiled guard, ready to answer events.
#[derive(Debug)]
pub struct Guard {
    info: &'static GuardInfo,
    kind: Kind,
}

impl Guard {
    /// Compiles the guard `name` with the user's rules (`None`: the defaults). Keys absent
    /// from `rules_yaml` keep their default values.
    pub fn new(name: &str, rules_yaml: Option<&str>) -> Result<Guard, RulesError> {
        let info = guard_info(name).ok_or_else(|| RulesError::UnknownGuard {
            name: name.to_owned(),
            known: GUARDS.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        })?;
        let kind = Kind::new(name, rules_yaml)?;
        Ok(Guard { info, kind })
    }

    /// Compiles the guard `name` with its default rules.
    pub fn with_defaults(name: &str) -> Result<Guard, RulesError> {
        Self::new(name, None)
    }

    /// The guard's name.
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// The guard's entry in [`GUARDS`].
    pub fn info(&self) -> &'static GuardInfo {
        self.info
    }

    /// Answers one event: `event` is the canonical name, `payload` the canonical payload.
    /// Returns a decision-protocol object (`{}` = continue). Events the guard does not
    /// handle, and any internal failure, answer `{}`.
    pub fn evaluate(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        if !self.info.events.iter().any(|e| e.event == event) || !payload.is_object() {
            return Value::Object(serde_json::Map::new());
        }
        // Fail-open even against a bug: a guard must never take the agent down with it.
        let kind = &self.kind;
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            kind.evaluate(event, payload, ctx)
        }))
        .unwrap_or_else(|_| Value::Object(serde_json::Map::new()));
        // A guard that loaded its state and saved nothing must not keep other processes
        // waiting for the session.
        ctx.state.release();
        answer
    }
}

/// One simple command of a shell text, as the guards read it: its words with quotes removed
/// and nothing expanded (`"$HOME/x"` stays `$HOME/x`), and whether it holds a `$(...)` or
/// backtick substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCommand {
    /// The words, program first (leading `NAME=value` assignments included).
    pub words: Vec<String>,
    /// The command runs a command substitution, whose output no reading can know.
    pub substitutes: bool,
}

/// The simple commands of `text` in order, read by the same tokenizer the guards use, so
/// that agent-hooks reads a hook's own shell line the way a guard reads a tool call.
pub fn shell_commands(text: &str) -> Vec<ShellCommand> {
    shell::parse(text)
        .commands()
        .map(|c| ShellCommand {
            words: c.words.iter().map(|w| w.clone().into_owned()).collect(),
            substitutes: !c.substitutions.is_empty(),
        })
        .collect()
}
