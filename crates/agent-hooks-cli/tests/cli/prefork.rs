//! `prefork: true`: Python hooks run in forked children of a warm interpreter answer exactly
//! as the same scripts run as plain processes, keep every guarantee of a spawned hook, and never
//! run anything but the approved content.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::support::{Entry, Fired, Server, Ws, eventually, process_running, python, run_piped};

/// The fixture hooks (`tests/prefork_hooks/README.md` says what each exercises).
const HOOKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/prefork_hooks");

/// A workspace with the fixture hooks under `hooks/` and the master switch on.
fn workspace() -> Ws {
    let mut ws = Ws::new().master(true);
    for entry in std::fs::read_dir(HOOKS).expect("the fixture hooks") {
        let path = entry.expect("a fixture").path();
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let text = std::fs::read_to_string(&path).expect("read a fixture");
        ws = ws.file(&format!("hooks/{name}"), &text);
    }
    ws
}

fn command(script: &str) -> String {
    format!("{} hooks/{script}", python())
}

/// The forker sockets serving the workspace.
fn sockets(ws: &Ws) -> Vec<PathBuf> {
    match std::fs::read_dir(ws.runtime_path("prefork")) {
        Ok(entries) => entries
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "sock"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// An outcome with what legitimately differs between two workspaces taken out: the timings and
/// the workspace's own path.
fn normalized(ws: &Ws, outcome: &Value) -> Value {
    let mut outcome = outcome.clone();
    if let Some(hooks) = outcome["hooks"].as_array_mut() {
        for hook in hooks {
            hook["ms"] = json!(0);
        }
    }
    let root = ws.root().display().to_string();
    serde_json::from_str(&outcome.to_string().replace(&root, "<ws>")).expect("still JSON")
}

/// The log records without their timestamps, the workspace's path taken out.
fn records(ws: &Ws) -> Vec<Value> {
    let root = ws.root().display().to_string();
    ws.events()
        .into_iter()
        .filter(|r| r["type"] != "hook_decision" || r["decision"] != "skip_trust")
        .map(|mut r| {
            r["ts"] = Value::Null;
            serde_json::from_str(&r.to_string().replace(&root, "<ws>")).expect("still JSON")
        })
        .collect()
}

/// Fires `payload` at `event` in both workspaces and asserts the same outcome, with the
/// pre-forked one served by a forker and never falling back. Returns the pre-forked answer.
fn same_outcome(plain: &Ws, forked: &Ws, event: &str, payload: Value) -> Fired {
    let cold = plain.fire(event, payload.clone());
    let warm = forked.fire(event, payload.clone());
    assert_eq!(
        normalized(forked, &warm.outcome),
        normalized(plain, &cold.outcome),
        "{event} {payload}: pre-forked (left) and plain (right) answered differently"
    );
    assert!(
        forked.events_of("hook_prefork_fallback").is_empty(),
        "a pre-forked hook fell back to a plain process: {:?}",
        forked.events_of("hook_prefork_fallback")
    );
    assert!(
        !sockets(forked).is_empty(),
        "no forker served the workspace"
    );
    warm
}

/// A workspace with the fixture hooks and `script` holding `source`, declared on `event` as
/// `name` with `prefork`, and approved.
fn forked_hook(event: &str, name: &str, script: &str, source: &str, prefork: Value) -> Ws {
    workspace()
        .file(&format!("hooks/{script}"), source)
        .hook(
            Entry::new(event, &command(script))
                .name(name)
                .prefork(prefork),
        )
        .approve_all()
}

/// A workspace with the fixture hooks and `hooks/<name>.py` holding `source`, declared on
/// `event` as `name` with `prefork: true` and a timeout of `secs`, and approved.
fn timed_forked_hook(event: &str, name: &str, source: &str, secs: u64) -> Ws {
    let script = format!("{name}.py");
    workspace()
        .file(&format!("hooks/{script}"), source)
        .hook(
            Entry::new(event, &command(&script))
                .name(name)
                .timeout(secs)
                .prefork(json!(true)),
        )
        .approve_all()
}

/// Declares `entries` in two workspaces — as written, and with `prefork: true` — approves
/// them, fires each of `fires` in both, and asserts the outcomes and the logs are the same, and
/// that the pre-forked ones really ran pre-forked. Returns the pre-forked workspace's answers.
fn same_answers(entries: &[Entry], fires: &[(&str, Value)]) -> Vec<Fired> {
    let mut plain = workspace();
    let mut forked = workspace();
    for entry in entries {
        plain = plain.hook(entry.clone());
        forked = forked.hook(entry.clone().prefork(json!(true)));
    }
    let plain = plain.approve_all();
    let forked = forked.approve_all();
    let answers = fires
        .iter()
        .map(|(event, payload)| same_outcome(&plain, &forked, event, payload.clone()))
        .collect();
    assert_eq!(
        records(&forked),
        records(&plain),
        "pre-forked (left) and plain (right) logged differently"
    );
    answers
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_security_guard_answers_every_event_as_a_plain_process_does() {
    let guard = command("guard.py");
    let entries: Vec<Entry> = [
        "pre_tool_call",
        "on_user_message",
        "transform_tool_result",
        "on_response_end",
    ]
    .iter()
    .map(|event| Entry::new(event, &guard).name(&format!("guard-{event}")))
    .collect();
    let key = format!("sk-{}", "a1".repeat(20));
    let answers = same_answers(
        &entries,
        &[
            (
                "pre_tool_call",
                json!({"tool_name": "bash", "tool_input": {"command": "sudo rm -rf /"}}),
            ),
            (
                "pre_tool_call",
                json!({"tool_name": "bash", "tool_input": {"command": "ls -la"}}),
            ),
            (
                "on_user_message",
                json!({"message": format!("my key is {key}")}),
            ),
            (
                "transform_tool_result",
                json!({"tool_name": "bash", "tool_result": format!("KEY={key}")}),
            ),
            (
                "on_response_end",
                json!({"response": format!("use {key} now")}),
            ),
        ],
    );
    assert_eq!(answers[0].decision(), "block");
    assert!(answers[0].reason().contains("recursive delete"));
    assert_eq!(answers[1].status("guard-pre_tool_call"), "noop");
    assert_eq!(answers[2].decision(), "block");
    assert_eq!(answers[3].strings("notes").len(), 1);
    assert_eq!(
        answers[4].outcome["payload"]["response"],
        "use [REDACTED] now"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn exit_codes_tracebacks_and_exit_messages_are_the_interpreters_own() {
    let entries = [
        Entry::new("pre_tool_call", &command("exit2.py")).name("exit2"),
        Entry::new("on_user_message", &command("raises.py")).name("raises"),
        Entry::new("on_session_start", &command("exit_message.py")).name("exit-message"),
    ];
    let answers = same_answers(
        &entries,
        &[
            (
                "pre_tool_call",
                json!({"tool_name": "bash", "tool_input": {"command": "git push --force origin main"}}),
            ),
            (
                "pre_tool_call",
                json!({"tool_name": "bash", "tool_input": {"command": "git push origin main"}}),
            ),
            ("on_user_message", json!({"message": "hi"})),
            ("on_session_start", json!({"status": "new"})),
        ],
    );
    assert_eq!(answers[0].decision(), "block");
    assert_eq!(
        answers[0].reason(),
        "force-push is not allowed here; push without --force"
    );
    assert_eq!(answers[1].decision(), "continue");
    assert_eq!(answers[2].status("raises"), "error");
    assert_eq!(answers[3].status("exit-message"), "error");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn patterns_compiled_ahead_answer_and_warn_as_a_fresh_interpreter_does() {
    let entry = Entry::new("on_user_message", &command("patterns.py")).name("patterns");
    let plain = workspace().hook(entry.clone()).approve_all();
    let forked = workspace().hook(entry.prefork(json!(true))).approve_all();
    for (message, context) in [
        (
            "please Deploy PROD now",
            vec!["production deploy mentioned"],
        ),
        ("  hotfix for the login", vec!["hotfix"]),
        ("a]]", vec!["one of the set, then brackets"]),
        ("nothing to see", vec![]),
    ] {
        let fired = same_outcome(
            &plain,
            &forked,
            "on_user_message",
            json!({"message": message}),
        );
        assert_eq!(fired.context(), context, "{message}");
    }
    assert_eq!(
        records(&forked),
        records(&plain),
        "pre-forked (left) and plain (right) logged differently"
    );
    // The pattern the interpreter warns about is compiled by each call, not ahead: every call
    // prints the warning, as a fresh interpreter does.
    let warned = forked
        .events_of("hook_stderr")
        .iter()
        .filter(|r| r.to_string().contains("FutureWarning: Possible nested set"))
        .count();
    assert_eq!(warned, 4, "{:?}", forked.events_of("hook_stderr"));
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_call_finds_the_scripts_literal_patterns_already_compiled() {
    // Looks in the interpreter's cache of compiled patterns before compiling its own.
    let ws = forked_hook(
        "on_user_message",
        "cached",
        "cached.py",
        r#"import json, re, sys
def cached(pattern, flags=0):
    caches = (getattr(re, "_cache", {}), getattr(re, "_cache2", {}))
    return any(key[1:] == (pattern, flags) for cache in caches for key in cache)
BASE = r"ab+"
seen = [cached(BASE + r"c"), cached(r"(?x) d e", int(re.I | re.M)), cached(r"[[a]"), cached("made " + sys.argv[0])]
A = re.compile(BASE + r"c")
B = re.compile(r"(?x) d e", re.IGNORECASE | re.MULTILINE)
C = re.compile(r"[[a]")
print(json.dumps({"context": json.dumps(seen)}))
"#,
        json!(true),
    );
    let fired = ws.fire("on_user_message", json!({"message": "hi"}));
    // The literal and the constant joined with `+` were compiled in the forker, flags and all;
    // the pattern that warns, and one made at run time, were not.
    assert_eq!(fired.context(), vec!["[true, true, false, false]"]);
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_child_sees_argv_environment_cwd_files_and_only_its_own_descriptors() {
    let entry = Entry::new(
        "pre_tool_call",
        &format!("{} --mode strict", command("context.py")),
    )
    .name("context")
    .env("GUARD_LEVEL", "3");
    let answers = same_answers(
        &[entry],
        &[(
            "pre_tool_call",
            json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
        )],
    );
    let seen: Value = serde_json::from_str(&answers[0].context()[0]).expect("the hook's JSON");
    assert_eq!(seen["name"], "__main__");
    assert_eq!(
        seen["argv"],
        json!(["hooks/context.py", "--mode", "strict"])
    );
    assert_eq!(seen["level"], "3");
    assert_eq!(seen["words"], json!(["alpha", "beta", "gamma"]));
    assert_eq!(seen["path0"], true);
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn each_call_gets_its_own_callers_environment_not_the_one_the_forker_started_with() {
    let ws = forked_hook(
        "on_user_message",
        "env",
        "env.py",
        "import json, os, sys\nsys.stdin.read()\nprint(json.dumps({'context': os.environ.get('PREFORK_TEST_VALUE', 'unset')}))\n",
        json!(true),
    );
    let fire = |value: Option<&str>| {
        let mut cmd = ws.command(&["fire", "on_user_message"]);
        match value {
            Some(value) => cmd.env("PREFORK_TEST_VALUE", value),
            None => cmd.env_remove("PREFORK_TEST_VALUE"),
        };
        let out = run_piped(cmd, br#"{"message": "hi"}"#);
        assert!(out.status.success());
        let outcome: Value = serde_json::from_slice(&out.stdout).expect("an outcome");
        outcome["context"].clone()
    };
    // The first call starts the forker with its environment; the spare made ready for the next
    // call has that environment until a call with another one comes.
    assert_eq!(fire(Some("first")), json!(["first"]));
    assert_eq!(fire(Some("second")), json!(["second"]));
    assert_eq!(fire(None), json!(["unset"]));
    assert_eq!(fire(Some("first")), json!(["first"]));
    assert_eq!(sockets(&ws).len(), 1, "one forker served every call");
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_child_holds_no_descriptor_but_its_three_streams() {
    if !Path::new("/proc/self/fd").is_dir() {
        return;
    }
    let ws = forked_hook(
        "on_user_message",
        "fds",
        "fds.py",
        "import json, os
print(json.dumps({'context': ' '.join(sorted(os.listdir('/proc/self/fd')))}))
",
        json!(true),
    );
    // Descriptors 0, 1 and 2, and the one listing /proc/self/fd: nothing of the forker's,
    // nothing of an earlier call's, nothing the runtime itself inherited.
    for _ in 0..3 {
        let fired = ws.fire("on_user_message", json!({"message": "hi"}));
        assert_eq!(fired.context(), vec!["0 1 2 3"]);
    }
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn module_state_is_fresh_per_call_and_threads_atexit_and_open_files_finish() {
    let entries = [
        Entry::new("pre_tool_call", &command("state.py")).name("state"),
        Entry::new("on_user_message", &command("late.py")).name("late"),
        Entry::new("on_session_start", &command("unicode.py")).name("unicode"),
    ];
    let call = json!({"tool_name": "bash", "tool_input": {"command": "ls"}});
    let answers = same_answers(
        &entries,
        &[
            ("pre_tool_call", call.clone()),
            ("pre_tool_call", call),
            (
                "on_user_message",
                json!({"message": "hi", "tool_name": "late-tool"}),
            ),
            (
                "on_session_start",
                json!({"status": "new", "message": "héllo wörld"}),
            ),
        ],
    );
    assert_eq!(answers[0].context(), vec!["module calls 1, call 1"]);
    assert_eq!(answers[1].context(), vec!["module calls 1, call 2"]);
    assert_eq!(answers[2].context(), vec!["thread+atexit"]);
    assert_eq!(answers[3].context(), vec!["vu: héllo wörld ✓"]);
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_hook_ends_with_its_own_status_not_a_forked_helpers_and_ctrl_c_ends_it_by_signal() {
    let entries = [
        Entry::new("pre_tool_call", &command("forks.py")).name("forks"),
        Entry::new("on_user_message", &command("interrupted.py")).name("interrupted"),
    ];
    let answers = same_answers(
        &entries,
        &[
            ("pre_tool_call", json!({"tool_name": "x"})),
            ("pre_tool_call", json!({"tool_name": "x", "fail": true})),
            ("on_user_message", json!({"message": "hi"})),
        ],
    );
    assert_eq!(answers[0].context(), vec!["helper ended with 7"]);
    assert_eq!(answers[1].status("forks"), "error");
    assert!(
        answers[1].detail("forks").starts_with("exit status 3:"),
        "{}",
        answers[1].detail("forks")
    );
    assert_eq!(answers[2].status("interrupted"), "error");
    assert!(
        answers[2]
            .detail("interrupted")
            .starts_with("killed by signal 2:"),
        "{}",
        answers[2].detail("interrupted")
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn an_input_larger_than_a_pipe_holds_arrives_whole_and_need_not_be_read() {
    let message: String = (0..200_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let entries = [
        Entry::new("on_user_message", &command("big_input.py")).name("reads"),
        Entry::new("on_session_start", &command("big_input.py")).name("unread"),
    ];
    let answers = same_answers(
        &entries,
        &[
            ("on_user_message", json!({"message": message})),
            (
                "on_session_start",
                json!({"status": "new", "message": message}),
            ),
        ],
    );
    let context = answers[0].context();
    assert!(
        context.len() == 1 && context[0].starts_with("200000 chars, sha256 "),
        "{context:?}"
    );
    assert_eq!(answers[1].context(), vec!["did not read the input"]);
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_file_the_script_leaves_open_is_written_out() {
    let ws = workspace()
        .hook(
            Entry::new("pre_tool_call", &command("state.py"))
                .name("state")
                .prefork(json!(true)),
        )
        .approve_all();
    for _ in 0..2 {
        ws.fire("pre_tool_call", json!({"tool_name": "x"}));
    }
    assert_eq!(ws.read("state/state/log.txt"), "call 1\ncall 2\n");
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_claude_code_hook_runs_pre_forked_through_its_shell_line() {
    let line = format!("{} \"$CLAUDE_PROJECT_DIR\"/hooks/exit2.py", python());
    let settings = |prefork: bool| {
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": line, "prefork": prefork}
        ]}]}})
        .to_string()
    };
    let plain = workspace().file(".claude/settings.json", &settings(false));
    let forked = workspace().file(".claude/settings.json", &settings(true));
    plain.approve(&line);
    forked.approve(&line);
    let push = json!({"tool_name": "Bash", "tool_input": {"command": "git push --force"}});
    let warm = same_outcome(&plain, &forked, "pre_tool_call", push);
    assert_eq!(warm.decision(), "block");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_skill_hook_runs_pre_forked() {
    let script = "import json, sys\ne = json.loads(sys.stdin.readline())\ne['args']['command'] = e['args']['command'].strip()\nprint(json.dumps(e))\n";
    let hooks = |prefork: bool| {
        json!({"hooks": [{"name": "strip", "command": format!("{} strip.py", python()), "events": ["pre_tool_call"], "prefork": prefork}]})
            .to_string()
    };
    let plain = Ws::new()
        .file("skills/tidy/strip.py", script)
        .file("skills/tidy/hooks.json", &hooks(false));
    let forked = Ws::new()
        .file("skills/tidy/strip.py", script)
        .file("skills/tidy/hooks.json", &hooks(true));
    let call = json!({"tool_name": "bash", "tool_input": {"command": "  ls  "}});
    let warm = same_outcome(&plain, &forked, "pre_tool_call", call);
    assert_eq!(warm.outcome["payload"]["tool_input"]["command"], "ls");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_forker_socket_is_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let ws = workspace()
        .hook(Entry::new("pre_tool_call", &command("exit2.py")).prefork(json!(true)))
        .approve_all();
    ws.fire("pre_tool_call", json!({"tool_name": "x"}));
    let dir = ws.runtime_path("prefork");
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    let socket = sockets(&ws).pop().expect("a forker socket");
    assert_eq!(mode(&socket), 0o600);
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_timeout_kills_the_childs_whole_process_group() {
    let ws = timed_forked_hook(
        "pre_tool_call",
        "stuck",
        "import os, subprocess, sys, time\nchild = subprocess.Popen(['sleep', '60'])\nwith open(os.path.join(os.environ['STATE_DIR'], 'pids'), 'w') as f:\n    f.write('%d %d' % (os.getpid(), child.pid))\ntime.sleep(60)\n",
        2,
    );
    let fired = ws.fire("pre_tool_call", json!({"tool_name": "x"}));
    assert_eq!(fired.status("stuck"), "timeout");
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
    let pids: Vec<u32> = ws
        .read("state/stuck/pids")
        .split(' ')
        .map(|p| p.parse().expect("a pid"))
        .collect();
    for pid in pids {
        assert!(
            eventually(Duration::from_secs(5), || !process_running(pid)),
            "process {pid} of the timed-out hook is still running"
        );
    }
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_script_the_forker_cannot_load_runs_as_a_plain_process_and_says_so() {
    let ws = forked_hook(
        "pre_tool_call",
        "broken",
        "broken.py",
        "import sys\ndef oops(:\n    pass\n",
        json!(true),
    );
    let fired = ws.fire("pre_tool_call", json!({"tool_name": "x"}));
    // The plain process reports the syntax error as Python does.
    assert_eq!(fired.status("broken"), "error");
    let warning = fired
        .warnings()
        .into_iter()
        .find(|w| w.contains("prefork"))
        .expect("a warning about the fallback");
    assert!(warning.contains("broken"), "{warning}");
    assert!(warning.contains("plain process"), "{warning}");
    let logged = ws.events_of("hook_prefork_fallback");
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(
        ws.events_of("hook_stderr").iter().any(|r| r["detail"]
            .as_str()
            .is_some_and(|d| d.contains("SyntaxError"))),
        "{:?}",
        ws.events()
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn an_edited_script_is_never_run_by_the_forker_of_its_old_content() {
    let ws = forked_hook(
        "on_user_message",
        "say",
        "say.py",
        "print('{\"context\": \"old\"}')\n",
        json!(true),
    );
    let payload = json!({"message": "hi"});
    assert_eq!(
        ws.fire("on_user_message", payload.clone()).context(),
        vec!["old"]
    );
    let ws = ws.file("hooks/say.py", "print('{\"context\": \"new\"}')\n");
    // Changed since approval: the gate skips it, whatever a forker holds.
    let fired = ws.fire("on_user_message", payload.clone());
    assert_eq!(fired.status("say"), "skipped");
    assert!(fired.context().is_empty());
    ws.approve(&command("say.py"));
    assert_eq!(ws.fire("on_user_message", payload).context(), vec!["new"]);
    // The old content's forker saw the script change and left.
    assert!(eventually(Duration::from_secs(10), || sockets(&ws).len() == 1));
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn revoking_the_hook_stops_its_forker() {
    let line = command("exit2.py");
    let ws = workspace()
        .hook(Entry::new("pre_tool_call", &line).prefork(json!(true)))
        .approve_all();
    ws.fire("pre_tool_call", json!({"tool_name": "x"}));
    assert_eq!(sockets(&ws).len(), 1);
    let out = ws.run(&["revoke", &line]);
    assert!(out.status.success());
    assert!(
        eventually(Duration::from_secs(10), || sockets(&ws).is_empty()),
        "the forker still serves after the revoke"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_forker_serving_the_workspace_exits_when_idle() {
    let ws = workspace()
        .hook(Entry::new("pre_tool_call", &command("exit2.py")).prefork(json!(true)))
        .approve_all();
    let mut fire = ws.command(&["fire", "pre_tool_call"]);
    fire.env("AGENT_HOOKS_PREFORK_IDLE", "1");
    let out = run_piped(fire, br#"{"tool_name": "x"}"#);
    assert!(out.status.success());
    assert_eq!(sockets(&ws).len(), 1);
    assert!(
        eventually(Duration::from_secs(15), || sockets(&ws).is_empty()),
        "the forker did not exit after its idle time"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_sidecar_keeps_its_forkers_as_children_and_runs_calls_at_once() {
    let ws = forked_hook(
        "pre_tool_call",
        "slow",
        "slow.py",
        "import json, os, sys, time\nd = json.load(sys.stdin)\nlog = os.path.join(os.environ['STATE_DIR'], d['tool_input']['n'])\nopen(log, 'w').write('%f ' % time.time())\ntime.sleep(1)\nopen(log, 'a').write('%f' % time.time())\n",
        json!(true),
    );
    let server = Server::start(&ws);
    let port = server.port;
    let calls: Vec<_> = (0..4)
        .map(|n| {
            std::thread::spawn(move || {
                super::support::http(
                    port,
                    "POST",
                    "/v1/events/pre_tool_call",
                    json!({"tool_name": "x", "tool_input": {"n": n.to_string()}})
                        .to_string()
                        .as_bytes(),
                    &format!("127.0.0.1:{port}"),
                )
            })
        })
        .collect();
    for call in calls {
        let (status, outcome) = call.join().expect("a request");
        assert_eq!(status, 200);
        assert_eq!(outcome["hooks"][0]["status"], "noop", "{outcome}");
        assert!(
            outcome["warnings"].as_array().is_some_and(Vec::is_empty),
            "{outcome}"
        );
    }
    // Every call started before any ended: they ran at once.
    let spans: Vec<(f64, f64)> = (0..4)
        .map(|n| {
            let text = ws.read(&format!("state/slow/{n}"));
            let (start, end) = text.split_once(' ').expect("start and end");
            (start.parse().expect("a time"), end.parse().expect("a time"))
        })
        .collect();
    let last_start = spans.iter().map(|s| s.0).fold(f64::MIN, f64::max);
    let first_end = spans.iter().map(|s| s.1).fold(f64::MAX, f64::min);
    assert!(
        last_start < first_end,
        "the calls ran one after another: {spans:?}"
    );
    // The sidecar's forkers are its children: nothing serves the workspace on a socket.
    assert!(sockets(&ws).is_empty());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_warm_up_runs_the_script_once_on_the_chosen_payload() {
    let ws = forked_hook(
        "on_user_message",
        "warm",
        "warm.py",
        "import json, os, sys\nd = json.load(sys.stdin)\nopen(os.path.join(os.environ['STATE_DIR'], 'seen'), 'a').write(d.get('message', '?') + '\\n')\n",
        json!({"warmup": {"message": "warm-up"}}),
    );
    ws.fire("on_user_message", json!({"message": "first"}));
    ws.fire("on_user_message", json!({"message": "second"}));
    assert_eq!(ws.read("state/warm/seen"), "warm-up\nfirst\nsecond\n");
}

#[test]
fn prefork_on_a_command_that_is_not_python_is_a_located_config_error() {
    let ws = Ws::new().master(true).hook(
        Entry::new("pre_tool_call", "sh hooks/guard.sh")
            .name("guard")
            .prefork(json!(true)),
    );
    let out = ws.run(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("config/shell_hooks.yaml:"), "{text}");
    assert!(
        text.contains("prefork: the command must be a Python interpreter and a script"),
        "{text}"
    );
    assert!(text.contains("not a Python interpreter"), "{text}");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_approval_binds_prefork_and_list_says_which_hooks_could_use_it() {
    let line = command("exit2.py");
    let ws = workspace()
        .hook(Entry::new("pre_tool_call", &line).name("push-guard"))
        .approve_all();
    let list = String::from_utf8_lossy(&ws.run(&["list"]).stdout).into_owned();
    assert!(list.contains("could run pre-forked"), "{list}");
    // Turning prefork on is a change of what was approved.
    let ws = ws.file(
        "config/shell_hooks.yaml",
        &format!(
            "hooks:\n  - event: pre_tool_call\n    name: push-guard\n    command: {}\n    prefork: true\n",
            json!(line)
        ),
    );
    let list = String::from_utf8_lossy(&ws.run(&["list"]).stdout).into_owned();
    assert!(list.contains("prefork changed since approval"), "{list}");
}

/// The forkers serving `ws` and their spare children, found by their command line (the forker
/// program) and their working directory (the workspace; nothing of the workspace is on their
/// command line).
fn forker_pids(ws: &Ws) -> Vec<u32> {
    let root = ws.root();
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmd| {
                        let cmd = String::from_utf8_lossy(&cmd);
                        cmd.contains("The forker of agent-hooks")
                            && std::fs::read_link(format!("/proc/{pid}/cwd"))
                                .is_ok_and(|cwd| cwd == root)
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_forker_outliving_fire_holds_none_of_its_callers_descriptors() {
    if !Path::new("/proc/self/fd").is_dir() {
        return;
    }
    let ws = forked_hook(
        "on_user_message",
        "quiet",
        "quiet.py",
        "import sys\nsys.stdin.read()\n",
        json!(true),
    );
    // The caller leaves descriptor 9 open across exec, as shells and runners do.
    let marker = ws.path("held-by-the-caller");
    std::fs::write(&marker, "").expect("write the marker");
    let fire = ws.command(&["fire", "on_user_message"]);
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("exec 9<\"$0\"; exec \"$@\"")
        .arg(&marker)
        .arg(fire.get_program())
        .args(fire.get_args())
        .current_dir(std::env::temp_dir());
    let out = run_piped(cmd, br#"{"message": "hi"}"#);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pids = forker_pids(&ws);
    let forkers: Vec<u32> = pids
        .iter()
        .copied()
        .filter(|pid| !parent_of(*pid).is_some_and(|parent| pids.contains(&parent)))
        .collect();
    assert_eq!(
        forkers.len(),
        1,
        "one forker serves the workspace: {pids:?}"
    );
    assert!(
        eventually(Duration::from_secs(10), || forker_pids(&ws).len() == 3),
        "the forker keeps two spare children for the next calls: {:?}",
        forker_pids(&ws)
    );
    for pid in forker_pids(&ws) {
        let held: Vec<PathBuf> = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .expect("the forker's descriptors")
            .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .collect();
        assert!(
            !held.contains(&marker),
            "{pid} of the forker holds the caller's descriptor: {held:?}"
        );
    }
}

/// `fire on_user_message` started with `payload` written to its stdin (then closed), its output
/// piped, not waited for.
fn start_fire(ws: &Ws, payload: &str) -> std::process::Child {
    let mut fire = ws
        .command(&["fire", "on_user_message"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start fire");
    if let Some(mut stdin) = fire.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(payload.as_bytes())
            .expect("write the payload");
    }
    fire
}

/// The forkers of `ws` without their children: a call's child may still be on its way out (it
/// tells its end before it exits).
fn forkers_only(ws: &Ws) -> Vec<u32> {
    let all = forker_pids(ws);
    all.iter()
        .copied()
        .filter(|pid| !parent_of(*pid).is_some_and(|parent| all.contains(&parent)))
        .collect()
}

/// The parent of process `pid`, from `/proc/<pid>/stat`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_call_whose_caller_is_gone_is_killed() {
    let ws = forked_hook(
        "on_user_message",
        "sleeper",
        "sleeper.py",
        "import os, sys, time\nopen(os.path.join(os.environ['STATE_DIR'], 'pid'), 'w').write(str(os.getpid()))\ntime.sleep(60)\n",
        json!(true),
    );
    let mut fire = start_fire(&ws, r#"{"message": "hi"}"#);
    let pid_file = ws.path("state/sleeper/pid");
    assert!(
        eventually(Duration::from_secs(20), || std::fs::read_to_string(
            &pid_file
        )
        .is_ok_and(|p| !p.is_empty())),
        "the hook never started"
    );
    let pid: u32 = ws.read("state/sleeper/pid").parse().expect("a pid");
    // The caller dies without cleaning up (SIGKILL): its forker sees the call dropped.
    fire.kill().expect("kill fire");
    fire.wait().expect("reap fire");
    assert!(
        eventually(Duration::from_secs(10), || !process_running(pid)),
        "the hook of a call nobody waits for is still running"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_timed_out_call_is_answered_even_when_its_forker_never_tells_how_it_ended() {
    // The script stops its forker, which then can never report the child's end: the runtime
    // kills the child at the timeout and answers without that report.
    let ws = timed_forked_hook(
        "on_user_message",
        "stopper",
        "import os, signal, sys, time\nsys.stdin.read()\nopen(os.path.join(os.environ['STATE_DIR'], 'forker'), 'w').write(str(os.getppid()))\nos.kill(os.getppid(), signal.SIGSTOP)\ntime.sleep(60)\n",
        1,
    );
    let mut fire = start_fire(&ws, r#"{"message": "hi"}"#);
    let answered = eventually(Duration::from_secs(20), || {
        matches!(fire.try_wait(), Ok(Some(_)))
    });
    let forker: Option<i32> = std::fs::read_to_string(ws.path("state/stopper/forker"))
        .ok()
        .and_then(|p| p.trim().parse().ok());
    if let Some(pid) = forker {
        // Whatever happened, the stopped forker goes on and leaves.
        let pid = nix::unistd::Pid::from_raw(pid);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    }
    if !answered {
        let _ = fire.kill();
        let _ = fire.wait();
        panic!("fire never answered a call whose forker was stopped");
    }
    assert!(forker.is_some(), "the hook never ran in a forked child");
    let out = fire.wait_with_output().expect("fire's output");
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "fire printed no outcome ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let hook = outcome["hooks"]
        .as_array()
        .and_then(|hooks| hooks.iter().find(|h| h["hook"] == "stopper"))
        .unwrap_or_else(|| panic!("no stopper in {outcome}"));
    assert_eq!(hook["status"], "timeout", "{outcome}");
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
}

/// A hook that holds its call until `state/<name>/go` exists (at most 20 s) when its message is
/// "hold", writing `started` first; it answers the message back as context.
const HOLDS: &str = "import json, os, sys, time\nd = json.load(sys.stdin)\nstate = os.environ['STATE_DIR']\nif d['message'] == 'hold':\n    open(os.path.join(state, 'started'), 'w').close()\n    for _ in range(400):\n        if os.path.exists(os.path.join(state, 'go')):\n            break\n        time.sleep(0.05)\nprint(json.dumps({'context': d['message']}))\n";

/// Lets a held call go when dropped (a failed assertion included).
struct Release(PathBuf);

impl Drop for Release {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.0, "");
    }
}

/// Starts `fire on_user_message` of a "hold" call in the background and waits until its hook
/// runs.
fn held_call(ws: &Ws, name: &str) -> std::process::Child {
    let fire = start_fire(ws, r#"{"message": "hold"}"#);
    assert!(
        eventually(Duration::from_secs(20), || ws
            .exists(&format!("state/{name}/started"))),
        "the held call never started"
    );
    fire
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_forker_finishing_its_calls_after_an_approval_leaves_the_next_calls_to_a_fresh_one() {
    let ws = forked_hook("on_user_message", "holds", "holds.py", HOLDS, json!(true))
        .hook(Entry::new("pre_tool_call", &command("exit2.py")).name("other"));
    let held = held_call(&ws, "holds");
    let release = Release(ws.path("state/holds/go"));
    // Any approval in the workspace stops its forkers; this one still runs the held call.
    ws.approve(&command("exit2.py"));
    assert!(
        eventually(Duration::from_secs(10), || sockets(&ws).is_empty()),
        "the forker did not stop listening after the approval"
    );
    let fired = ws.fire("on_user_message", json!({"message": "meanwhile"}));
    assert_eq!(fired.context(), vec!["meanwhile"]);
    assert!(
        fired.warnings().is_empty() && ws.events_of("hook_prefork_fallback").is_empty(),
        "a call while the old forker finished its own ran as a plain process: {:?}",
        fired.warnings()
    );
    assert_eq!(sockets(&ws).len(), 1, "a fresh forker serves the workspace");
    drop(release);
    let out = held.wait_with_output().expect("the held call");
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("the held call's outcome");
    assert_eq!(outcome["context"], json!(["hold"]), "{outcome}");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_call_the_serving_forker_drops_unstarted_goes_to_a_fresh_forker() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let ws = forked_hook(
        "on_user_message",
        "say",
        "say.py",
        "import json, sys\nprint(json.dumps({'context': json.load(sys.stdin)['message']}))\n",
        json!(true),
    );
    assert_eq!(
        ws.fire("on_user_message", json!({"message": "first"}))
            .context(),
        vec!["first"]
    );
    let socket = sockets(&ws).pop().expect("the forker's socket");
    for pid in forker_pids(&ws) {
        let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
    }
    assert!(eventually(Duration::from_secs(10), || forker_pids(&ws).is_empty()));
    // In the forker's place, one that takes the next call and drops it unstarted, as a forker
    // does that stops listening with a call in its queue, and is gone by then.
    std::fs::remove_file(&socket).expect("remove the dead forker's socket");
    let listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    let dropper = std::thread::spawn(move || {
        let (conn, _) = listener.accept().expect("the call");
        std::fs::remove_file(&socket).expect("unlink");
        drop((conn, listener));
    });
    let fired = ws.fire("on_user_message", json!({"message": "second"}));
    dropper.join().expect("the call was taken and dropped");
    assert_eq!(fired.context(), vec!["second"]);
    assert!(
        fired.warnings().is_empty() && ws.events_of("hook_prefork_fallback").is_empty(),
        "the dropped call ran as a plain process: {:?}",
        fired.warnings()
    );
    assert_eq!(sockets(&ws).len(), 1, "a fresh forker serves the workspace");
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_script_edited_after_the_trust_check_is_not_run_as_a_plain_process_either() {
    let ws = workspace().file(
        "hooks/edited.py",
        "import json, os\nprint(json.dumps({'context': 'approved content'}))\n",
    );
    // The edit lands between the runtime's check of the approval and the forker's read of the
    // script: the interpreter's start-up (a `sitecustomize` on the hook's PYTHONPATH) makes it.
    let script = ws.path("hooks/edited.py");
    let site = format!(
        "p = {script:?}\ntext = open(p).read()\nif 'EDITED' not in text:\n    open(p, 'a').write(\"open(os.path.join(os.environ['STATE_DIR'], 'EDITED'), 'w').close()\\n\")\n",
        script = script.display().to_string()
    );
    let site_dir = ws.path("site").display().to_string();
    let ws = ws
        .file("site/sitecustomize.py", &site)
        .hook(
            Entry::new("on_user_message", &command("edited.py"))
                .name("edited")
                .env("PYTHONPATH", &site_dir)
                .prefork(json!(true)),
        )
        .approve_all();
    let fired = ws.fire("on_user_message", json!({"message": "hi"}));
    assert!(
        ws.read("hooks/edited.py").contains("EDITED"),
        "the script was not edited"
    );
    assert!(
        !ws.exists("state/edited/EDITED"),
        "the edited content ran: {}",
        fired.outcome
    );
    assert_eq!(fired.status("edited"), "error", "{}", fired.outcome);
    assert!(
        fired
            .detail("edited")
            .contains("changed after its approval was checked"),
        "{}",
        fired.outcome
    );
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_sidecar_replaces_a_forker_that_died_between_calls_for_the_next_call() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let ws = forked_hook(
        "on_user_message",
        "say",
        "say.py",
        "import json, sys\nprint(json.dumps({'context': json.load(sys.stdin)['message']}))\n",
        json!(true),
    );
    let server = Server::start(&ws);
    let post = |message: &str| {
        let (status, outcome) =
            server.post("/v1/events/on_user_message", json!({ "message": message }));
        assert_eq!(status, 200, "{outcome}");
        outcome
    };
    assert_eq!(post("first")["context"], json!(["first"]));
    let forkers = forkers_only(&ws);
    assert_eq!(forkers.len(), 1, "one forker, a child of the sidecar");
    kill(Pid::from_raw(forkers[0] as i32), Signal::SIGKILL).expect("kill the forker");
    assert!(eventually(Duration::from_secs(10), || !process_running(
        forkers[0]
    )));
    let outcome = post("second");
    assert_eq!(outcome["context"], json!(["second"]), "{outcome}");
    assert!(
        outcome["warnings"].as_array().is_some_and(Vec::is_empty),
        "the call after the forker died ran as a plain process: {outcome}"
    );
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
    let now = forkers_only(&ws);
    assert!(
        now.len() == 1 && now != forkers,
        "a fresh forker took the call: {now:?}"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn first_calls_at_once_start_one_forker_and_one_warm_up() {
    let ws = forked_hook(
        "on_user_message",
        "warm",
        "warm.py",
        "import json, os, sys\nd = json.load(sys.stdin)\nopen(os.path.join(os.environ['STATE_DIR'], 'seen'), 'a').write(d['message'] + '\\n')\n",
        json!({"warmup": {"message": "warm-up"}}),
    );
    // Four processes' first calls, at once: none finds a forker serving yet.
    let fires: Vec<_> = (0..4)
        .map(|n| start_fire(&ws, &json!({ "message": format!("call {n}") }).to_string()))
        .collect();
    for fire in fires {
        let out = fire.wait_with_output().expect("a call");
        let outcome: Value = serde_json::from_slice(&out.stdout).expect("an outcome");
        assert_eq!(outcome["hooks"][0]["status"], "noop", "{outcome}");
        assert!(
            outcome["warnings"].as_array().is_some_and(Vec::is_empty),
            "{outcome}"
        );
    }
    let mut seen: Vec<String> = ws
        .read("state/warm/seen")
        .lines()
        .map(str::to_owned)
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        ["call 0", "call 1", "call 2", "call 3", "warm-up"],
        "the warm-up runs once, whichever call starts the forker"
    );
    assert!(
        eventually(Duration::from_secs(10), || forker_pids(&ws).len() == 3),
        "one forker and its two spares: {:?}",
        forker_pids(&ws)
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_call_given_up_on_while_it_waited_for_a_spare_never_starts() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let ws = timed_forked_hook(
        "on_user_message",
        "marks",
        "import json, os, sys\nopen(os.path.join(os.environ['STATE_DIR'], 'ran-' + json.load(sys.stdin)['message']), 'w').close()\n",
        1,
    );
    ws.fire("on_user_message", json!({"message": "first"}));
    assert!(ws.exists("state/marks/ran-first"));
    assert!(eventually(Duration::from_secs(10), || forker_pids(&ws)
        .len()
        == 3));
    // The forker and its spares stopped: the next call waits in the socket's queue until its
    // deadline, and is answered as timed out. A child that ran the first call looks like a
    // forker until it has ended, and the forker may fork a new spare until it is stopped
    // itself, so the stopping goes round until no process of the forker is left running; one
    // of them that ends meanwhile (the first call's child) needs no continuing.
    let mut stopped = std::collections::BTreeSet::new();
    loop {
        let running: Vec<u32> = forker_pids(&ws)
            .into_iter()
            .filter(|pid| !stopped.contains(pid))
            .collect();
        if running.is_empty() {
            break;
        }
        for pid in running {
            if kill(Pid::from_raw(pid as i32), Signal::SIGSTOP).is_ok() {
                stopped.insert(pid);
            }
        }
    }
    let fired = ws.fire("on_user_message", json!({"message": "stale"}));
    for pid in &stopped {
        let _ = kill(Pid::from_raw(*pid as i32), Signal::SIGCONT);
    }
    assert_eq!(fired.status("marks"), "timeout", "{}", fired.outcome);
    // Woken, a spare finds that call in the queue, already answered: it does not run it.
    ws.fire("on_user_message", json!({"message": "after"}));
    assert!(ws.exists("state/marks/ran-after"));
    assert!(
        !ws.exists("state/marks/ran-stale"),
        "the hook of a call answered as timed out ran afterwards"
    );
}

/// A workspace whose hook `loads` imports a module that, at import, waits until
/// `state/loads/go` exists (at most 15 s); its timeout is 1 s.
fn slow_to_load() -> Ws {
    workspace()
        .file(
            "hooks/waits_at_import.py",
            "import os, time\nfor _ in range(300):\n    if os.path.exists(os.path.join(os.environ['STATE_DIR'], 'go')):\n        break\n    time.sleep(0.05)\n",
        )
        .file(
            "hooks/loads.py",
            "import json, sys\nimport waits_at_import\nprint(json.dumps({'context': json.load(sys.stdin)['message']}))\n",
        )
        .hook(
            Entry::new("on_user_message", &command("loads.py"))
                .name("loads")
                .timeout(1)
                .prefork(json!(true)),
        )
        .approve_all()
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_call_whose_time_runs_out_while_its_forker_starts_is_answered_and_the_forker_serves_the_next() {
    let ws = slow_to_load();
    let release = Release(ws.path("state/loads/go"));
    let mut fire = start_fire(&ws, r#"{"message": "first"}"#);
    // Answered while the forker is still importing, not when it is done.
    assert!(
        eventually(Duration::from_secs(10), || matches!(
            fire.try_wait(),
            Ok(Some(_))
        )),
        "the call waited for its forker past its timeout"
    );
    let out = fire.wait_with_output().expect("the first call");
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("an outcome");
    assert_eq!(outcome["hooks"][0]["status"], "timeout", "{outcome}");
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
    drop(release);
    // The forker left starting finishes, and takes the next call.
    assert!(eventually(Duration::from_secs(10), || !sockets(&ws).is_empty()));
    let fired = ws.fire("on_user_message", json!({"message": "second"}));
    assert_eq!(fired.context(), vec!["second"], "{}", fired.outcome);
    assert!(ws.events_of("hook_prefork_fallback").is_empty());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_sidecar_answers_a_call_whose_time_runs_out_while_its_forker_starts() {
    let ws = slow_to_load();
    let release = Release(ws.path("state/loads/go"));
    let server = Server::start(&ws);
    let port = server.port;
    let call = std::thread::spawn(move || {
        super::support::http(
            port,
            "POST",
            "/v1/events/on_user_message",
            br#"{"message": "first"}"#,
            &format!("127.0.0.1:{port}"),
        )
    });
    assert!(
        eventually(Duration::from_secs(10), || call.is_finished()),
        "the call waited for its forker past its timeout"
    );
    let (status, outcome) = call.join().expect("the first call");
    assert_eq!(status, 200);
    assert_eq!(outcome["hooks"][0]["status"], "timeout", "{outcome}");
    drop(release);
    let (_, outcome) = server.post("/v1/events/on_user_message", json!({"message": "second"}));
    assert_eq!(outcome["context"], json!(["second"]), "{outcome}");
    assert!(
        outcome["warnings"].as_array().is_some_and(Vec::is_empty),
        "{outcome}"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn a_deep_state_directory_is_served_though_its_socket_path_is_longer_than_an_address_holds() {
    // The sockets live in the runtime's directory for the workspace, under the state directory.
    let state = tempfile::Builder::new()
        .prefix(&format!("agent-hooks-state-{}", "deep".repeat(20)))
        .tempdir()
        .expect("a state directory");
    let ws = Ws::named("agent-hooks-test")
        .master(true)
        .file(
            "hooks/say.py",
            "import json, sys\nprint(json.dumps({'context': json.load(sys.stdin)['message']}))\n",
        )
        .hook(
            Entry::new("on_user_message", &command("say.py"))
                .name("say")
                .prefork(json!(true)),
        )
        .approve_all();
    for message in ["first", "second"] {
        let mut fire = ws.command(&["fire", "on_user_message"]);
        fire.env(agent_hooks_runtime::workspace::STATE_DIR_ENV, state.path());
        let out = run_piped(fire, json!({ "message": message }).to_string().as_bytes());
        let outcome: Value = serde_json::from_slice(&out.stdout).expect("the outcome");
        assert_eq!(outcome["context"], json!([message]), "{outcome}");
    }
    assert!(
        ws.events_of("hook_prefork_fallback").is_empty(),
        "{:?}",
        ws.events_of("hook_prefork_fallback")
    );
    let dir = state
        .path()
        .join("workspaces")
        .join(agent_hooks_runtime::workspace::workspace_id(&ws.root()))
        .join("prefork");
    let socket = std::fs::read_dir(&dir)
        .expect("the forkers' directory")
        .filter_map(|e| Some(e.ok()?.path()))
        .find(|p| p.extension().is_some_and(|x| x == "sock"))
        .expect("a forker serves the workspace");
    assert!(socket.as_os_str().len() > 108, "{}", socket.display());
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_sidecar_replaces_a_forker_that_starts_no_call_in_a_calls_whole_time() {
    // The first call stops its forker (as a wedged forker would be): that call and the next,
    // which the forker cannot start, time out; the one after gets a fresh forker.
    let ws = timed_forked_hook(
        "on_user_message",
        "wedge",
        "import json, os, signal, sys, time\nmessage = json.load(sys.stdin)['message']\nmark = os.path.join(os.environ['STATE_DIR'], 'wedged')\nif not os.path.exists(mark):\n    open(mark, 'w').write(str(os.getppid()))\n    os.kill(os.getppid(), signal.SIGSTOP)\n    time.sleep(60)\nprint(json.dumps({'context': message}))\n",
        1,
    );
    let server = Server::start(&ws);
    let mut statuses = Vec::new();
    for message in ["first", "second"] {
        let (_, outcome) = server.post("/v1/events/on_user_message", json!({ "message": message }));
        statuses.push(outcome["hooks"][0]["status"].clone());
    }
    let wedged: Option<i32> = std::fs::read_to_string(ws.path("state/wedge/wedged"))
        .ok()
        .and_then(|p| p.trim().parse().ok());
    let (_, third) = server.post("/v1/events/on_user_message", json!({"message": "third"}));
    let wedged = wedged.expect("the first call ran in a forked child");
    let still_there = process_running(u32::try_from(wedged).expect("a pid"));
    if still_there {
        let pid = nix::unistd::Pid::from_raw(wedged);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
    }
    assert_eq!(statuses, vec![json!("timeout"), json!("timeout")]);
    assert_eq!(third["context"], json!(["third"]), "{third}");
    assert!(
        !still_there,
        "the wedged forker {wedged} was left running beside its replacement"
    );
}
