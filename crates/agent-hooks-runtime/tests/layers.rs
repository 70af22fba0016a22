//! The architecture as the build sees it (`docs/architecture.md`, "Crates"): the workspace's
//! crates depend on each other only downwards, and inside every crate no two top-level
//! modules import each other, directly or round a longer loop. The crates' manifests make an
//! upward import fail to compile; this test makes a new crate edge or a new import loop
//! between modules fail the suite, with the loop named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The layers, lowest first: a crate may depend only on crates of lower layers.
const LAYERS: &[&[&str]] = &[
    &["agent-hooks-core", "agent-hooks-guards"],
    &["agent-hooks-transports"],
    &["agent-hooks-dialects"],
    &["agent-hooks-runtime"],
    &["agent-hooks-standards", "agent-hooks-replay"],
    &["agent-hooks-server"],
    &["agent-hooks-cli"],
];

fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&name))
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root")
}

/// Each library crate of the workspace with its workspace dependencies (normal ones).
fn crate_graph() -> BTreeMap<String, (PathBuf, BTreeSet<String>)> {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut graph = BTreeMap::new();
    for package in packages {
        let name = package["name"].as_str().expect("a name").to_owned();
        let manifest = PathBuf::from(package["manifest_path"].as_str().expect("a manifest"));
        let deps = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| names.contains(d))
            .map(str::to_owned)
            .collect();
        let dir = manifest.parent().expect("a directory").to_path_buf();
        graph.insert(name, (dir, deps));
    }
    graph
}

#[test]
fn crates_depend_only_on_lower_layers() {
    let graph = crate_graph();
    for layer in LAYERS {
        for name in *layer {
            assert!(
                graph.contains_key(*name),
                "no crate {name} in the workspace"
            );
        }
    }
    for (name, (_, deps)) in &graph {
        let Some(own) = layer_of(name) else {
            continue;
        };
        for dep in deps {
            let theirs = layer_of(dep)
                .unwrap_or_else(|| panic!("{name} depends on {dep}, which has no layer"));
            assert!(
                theirs < own,
                "{name} (layer {own}) depends on {dep} (layer {theirs}): an edge that runs up"
            );
        }
    }
}

#[test]
fn no_two_top_level_modules_of_a_crate_import_each_other() {
    for (name, (dir, _)) in crate_graph() {
        if layer_of(&name).is_none() {
            continue;
        }
        let src = dir.join("src");
        let edges = module_imports(&src);
        if let Some(cycle) = first_cycle(&edges) {
            panic!("{name}: the top-level modules {cycle:?} import each other in a loop");
        }
    }
}

/// For each top-level module of the crate at `src` (a file `x.rs` or a folder `x/`, with
/// `lib.rs`/`main.rs` as the root), the other top-level modules its code names through
/// `crate::` (or `super::` from a top-level file). Comments and `#[cfg(test)] mod tests`
/// blocks at the end of a file are not read: a test may reach across.
fn module_imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    let module_of = |file: &Path| -> String {
        let rel = file.strip_prefix(src).expect("under src");
        let first = rel.components().next().expect("a component");
        first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned()
    };
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(file);
        if from == "lib" || from == "main" || from == "tests" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read a source file");
        let uncommented = without_comments(&text);
        let code = without_tests(&uncommented);
        // `super::` names the crate root from a top-level file and from a top-level folder's
        // `mod.rs`.
        let top_level = file.parent() == Some(src)
            || (file.file_name().is_some_and(|n| n == "mod.rs")
                && file.parent().and_then(Path::parent) == Some(src));
        for to in named_modules(code, top_level) {
            if to != from && modules.contains(&to) && to != "lib" && to != "main" {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn without_tests(code: &str) -> &str {
    match code.find("#[cfg(test)]\nmod tests") {
        Some(at) => &code[..at],
        None => code,
    }
}

/// The first path segments after `crate::` (also inside `crate::{a::x, b}`), and after
/// `super::` when the file is a top-level module (its parent is the crate root).
fn named_modules(code: &str, top_level: bool) -> Vec<String> {
    let mut found = Vec::new();
    let mut prefixes = vec!["crate::"];
    if top_level {
        prefixes.push("super::");
    }
    for prefix in prefixes {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    found.push(first_segment(item.trim()));
                }
            } else {
                found.push(first_segment(rest));
            }
        }
    }
    found.retain(|m| !m.is_empty());
    found
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// A loop in `edges`, as the modules on it, if there is one.
fn first_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            return Some(path[at..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|start| visit(start, edges, &mut Vec::new(), &mut done))
}

#[test]
fn the_loop_finder_finds_a_loop_and_only_a_loop() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            edges
                .entry((*a).to_owned())
                .or_default()
                .insert((*b).to_owned());
        }
        edges
    };
    assert_eq!(
        first_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
    );
    assert_eq!(
        first_cycle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])),
        None
    );
    assert_eq!(
        named_modules(
            "use crate::{event::Event, store};\nlet x = crate::wording::kind_of(v);",
            false
        ),
        vec!["event", "store", "wording"]
    );
    assert_eq!(
        named_modules("use super::command::Spec;", true),
        vec!["command"]
    );
    assert!(named_modules("use super::command::Spec;", false).is_empty());
}
