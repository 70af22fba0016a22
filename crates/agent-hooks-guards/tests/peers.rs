//! Published accuracy: replays the peer guards' own default-mode test cases (facts converted
//! into `tests/peers/*.jsonl` by `benches/peers/convert.py`) through `security_guard` exactly
//! as a shell tool's `pre_tool_call` reaches it, and prints agreement per peer and per rule
//! pack: the default rules, the default rules with `strict`, and with each other opt-in pack.
//!
//! `cargo test -p agent-hooks-guards --test peers -- [--verbose] [--markdown] [--rules FILE]`
//! (`--rules`: that rules file alone). Disagreements are measured, not failures; a missing,
//! empty or malformed data file is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_hooks_guards::{Guard, GuardContext};
use serde_json::{Value, json};

/// The peers, in the order the table lists them, with their data file's stem.
const PEERS: [&str; 3] = [
    "claude-code-safety-net",
    "destructive_command_guard",
    "AI-Agentic-Shield",
];

/// What a peer's case expects: the verdicts its suite asserts in its default mode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Block,
    Allow,
    Ask,
    /// AI-Agentic-Shield's AUDIT: the command runs and is flagged for review.
    Audit,
    /// A stated minimum of AUDIT: a flag or a block both satisfy the peer.
    AtLeastAudit,
}

/// What `security_guard` answered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ours {
    Block,
    Ask,
    /// Allowed, possibly with a warning added for the agent.
    Allow,
}

struct Case {
    line: usize,
    id: String,
    command: String,
    expect: Expect,
}

fn load(path: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read the data file: {e}", path.display()))?;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| format!("{}:{line_no}: {why}", path.display());
        let row: Value =
            serde_json::from_str(line).map_err(|e| bad(&format!("not a JSON object: {e}")))?;
        let field = |key: &str| {
            row.get(key)
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&format!("missing string field {key:?}")))
        };
        let minimum = match row.get("minimum") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad("field \"minimum\" is not a boolean")),
        };
        let expect = match (field("expect")?, minimum) {
            ("block", _) => Expect::Block,
            ("allow", false) => Expect::Allow,
            ("ask", false) => Expect::Ask,
            ("audit", false) => Expect::Audit,
            ("audit", true) => Expect::AtLeastAudit,
            (other, _) => return Err(bad(&format!("unknown verdict {other:?}"))),
        };
        field("file")?;
        cases.push(Case {
            line: line_no,
            id: field("id")?.to_owned(),
            command: field("command")?.to_owned(),
            expect,
        });
    }
    if cases.is_empty() {
        return Err(format!("{}: no cases", path.display()));
    }
    Ok(cases)
}

fn verdict(guard: &Guard, ctx: &mut GuardContext, workspace: &Path, command: &str) -> Ours {
    let payload = json!({
        "event": "pre_tool_call",
        "session_id": "peers",
        "cwd": workspace.to_string_lossy(),
        "tool_name": "bash",
        "tool_input": {"command": command},
    });
    let answer = guard.evaluate("pre_tool_call", &payload, ctx);
    match answer.get("decision").and_then(Value::as_str) {
        Some("block") => Ours::Block,
        Some("ask") => Ours::Ask,
        _ => Ours::Allow,
    }
}

