//! The agent hook standards against the real binary, with the standards' own SDKs: the Python
//! client's AGENT-HOOKS-0.1 interceptor on the SDK's emitter through `agent-hooks serve`
//! (`clients/python/tests/test_standards.py`), and the standard's conformance kit run against
//! the Python client's host (`tests/agent_hooks_ctk.py`).
//!
//! Both need an interpreter with the pinned SDKs (`agent-hooks-sdk==0.1.0b3`,
//! `agenthooksprotocol==0.10.1`) in `AGENT_HOOKS_STANDARDS_PYTHON`; `.ci/run` makes one. Without
//! it they are compiled as ignored (the crate's `build.rs`).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> String {
    std::env::var("AGENT_HOOKS_STANDARDS_PYTHON")
        .expect("AGENT_HOOKS_STANDARDS_PYTHON: an interpreter with the pinned standards SDKs")
}

#[cfg_attr(
    not(have_standards_python),
    ignore = "needs AGENT_HOOKS_STANDARDS_PYTHON with agent-hooks-sdk (.ci/run makes one)"
)]
#[test]
fn the_interceptor_answers_the_sdk_emitter_for_every_kind_of_hook() {
    let out = Command::new(python())
        .args(["-m", "unittest", "-v", "tests.test_standards"])
        .current_dir(repo().join("clients/python"))
        .env("AGENT_HOOKS_BIN", support::BIN)
        .env("AGENT_HOOKS_STANDARDS_TESTS", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run the standards tests");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("Ran 9 tests") && stderr.contains("\nOK"),
        "the interceptor's tests failed:\n{stderr}"
    );
}

#[cfg_attr(
    not(have_standards_python),
    ignore = "needs AGENT_HOOKS_STANDARDS_PYTHON with agent-hooks-sdk (.ci/run makes one)"
)]
#[test]
fn the_python_host_passes_every_conformance_vector_the_reference_harness_passes() {
    let out = Command::new(python())
        .arg(repo().join("tests/agent_hooks_ctk.py"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run tests/agent_hooks_ctk.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        out.status.success() && last == "71 passed, 0 failed, 4 skipped",
        "the conformance kit:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The four skips are the kit's incremental-output vectors, for the reason the kit gives.
    let skips: Vec<&str> = stdout.lines().filter(|l| l.starts_with("skip ")).collect();
    assert_eq!(skips.len(), 4, "{stdout}");
    assert!(
        skips
            .iter()
            .all(|l| l.ends_with("missing capabilities: [\"incremental_output\"]")),
        "{stdout}"
    );
}
