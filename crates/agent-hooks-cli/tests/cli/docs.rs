//! The examples of `README.md` and `docs/*.md` that are marked runnable are run: a fenced block
//! whose info string is `sh runnable` runs with `sh -e` in an empty directory, with the binary
//! under test first on `PATH`, and must exit 0; a `yaml runnable` block whose first line names a
//! file (`# config/shell_hooks.yaml`) is written there in an empty workspace, and `list --json`
//! must load it without an error or a warning. The marker is described in `docs/README.md`.

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

fn runnable_blocks() -> Vec<Block> {
    let mut files = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("read docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut blocks = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read a doc");
        let name = file
            .strip_prefix(repo())
            .unwrap_or(&file)
            .display()
            .to_string();
        let mut open: Option<(usize, String, String)> = None;
        for (n, line) in text.lines().enumerate() {
            match &mut open {
                None => {
                    if let Some(info) = line.strip_prefix("```") {
                        let words: Vec<&str> = info.split_whitespace().collect();
                        if words.contains(&"runnable") {
                            let lang = words.first().copied().unwrap_or_default().to_owned();
                            open = Some((n + 1, lang, String::new()));
                        }
                    }
                }
                Some((start, lang, body)) => {
                    if line.starts_with("```") {
                        blocks.push(Block {
                            place: format!("{name}:{start}"),
                            lang: std::mem::take(lang),
                            text: std::mem::take(body),
                        });
                        open = None;
                    } else {
                        body.push_str(line);
                        body.push('\n');
                    }
                }
            }
        }
        assert!(open.is_none(), "{name}: a runnable block is not closed");
    }
    blocks
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
