//! Tells the CLI's tests which interpreters this machine has, so the tests that run a Python, Node
//! or jq hook (or the TypeScript client) are compiled as `#[ignore]`d with the reason
//! where the interpreter is missing: they show as "ignored", never as passed. Nothing here
//! affects the `agent-hooks` binary.

use std::path::Path;
use std::process::{Command, Stdio};

fn main() {
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=AGENT_HOOKS_TSC");
    println!("cargo::rerun-if-env-changed=AGENT_HOOKS_STANDARDS_PYTHON");
    for cfg in [
        "have_python3",
        "have_node",
        "have_jq",
        "have_tsc",
        "have_standards_python",
        "have_chromium",
    ] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    if runs("python3") {
        println!("cargo::rustc-cfg=have_python3");
    }
    if runs("node") {
        println!("cargo::rustc-cfg=have_node");
    }
    if runs("jq") {
        println!("cargo::rustc-cfg=have_jq");
    }
    if runs("chromium") {
        println!("cargo::rustc-cfg=have_chromium");
    }
    // The TypeScript client test compiles with $AGENT_HOOKS_TSC (which .ci/run sets), else `tsc`.
    let tsc = std::env::var_os("AGENT_HOOKS_TSC").filter(|t| Path::new(t).is_file());
    if tsc.is_some() || runs("tsc") {
        println!("cargo::rustc-cfg=have_tsc");
    }
    // The standards' tests run the interpreter of $AGENT_HOOKS_STANDARDS_PYTHON, which must
    // import both standards' SDKs, the second with its HTTP transport (.ci/run makes one).
    let standards = std::env::var_os("AGENT_HOOKS_STANDARDS_PYTHON").is_some_and(|python| {
        Command::new(python)
            .args(["-c", "import agent_hooks, agenthooksprotocol, httpx"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if standards {
        println!("cargo::rustc-cfg=have_standards_python");
    }
}

/// Whether `program --version` runs and succeeds.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
