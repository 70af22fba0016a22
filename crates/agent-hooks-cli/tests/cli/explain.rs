//! `agent-hooks explain` through the real binary: the worked examples of `docs/explain.md`
//! print exactly what the doc shows, `--json` carries the same reading, the workspace's
//! installed rules file is the one used, and a broken one is a clear error.

use crate::support::Ws;

use std::path::Path;

use serde_json::Value;

/// A command line of a doc example split into words (single and double quotes, no escapes).
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, ' ') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The `console` blocks of docs/explain.md: (the words after `agent-hooks`, the output shown).
fn doc_examples() -> Vec<(Vec<String>, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/explain.md");
    let text = std::fs::read_to_string(&path).expect("read docs/explain.md");
    let mut examples = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.split_whitespace().next() != Some("```console") {
            continue;
        }
        let Some(command) = lines.next().and_then(|l| l.strip_prefix("$ agent-hooks ")) else {
            continue;
        };
        let mut output = String::new();
        for line in lines.by_ref().take_while(|l| *l != "```") {
            output.push_str(line);
            output.push('\n');
        }
        examples.push((split_words(command), output));
    }
    examples
}

#[test]
fn the_worked_examples_of_the_doc_print_what_it_shows() {
    let examples = doc_examples();
    assert_eq!(
        examples.len(),
        3,
        "docs/explain.md has three worked examples"
    );
    let ws = Ws::new();
    for (words, shown) in examples {
        assert_eq!(words.first().map(String::as_str), Some("explain"));
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        let out = ws.run(&args);
        assert!(out.status.success(), "{words:?}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), shown, "{words:?}");
    }
}

fn explain_json(ws: &Ws, command: &str) -> Value {
    let out = ws.run(&["explain", "--json", "--cwd", "/home/user/project", command]);
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("explain --json prints JSON")
}

#[test]
fn json_shows_each_command_its_unwrapped_program_and_the_rules_with_their_packs() {
    let ws = Ws::new();
    let found = explain_json(&ws, "bash -o errexit -c -- 'timeout 5 rm -rf /'");
    assert_eq!(found["decision"], "block");
    assert_eq!(found["rules_file"], "built-in defaults");
    let commands = found["commands"].as_array().expect("commands");
    assert_eq!(commands[0]["program"], "bash");
    let inner = &commands[1];
    assert_eq!(inner["depth"], 1);
    assert_eq!(inner["via"], "bash");
    assert_eq!(inner["program"], "rm");
    assert_eq!(inner["args"], serde_json::json!(["-rf", "/"]));
    let fired: Vec<(&str, &str)> = inner["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|r| r["fired"] == true)
        .map(|r| {
            (
                r["name"].as_str().unwrap_or(""),
                r["pack"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(fired.contains(&("rm-root", "filesystem")), "{fired:?}");

    let allowed = explain_json(&ws, "ls -la && git status");
    assert_eq!(allowed["decision"], "allow");
    assert!(allowed["reason"].is_null());
    assert_eq!(allowed["commands"].as_array().map(Vec::len), Some(2));
}

#[test]
fn code_nested_past_the_limit_asks_and_says_so() {
    let mut command = "echo hi".to_owned();
    for _ in 0..8 {
        command = format!("bash -c '{}'", command.replace('\'', "'\\''"));
    }
    let found = explain_json(&Ws::new(), &command);
    assert_eq!(found["decision"], "ask");
    let limits: Vec<&Value> = found["commands"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["rules"].as_array().into_iter().flatten())
        .chain(found["text_findings"].as_array().into_iter().flatten())
        .filter(|r| r["name"] == "limit" && r["pack"] == "guard")
        .collect();
    assert!(!limits.is_empty(), "{found}");
}

#[test]
fn the_workspace_rules_file_is_used_when_installed() {
    let ws = Ws::new().file("hooks/security_guard.yaml", "answers:\n  rm-root: ask\n");
    let found = explain_json(&ws, "rm -rf /");
    assert_eq!(found["decision"], "ask");
    let rules_file = found["rules_file"].as_str().unwrap_or("");
    assert!(
        rules_file.ends_with("hooks/security_guard.yaml"),
        "{rules_file}"
    );

    let text = ws.run(&["explain", "rm -rf /"]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("fired: rm-root [pack filesystem] ask"),
        "{stdout}"
    );
}

#[test]
fn a_broken_rules_file_is_a_clear_error() {
    let ws = Ws::new().file("hooks/security_guard.yaml", "answers: [not, a, map\n");
    let out = ws.run(&["explain", "ls"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("agent-hooks explain") && stderr.contains("security_guard.yaml"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
