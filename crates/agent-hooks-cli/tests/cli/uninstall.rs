//! `<agent>-install` then `<agent>-uninstall` leaves the tree exactly as it was, for every
//! agent: a project with no hooks file, one with a file written the user's way, one whose file
//! is a symlink — compared byte for byte (contents, modes, symlinks and where they point,
//! every file and directory of a scratch home holding the project). And an installer whose
//! file is the user's own configuration says so and refuses without `--user`.

use crate::support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every agent with an installer, by its short name.
pub(crate) const AGENTS: [&str; 6] = ["claude", "codex", "gemini", "cursor", "copilot", "windsurf"];

/// One entry of a tree: what a byte-for-byte comparison needs.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// A directory and its mode.
    Dir(u32),
    /// A file's mode and bytes.
    File(u32, Vec<u8>),
    /// A symlink and where it points, as written.
    Link(PathBuf),
}

/// Every file, directory and symlink under `root`, by its path relative to `root`.
pub(crate) fn snapshot(root: &Path) -> BTreeMap<String, Node> {
    let mut tree = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir)
            .expect("read a directory of the tree")
            .flatten()
        {
            let path = entry.path();
            let name = path
                .strip_prefix(root)
                .expect("inside the tree")
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).expect("stat an entry of the tree");
            let mode = meta.permissions().mode() & 0o7777;
            let node = if meta.file_type().is_symlink() {
                Node::Link(fs::read_link(&path).expect("read a symlink"))
            } else if meta.is_dir() {
                dirs.push(path.clone());
                Node::Dir(mode)
            } else {
                Node::File(mode, fs::read(&path).expect("read a file of the tree"))
            };
            tree.insert(name, node);
        }
    }
    tree
}

/// What differs between two snapshots, one line per path, for a readable failure.
pub(crate) fn differences(
    before: &BTreeMap<String, Node>,
    after: &BTreeMap<String, Node>,
) -> String {
    let mut out = String::new();
    for (path, node) in before {
        match after.get(path) {
            None => out.push_str(&format!("gone: {path}\n")),
            Some(now) if now != node => {
                out.push_str(&format!(
                    "changed: {path}\n  before: {}\n  after:  {}\n",
                    show(node),
                    show(now)
                ));
            }
            Some(_) => {}
        }
    }
    for (path, node) in after {
        if !before.contains_key(path) {
            out.push_str(&format!("left behind: {path}: {}\n", show(node)));
        }
    }
    out
}

fn show(node: &Node) -> String {
    match node {
        Node::Dir(mode) => format!("directory {mode:o}"),
        Node::File(mode, bytes) => format!("file {mode:o} {:?}", String::from_utf8_lossy(bytes)),
        Node::Link(to) => format!("symlink -> {}", to.display()),
    }
}

/// A scratch home with a project in it (a git repository's marker only).
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix("agent-hooks-uninstall")
            .tempdir()
            .expect("a scratch home");
        fs::create_dir_all(dir.path().join("home/project/.git")).expect("a project");
        Scratch { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.home().join("project")
    }

    /// `agent-hooks <args>` in `cwd`, with this home and nothing else of the real user's.
    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut cmd = Command::new(support::BIN);
        cmd.args(args)
            .current_dir(cwd)
            .env("HOME", self.home())
            .env_remove("AGENT_HOOKS_WORKSPACE")
            .env_remove("AGENT_HOOKS_APPROVALS");
        for var in [
            "XDG_STATE_HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "COPILOT_HOME",
        ] {
            cmd.env_remove(var);
        }
        cmd.output().expect("run agent-hooks")
    }
}

fn ok(out: &Output, what: &str) -> String {
    let text = format!(
        "{what}: status {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    text
}

/// The project file `agent`'s installer writes, relative to the workspace.
fn config_file(agent: &str) -> &'static str {
    match agent {
        "claude" => ".claude/settings.json",
        "codex" => ".codex/hooks.json",
        "gemini" => ".gemini/settings.json",
        "cursor" => ".cursor/hooks.json",
        "copilot" => ".github/hooks/agent-hooks.json",
        "windsurf" => ".windsurf/hooks.json",
        other => panic!("no installer for {other}"),
    }
}

/// Installs and uninstalls `agent`'s bridge in the scratch project, and checks the install did
/// change the tree (so the comparison is not vacuous) and the uninstall put back every byte.
fn round_trip(scratch: &Scratch, agent: &str, setup: &str) {
    let root = scratch.dir.path();
    let before = snapshot(root);
    let project = scratch.project();
    let installed = ok(
        &scratch.run(&project, &[&format!("{agent}-install")]),
        "install",
    );
    let during = snapshot(root);
    assert_ne!(
        before, during,
        "{agent} ({setup}): install changed nothing\n{installed}"
    );
    let file = project.join(config_file(agent));
    let settings = fs::read_to_string(&file).expect("the installed hooks file");
    assert!(
        settings.contains(&format!("{agent}-hook")),
        "{agent} ({setup}): no bridge in {}:\n{settings}",
        file.display()
    );
    let removed = ok(
        &scratch.run(&project, &[&format!("{agent}-uninstall")]),
        "uninstall",
    );
    let after = snapshot(root);
    let diff = differences(&before, &after);
    assert!(
        diff.is_empty(),
        "{agent} ({setup}): install + uninstall did not leave the tree as it was:\n{diff}\n{installed}\n{removed}"
    );
}

