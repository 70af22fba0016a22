//! Every fenced code block of `README.md` and of each file under `docs/` says how it is
//! checked, in its info string: `runnable` (run here), `tested-by=<file>` (another test, which
//! reads that doc, checks it), or `fragment` (not runnable as it stands: it needs your paths, a
//! server, an agent). Here, a `sh runnable` block runs with `sh -e` in an empty directory, with
//! the binary under test first on `PATH`, and must exit 0; a `yaml runnable` block whose first
//! line names a file (`# config/shell_hooks.yaml`) is written there in an empty workspace, and
//! `list --json` must load it without an error or a warning. What the docs name must exist: an
//! `AGENT_HOOKS_*` variable is read by some code, and `cargo install` is `--locked`. The
//! markers are described in `docs/README.md`.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::BIN;

/// One marked block: where it is, its language and its text.
struct Block {
    place: String,
    lang: String,
    text: String,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and every Markdown file under docs/ (at any depth), in a stable order.
fn doc_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir)
            .expect("read a docs directory")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path);
            }
        }
    }
    let mut docs = Vec::new();
    walk(&repo().join("docs"), &mut docs);
    docs.sort();
    let mut files = vec![repo().join("README.md")];
    files.extend(docs);
    files
}

/// Every fenced block of every doc, with its info string split into `lang` and the rest.
fn all_blocks() -> Vec<(Block, Vec<String>)> {
    let mut blocks = Vec::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).expect("read a doc");
        let name = file
            .strip_prefix(repo())
            .unwrap_or(&file)
            .display()
            .to_string();
        let mut open: Option<(usize, Vec<String>, String)> = None;
        for (n, line) in text.lines().enumerate() {
            match &mut open {
                None => {
                    if let Some(info) = line.strip_prefix("```") {
                        let words = info.split_whitespace().map(str::to_owned).collect();
                        open = Some((n + 1, words, String::new()));
                    }
                }
                Some((start, words, body)) => {
                    if line.starts_with("```") {
                        let words = std::mem::take(words);
                        blocks.push((
                            Block {
                                place: format!("{name}:{start}"),
                                lang: words.first().cloned().unwrap_or_default(),
                                text: std::mem::take(body),
                            },
                            words,
                        ));
                        open = None;
                    } else {
                        body.push_str(line);
                        body.push('\n');
                    }
                }
            }
        }
        assert!(open.is_none(), "{name}: a code block is not closed");
    }
    blocks
}

fn runnable_blocks() -> Vec<Block> {
    all_blocks()
        .into_iter()
        .filter(|(_, words)| words.iter().any(|w| w == "runnable"))
        .map(|(block, _)| block)
        .collect()
}

fn path_with_the_binary() -> String {
    let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", bin_dir.display())
}

fn run_sh(block: &Block) -> String {
    let dir = tempfile::tempdir().expect("a directory to run in");
    let out = Command::new("sh")
        .arg("-e")
        .arg("-c")
        .arg(&block.text)
        .current_dir(dir.path())
        .env("PATH", path_with_the_binary())
        .env("HOME", dir.path())
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .env_remove("AGENT_HOOKS_LOG")
        .output()
        .expect("run sh");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{} exited {:?}:\n{}\n--- output ---\n{said}",
        block.place,
        out.status.code(),
        block.text
    );
    said
}

fn load_yaml(block: &Block) {
    let first = block.text.lines().next().unwrap_or_default();
    let file = first
        .strip_prefix("# ")
        .map(str::trim)
        .unwrap_or_else(|| panic!("{}: the first line must be `# <file>`", block.place));
    let ws = tempfile::tempdir().expect("a workspace");
    let path = ws.path().join(file);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the directory");
    std::fs::write(&path, &block.text).expect("write the example");
    let out = Command::new(BIN)
        .arg("--workspace")
        .arg(ws.path())
        .args(["list", "--json"])
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .output()
        .expect("run agent-hooks list");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: list --json printed no JSON ({e}): {}",
            block.place,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let entry = report["files"]
        .as_array()
        .and_then(|files| files.iter().find(|f| f["file"] == file))
        .unwrap_or_else(|| panic!("{}: list does not read {file}: {report:#}", block.place));
    assert_eq!(entry["state"], "loaded", "{}: {entry:#}", block.place);
    assert_eq!(entry["errors"], Value::Array(vec![]), "{}", block.place);
    assert_eq!(entry["warnings"], Value::Array(vec![]), "{}", block.place);
}

