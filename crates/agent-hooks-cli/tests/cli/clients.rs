//! The client snippets of `docs/sidecar.md` (`examples/clients/client.py` and `client.ts`) run
//! against a real `agent-hooks serve` on an ephemeral loopback port, and the doc is checked to
//! contain each file verbatim, so what a reader copies is what was tested.
//!
//! The TypeScript client is compiled with `tsc` from `AGENT_HOOKS_TSC` (`.ci/run` installs one
//! and sets it), else `tsc` on `PATH`. Where python3, node or tsc is missing, the tests that need
//! it are compiled as ignored (see the crate's `build.rs`) and report "ignored", not "ok".

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use support::{Entry, Server, Ws};

const GUARD: &str = r#"
    import json, sys
    p = json.load(sys.stdin)
    if "rm -rf" in p["tool_input"].get("command", ""):
        print(json.dumps({"decision": "block", "reason": "no rm -rf"}))
"#;

/// A workspace whose guard blocks `rm -rf`, declared but approved only when `approved`.
fn guarded(approved: bool) -> Ws {
    let ws = Ws::new()
        .master(approved)
        .py("hooks/guard.py", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.py").name("guard"));
    if approved { ws.approve_all() } else { ws }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn clients() -> PathBuf {
    repo().join("examples/clients")
}

fn stdout_of(what: &str, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn assert_blocked(what: &str, stdout: &str) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.contains(&"decision: block") && lines.contains(&"reason: no rm -rf"),
        "{what} did not print the guard's block:\n{stdout}"
    );
}

// ---- Python ----

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn python_client_main_prints_the_guards_block() {
    let ws = guarded(true);
    let server = Server::start(&ws);
    let out = Command::new(support::python())
        .arg(clients().join("client.py"))
        .arg(server.port.to_string())
        .output()
        .expect("run python3 examples/clients/client.py");
    let stdout = stdout_of("client.py", &out);
    assert_blocked("client.py", &stdout);
    assert!(stdout.contains("hooks: 1"), "{stdout}");
}

/// Self-approve, `/hooks list` and the error of an undeclared command, through the class.
const PYTHON_API: &str = r#"
import sys
sys.path.insert(0, sys.argv[1])
from client import AgentHooks, AgentHooksError
hooks = AgentHooks("http://127.0.0.1:" + sys.argv[2])
rm = {"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}
print("before:", hooks.dispatch("pre_tool_call", rm)["decision"])
approval = hooks.approve("hooks/guard.py")
print("approved:", approval["events"], approval["mounted"], approval["master_enabled"])
print("after:", hooks.dispatch("pre_tool_call", rm)["decision"])
print("listed:", "guard" in hooks.command("/hooks list"))
try:
    hooks.approve("hooks/undeclared.py")
except AgentHooksError as e:
    print("undeclared:", e.status, "not declared" in e.message)
"#;

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn python_client_approves_lists_and_reports_errors() {
    let ws = guarded(false);
    let server = Server::start(&ws);
    let out = Command::new(support::python())
        .args(["-c", PYTHON_API])
        .arg(clients())
        .arg(server.port.to_string())
        .output()
        .expect("run python3");
    let stdout = stdout_of("the Python client API", &out);
    assert_eq!(
        stdout,
        "before: continue\napproved: ['pre_tool_call'] 1 True\nafter: block\nlisted: True\nundeclared: 422 True\n"
    );
}

// ---- TypeScript ----

/// `tsc`: `$AGENT_HOOKS_TSC` (which `.ci/run` sets), else the one on `PATH`. The build script
/// compiles the TypeScript tests as ignored where neither exists, so this is only reached when
/// one does.
fn tsc() -> PathBuf {
    match std::env::var_os("AGENT_HOOKS_TSC").map(PathBuf::from) {
        Some(path) if path.is_file() => path,
        _ => PathBuf::from("tsc"),
    }
}

/// `examples/clients/client.ts` compiled once per test binary; the directory holding `client.js`.
fn compiled_ts(tsc: &Path) -> &'static Path {
    // Under the target directory, not a temporary one: a static is never dropped, so a
    // temporary directory here would be left behind by every run.
    static OUT: OnceLock<PathBuf> = OnceLock::new();
    OUT.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("examples-clients-ts");
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).expect("create the tsc output directory");
        let mut cmd = Command::new(tsc);
        cmd.args(["--strict", "--target", "es2022", "--module", "commonjs"])
            .args(["--lib", "es2022", "--types", "node", "--outDir"])
            .arg(&out)
            .arg(clients().join("client.ts"));
        // An installed tsc finds `@types/node` beside itself, not beside the compiled file.
        if let Ok(real) = std::fs::canonicalize(tsc)
            && let Some(modules) = real.ancestors().nth(3)
            && modules.join("@types/node").is_dir()
        {
            cmd.arg("--typeRoots").arg(modules.join("@types"));
        }
        let compiled = cmd.output().expect("run tsc");
        stdout_of("tsc examples/clients/client.ts", &compiled);
        out
    })
    .as_path()
}

