//! How the runtime starts hook processes, attacked from the workspace and from another user's
//! view of `/proc`: no secret on any command line of any process it starts, the pre-forked
//! Python imports nothing from the working directory or the workspace root that a plain run
//! would not, a timed-out hook's `setsid` grandchildren die with it, and what runs is exactly
//! the approved bytes, however the file is swapped or written while the hook starts.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::support::{Entry, Ws, python};

/// Every process's parent, from `/proc/<pid>/stat`.
fn parents() -> HashMap<u32, u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect()
}

/// `root` and every process below it.
fn descendants(root: u32) -> Vec<u32> {
    let parents = parents();
    let mut found = vec![root];
    let mut seen: HashSet<u32> = found.iter().copied().collect();
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        for (&pid, &ppid) in &parents {
            if ppid == parent && seen.insert(pid) {
                found.push(pid);
            }
        }
        i += 1;
    }
    found
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
        .unwrap_or_default()
}

/// Every process on the machine whose command line holds `needle`, with the start of that
/// command line.
fn cmdlines_holding(needle: &str) -> Vec<(u32, String)> {
    parents()
        .into_keys()
        .map(|pid| (pid, cmdline(pid)))
        .filter(|(_, line)| line.contains(needle))
        .map(|(pid, line)| (pid, line.chars().take(120).collect()))
        .collect()
}

/// Runs `f` on a thread of its own and gives up after `limit` (a FIFO nobody opens would block
/// the test for ever).
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("{what}: nothing within {} s", limit.as_secs()))
}

fn mkfifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).expect("mkfifo");
}

/// Waits until a hook writes its line into the FIFO `ready` (the hook is running and holding
/// there), and returns the line.
fn hook_holds(ready: &Path) -> String {
    let ready = ready.to_path_buf();
    within(Duration::from_secs(60), "a hook to start", move || {
        let mut text = String::new();
        std::fs::File::open(&ready)
            .and_then(|mut f| f.read_to_string(&mut text))
            .expect("read the ready FIFO");
        text.trim().to_owned()
    })
}

/// Lets the hook holding on the FIFO `go` go on.
fn release(go: &Path) {
    let go = go.to_path_buf();
    within(
        Duration::from_secs(60),
        "the hook to take its release",
        move || {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&go)
                .and_then(|mut f| f.write_all(b"go\n"))
                .expect("write the go FIFO");
        },
    );
}

const CANARY_RUNTIME: &str = "sk-canary-runtime-env-7f3a9c0d41b2";
const CANARY_ENTRY: &str = "tok-canary-entry-env-c83e01f5aa96";

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn no_process_the_runtime_starts_has_a_secret_on_its_command_line() {
    // Two hooks, each holding on a FIFO while the test reads every command line on the
    // machine: a command hook and a pre-forked Python hook (whose forker was once started with
    // its whole environment as an argument). Both check they did get the secrets.
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/cmd.sh",
            r#"
            cat >/dev/null
            echo cmd > "$AGENT_HOOKS_WORKSPACE/ready"
            read go < "$AGENT_HOOKS_WORKSPACE/go"
            if [ "$CANARY_API_KEY" = "sk-canary-runtime-env-7f3a9c0d41b2" ] && [ "$HOOK_TOKEN" = "tok-canary-entry-env-c83e01f5aa96" ]; then
              echo '{"context": "cmd has its secrets"}'
            fi
            "#,
        )
        .file(
            "hooks/pf.py",
            r#"import json, os, sys
sys.stdin.read()
root = os.environ["AGENT_HOOKS_WORKSPACE"]
with open(os.path.join(root, "ready"), "w") as f:
    f.write("pf %d\n" % os.getpid())
with open(os.path.join(root, "go")) as f:
    f.read()
if os.environ.get("CANARY_API_KEY") == "sk-canary-runtime-env-7f3a9c0d41b2" and os.environ.get("HOOK_TOKEN") == "tok-canary-entry-env-c83e01f5aa96":
    print(json.dumps({"context": "pf has its secrets"}))
"#,
        )
        .hook(
            Entry::new("on_user_message", "hooks/cmd.sh")
                .name("cmd")
                .env("HOOK_TOKEN", CANARY_ENTRY),
        )
        .hook(
            Entry::new("on_user_message", &format!("{} hooks/pf.py", python()))
                .name("pf")
                .env("HOOK_TOKEN", CANARY_ENTRY)
                .prefork(json!(true)),
        )
        .approve_all();
    mkfifo(&ws.path("ready"));
    mkfifo(&ws.path("go"));
    let mut fire = ws
        .command(&["fire", "on_user_message"])
        .env("CANARY_API_KEY", CANARY_RUNTIME)
        .env("AGENT_HOOKS_PREFORK_IDLE", "2")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start fire");
    fire.stdin
        .take()
        .expect("stdin")
        .write_all(br#"{"message": "hi"}"#)
        .expect("write the payload");
    let mut seen_forker = false;
    let mut seen_hooks = Vec::new();
    for _ in 0..2 {
        let who = hook_holds(&ws.path("ready"));
        let tree = descendants(fire.id());
        let lines: Vec<String> = tree.iter().map(|pid| cmdline(*pid)).collect();
        seen_forker |= lines
            .iter()
            .any(|l| l.contains("The forker of agent-hooks"));
        assert!(
            tree.len() > 1,
            "the hook is a process below fire: {lines:?}"
        );
        for canary in [CANARY_RUNTIME, CANARY_ENTRY] {
            let holding = cmdlines_holding(canary);
            assert!(
                holding.is_empty(),
                "while {who} ran, a command line holds a secret: {holding:?}"
            );
        }
        seen_hooks.push(who.split_whitespace().next().unwrap_or_default().to_owned());
        release(&ws.path("go"));
    }
    let out = fire.wait_with_output().expect("fire's outcome");
    let outcome: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no outcome ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    seen_hooks.sort();
    assert_eq!(seen_hooks, ["cmd", "pf"], "{outcome}");
    assert!(
        seen_forker,
        "the pre-forked hook ran in a forker below fire: {outcome}"
    );
    assert_eq!(
        outcome["context"],
        json!(["cmd has its secrets", "pf has its secrets"]),
        "{outcome}"
    );
    assert!(
        ws.events_of("hook_prefork_fallback").is_empty(),
        "the pre-forked hook ran as a plain process"
    );
}