#[test]
fn every_runnable_example_runs() {
    let blocks = runnable_blocks();
    let count = |lang: &str| blocks.iter().filter(|b| b.lang == lang).count();
    assert!(
        count("sh") >= 1 && count("yaml") >= 3,
        "the marked examples went missing"
    );
    for block in &blocks {
        match block.lang.as_str() {
            "sh" => {
                let said = run_sh(block);
                if block.place.starts_with("README.md") && block.text.contains("fire pre_tool_call")
                {
                    assert!(
                        said.contains("\"decision\":\"block\""),
                        "{}: the guide's guard did not block:\n{said}",
                        block.place
                    );
                }
            }
            "yaml" => load_yaml(block),
            other => panic!("{}: no way to run a `{other} runnable` block", block.place),
        }
    }
}

#[test]
fn every_code_block_is_run_by_a_test_or_marked_a_fragment() {
    let mut unmarked = Vec::new();
    for (block, words) in all_blocks() {
        let doc = block.place.split(':').next().unwrap_or_default().to_owned();
        let tested_by: Vec<&str> = words
            .iter()
            .filter_map(|w| w.strip_prefix("tested-by="))
            .collect();
        for test in &tested_by {
            // The test named must exist and read this doc (by its path, or the docs folder).
            let source = std::fs::read_to_string(repo().join(test)).unwrap_or_else(|e| {
                panic!(
                    "{}: tested-by={test}, which cannot be read: {e}",
                    block.place
                )
            });
            let folder = doc.split('/').next().unwrap_or_default();
            assert!(
                source.contains(&doc)
                    || (doc.contains('/') && source.contains(&format!("\"{folder}\""))),
                "{}: tested-by={test}, which never reads {doc}",
                block.place
            );
        }
        let marked = words.iter().any(|w| w == "runnable" || w == "fragment");
        if block.lang.is_empty() || (!marked && tested_by.is_empty()) {
            unmarked.push(format!("{} ```{}", block.place, words.join(" ")));
        }
    }
    assert!(
        unmarked.is_empty(),
        "these code blocks neither run nor say they are fragments; give each a language and \
         `runnable`, `tested-by=<test file>` or `fragment` (docs/README.md):\n{}",
        unmarked.join("\n")
    );
}

#[test]
fn every_cargo_install_in_the_docs_is_locked() {
    for (block, _) in all_blocks() {
        for line in block.text.lines().filter(|l| l.contains("cargo install ")) {
            assert!(
                line.contains("--locked"),
                "{}: `{line}` re-resolves every dependency; add --locked",
                block.place
            );
        }
    }
}

#[test]
fn every_agent_hooks_variable_the_docs_name_is_read_by_some_code() {
    fn sources(dir: &Path, out: &mut String) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if path.is_dir() {
                if !matches!(name, "target" | "node_modules" | ".git") {
                    sources(&path, out);
                }
            } else if !name.ends_with(".md") {
                out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    let mut code = String::new();
    for dir in [
        "crates",
        "clients",
        "examples",
        ".ci",
        "benches",
        "test-helpers",
        "packaging",
        "tests",
    ] {
        sources(&repo().join(dir), &mut code);
    }
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).expect("read a doc");
        for (at, _) in text.match_indices("AGENT_HOOKS_") {
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            assert!(
                name.len() > "AGENT_HOOKS_".len() && code.contains(&name),
                "{} names {name}, which no code reads",
                file.display()
            );
        }
    }
}