fn node(script: &Path, args: &[&str]) -> Output {
    Command::new("node")
        .arg(script)
        .args(args)
        .output()
        .expect("node is needed to run the TypeScript client")
}

#[cfg_attr(
    not(all(have_python3, have_node, have_tsc)),
    ignore = "needs python3, node and tsc ($AGENT_HOOKS_TSC; .ci/run installs them)"
)]
#[test]
fn typescript_client_main_prints_the_guards_block() {
    let tsc = tsc();
    let dir = compiled_ts(&tsc);
    let ws = guarded(true);
    let server = Server::start(&ws);
    let out = node(&dir.join("client.js"), &[&server.port.to_string()]);
    let stdout = stdout_of("client.ts", &out);
    assert_blocked("client.ts", &stdout);
    assert!(stdout.contains("hooks: 1"), "{stdout}");
}

const TYPESCRIPT_API: &str = r#"
const { AgentHooks, AgentHooksError } = require(process.argv[2]);
(async () => {
  const hooks = new AgentHooks("http://127.0.0.1:" + process.argv[3]);
  const rm = { tool_name: "bash", tool_input: { command: "rm -rf /" } };
  console.log("before:", (await hooks.dispatch("pre_tool_call", rm)).decision);
  const approval = await hooks.approve("hooks/guard.py");
  console.log("approved:", approval.events.join(","), approval.mounted, approval.master_enabled);
  console.log("after:", (await hooks.dispatch("pre_tool_call", rm)).decision);
  console.log("listed:", (await hooks.command("/hooks list")).includes("guard"));
  try {
    await hooks.approve("hooks/undeclared.py");
  } catch (e) {
    console.log("undeclared:", e instanceof AgentHooksError, e.status, e.message.includes("not declared"));
  }
})();
"#;

#[cfg_attr(
    not(all(have_python3, have_node, have_tsc)),
    ignore = "needs python3, node and tsc ($AGENT_HOOKS_TSC; .ci/run installs them)"
)]
#[test]
fn typescript_client_approves_lists_and_reports_errors() {
    let tsc = tsc();
    let dir = compiled_ts(&tsc);
    let ws = guarded(false);
    let server = Server::start(&ws);
    let script = dir.join("api.js");
    std::fs::write(&script, TYPESCRIPT_API).expect("write the API script");
    let module = dir.join("client.js");
    let out = node(
        &script,
        &[&module.to_string_lossy(), &server.port.to_string()],
    );
    let stdout = stdout_of("the TypeScript client API", &out);
    assert_eq!(
        stdout,
        "before: continue\napproved: pre_tool_call 1 true\nafter: block\nlisted: true\nundeclared: true 422 true\n"
    );
}

// ---- The doc ----

#[test]
fn the_sidecar_doc_contains_each_client_verbatim() {
    let doc =
        std::fs::read_to_string(repo().join("docs/sidecar.md")).expect("read docs/sidecar.md");
    for name in ["client.py", "client.ts"] {
        let source = std::fs::read_to_string(clients().join(name))
            .unwrap_or_else(|e| panic!("read examples/clients/{name}: {e}"));
        assert!(
            doc.contains(&source),
            "docs/sidecar.md no longer contains examples/clients/{name} verbatim; paste the file \
             into its code block again"
        );
    }
}

// ---- The Python package (clients/python) and the example host (examples/hosts) ----

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_python_package_passes_its_tests_against_the_real_binary() {
    let out = Command::new(support::python())
        .args(["-m", "unittest", "discover", "-s", "tests", "-v"])
        .current_dir(repo().join("clients/python"))
        .env("AGENT_HOOKS_BIN", support::BIN)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run python3 -m unittest");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("Ran 18 tests") && stderr.contains("OK"),
        "the Python client's tests failed:\n{stderr}"
    );
}

#[cfg_attr(
    not(have_python3),
    ignore = "needs python3 on PATH (.ci/run installs it)"
)]
#[test]
fn the_example_host_runs_a_python_agent_loop_on_the_sidecar() {
    let ws = Ws::new()
        .master(true)
        .sh(
            "hooks/guard.sh",
            "case \"$(cat)\" in *'rm -rf'*) echo '{\"decision\": \"block\", \"reason\": \"no rm -rf\"}' ;; esac\n",
        )
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh"))
        .sh(
            "hooks/verify.sh",
            "case \"$(cat)\" in *'\"stop_hook_active\":false'*) echo '{\"decision\": \"block\", \"reason\": \"check your work\"}' ;; esac\n",
        )
        .hook(Entry::new("on_stop", "hooks/verify.sh"))
        .file("precious", "keep me\n")
        .approve_all();
    let out = Command::new(support::python())
        .arg(repo().join("examples/hosts/agent_loop.py"))
        .arg(ws.root())
        .env("AGENT_HOOKS_BIN", support::BIN)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run examples/hosts/agent_loop.py");
    let stdout = stdout_of("agent_loop.py", &out);
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "tool bash success: hello",
            "tool bash blocked: [blocked by a hook] no rm -rf",
            "redo: check your work",
            "reply: All done.",
            "scratch file kept: a hook blocked the rm -rf",
        ]
    );
    assert_eq!(ws.read("precious"), "keep me\n", "the blocked command ran");
}