/// A coarse family for a missed command, so the misses show which kinds of rules are absent.
/// First match wins; the order puts the more specific shapes first.
fn family(command: &str) -> &'static str {
    let c = command.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| c.contains(w));
    let word = |w: &str| {
        c.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' || ch == '.'))
            .any(|t| t == w || t.rsplit('/').next() == Some(w))
    };
    let interpreter = [
        "python", "python3", "node", "ruby", "perl", "php", "deno", "bun",
    ]
    .iter()
    .any(|w| word(w));
    if word("find") && has(&["-delete", "-exec", "-ok "]) {
        "find -delete/-exec"
    } else if word("xargs") || word("parallel") {
        "xargs/parallel"
    } else if has(&["curl", "wget"])
        && (has(&[
            "| sh", "|sh", "| bash", "|bash", "| zsh", "| python", "| sudo",
        ]) || has(&["<(curl", "<(wget", "$(curl", "$(wget"])
            || has(&["&& bash ", "&& sh ", "chmod +x"]))
    {
        "curl|bash"
    } else if has(&["base64 -d", "base64 --decode", "xxd -r"]) && has(&["| sh", "| bash"]) {
        "encoded payload to a shell"
    } else if interpreter && has(&[" -c", " -e", "<<"]) {
        "interpreter one-liners"
    } else if word("rm")
        && has(&[" -r", " -f", "--recursive"])
        && has(&[" /", " ~", "$home", " ..", "${home}"])
    {
        "rm outside project"
    } else if has(&[
        ".ssh/",
        "id_rsa",
        "id_ed25519",
        ".aws/",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".kube/config",
        ".gnupg",
        "/etc/shadow",
        ".env",
        "credentials",
        "keychain",
    ]) {
        "credential reads"
    } else if word("dig") || word("nslookup") || word("drill") || word("host") {
        "DNS tunnelling"
    } else if has(&[
        "--index-url",
        "--extra-index-url",
        "--trusted-host",
        "--registry",
        "--source http",
        "git+http",
    ]) {
        "untrusted registries"
    } else if (word("curl") || word("wget"))
        && has(&[
            " -f ",
            " -d @",
            "--data @",
            "--upload-file",
            " -t ",
            "-x post",
            "--post-file",
        ])
    {
        "upload (data off the machine)"
    } else if has(&[
        "crontab",
        "/etc/cron",
        "cron.d",
        "anacron",
        "systemctl enable",
        "launchctl",
    ]) {
        "cron persistence"
    } else {
        "other"
    }
}

#[derive(Default)]
struct Tally {
    cases: usize,
    agree: usize,
    block_cases: usize,
    /// Block cases we stop only by asking.
    block_by_ask: usize,
    misses: usize,
    allow_cases: usize,
    false_block: usize,
    false_ask: usize,
    audit_cases: usize,
    audit_blocked: usize,
    ask_cases: usize,
    families: BTreeMap<&'static str, usize>,
    disagreements: Vec<String>,
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / of as f64)
    }
}

fn measure(guard: &Guard, workspace: &Path, cases: &[Case]) -> Tally {
    let mut ctx = GuardContext::in_memory(workspace);
    let mut t = Tally {
        cases: cases.len(),
        ..Tally::default()
    };
    for case in cases {
        let ours = verdict(guard, &mut ctx, workspace, &case.command);
        let agrees = match case.expect {
            Expect::Block => {
                t.block_cases += 1;
                match ours {
                    Ours::Block => true,
                    Ours::Ask => {
                        t.block_by_ask += 1;
                        true
                    }
                    Ours::Allow => {
                        t.misses += 1;
                        *t.families.entry(family(&case.command)).or_default() += 1;
                        false
                    }
                }
            }
            Expect::Allow => {
                t.allow_cases += 1;
                match ours {
                    Ours::Allow => true,
                    Ours::Block => {
                        t.false_block += 1;
                        false
                    }
                    Ours::Ask => {
                        t.false_ask += 1;
                        false
                    }
                }
            }
            Expect::Ask => {
                t.ask_cases += 1;
                ours == Ours::Ask
            }
            Expect::Audit => {
                t.audit_cases += 1;
                if ours == Ours::Block {
                    t.audit_blocked += 1;
                }
                ours != Ours::Block
            }
            Expect::AtLeastAudit => {
                t.audit_cases += 1;
                true
            }
        };
        if agrees {
            t.agree += 1;
        } else {
            let want = match case.expect {
                Expect::Block => "block",
                Expect::Allow => "allow",
                Expect::Ask => "ask",
                Expect::Audit | Expect::AtLeastAudit => "audit",
            };
            t.disagreements.push(format!(
                "  line {}: peer {want}, ours {:?} [{}] {:?}",
                case.line, ours, case.id, case.command
            ));
        }
    }
    t
}