/// A module that, imported, leaves `state/SHADOW_<name>` behind and breaks what it shadows.
fn shadow(name: &str) -> String {
    format!(
        "import os as _o\nopen(_o.path.join(_o.environ.get('AGENT_HOOKS_WORKSPACE', '.'), 'SHADOW_{name}'), 'w').close()\nraise ImportError('shadowed {name}')\n"
    )
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_json_or_os_module_in_the_workspace_root_never_runs_in_the_forker() {
    let guard = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/prefork_hooks/guard.py"
    ))
    .expect("the guard fixture");
    // What a plain `python3 hooks/view.py` sees of its own interpreter.
    let view = "import json, sys\nsys.stdin.read()\nprint(json.dumps({'context': json.dumps({'path0': sys.path[0], 'cwd_entry': '' in sys.path or '.' in sys.path, 'argv': sys.argv, 'file': __file__})}))\n";
    let command = |script: &str| format!("{} hooks/{script}", python());
    let ws = Ws::new()
        .master(true)
        .file("hooks/guard.py", &guard)
        .file("hooks/view.py", view)
        .file("json.py", &shadow("json"))
        .file("os.py", &shadow("os"))
        .file("re.py", &shadow("re"))
        .file("socket.py", &shadow("socket"))
        .hook(
            Entry::new("pre_tool_call", &command("guard.py"))
                .name("guard")
                .prefork(json!(true)),
        )
        .hook(
            Entry::new("on_user_message", &command("view.py"))
                .name("forked-view")
                .prefork(json!(true)),
        )
        .hook(Entry::new("on_session_start", &command("view.py")).name("plain-view"))
        .approve_all();
    let fired = ws.fire(
        "pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!(fired.decision(), "block", "{:#}", fired.outcome);
    assert!(
        fired.reason().contains("recursive delete"),
        "{}",
        fired.reason()
    );
    let forked = ws.fire("on_user_message", json!({"message": "hi"}));
    let plain = ws.fire("on_session_start", json!({}));
    assert!(
        ws.events_of("hook_prefork_fallback").is_empty(),
        "a pre-forked hook ran as a plain process: {:?}",
        ws.events_of("hook_prefork_fallback")
    );
    let forked_view: Value = serde_json::from_str(&forked.context()[0]).expect("the forked view");
    let plain_view: Value = serde_json::from_str(&plain.context()[0]).expect("the plain view");
    assert_eq!(
        forked_view, plain_view,
        "pre-forked (left) and plain (right)"
    );
    assert_eq!(
        forked_view["path0"],
        json!(ws.path("hooks").display().to_string())
    );
    assert_eq!(forked_view["cwd_entry"], json!(false));
    for name in ["json", "os", "re", "socket"] {
        assert!(
            !ws.exists(&format!("SHADOW_{name}")),
            "the workspace's {name}.py was imported"
        );
    }
}

/// The pids a hook wrote to `state/<name>/pids`, once it has.
fn pids_of(ws: &Ws, name: &str) -> Vec<u32> {
    std::fs::read_to_string(ws.path(&format!("state/{name}/pids")))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_timed_out_hooks_setsid_grandchildren_die_with_it() {
    // Each hook moves children out of its process group (and session) with setsid, then runs
    // past its timeout. Their command lines carry a marker to find them by.
    const MARK_CMD: &str = "977.31415";
    const MARK_PF: &str = "978.27182";
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/spawner.sh",
            &format!(
                r#"
                cat >/dev/null
                setsid sleep {MARK_CMD} &
                a=$!
                setsid sh -c 'sleep {MARK_CMD} & wait' &
                b=$!
                echo "$a $b" > "$STATE_DIR/pids"
                sleep 60
                "#
            ),
        )
        .file(
            "hooks/spawner.py",
            &format!(
                r#"import os, subprocess, sys, time
sys.stdin.read()
p = subprocess.Popen(["setsid", "sleep", "{MARK_PF}"])
pid = os.fork()
if pid == 0:
    os.setsid()
    os.execvp("sleep", ["sleep", "{MARK_PF}"])
with open(os.path.join(os.environ["STATE_DIR"], "pids"), "w") as f:
    f.write("%d %d" % (p.pid, pid))
time.sleep(60)
"#
            ),
        )
        .hook(
            Entry::new("on_user_message", "hooks/spawner.sh")
                .name("cmd")
                .timeout(2),
        )
        .hook(
            Entry::new("on_user_message", &format!("{} hooks/spawner.py", python()))
                .name("pf")
                .timeout(2)
                .prefork(json!(true)),
        )
        .approve_all();
    let fired = ws.fire("on_user_message", json!({"message": "hi"}));
    assert_eq!(fired.status("cmd"), "timeout", "{:#}", fired.outcome);
    assert_eq!(fired.status("pf"), "timeout", "{:#}", fired.outcome);
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
    for name in ["cmd", "pf"] {
        let pids = pids_of(&ws, name);
        assert_eq!(
            pids.len(),
            2,
            "{name} started its grandchildren before its timeout"
        );
        for pid in pids {
            assert!(
                super::support::eventually(Duration::from_secs(5), || {
                    !super::support::process_running(pid)
                }),
                "{name}'s grandchild {pid} outlived the timeout: {}",
                cmdline(pid)
            );
        }
    }
    for mark in [MARK_CMD, MARK_PF] {
        let alive: Vec<(u32, String)> = cmdlines_holding(mark)
            .into_iter()
            .filter(|(pid, _)| super::support::process_running(*pid))
            .collect();
        assert!(alive.is_empty(), "still running: {alive:?}");
    }
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn scripts_run_from_their_verified_copy_still_see_their_own_path_and_siblings() {
    let py = python();
    // What each script reports: how it names itself, the sibling it finds through that name,
    // and whether it runs from the sealed copy (an open memfd of the runtime's, or the loader).
    let sh_body = r#"cat >/dev/null
sealed=$(ls -l /proc/$$/fd 2>/dev/null | grep -c 'memfd:agent-hooks-verified')
printf '{"context": "%s|%s|sealed=%s"}\n' "$0" "$(cat "$(dirname "$0")/data.txt")" "$sealed"
"#;
    let py_body = "import json, pathlib, sys\nsys.stdin.read()\nsealed = '_agent_hooks_run' in ' '.join(sys.orig_argv)\nprint(json.dumps({'context': '%s|%s|%s|%s|sealed=%d' % (sys.argv[0], __file__, sys.path[0], (pathlib.Path(__file__).parent / 'data.txt').read_text(), sealed)}))\n";
    let bash_body = r#"cat >/dev/null
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
printf '{"context": "%s|%s"}\n' "${BASH_SOURCE[0]}" "$(cat "$here/data.txt")"
"#;
    let ws = Ws::new()
        .master(true)
        .file("hooks/lib/data.txt", "sibling-data")
        .script("hooks/lib/a.sh", &format!("#!/bin/sh\n{sh_body}"))
        .script("hooks/lib/b.py", &format!("#!{py}\n{py_body}"))
        .file("hooks/lib/c.sh", sh_body)
        .file("hooks/lib/d.py", py_body)
        .script("hooks/lib/e.sh", &format!("#!/bin/bash\n{bash_body}"))
        .hook(Entry::new("on_user_message", "hooks/lib/a.sh").name("a"))
        .hook(Entry::new("on_user_message", "hooks/lib/b.py").name("b"))
        .hook(Entry::new("on_user_message", "sh hooks/lib/c.sh").name("c"))
        .hook(Entry::new("on_user_message", &format!("{py} hooks/lib/d.py")).name("d"))
        .hook(Entry::new("on_user_message", "hooks/lib/e.sh").name("e"))
        .approve_all();
    let fired = ws.fire("on_user_message", json!({"message": "hi"}));
    let lib = ws.path("hooks/lib").display().to_string();
    let mut context = fired.context();
    context.sort();
    let mut expected = vec![
        format!("hooks/lib/c.sh|sibling-data|sealed=1"),
        format!("hooks/lib/d.py|{lib}/d.py|{lib}|sibling-data|sealed=1"),
        format!("{lib}/a.sh|sibling-data|sealed=1"),
        format!("{lib}/b.py|{lib}/b.py|{lib}|sibling-data|sealed=1"),
        // `BASH_SOURCE` only a path can give: run from its path, as documented.
        format!("{lib}/e.sh|sibling-data"),
    ];
    expected.sort();
    assert_eq!(context, expected, "{:#}", fired.outcome);
}

#[test]
fn a_script_swapped_between_the_check_and_the_exec_never_runs() {
    // The approved script and an impostor are swapped by rename as fast as a thread can while
    // hooks fire; every run is the approved content or a refusal, never the impostor.
    let good = "#!/bin/sh\ncat >/dev/null\necho '{\"context\": \"approved\"}'\n";
    let evil = "#!/bin/sh\ncat >/dev/null\necho '{\"context\": \"IMPOSTOR\"}'\n";
    let ws = Ws::new()
        .master(true)
        .script("hooks/guard.sh", good)
        .hook(Entry::new("on_user_message", "hooks/guard.sh").name("guard"))
        .approve_all();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let dir = ws.path("hooks");
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let tmp = dir.join(format!(".swap{}", n % 2));
                let text = if n.is_multiple_of(2) { evil } else { good };
                std::fs::write(&tmp, text).expect("write");
                super::support::set_mode(&tmp, 0o755);
                std::fs::rename(&tmp, dir.join("guard.sh")).expect("swap");
                n += 1;
            }
        })
    };
    let mut seen = std::collections::BTreeMap::new();
    for _ in 0..60 {
        let fired = ws.fire("on_user_message", json!({"message": "hi"}));
        let key = format!("{} {:?}", fired.status("guard"), fired.context());
        *seen.entry(key).or_insert(0u32) += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().expect("the swapper");
    assert!(
        seen.keys().all(|k| !k.contains("IMPOSTOR")),
        "the impostor ran: {seen:?}"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_large_approved_script_edited_through_a_shared_mapping_is_refused_or_harmless() {
    // Over 1 MiB, the gate vouches for a file by its stat. A page already written through a
    // shared mapping stays writable without a new fault, so a second write moves no timestamp.
    let mut script =
        String::from("#!/bin/sh\ncat >/dev/null\necho '{\"context\": \"approved-output\"}'\n");
    while script.len() < 1536 * 1024 {
        script.push_str("# padding to make the script larger than a mebibyte ..........\n");
    }
    let ws = Ws::new()
        .master(true)
        .script("hooks/big.sh", &script)
        // Named to its interpreter, which reads it by path (a `#!` script the kernel starts
        // itself is refused while any process has it open for writing: ETXTBSY).
        .hook(Entry::new("on_user_message", "sh hooks/big.sh").name("big"));
    let helper = r#"import mmap, sys
f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 0)
i = m.find(b"approved-output")
m[i:i + 1] = b"a"
print("dirty", flush=True)
sys.stdin.readline()
m[i:i + 15] = b"IMPOSTOR-output"
print("edited", flush=True)
sys.stdin.readline()
"#;
    let mut mapper = std::process::Command::new(python())
        .arg("-c")
        .arg(helper)
        .arg(ws.path("hooks/big.sh"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start the mapper");
    let mut to_mapper = mapper.stdin.take().expect("stdin");
    let mut from_mapper = std::io::BufReader::new(mapper.stdout.take().expect("stdout"));
    let mut line = String::new();
    std::io::BufRead::read_line(&mut from_mapper, &mut line).expect("dirty");
    assert_eq!(line.trim(), "dirty");
    ws.approve("sh hooks/big.sh");
    assert_eq!(
        ws.fire("on_user_message", json!({"message": "hi"}))
            .context(),
        ["approved-output"]
    );
    to_mapper.write_all(b"go\n").expect("tell the mapper");
    line.clear();
    std::io::BufRead::read_line(&mut from_mapper, &mut line).expect("edited");
    assert_eq!(line.trim(), "edited");
    assert!(
        std::fs::read_to_string(ws.path("hooks/big.sh"))
            .expect("read")
            .contains("IMPOSTOR-output")
    );
    let fired = ws.fire("on_user_message", json!({"message": "hi"}));
    let _ = to_mapper.write_all(b"done\n");
    let _ = mapper.wait();
    assert!(
        !fired.outcome.to_string().contains("IMPOSTOR"),
        "the edited content ran: {:#}",
        fired.outcome
    );
    assert_ne!(fired.status("big"), "noop", "{:#}", fired.outcome);
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_claude_code_shell_line_of_one_command_runs_its_script_from_the_verified_copy() {
    let py = python();
    let command = format!("{py} \"$CLAUDE_PROJECT_DIR\"/hooks/lib/d.py");
    let ws = Ws::new()
        .master(true)
        .file("hooks/lib/data.txt", "sibling-data")
        .file(
            "hooks/lib/d.py",
            "import pathlib, sys\nsys.stdin.read()\nsealed = '_agent_hooks_run' in ' '.join(sys.orig_argv)\nprint('%s|%s|sealed=%d' % (sys.argv[0], (pathlib.Path(__file__).parent / 'data.txt').read_text(), sealed))\n",
        )
        .file(
            ".claude/settings.json",
            &json!({"hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": command}]}]}})
            .to_string(),
        );
    ws.approve(&command);
    let fired = ws.fire("on_user_message", json!({"message": "hi"}));
    assert_eq!(
        fired.context(),
        vec![format!(
            "{}|sibling-data|sealed=1",
            ws.path("hooks/lib/d.py").display()
        )],
        "{:#}",
        fired.outcome
    );
}

