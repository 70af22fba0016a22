//! Entry points into the runtime's internals for its own benchmarks and fuzz targets, which
//! reach pieces no host calls on their own: the hash the trust gate records, the gate's whole
//! check, a bare POST with the HTTP transport's client, the reading of one hook's answer in
//! each dialect, and the SSRF guard's verdict on a URL. Compiled only with the `internals`
//! feature, which the crate's dev-dependency on itself turns on for its tests and benchmarks
//! (and `fuzz/` for its targets); a host never sees it. Not part of the API: anything here may
//! change or go with any release.

use std::io;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::engine::Engine;
use crate::hook::Hook;
use crate::snapshot::Snapshot;
use crate::trust::{DriftChecker, Verdict};
use agent_hooks_core::answer::{Decision, Effect};
use agent_hooks_core::event::{Event, RewriteRule};
use agent_hooks_core::workspace::Workspace;
use agent_hooks_dialects::claude::{CLAUDE_EVENTS, ToolAliases};
use agent_hooks_dialects::{Dialect, DispatchCache, PayloadView};
use agent_hooks_transports::http::HttpClient;
use agent_hooks_transports::ssrf::{Guard, SystemResolver};
use agent_hooks_transports::{Exit, Reply};

/// The environment variable that lets HTTP hooks reach this machine (`=1`).
pub const ALLOW_LOCAL_ENV: &str = agent_hooks_transports::ssrf::ALLOW_LOCAL_ENV;

/// The SHA-256 (lowercase hex) the trust gate records for a file.
///
/// # Errors
///
/// When the file cannot be opened or read.
pub fn hash_file(path: &Path) -> io::Result<String> {
    crate::trust::hash_file(path)
}

/// The trust gate's check of one declared hook at one event, with the engine's own drift
/// cache as a dispatch uses it.
#[derive(Debug)]
pub struct TrustCheck {
    drift: DriftChecker,
    snapshot: Arc<Snapshot>,
    hook: Arc<Hook>,
    event: Event,
}

impl TrustCheck {
    /// The check of the first hook wired to `event` in `engine`'s workspace, if there is one,
    /// with a drift cache that knows the workspace as the engine's does.
    pub fn first_hook(engine: &Engine, event: Event) -> Option<TrustCheck> {
        let snapshot = engine.snapshot();
        let hook = snapshot.hooks_for(event).first()?.clone();
        Some(TrustCheck {
            drift: DriftChecker::new(engine.workspace().root()),
            snapshot,
            hook,
            event,
        })
    }

    /// Runs the whole check (the approval, the command's files, their fingerprints and hashes)
    /// and says whether the hook may run.
    pub fn approved(&self) -> bool {
        matches!(
            self.drift
                .check(&self.snapshot.approvals, self.event, &self.hook),
            Verdict::Approved(_)
        )
    }
}

/// A client with the HTTP transport's settings (no proxy, no redirects, the SSRF guard's
/// resolver), with addresses on this machine allowed.
///
/// # Errors
///
/// When the TLS backend cannot be set up.
pub fn transport_client() -> Result<reqwest::Client, String> {
    HttpClient::new(Guard::new(Arc::new(SystemResolver), true)).map(|c| c.reqwest().clone())
}

/// The dialect a hook answers in, for [`read_answer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerDialect {
    /// `config/shell_hooks.yaml`'s decision protocol (Claude Code answers accepted).
    Shell,
    /// A skill hook's event replacement (the first hook of its chain).
    Skill,
    /// A hook of `.claude/settings*.json`, under the first Claude Code event mapped to the
    /// canonical one.
    Claude,
}

/// What one hook's answer does at its event once the capability table has sorted it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadAnswer {
    /// The block or ask that counts (`None`: neither).
    pub decision: Option<Decision>,
    /// The reason given with it.
    pub reason: Option<String>,
    /// Field rewrites that count: the field, its value, and whether only existing keys of an
    /// object change (`false`: the value replaces the field).
    pub rewrites: Vec<(String, Value, bool)>,
    /// A synthetic tool result that counts.
    pub result: Option<Value>,
    /// Context, notes, and messages for the user that count.
    pub context: Vec<String>,
    /// Notes appended to the tool result.
    pub notes: Vec<String>,
    /// Messages for the user only.
    pub warnings: Vec<String>,
    /// The model for the next call, if that counts.
    pub model: Option<String>,
    /// The hook asked the agent to stop its turn.
    pub stop: Option<String>,
    /// What the event does not allow, named as `doctor` names it.
    pub ignored: Vec<String>,
    /// Problems the dialect logged without refusing the whole answer.
    pub problems: Vec<String>,
}

