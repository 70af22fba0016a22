//! Starchild's five template selftests (`agent-hooks/templates/*_selftest.py` of its official
//! skills) as data: `tests/cases/starchild/<guard>.json`, one table per template, written from
//! the behaviours those selftests check. Two runners share this file: the in-crate one
//! (`tests/starchild.rs`, `Guard::evaluate`) and the CLI one (`agent-hooks guard <name>`).
//!
//! A table: `{guard, selftest, selftest_cases, cases}`. A case: `{name, selftest, event,
//! payload | stdin, before?, files?, rules?, credit?, advance?, mapped?, differs?, template?,
//! expect}`.
//! - `selftest` is the label of the selftest case it ports; one label may take several
//!   entries (a loop cap checked call by call). `selftest_cases` is how many labels there are.
//! - `before` lists earlier steps of the same session, each with an optional `expect`.
//! - `files` are written into the workspace; `{now}` in them is the current Unix time.
//! - `rules` is a rules file (YAML); `{credit_url}` in it is the credit stub's address, which
//!   answers `{"credit_balance": 271.64}` when `credit` is `"ok"` and refuses when `"down"`.
//! - `stdin` is raw input, for the fail-open cases (only the command reads raw input).
//! - `mapped` says how a setting the template reads from its environment or its own source
//!   is given here (the built-ins read their rules file).
//! - `differs` is why the built-in deliberately answers otherwise; `expect` is then the
//!   built-in's answer and `template` the template's. `README.md` lists each such case.
//! - `expect`: `verdict` (what a host does with the answer: `block`, `rewrite`, `warn`,
//!   `context` or `continue`), `contains` / `not_contains` (a string or a list, over the
//!   answer's strings), and `starts_with` / `ends_with` / `equals` on the field `of` (default
//!   `response`), its trailing whitespace trimmed.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The share of a selftest's cases the built-in must answer as the template does.
pub(crate) const REQUIRED_SHARE: f64 = 0.95;

/// The body the credit stub answers with.
pub(crate) const CREDIT_BODY: &str = r#"{"credit_balance": 271.64}"#;

pub(crate) struct Table {
    pub(crate) guard: String,
    pub(crate) selftest_cases: usize,
    pub(crate) cases: Vec<Value>,
}

pub(crate) fn tables() -> Vec<Table> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/starchild");
    let dir = if dir.is_dir() {
        dir
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent-hooks-guards/tests/cases/starchild")
    };
    let mut tables = Vec::new();
    for guard in [
        "security_guard",
        "verify_publish_claims",
        "verify_code_changes",
        "verify_commitments",
        "runtime_footer",
    ] {
        let path = dir.join(format!("{guard}.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let table: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()));
        assert_eq!(table["guard"], guard, "{}", path.display());
        tables.push(Table {
            guard: guard.to_owned(),
            selftest_cases: table["selftest_cases"].as_u64().unwrap_or(0) as usize,
            cases: table["cases"].as_array().cloned().unwrap_or_default(),
        });
    }
    tables
}

pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Writes the case's files under `root`, `{now}` replaced.
pub(crate) fn write_files(case: &Value, root: &Path) {
    let now = now().to_string();
    for (path, content) in case["files"].as_object().into_iter().flatten() {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a directory");
        }
        let content = content.as_str().unwrap_or_default().replace("{now}", &now);
        std::fs::write(&path, content).expect("write a case file");
    }
}

/// The case's rules file, `{credit_url}` replaced.
pub(crate) fn rules(case: &Value, credit_url: &str) -> Option<String> {
    case["rules"]
        .as_str()
        .map(|yaml| yaml.replace("{credit_url}", credit_url))
}

/// Every step of a case, the checked one last: (event, payload, expect).
pub(crate) fn steps(case: &Value) -> Vec<(String, Value, Value)> {
    let session = Value::String(format!(
        "starchild-{}",
        case["name"].as_str().unwrap_or("?")
    ));
    let step = |s: &Value, expect: &Value| {
        let mut payload = s["payload"].clone();
        if let Some(map) = payload.as_object_mut() {
            map.entry("session_id").or_insert_with(|| session.clone());
        }
        (
            s["event"].as_str().unwrap_or_default().to_owned(),
            payload,
            expect.clone(),
        )
    };
    let mut steps: Vec<_> = case["before"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| step(s, &s["expect"]))
        .collect();
    steps.push(step(case, &case["expect"]));
    steps
}