#[cfg_attr(
    not(all(have_node, have_tsc)),
    ignore = "needs node and tsc ($AGENT_HOOKS_TSC; .ci/run installs them)"
)]
#[test]
fn the_typescript_package_passes_its_tests_against_the_real_binary() {
    let tsc = tsc();
    let package = repo().join("clients/typescript");
    let out = tempfile::Builder::new()
        .prefix("agent-hooks-ts-client")
        .tempdir()
        .expect("create the tsc output directory");
    let mut cmd = Command::new(&tsc);
    cmd.args(["--strict", "--target", "es2022", "--module", "commonjs"])
        .args(["--lib", "es2022", "--types", "node", "--rootDir"])
        .arg(&package)
        .arg("--outDir")
        .arg(out.path())
        .arg(package.join("src/index.ts"))
        .arg(package.join("test/client.test.ts"));
    if let Ok(real) = std::fs::canonicalize(&tsc)
        && let Some(modules) = real.ancestors().nth(3)
        && modules.join("@types/node").is_dir()
    {
        cmd.arg("--typeRoots").arg(modules.join("@types"));
    }
    stdout_of("tsc clients/typescript", &cmd.output().expect("run tsc"));
    let ran = Command::new("node")
        .arg("--test")
        .arg(out.path().join("test/client.test.js"))
        .env("AGENT_HOOKS_BIN", support::BIN)
        .output()
        .expect("run node --test");
    let stdout = stdout_of("node --test", &ran);
    assert!(
        stdout.contains("# pass 12") && stdout.contains("# fail 0"),
        "{stdout}"
    );
}

// ---- open-strix's own hook tests on the sidecar (agent_hooks_runtime.integrations.open_strix) ----

/// open-strix's `tests/test_hooks.py`, unmodified, with its `HookManager` swapped for the
/// integration's by the pytest plugin. Needs an interpreter with open-strix installed at the
/// pinned version (`clients/python/integrations-requirements.txt`) in
/// `AGENT_HOOKS_OPEN_STRIX_PYTHON`, and `AGENT_HOOKS_OPEN_STRIX_TESTS` naming one or more
/// directories (`:`-separated) holding a `test_hooks.py` — the fork's and upstream's `tests/`.
/// Then `clients/python/tests/open_strix`, the side-by-side suite, with the same interpreter.
#[ignore = "needs open-strix: set AGENT_HOOKS_OPEN_STRIX_PYTHON and AGENT_HOOKS_OPEN_STRIX_TESTS, then run with --ignored"]
#[test]
fn open_strix_own_hook_tests_pass_on_the_sidecar() {
    let python = std::env::var("AGENT_HOOKS_OPEN_STRIX_PYTHON")
        .expect("AGENT_HOOKS_OPEN_STRIX_PYTHON: an interpreter with open-strix installed");
    let dirs = std::env::var("AGENT_HOOKS_OPEN_STRIX_TESTS")
        .expect("AGENT_HOOKS_OPEN_STRIX_TESTS: directories holding open-strix's test_hooks.py");
    // Then the side-by-side suite: each scenario through open-strix's HookManager and through
    // the sidecar, the same bytes, the same effects, the same records.
    let side_by_side = repo().join("clients/python/tests/open_strix");
    let suites = dirs
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|dir| (Path::new(dir).join("test_hooks.py"), true))
        .chain([(side_by_side, false)]);
    for (suite, plugin) in suites {
        let dir = suite.display().to_string();
        let mut pytest = Command::new(&python);
        pytest.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"]);
        if plugin {
            pytest.args(["-p", "agent_hooks_runtime.integrations.open_strix"]);
        }
        let out = pytest
            .arg(&suite)
            .env("PYTHONPATH", repo().join("clients/python"))
            .env("AGENT_HOOKS_BIN", support::BIN)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .expect("run pytest");
        let stdout = stdout_of(&format!("open-strix's tests in {dir}"), &out);
        let summary = stdout.lines().last().unwrap_or("");
        assert!(
            summary.contains(" passed")
                && !summary.contains("failed")
                && !summary.contains("error"),
            "{dir}: {stdout}"
        );
    }
}