#[cfg_attr(not(have_node), ignore = "needs node on PATH")]
#[test]
fn a_commonjs_node_script_runs_from_its_copy_and_an_es_module_from_its_path() {
    let body = "const fs = require('fs'), path = require('path');\nfs.readFileSync(0);\nconst sealed = process.execArgv.includes('-e');\nconsole.log(JSON.stringify({context: [process.argv[1], __filename, require.main === module, fs.readFileSync(path.join(__dirname, 'data.txt'), 'utf8'), sealed].join('|')}));\n";
    let esm = "import fs from 'fs';\nimport path from 'path';\nimport { fileURLToPath } from 'url';\nfs.readFileSync(0);\nconst dir = path.dirname(fileURLToPath(import.meta.url));\nconsole.log(JSON.stringify({context: 'esm|' + fs.readFileSync(path.join(dir, 'data.txt'), 'utf8')}));\n";
    let ws = Ws::new()
        .master(true)
        .file("hooks/js/data.txt", "sibling-data")
        .file("hooks/js/a.js", body)
        .script("hooks/js/b.js", &format!("#!/usr/bin/env node\n{body}"))
        .file("hooks/js/c.mjs", esm)
        .hook(Entry::new("on_user_message", "node hooks/js/a.js").name("a"))
        .hook(Entry::new("on_user_message", "hooks/js/b.js").name("b"))
        .hook(Entry::new("on_user_message", "node hooks/js/c.mjs").name("c"))
        .approve_all();
    let fired = ws.fire("on_user_message", json!({"message": "hi"}));
    let js = ws.path("hooks/js").display().to_string();
    let mut context = fired.context();
    context.sort();
    let mut expected = vec![
        format!("{js}/a.js|{js}/a.js|true|sibling-data|true"),
        format!("{js}/b.js|{js}/b.js|true|sibling-data|true"),
        "esm|sibling-data".to_owned(),
    ];
    expected.sort();
    assert_eq!(context, expected, "{:#}", fired.outcome);
}