fn print_table(rows: &[(String, &str, Tally)], markdown: bool) {
    let header = [
        "rules",
        "peer",
        "cases",
        "agreement",
        "false blocks (block + ask) on allow cases",
        "misses on block cases",
        "block cases stopped by ask",
        "audit cases blocked",
    ];
    let cells = |rules: &str, name: &str, t: &Tally| {
        [
            rules.to_owned(),
            name.to_owned(),
            t.cases.to_string(),
            format!("{} ({}/{})", pct(t.agree, t.cases), t.agree, t.cases),
            format!(
                "{} + {} of {} ({})",
                t.false_block,
                t.false_ask,
                t.allow_cases,
                pct(t.false_block + t.false_ask, t.allow_cases)
            ),
            format!(
                "{} of {} ({})",
                t.misses,
                t.block_cases,
                pct(t.misses, t.block_cases)
            ),
            t.block_by_ask.to_string(),
            if t.audit_cases == 0 {
                "-".into()
            } else {
                format!("{} of {}", t.audit_blocked, t.audit_cases)
            },
        ]
    };
    if markdown {
        println!("| {} |", header.join(" | "));
        println!("|{}", "---|".repeat(header.len()));
        for (rules, name, t) in rows {
            println!("| {} |", cells(rules, name, t).join(" | "));
        }
    } else {
        for (rules, name, t) in rows {
            let c = cells(rules, name, t);
            println!("{rules}: {name}");
            for (h, v) in header.iter().zip(c.iter()).skip(2) {
                println!("  {h:<42} {v}");
            }
        }
    }
}

fn run() -> Result<(), String> {
    let mut verbose = false;
    let mut markdown = false;
    let mut rules_file: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--verbose" | "-v" => verbose = true,
            "--markdown" => markdown = true,
            "--rules" => {
                rules_file = Some(args.next().ok_or("--rules needs a file")?.into());
            }
            // Whatever a test runner passes along (filters, --nocapture) does not apply here.
            _ => {}
        }
    }
    let configs: Vec<(String, Option<String>)> = match &rules_file {
        Some(path) => vec![(
            path.display().to_string(),
            Some(
                std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: cannot read rules: {e}", path.display()))?,
            ),
        )],
        None => {
            let packs = agent_hooks_guards::rule_packs(None)
                .map_err(|e| format!("security_guard rules: {e}"))?;
            let mut configs = vec![("default".to_owned(), None)];
            // strict first: it is the pack the published figures are for.
            let mut opt_in = packs.available.clone();
            opt_in.sort_by_key(|p| p != "strict");
            for pack in opt_in {
                configs.push((
                    format!("default + {pack}"),
                    Some(format!("enable: [{pack}]")),
                ));
            }
            configs
        }
    };
    let dir = tempfile::Builder::new()
        .prefix("peers-project")
        .tempdir()
        .map_err(|e| format!("cannot make a project directory: {e}"))?;
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let mut peers = Vec::new();
    for peer in PEERS {
        peers.push((peer, load(&data.join(format!("{peer}.jsonl")))?));
    }
    let mut rows = Vec::new();
    for (name, rules) in &configs {
        let guard = Guard::new("security_guard", rules.as_deref())
            .map_err(|e| format!("security_guard rules ({name}): {e}"))?;
        for (peer, cases) in &peers {
            rows.push((name.clone(), *peer, measure(&guard, dir.path(), cases)));
        }
    }
    println!("security_guard against the peers' default-mode test cases, per rule pack\n");
    print_table(&rows, markdown);
    println!("\nmisses by family:");
    for (rules, peer, t) in rows.iter().take(2 * PEERS.len()) {
        let mut families: Vec<_> = t.families.iter().collect();
        families.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = families.iter().map(|(f, n)| format!("{f} {n}")).collect();
        println!(
            "  {rules}, {peer}: {}",
            if list.is_empty() {
                "none".into()
            } else {
                list.join(", ")
            }
        );
    }
    if verbose {
        for (rules, peer, t) in rows.iter().take(2 * PEERS.len()) {
            println!("\n{rules}, {peer}: {} disagreements", t.disagreements.len());
            for line in &t.disagreements {
                println!("{line}");
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("peers: {why}");
            ExitCode::FAILURE
        }
    }
}
