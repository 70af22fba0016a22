//! The example agent's workspace has Python hooks (its guards) beside sh ones: tell its test
//! whether this machine has `python3`, so the test is compiled as `#[ignore]`d with the reason
//! where it does not — shown as "ignored", never as passed. Nothing here affects the example.

use std::process::{Command, Stdio};

fn main() {
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rustc-check-cfg=cfg(have_python3)");
    let runs = Command::new("python3")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if runs {
        println!("cargo::rustc-cfg=have_python3");
    }
}
