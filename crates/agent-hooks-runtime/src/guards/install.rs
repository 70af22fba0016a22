//! `install <name|number|all>...`: wires ready-made hooks into a workspace. For each guard it
//! writes the default rules under `hooks/` (never over a file that is there; `--pack` only adds
//! the packs it names to the file's `enable:` list), appends a
//! `type: builtin` entry per event to `config/shell_hooks.yaml` as text (the user's entries and
//! comments stay as they are), approves `builtin:<name>`, runs `doctor` and says what it did.
//! Everything already in place is left alone, so installing twice changes nothing.
//!
//! Why `type: builtin` rather than a command entry running `agent-hooks guard`: in-process the
//! guard costs microseconds instead of a process per event, keeps its per-session state in
//! memory, and the entry does not break when the binary moves. The command form is for agents
//! that cannot embed this runtime (Claude Code): see the README.

use std::collections::BTreeSet;
use std::path::Path;

use crate::config::FileState;
use crate::engine::{Engine, EngineError};
use crate::hook::SourceKind;
use crate::trust::{DriftChecker, Verdict};
use agent_hooks_core::event::Event;
use agent_hooks_core::store;
use agent_hooks_transports::TransportSpec;
use agent_hooks_transports::builtin::APPROVAL_PREFIX;

use super::GuardInfo;

/// Why an install could not be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// A word that names no ready-made hook (`known` lists the names).
    #[error("no ready-made hook \"{word}\"; pick a name or number from: {known}, or all")]
    Unknown {
        /// What the user typed.
        word: String,
        /// The names and numbers that exist, for the message.
        known: String,
    },
    /// A rules file or `config/shell_hooks.yaml` could not be written.
    #[error("failed to write {path}: {source}")]
    Io {
        /// The file, as shown to the user.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    #[error(
        "{path}: {why}; nothing was changed there. Add these entries under \"hooks:\" yourself:\n{entries}"
    )]
    /// The new entries would not load in the user's `config/shell_hooks.yaml`; the file was
    /// left as it was and the entries are given for adding by hand.
    Yaml {
        /// The file, as shown to the user.
        path: String,
        /// What would have failed.
        why: String,
        /// The entries to add by hand.
        entries: String,
    },
    /// Approving an installed hook failed.
    #[error(transparent)]
    Approve(#[from] EngineError),
    /// `--pack` names no pack of the guard, or the guards installed have no packs.
    #[error("{why}")]
    Pack {
        /// What is wrong, with the packs there are.
        why: String,
    },
}

/// What [`install`] did, step by step; the command layer (`commands/install.rs`) says it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct InstallReport {
    /// Per guard, in install order, what each step found or did.
    pub guards: Vec<GuardSteps>,
    /// Configuration errors `doctor` found that name one of the guards.
    pub config_errors: Vec<String>,
    /// What became of the master switch.
    pub master: Master,
    /// Problems `doctor` found in the installed hooks (0: all good).
    pub problems: usize,
    /// Whether anything on disk changed.
    pub changed: bool,
}

/// One guard's steps.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GuardSteps {
    /// The guard's name.
    pub guard: &'static str,
    /// Its rules file.
    pub rules: RulesStep,
    /// Its entries in `config/shell_hooks.yaml`.
    pub declared: DeclaredStep,
    /// Its approval.
    pub approved: ApprovedStep,
    /// What `doctor` said of it.
    pub doctor: DoctorStep,
    /// Its answer to its sample event; `None` for a guard without one.
    pub dry_run: Option<DryRun>,
}

/// The rules file step.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RulesStep {
    /// A file was there and was kept; `edited` when it differs from the defaults.
    Kept {
        /// The file, workspace-relative.
        path: String,
        /// Whether it differs from the defaults.
        edited: bool,
    },
    /// The defaults were written.
    Wrote {
        /// The file, workspace-relative.
        path: String,
    },
    /// The file's `enable:` list was set to these packs (the ones it named and the ones
    /// `--pack` added); `wrote_defaults` when the defaults were written first.
    Enabled {
        /// The file, workspace-relative.
        path: String,
        /// Every opt-in pack the file now turns on.
        packs: Vec<String>,
        /// Whether there was no file and the defaults were written.
        wrote_defaults: bool,
    },
}

