//! What `list` and `doctor` say about a hook's command line without running it: each file it
//! names exists, the programs are executable, and their `#!` interpreters are installed.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use agent_hooks_transports::command::find_on_path;
use agent_hooks_transports::command_line::{Reading, Role};

use super::{Finding, FindingCode, Severity};

/// What `list` and `doctor` can say about a command without running it: each file it names
/// exists, the programs are executable, and their `#!` interpreters are installed.
pub(crate) fn inspect(reading: &Reading, root: &Path) -> Vec<Finding> {
    let mut findings = Vec::new();
    for named in &reading.files {
        let Some(path) = &named.path else {
            findings.push(
                Finding::new(
                    FindingCode::NotFound,
                    Severity::Error,
                    format!("{} is not on PATH", named.word),
                )
                .fix(format!(
                    "install {}, or write its absolute path in the command",
                    named.word
                )),
            );
            continue;
        };
        let word = named.word.as_str();
        let relative = !word.starts_with(['/', '$', '~']) && word.contains('/');
        let shown = path.display();
        if !path.exists() {
            let message = if relative {
                format!(
                    "{word} not found: the relative path resolved to {shown}, which does not exist"
                )
            } else {
                format!("{word} not found ({shown})")
            };
            findings.push(
                Finding::new(FindingCode::NotFound, Severity::Error, message).fix(
                    "write the absolute path of the script in the command, and check it exists",
                ),
            );
            continue;
        }
        if relative {
            findings.push(
                Finding::new(
                    FindingCode::RelativePath,
                    Severity::Info,
                    format!("relative path {word} resolved to {shown}"),
                )
                .fix(format!(
                    "relative paths are taken from the working directory ({}); an absolute path avoids surprises",
                    root.display()
                )),
            );
        }
        if named.role != Role::Program {
            continue;
        }
        let executable = path
            .metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
        if !executable {
            findings.push(
                Finding::new(
                    FindingCode::NotExecutable,
                    Severity::Error,
                    format!("{shown} is not executable (no execute permission)"),
                )
                .fix(format!("chmod +x {shown}")),
            );
            continue;
        }
        check_interpreter(path, word, &mut findings);
    }
    findings
}

/// Reads the `#!` line of an executable file and checks its interpreter is there. A file with
/// neither `#!` nor a binary header cannot be executed directly.
pub(crate) fn check_interpreter(path: &Path, word: &str, findings: &mut Vec<Finding>) {
    let mut head = [0u8; 256];
    let n = match std::fs::File::open(path).and_then(|mut f| f.read(&mut head)) {
        Ok(n) => n,
        Err(_) => return,
    };
    let head = &head[..n];
    if !head.starts_with(b"#!") {
        // Binaries (ELF, Mach-O) and anything else the kernel knows are fine; a script without
        // a `#!` line runs as a shell script, as a shell runs it.
        if looks_like_text(head) {
            findings.push(
                Finding::new(
                    FindingCode::NotExecutable,
                    Severity::Info,
                    format!("{word} has no #! line, so it runs as a shell script (/bin/sh), as a shell would run it"),
                )
                .fix(format!(
                    "if it is not a shell script, add a first line such as #!/usr/bin/env python3, or name the interpreter in the command (python3 {word})"
                )),
            );
        }
        return;
    }
    let line_end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    let line = String::from_utf8_lossy(&head[2..line_end]);
    let mut parts = line.split_whitespace();
    let Some(interpreter) = parts.next() else {
        return;
    };
    let missing = if interpreter.ends_with("/env") {
        let program = parts.find(|p| !p.starts_with('-'));
        match program {
            Some(program) if find_on_path(program).is_none() => Some(program.to_owned()),
            _ => None,
        }
    } else if !Path::new(interpreter).exists() {
        Some(interpreter.to_owned())
    } else {
        None
    };
    if let Some(missing) = missing {
        findings.push(
            Finding::new(
                FindingCode::InterpreterMissing,
                Severity::Error,
                format!("{word} needs the interpreter {missing} (its #! line), which is not installed or not on PATH"),
            )
            .fix(format!("install {missing}, or fix the #! line of {}", path.display())),
        );
    }
}

fn looks_like_text(head: &[u8]) -> bool {
    !head.is_empty()
        && head.iter().all(|&b| {
            b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b) || b >= 0x80
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_env_interpreter_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("x");
        std::fs::write(&script, "#!/usr/bin/env no-such-interpreter-xyz\n").expect("write");
        let mut findings = Vec::new();
        check_interpreter(&script, "x", &mut findings);
        assert_eq!(findings[0].code, FindingCode::InterpreterMissing);
        assert!(findings[0].message.contains("no-such-interpreter-xyz"));
    }
}
