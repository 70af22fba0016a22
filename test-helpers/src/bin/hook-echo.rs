//! The cheapest well-behaved hook: reads its whole payload from stdin and answers `{}`
//! ("continue, no change"). The dispatch benchmark runs it both through the engine and directly,
//! so the difference between the two is the engine's own overhead.

use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut payload = Vec::new();
    if std::io::stdin().read_to_end(&mut payload).is_err() {
        return ExitCode::FAILURE;
    }
    let mut out = std::io::stdout().lock();
    if out.write_all(b"{}\n").and_then(|()| out.flush()).is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