/// The declaration step.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeclaredStep {
    /// Every event of the guard was declared already.
    Already,
    /// Entries were added for these events (`true`: with a matcher).
    Added(Vec<(&'static str, bool)>),
}

/// The approval step.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovedStep {
    /// Every declared event held an approval without drift.
    Already {
        /// The approval key, `builtin:<name>`.
        key: String,
    },
    /// Approved now, for these events.
    Approved {
        /// The approval key, `builtin:<name>`.
        key: String,
        /// The events approved.
        events: Vec<Event>,
    },
}

/// What `doctor` found of one guard.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DoctorStep {
    /// Every answer usable.
    Usable {
        /// How many sample events it ran on.
        runs: usize,
        /// The slowest run, in milliseconds.
        slowest_ms: f64,
    },
    /// Problems, each said.
    Problems {
        /// How many.
        count: usize,
        /// What each is.
        why: Vec<String>,
    },
}

/// The guard run on its sample event in a scratch workspace.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DryRun {
    /// The guard could not be compiled with its rules.
    NotRun {
        /// Why.
        why: String,
    },
    /// What it answered.
    Answered {
        /// The sample's event.
        event: &'static str,
        /// The sample's input, shortly (`Bash {"command": ...}`).
        shown: String,
        /// The guard's answer.
        answer: serde_json::Value,
    },
}

/// The master switch after an install.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Master {
    /// It was on already.
    #[default]
    AlreadyOn,
    /// The install turned it on.
    TurnedOn,
    /// It is off and was left off (`--no-enable`).
    LeftOff,
}

/// Installs the guards `words` name (names, `help` numbers, or `all`) into `engine`'s workspace.
/// With `enable`, the master switch is turned on too, as the seeds' self-approve flow does, so
/// the hooks run at once; then each guard answers a sample event (a dry run) so the user sees
/// what it does. `packs` are opt-in rule packs to turn on in the rules file of each guard
/// that has them (`security_guard`); a name that is no pack of it is an error and changes
/// nothing.
pub async fn install(
    engine: &Engine,
    words: &[String],
    enable: bool,
    packs: &[String],
) -> Result<InstallReport, InstallError> {
    let guards = select_all(words)?;
    let ws = engine.workspace();
    let mut report = InstallReport::default();
    let packed = with_packs(ws, &guards, packs)?;
    let rules_steps = write_rules(ws, &guards, &packed, &mut report)?;
    let declared_steps = declare(engine, &guards, &mut report)?;
    // The switch as it stands after the declarations; approving does not move it.
    let master_was_on = engine.snapshot().config.master_enabled;
    let approved_steps = approve(engine, &guards, &mut report)?;
    let doctor_steps = check(engine, &guards, &mut report).await;
    let steps = guards
        .iter()
        .zip(rules_steps)
        .zip(declared_steps)
        .zip(approved_steps)
        .zip(doctor_steps);
    for ((((guard, rules), declared), approved), doctor) in steps {
        report.guards.push(GuardSteps {
            guard: guard.name,
            rules,
            declared,
            approved,
            doctor,
            dry_run: dry_run(ws, guard),
        });
    }
    if !master_was_on {
        report.master = switch_master(engine, enable, &mut report)?;
    }
    Ok(report)
}