#[test]
fn install_then_uninstall_leaves_a_fresh_project_byte_identical_for_every_agent() {
    for agent in AGENTS {
        let scratch = Scratch::new();
        round_trip(&scratch, agent, "no hooks file");
    }
}

#[test]
fn install_then_uninstall_keeps_a_users_file_as_written_for_every_agent() {
    for agent in AGENTS {
        let scratch = Scratch::new();
        let file = scratch.project().join(config_file(agent));
        fs::create_dir_all(file.parent().expect("a directory")).expect("mkdir");
        // Compact, keys out of order, no final newline, private: all of it must survive.
        fs::write(&file, r#"{"zeta":[1,2],"alpha":{"nested":true}}"#).expect("write the file");
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).expect("chmod");
        round_trip(&scratch, agent, "the user's own file");
    }
}

#[test]
fn install_then_uninstall_keeps_a_symlinked_file_a_symlink_for_every_agent() {
    for agent in AGENTS {
        let scratch = Scratch::new();
        let shared = scratch.home().join("dotfiles").join(agent);
        fs::create_dir_all(&shared).expect("mkdir");
        fs::write(shared.join("hooks.json"), "{\n    \"kept\": \"as is\"\n}\n").expect("write");
        let file = scratch.project().join(config_file(agent));
        let dir = file.parent().expect("a directory");
        fs::create_dir_all(dir).expect("mkdir");
        symlink(shared.join("hooks.json"), &file).expect("symlink the hooks file");
        round_trip(&scratch, agent, "a symlinked file");
        assert!(
            fs::symlink_metadata(&file)
                .expect("stat")
                .file_type()
                .is_symlink()
        );
    }
}

#[test]
fn an_installer_refuses_the_users_own_configuration_without_user_for_every_agent() {
    for agent in AGENTS {
        // The workspace is the home directory.
        let scratch = Scratch::new();
        let home = scratch.home();
        let before = snapshot(scratch.dir.path());
        for command in [format!("{agent}-install"), format!("{agent}-uninstall")] {
            let out = scratch.run(&home, &[&command]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{command} in $HOME: {stderr}");
            assert!(
                stderr.contains("refused: the workspace is your home directory")
                    && stderr.contains("--user"),
                "{command} in $HOME: {stderr}"
            );
        }
        assert_eq!(
            differences(&before, &snapshot(scratch.dir.path())),
            "",
            "{agent}: a refusal wrote"
        );
        let out = scratch.run(&home, &[&format!("{agent}-install"), "--user"]);
        let text = ok(&out, "install --user");
        assert!(
            text.contains("user-wide"),
            "{agent}: --user says nothing: {text}"
        );
        assert!(
            home.join(config_file(agent)).is_file(),
            "{agent}: --user did not install"
        );
    }
}

#[test]
fn an_installer_refuses_a_project_file_that_resolves_into_the_agents_user_directory() {
    let user_dirs = [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
        ("cursor", ".cursor/hooks.json"),
        ("copilot", ".copilot/hooks/agent-hooks.json"),
        ("windsurf", ".codeium/windsurf/hooks.json"),
    ];
    for (agent, user_file) in user_dirs {
        let scratch = Scratch::new();
        let user_file = scratch.home().join(user_file);
        fs::create_dir_all(user_file.parent().expect("a directory")).expect("mkdir");
        fs::write(&user_file, "{}\n").expect("the user's settings");
        let file = scratch.project().join(config_file(agent));
        fs::create_dir_all(file.parent().expect("a directory")).expect("mkdir");
        symlink(&user_file, &file).expect("symlink the project file to the user's");
        let out = scratch.run(&scratch.project(), &[&format!("{agent}-install")]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{agent}: {stderr}");
        assert!(
            stderr.contains("refused:")
                && stderr.contains("user-wide configuration")
                && stderr.contains("--user"),
            "{agent}: {stderr}"
        );
        assert_eq!(
            fs::read_to_string(&user_file).expect("read"),
            "{}\n",
            "{agent}: it wrote"
        );
    }
}

#[test]
fn a_file_edited_since_install_keeps_the_edit_and_gets_no_empty_hooks_object() {
    for agent in AGENTS {
        let scratch = Scratch::new();
        let project = scratch.project();
        ok(
            &scratch.run(&project, &[&format!("{agent}-install")]),
            "install",
        );
        // The user adds a setting of their own after the install: it must stay, and the file
        // can no longer be put back byte for byte.
        let file = project.join(config_file(agent));
        let mut doc: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&file).expect("read")).expect("JSON");
        doc["mine"] = serde_json::json!(true);
        fs::write(&file, doc.to_string()).expect("edit the file");
        ok(
            &scratch.run(&project, &[&format!("{agent}-uninstall")]),
            "uninstall",
        );
        let text = fs::read_to_string(&file).expect("the file stays");
        let after: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(after["mine"], true, "{agent}: {text}");
        assert!(after.get("hooks").is_none(), "{agent}: {text}");
        assert!(!text.contains(&format!("{agent}-hook")), "{agent}: {text}");
    }
}
