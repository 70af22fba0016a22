//! The ready-made hooks of agent-hooks as pure functions: a canonical payload in, a
//! decision-protocol answer (`docs/protocol.md`) out. No processes and no networking; the only I/O
//! is what a guard's rules name (evidence files to read, an audit log to append to).
//!
//! How it fits together:
//! - [`GUARDS`] has one row per guard, in the order `help` numbers them: its name, summary,
//!   the events it handles with a suggested matcher, its default rules file, the sample
//!   `install` dry-runs, and how it compiles. Every consumer reads the table, so adding a
//!   guard is a module under `guards/` and one row.
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

pub use answer::TOOL_ALIASES_KEY;
pub use context::{BalanceLookup, Clock, DirState, GuardContext, MemoryState, StateStore};
pub use guards::{ExplainedCommand, ExplainedRule, Explanation, explain_command};
pub use guards::{GUARDS, RulePacks, rule_packs};
pub use rules::RulesError;

/// One event a guard handles, with a matcher to declare it with (`docs/protocol.md`) where a
/// narrower one than "always" is safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardEvent {
    /// The canonical event name (`pre_tool_call`, ...).
    pub event: &'static str,
    /// A regex for the entry's `matcher`, or `None` to run on every occurrence.
    pub matcher: Option<&'static str>,
}

/// A ready-made guard: its row in [`GUARDS`], the one list every consumer reads (`help`,
/// `install`, the `guard` command, the in-process runner). Adding a guard is a module under
/// `guards/` and one row.
#[derive(Debug, Clone, Copy)]
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
    /// The default rules file: commented YAML that `--print-rules` prints and `install`
    /// writes for the user to edit.
    pub default_rules: &'static str,
    /// A sample of what the guard acts on, as events in order (the last one's answer is what
    /// it does); `install` runs it as a dry run. Empty when its only effect is outside the
    /// answer (an audit log line).
    pub sample: &'static [GuardSample],
    /// Compiles the guard with the user's rules (`None`: the defaults).
    pub(crate) build: guards::Build,
}

/// One event of a guard's [`GuardInfo::sample`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardSample {
    /// The canonical event name.
    pub event: &'static str,
    /// The payload, a JSON object (without `session_id`).
    pub payload: &'static str,
}

/// The guard with this name, if there is one.
pub fn guard_info(name: &str) -> Option<&'static GuardInfo> {
    GUARDS.iter().find(|g| g.name == name)
}

/// The default rules file of a guard: commented YAML that `--print-rules` prints and
/// `install` writes for the user to edit.
pub fn default_rules(name: &str) -> Option<&'static str> {
    guard_info(name).map(|g| g.default_rules)
}

/// `text` with the credentials security_guard's default rules find masked (a head and tail
/// kept around the marker) and wallet secrets withheld; `None` when nothing was found. For
/// whatever keeps text from tool calls (the runtime's decision log).
pub fn mask_secrets(text: &str) -> Option<String> {
    guards::default_scanner()?.redact(text, true)
}

/// A compiled guard, ready to answer events.
pub struct Guard {
    info: &'static GuardInfo,
    compiled: guards::Compiled,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("name", &self.info.name)
            .finish_non_exhaustive()
    }
}

impl Guard {
    /// Compiles the guard `name` with the user's rules (`None`: the defaults). Keys absent
    /// from `rules_yaml` keep their default values.
    pub fn new(name: &str, rules_yaml: Option<&str>) -> Result<Guard, RulesError> {
        let info = guard_info(name).ok_or_else(|| RulesError::UnknownGuard {
            name: name.to_owned(),
            known: GUARDS.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        })?;
        let compiled = (info.build)(rules_yaml)?;
        Ok(Guard { info, compiled })
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
        self.assess(event, payload, ctx).answer
    }

    /// Answers one event like [`Guard::evaluate`], and says whether the guard reached a limit
    /// of its own while answering (code nested deeper than it reads): such an answer is an
    /// `ask`, never an allow, and a runtime reports it as the guard's limit rather than as a
    /// rule's decision.
    pub fn assess(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Assessment {
        let mut answer = self.answer(event, payload, ctx);
        let limit = match &mut answer {
            Value::Object(map) => map.remove(answer::LIMIT_KEY).map(|why| match why {
                Value::String(why) => why,
                other => other.to_string(),
            }),
            _ => None,
        };
        Assessment { answer, limit }
    }

    fn answer(&self, event: &str, payload: &Value, ctx: &mut GuardContext) -> Value {
        if !self.info.events.iter().any(|e| e.event == event) || !payload.is_object() {
            return Value::Object(serde_json::Map::new());
        }
        // Fail-open even against a bug: a guard must never take the agent down with it.
        let compiled = &self.compiled;
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compiled(event, payload, ctx)
        }))
        .unwrap_or_else(|_| Value::Object(serde_json::Map::new()));
        // A guard that loaded its state and saved nothing must not keep other processes
        // waiting for the session.
        ctx.state.release();
        answer
    }
}

/// A guard's answer to one event ([`Guard::assess`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Assessment {
    /// The decision-protocol object (`{}` = continue).
    pub answer: Value,
    /// Set when the guard reached a limit of its own and answered `ask` for it: why.
    pub limit: Option<String>,
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
    /// The text inside each of its `$(...)`/backtick parts, in order (what runs to produce
    /// the output, which is itself readable).
    pub substitutions: Vec<String>,
}

/// The simple commands of `text` in order, read by the same tokenizer the guards use, so
/// that agent-hooks reads a hook's own shell line the way a guard reads a tool call.
pub fn shell_commands(text: &str) -> Vec<ShellCommand> {
    shell::parse(text)
        .commands()
        .map(|c| ShellCommand {
            words: c.words.iter().map(|w| w.clone().into_owned()).collect(),
            substitutes: !c.substitutions.is_empty(),
            substitutions: c.substitutions.iter().map(|b| b.text.to_string()).collect(),
        })
        .collect()
}