/// The rules text of each guard `packs` turn packs on in (by guard name), with the packs
/// that text enables: the file there (else the defaults) with its `enable:` list grown by
/// `packs`. Checked here, before anything is written, by loading it as the guard will.
fn with_packs(
    ws: &crate::Workspace,
    guards: &[&'static GuardInfo],
    packs: &[String],
) -> Result<Vec<Packed>, InstallError> {
    let packs: Vec<String> = packs
        .iter()
        .flat_map(|p| p.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    if packs.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for guard in guards.iter().filter(|g| g.name == PACKED_GUARD) {
        let path = rules_path(ws, guard);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => guard.default_rules.to_owned(),
            Err(source) => {
                return Err(InstallError::Io {
                    path: ws.display(&path).into_owned(),
                    source,
                });
            }
        };
        let shown = ws.display(&path).into_owned();
        let bad = |e: agent_hooks_guards::RulesError| InstallError::Pack {
            why: format!("{shown}: {e}"),
        };
        let mut enabled = agent_hooks_guards::rule_packs(Some(&text))
            .map_err(bad)?
            .named;
        for pack in &packs {
            if !enabled.contains(pack) {
                enabled.push(pack.clone());
            }
        }
        let text = set_enable(&text, &enabled);
        let loaded =
            agent_hooks_guards::rule_packs(Some(&text)).map_err(|e| InstallError::Pack {
                why: format!("--pack: {e}"),
            })?;
        out.push((guard.name, text, loaded.enabled));
    }
    if out.is_empty() {
        return Err(InstallError::Pack {
            why: format!("--pack turns on rule packs of {PACKED_GUARD}; install it with them"),
        });
    }
    Ok(out)
}

/// A guard's name, its rules text with the packs turned on, and the packs that text enables.
type Packed = (&'static str, String, Vec<String>);

/// The one guard with opt-in rule packs.
const PACKED_GUARD: &str = "security_guard";

/// `text` with its top-level `enable:` key (and the list lines under it) replaced by
/// `enable: [packs]` where it stands, or that line appended when there is none. The rest of
/// the user's file, comments included, stays as it is.
fn set_enable(text: &str, packs: &[String]) -> String {
    let line = format!("enable: [{}]", packs.join(", "));
    let mut out = String::with_capacity(text.len() + line.len() + 1);
    let mut replaced = false;
    let mut in_old = false;
    for row in text.split_inclusive('\n') {
        if in_old {
            let trimmed = row.trim_start();
            let continues = row.starts_with([' ', '\t']) || trimmed.starts_with("- ");
            if continues && !trimmed.is_empty() {
                continue;
            }
            in_old = false;
        }
        if !replaced && (row.starts_with("enable:") || row.starts_with("enable :")) {
            out.push_str(&line);
            out.push('\n');
            replaced = true;
            in_old = true;
            continue;
        }
        out.push_str(row);
    }
    if !replaced {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\n# Opt-in rule packs (agent-hooks install --pack).\n");
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Step 1, rules files: the defaults, only where there is no file yet; for a guard `--pack`
/// names packs of, the file with its `enable:` list grown.
fn write_rules(
    ws: &crate::Workspace,
    guards: &[&'static GuardInfo],
    packed: &[Packed],
    report: &mut InstallReport,
) -> Result<Vec<RulesStep>, InstallError> {
    let mut rules_steps = Vec::new();
    for guard in guards {
        let path = rules_path(ws, guard);
        let shown = ws.display(&path).into_owned();
        if let Some((_, text, packs)) = packed.iter().find(|(name, _, _)| *name == guard.name) {
            let existed = path.exists();
            let before = std::fs::read_to_string(&path).ok();
            if before.as_deref() != Some(text.as_str()) {
                let io = |source| InstallError::Io {
                    path: shown.clone(),
                    source,
                };
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(io)?;
                }
                store::write_atomic(&path, text.as_bytes()).map_err(io)?;
                report.changed = true;
            }
            rules_steps.push(RulesStep::Enabled {
                path: shown,
                packs: packs.clone(),
                wrote_defaults: !existed,
            });
            continue;
        }
        if path.exists() {
            let edited =
                std::fs::read_to_string(&path).ok().as_deref() != Some(guard.default_rules);
            rules_steps.push(RulesStep::Kept {
                path: shown,
                edited,
            });
            continue;
        }
        let text = guard.default_rules;
        let io = |source| InstallError::Io {
            path: shown.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        store::write_atomic(&path, text.as_bytes()).map_err(io)?;
        report.changed = true;
        rules_steps.push(RulesStep::Wrote { path: shown });
    }
    Ok(rules_steps)
}

/// Step 2, declarations: one entry per event not declared yet, appended in one write.
fn declare(
    engine: &Engine,
    guards: &[&'static GuardInfo],
    report: &mut InstallReport,
) -> Result<Vec<DeclaredStep>, InstallError> {
    let ws = engine.workspace();
    let snapshot = engine.snapshot();
    let mut entries = String::new();
    let mut declared_steps = Vec::new();
    for guard in guards {
        let declared: BTreeSet<Event> = snapshot
            .config
            .hooks
            .iter()
            .filter(|h| h.source == SourceKind::ShellHooks)
            .filter(|h| matches!(&h.transport, TransportSpec::Builtin(s) if s.guard == guard.name))
            .flat_map(|h| h.events.iter().copied())
            .collect();
        let missing: Vec<_> = guard
            .events
            .iter()
            .filter(|e| {
                e.event
                    .parse::<Event>()
                    .is_ok_and(|e| !declared.contains(&e))
            })
            .collect();
        if missing.is_empty() {
            declared_steps.push(DeclaredStep::Already);
            continue;
        }
        // Relative to the workspace, as every path it writes: a copied workspace uses its
        // own rules, and a moved one still finds them.
        let rules = rules_path(ws, guard);
        entries.push_str(&entry_text(
            guard,
            &missing,
            Path::new(&*ws.display(&rules)),
        ));
        declared_steps.push(DeclaredStep::Added(
            missing
                .iter()
                .map(|e| (e.event, e.matcher.is_some()))
                .collect(),
        ));
    }
    if !entries.is_empty() {
        append_to_shell_hooks(engine, &entries)?;
        report.changed = true;
    }
    Ok(declared_steps)
}

/// Step 3, approvals of `builtin:<name>`, unless every event already holds one without drift.
fn approve(
    engine: &Engine,
    guards: &[&'static GuardInfo],
    report: &mut InstallReport,
) -> Result<Vec<ApprovedStep>, InstallError> {
    let snapshot = engine.snapshot();
    let drift = DriftChecker::default();
    let mut approved_steps = Vec::new();
    for guard in guards {
        let key = approval_key(guard);
        let pairs: Vec<(Event, &crate::hook::Hook)> = snapshot
            .config
            .hooks_with_key(&key)
            .flat_map(|h| h.events.iter().map(move |e| (*e, h.as_ref())))
            .collect();
        if !pairs.is_empty()
            && pairs.iter().all(|(e, h)| {
                matches!(
                    drift.check(&snapshot.approvals, *e, h),
                    Verdict::Approved(_)
                )
            })
        {
            approved_steps.push(ApprovedStep::Already { key });
            continue;
        }
        let events = engine.approve(None, &key)?;
        report.changed = true;
        approved_steps.push(ApprovedStep::Approved { key, events });
    }
    Ok(approved_steps)
}

/// Step 4, `doctor` on the hooks just installed: what it says of each guard, and the
/// configuration errors that name one.
async fn check(
    engine: &Engine,
    guards: &[&'static GuardInfo],
    report: &mut InstallReport,
) -> Vec<DoctorStep> {
    let doctor = crate::inspect::doctor::run(engine).await;
    let mut doctor_steps = Vec::new();
    for guard in guards {
        let key = approval_key(guard);
        let checks: Vec<_> = doctor
            .hooks
            .iter()
            .filter(|c| c.health.approval_key.as_deref() == Some(key.as_str()))
            .collect();
        let problems: usize = checks.iter().map(|c| c.problems()).sum();
        let runs: Vec<_> = checks.iter().flat_map(|c| c.runs.iter()).collect();
        let slowest = runs.iter().map(|r| r.ms).fold(0.0_f64, f64::max);
        report.problems += problems;
        if problems == 0 {
            doctor_steps.push(DoctorStep::Usable {
                runs: runs.len(),
                slowest_ms: slowest,
            });
        } else {
            let why: Vec<String> = checks
                .iter()
                .flat_map(|c| {
                    c.health
                        .why
                        .iter()
                        .cloned()
                        .chain(c.runs.iter().filter_map(|r| r.problem.clone()))
                })
                .collect();
            doctor_steps.push(DoctorStep::Problems {
                count: problems,
                why,
            });
        }
    }
    for error in doctor
        .files
        .iter()
        .flat_map(|f| f.errors.iter())
        .filter(|e| guards.iter().any(|g| e.message.contains(g.name)))
    {
        report.problems += 1;
        report.config_errors.push(error.message.clone());
    }
    doctor_steps
}

/// The master switch, found off: turned on with `enable` (so the hooks run at once), else left
/// off.
fn switch_master(
    engine: &Engine,
    enable: bool,
    report: &mut InstallReport,
) -> Result<Master, InstallError> {
    if !enable {
        return Ok(Master::LeftOff);
    }
    engine.set_master(true)?;
    report.changed = true;
    Ok(Master::TurnedOn)
}

/// Runs the guard, with the rules file it was installed with, on its sample event in a
/// scratch workspace with state in memory (nothing of the user's is read or written), and
/// says what it answered.
fn dry_run(ws: &crate::Workspace, guard: &GuardInfo) -> Option<DryRun> {
    let steps: Vec<(&'static str, serde_json::Value)> = guard
        .sample
        .iter()
        .map(|s| (s.event, serde_json::from_str(s.payload).unwrap_or_default()))
        .collect();
    let (event, payload) = steps.last()?;
    let rules = rules_path(ws, guard);
    let guard_fn = match agent_hooks_transports::builtin::compile(guard.name, Some(&rules)) {
        Ok((g, _)) => g,
        Err(e) => {
            return Some(DryRun::NotRun { why: e.to_string() });
        }
    };
    let scratch = std::env::temp_dir().join(format!(
        "agent-hooks-dry-run-{}-{}",
        std::process::id(),
        guard.name
    ));
    let mut ctx = agent_hooks_guards::GuardContext::in_memory(&scratch);
    let mut answer = serde_json::Value::Null;
    for (event, payload) in &steps {
        let mut payload = payload.clone();
        payload["session_id"] = "install-dry-run".into();
        answer = guard_fn.evaluate(event, &payload, &mut ctx);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let shown = match payload.get("tool_input") {
        Some(input) => format!("{} {input}", payload["tool_name"].as_str().unwrap_or("")),
        None => ["response", "model"]
            .iter()
            .find_map(|k| payload.get(*k).map(|v| format!("{k}: {v}")))
            .unwrap_or_default(),
    };
    Some(DryRun::Answered {
        event,
        shown,
        answer,
    })
}

fn select_all(words: &[String]) -> Result<Vec<&'static GuardInfo>, InstallError> {
    let mut out: Vec<&'static GuardInfo> = Vec::new();
    for word in words {
        let picked: Vec<&'static GuardInfo> = if word == "all" {
            super::GUARDS.iter().collect()
        } else {
            vec![super::select(word).ok_or_else(|| InstallError::Unknown {
                word: word.clone(),
                known: super::names().join(", "),
            })?]
        };
        for guard in picked {
            if !out.iter().any(|g| g.name == guard.name) {
                out.push(guard);
            }
        }
    }
    Ok(out)
}

fn approval_key(guard: &GuardInfo) -> String {
    format!("{APPROVAL_PREFIX}{}", guard.name)
}

fn rules_path(ws: &crate::Workspace, guard: &GuardInfo) -> std::path::PathBuf {
    ws.hooks_dir().join(format!("{}.yaml", guard.name))
}

/// The YAML entries of one guard, at two spaces (re-indented when the file uses another).
fn entry_text(
    guard: &GuardInfo,
    events: &[&agent_hooks_guards::GuardEvent],
    rules: &Path,
) -> String {
    let mut text = format!(
        "# {}: added by `agent-hooks install`; tune it in {}\n",
        guard.name,
        rules.display()
    );
    for event in events {
        text.push_str(&format!("- event: {}\n", event.event));
        text.push_str("  type: builtin\n");
        text.push_str(&format!("  name: {}\n", guard.name));
        text.push_str(&format!("  rules: {}\n", quoted(&rules.to_string_lossy())));
        if let Some(matcher) = event.matcher {
            text.push_str(&format!("  matcher: {}\n", quoted(matcher)));
        }
    }
    text
}

/// A YAML single-quoted scalar: backslashes stay literal, a quote is doubled.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Appends `entries` to the `hooks:` list of `config/shell_hooks.yaml`, then reloads. If the
/// result would not load the way it should, the old file is put back and nothing changes.
fn append_to_shell_hooks(engine: &Engine, entries: &str) -> Result<(), InstallError> {
    let ws = engine.workspace();
    let path = ws.shell_hooks_yaml();
    let shown = ws.display(&path).into_owned();
    let io = |source| InstallError::Io {
        path: shown.clone(),
        source,
    };
    let old = store::read_optional(&path).map_err(io)?;
    let yaml_error = |why: String| InstallError::Yaml {
        path: shown.clone(),
        why,
        entries: indent(entries, "  "),
    };
    let before = engine.snapshot();
    let was_broken = before.config.files.iter().any(|f| {
        f.path == path && matches!(f.state, FileState::Broken | FileState::BrokenKeptPrevious)
    });
    if was_broken {
        return Err(yaml_error("it does not parse now".into()));
    }
    let new = append_entries(old.as_deref(), entries).map_err(yaml_error)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    store::write_atomic(&path, new.as_bytes()).map_err(io)?;
    engine.reload();
    let after = engine.snapshot();
    let count = |s: &crate::Snapshot| {
        s.config
            .files
            .iter()
            .filter(|f| f.path == path)
            .map(|f| f.hooks.len() + f.errors.len())
            .sum::<usize>()
    };
    let added = entries.lines().filter(|l| l.starts_with("- ")).count();
    let broken = after
        .config
        .files
        .iter()
        .any(|f| f.path == path && f.state != FileState::Loaded);
    if broken || count(&after) < count(&before) + added {
        let restored = match &old {
            Some(text) => store::write_atomic(&path, text.as_bytes()),
            None => std::fs::remove_file(&path),
        };
        restored.map_err(io)?;
        engine.reload();
        return Err(yaml_error(
            "appending to its \"hooks:\" list would not load as intended".into(),
        ));
    }
    Ok(())
}

/// The text of `old` with `entries` (list items at column 0) added at the end of its top-level
/// `hooks:` list, indented like the items already there.
fn append_entries(old: Option<&str>, entries: &str) -> Result<String, String> {
    let old = old.unwrap_or("");
    if old.trim().is_empty() {
        return Ok(format!("{old}hooks:\n{}", indent(entries, "  ")));
    }
    let lines: Vec<&str> = old.lines().collect();
    let is_top_key = |line: &str| {
        !line.is_empty() && !line.starts_with([' ', '\t', '#', '-']) && !line.starts_with("---")
    };
    let Some(start) = lines.iter().position(|l| {
        l.strip_prefix("hooks:").is_some_and(|rest| {
            let rest = rest.split('#').next().unwrap_or("").trim();
            matches!(rest, "" | "[]" | "~" | "null")
        })
    }) else {
        if lines
            .iter()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            let sep = if old.ends_with('\n') { "" } else { "\n" };
            return Ok(format!("{old}{sep}hooks:\n{}", indent(entries, "  ")));
        }
        return Err("it has no top-level \"hooks:\" list in block style".into());
    };
    // The list ends at the next top-level key; entries go after its last item line.
    let end = lines[start + 1..]
        .iter()
        .position(|l| is_top_key(l))
        .map_or(lines.len(), |p| start + 1 + p);
    let last = (start + 1..end)
        .rev()
        .find(|&i| {
            let l = lines[i];
            !l.trim().is_empty() && !l.starts_with('#')
        })
        .unwrap_or(start);
    let item_indent: String = lines[start + 1..end]
        .iter()
        .find_map(|l| {
            let trimmed = l.trim_start_matches(' ');
            trimmed
                .starts_with("- ")
                .then(|| " ".repeat(l.len() - trimmed.len()))
        })
        .unwrap_or_else(|| "  ".to_owned());
    let mut out = String::with_capacity(old.len() + entries.len() * 2);
    for (i, line) in lines.iter().enumerate() {
        if i == start {
            out.push_str("hooks:");
            if let Some((_, comment)) = line.split_once('#') {
                out.push_str(" #");
                out.push_str(comment);
            }
        } else {
            out.push_str(line);
        }
        out.push('\n');
        if i == last {
            if last > start {
                out.push('\n');
            }
            out.push_str(&indent(entries, &item_indent));
        }
    }
    Ok(out)
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str = "- event: on_stop\n  type: builtin\n  name: budget_alert\n";

    #[test]
    fn a_missing_file_gets_a_hooks_list() {
        assert_eq!(
            append_entries(None, ENTRY).ok().as_deref(),
            Some("hooks:\n  - event: on_stop\n    type: builtin\n    name: budget_alert\n")
        );
    }

    #[test]
    fn entries_go_after_the_last_item_and_keep_comments_and_other_keys() {
        let old = "# mine\nhooks:   # the list\n    - event: on_stop\n      command: /x  # keep\n\n# trailing note\nother: 1\n";
        let new = append_entries(Some(old), ENTRY).unwrap_or_default();
        assert_eq!(
            new,
            "# mine\nhooks: # the list\n    - event: on_stop\n      command: /x  # keep\n\n    - event: on_stop\n      type: builtin\n      name: budget_alert\n\n# trailing note\nother: 1\n"
        );
    }

    #[test]
    fn an_empty_flow_list_becomes_a_block_list() {
        let new = append_entries(Some("hooks: []\n"), ENTRY).unwrap_or_default();
        assert!(new.starts_with("hooks:\n  - event: on_stop\n"), "{new}");
    }

    #[test]
    fn a_flow_list_with_items_is_refused() {
        assert!(append_entries(Some("hooks: [{event: on_stop, command: /x}]\n"), ENTRY).is_err());
    }

    #[test]
    fn numbers_names_and_all_select_guards() {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let picked =
            select_all(&words(&["1", "security_guard", "budget_alert"])).unwrap_or_default();
        assert_eq!(
            picked.iter().map(|g| g.name).collect::<Vec<_>>(),
            ["security_guard", "budget_alert"]
        );
        assert_eq!(select_all(&words(&["all"])).map(|v| v.len()).ok(), Some(9));
        assert!(select_all(&words(&["10"])).is_err());
        assert!(select_all(&words(&["nope"])).is_err());
    }

    #[test]
    fn set_enable_replaces_the_list_where_it_stands_and_keeps_the_rest() {
        let packs = vec!["strict".to_owned(), "database".to_owned()];
        let flow = "# mine\nshell_tools: [bash]\nenable: []\nanswers: {}\n";
        assert_eq!(
            set_enable(flow, &packs),
            "# mine\nshell_tools: [bash]\nenable: [strict, database]\nanswers: {}\n"
        );
        let block = "enable:\n  - strict\n- cloud\n# after\nanswers: {}\n";
        assert_eq!(
            set_enable(block, &packs),
            "enable: [strict, database]\n# after\nanswers: {}\n"
        );
        let missing = "shell_tools: [bash]";
        assert_eq!(
            set_enable(missing, &packs),
            "shell_tools: [bash]\n\n# Opt-in rule packs (agent-hooks install --pack).\nenable: [strict, database]\n"
        );
        // A key that only starts with the word is not the list.
        assert!(set_enable("enabled_tools: [x]\n", &packs).starts_with("enabled_tools: [x]\n"));
    }
}