/// Reads one hook's raw reply (`stdout`, its exit status, `stderr`) at `event` on `payload`
/// as the dispatcher reads it, in `dialect`, and sorts it by what the event allows.
///
/// # Errors
///
/// When the answer cannot be used at all (the hook counts as failed): what was wrong. Also
/// when `dialect` is [`AnswerDialect::Claude`] and no Claude Code event maps to `event`.
pub fn read_answer(
    dialect: AnswerDialect,
    event: Event,
    payload: &Map<String, Value>,
    (stdout, exit_code, stderr): (&[u8], i32, &[u8]),
) -> Result<ReadAnswer, String> {
    let dialect = match dialect {
        AnswerDialect::Shell => Dialect::Shell,
        AnswerDialect::Skill => Dialect::Skill {
            include_conversation: false,
            block: agent_hooks_dialects::skill::BlockVerb::Fork,
        },
        AnswerDialect::Claude => Dialect::Claude {
            agent: agent_hooks_dialects::agent::Agent::ClaudeCode,
            event: CLAUDE_EVENTS
                .iter()
                .find(|(_, _, canonical)| *canonical == event)
                .map(|(_, claude, _)| *claude)
                .ok_or_else(|| format!("no Claude Code event maps to {}", event.name()))?,
            aliases: Arc::new(ToolAliases::default()),
            condition: None,
            background: None,
        },
    };
    let ws = Workspace::new(std::env::temp_dir());
    let cache = DispatchCache::default();
    let view = PayloadView::new(event, payload, &ws, &cache);
    let reply = Reply {
        stdout: stdout.to_vec(),
        stdout_overflow: false,
        stderr: stderr.to_vec(),
        exit: Exit::Code(exit_code),
        left_behind: None,
    };
    let answer = dialect
        .interpret(&view, &reply)
        .map_err(|unusable| unusable.detail)?;
    let admitted = answer.admit(event.spec());
    let mut read = ReadAnswer {
        decision: None,
        reason: None,
        rewrites: Vec::new(),
        result: None,
        context: Vec::new(),
        notes: Vec::new(),
        warnings: Vec::new(),
        model: None,
        stop: answer.stop.clone(),
        ignored: admitted.ignored,
        problems: answer.problems.iter().map(|(_, p)| p.clone()).collect(),
    };
    for effect in admitted.effects {
        match effect {
            Effect::Block { reason } | Effect::Ask { reason } => {
                read.decision = answer.decision;
                read.reason = reason.map(str::to_owned);
            }
            Effect::Result(result) => read.result = Some(result.clone()),
            Effect::Rewrite { field, value, rule } => read.rewrites.push((
                field.to_owned(),
                value.clone(),
                rule == RewriteRule::ExistingKeys,
            )),
            Effect::Context(context) => read.context.extend_from_slice(context),
            Effect::Notes(notes) => read.notes.extend_from_slice(notes),
            Effect::Model(model) => read.model = Some(model.to_owned()),
            Effect::Warnings(warnings) => read.warnings.extend_from_slice(warnings),
        }
    }
    Ok(read)
}

/// The SSRF guard's verdict on a hook URL, before any DNS (scheme, userinfo, names of this
/// machine, literal addresses in every spelling): the URL as it will be used, or why it is
/// refused. `allow_local` is [`ALLOW_LOCAL_ENV`] set.
///
/// # Errors
///
/// The refusal, as `list` and the outcome say it.
pub fn check_hook_url(url: &str, allow_local: bool) -> Result<String, String> {
    Guard::new(Arc::new(SystemResolver), allow_local)
        .check_url(url)
        .map(String::from)
        .map_err(|refusal| refusal.to_string())
}

/// The rule of the blocked range `address` lies in (IPv4 inside IPv6 judged as the IPv4), or
/// `None` for an address a hook may reach.
pub fn blocked_rule(address: IpAddr) -> Option<&'static str> {
    agent_hooks_transports::ssrf::blocked_range(address).map(|range| range.rule)
}