/// What a host does with a guard's answer.
pub(crate) fn verdict(answer: &Value) -> &'static str {
    if answer["decision"] == "block" {
        "block"
    } else if ["response", "notification", "tool_input", "message"]
        .iter()
        .any(|k| answer.get(*k).is_some())
    {
        "rewrite"
    } else if answer.get("add_warning").is_some() {
        "warn"
    } else if answer.get("context").is_some() {
        "context"
    } else {
        "continue"
    }
}

fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn needles(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Checks one answer against one `expect`.
pub(crate) fn check(expect: &Value, answer: &Value) -> Result<(), String> {
    if expect.is_null() {
        return Ok(());
    }
    if let Some(want) = expect["verdict"].as_str() {
        let got = verdict(answer);
        if got != want {
            return Err(format!("expected {want}, got {got}"));
        }
    }
    let mut text = String::new();
    strings(answer, &mut text);
    for needle in needles(&expect["contains"]) {
        if !text.contains(needle) {
            return Err(format!("expected the answer to contain {needle:?}"));
        }
    }
    for needle in needles(&expect["not_contains"]) {
        if text.contains(needle) {
            return Err(format!("expected the answer not to contain {needle:?}"));
        }
    }
    let of = expect["of"].as_str().unwrap_or("response");
    let field = answer[of].as_str().map(str::trim_end);
    type Holds = fn(&str, &str) -> bool;
    let checks: [(&str, Holds); 3] = [
        ("starts_with", |f, n| f.starts_with(n)),
        ("ends_with", |f, n| f.ends_with(n)),
        ("equals", |f, n| f.trim() == n),
    ];
    for (key, holds) in checks {
        if let Some(needle) = expect[key].as_str() {
            match field {
                Some(f) if holds(f, needle) => {}
                Some(f) => return Err(format!("expected {of} to satisfy {key} {needle:?}: {f:?}")),
                None => return Err(format!("expected a {of} field")),
            }
        }
    }
    Ok(())
}

/// The selftest labels of a table, those ported whole and those that differ, checked against
/// the declared count, the required share, and the README's list of differences.
pub(crate) fn score(table: &Table) -> Result<String, String> {
    let mut labels: Vec<&str> = Vec::new();
    let mut differing: Vec<&str> = Vec::new();
    for case in &table.cases {
        let label = case["selftest"].as_str().ok_or("a case without selftest")?;
        if !labels.contains(&label) {
            labels.push(label);
        }
        if case.get("differs").is_some() && !differing.contains(&label) {
            if case.get("template").is_none() {
                return Err(format!("{label}: differs without the template's answer"));
            }
            differing.push(label);
        }
    }
    if labels.len() != table.selftest_cases {
        return Err(format!(
            "{}: {} selftest cases ported, the selftest has {}",
            table.guard,
            labels.len(),
            table.selftest_cases
        ));
    }
    let share = (labels.len() - differing.len()) as f64 / labels.len() as f64;
    if share < REQUIRED_SHARE {
        return Err(format!(
            "{}: {:.1}% of the selftest as the template answers it, want {:.0}%",
            table.guard,
            share * 100.0,
            REQUIRED_SHARE * 100.0
        ));
    }
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme_path = if readme_path.ends_with("agent-hooks-guards/README.md") {
        readme_path
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent-hooks-guards/README.md")
    };
    let readme = std::fs::read_to_string(&readme_path).unwrap_or_default();
    for label in &differing {
        if !readme.contains(&format!("`{label}`")) {
            return Err(format!(
                "{}: the difference in `{label}` is not listed in {}",
                table.guard,
                readme_path.display()
            ));
        }
    }
    Ok(format!(
        "{}: {}/{} selftest cases as the template answers them ({:.1}%)",
        table.guard,
        labels.len() - differing.len(),
        labels.len(),
        share * 100.0
    ))
}
