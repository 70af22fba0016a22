//! security_guard on the bench's dense 10 KB script in a plain loop, for what criterion does
//! not give: instruction counts (`valgrind --tool=callgrind --toggle-collect='*counted*'
//! target/release/examples/dense_loop 100`) and paired timings of two builds
//! (`benches/pair.py`). Prints the mean time a call of `COUNT` calls (default 1000), after 20
//! calls to warm up.
//!
//! Build: `cargo build --release -p agent-hooks-guards --example dense_loop`.

use std::hint::black_box;
use std::time::Instant;

use agent_hooks_guards::{Guard, GuardContext};
use serde_json::{Value, json};

#[path = "../benches/common/payloads.rs"]
#[allow(dead_code, reason = "the heredoc shape is the criterion bench's alone")]
mod payloads;

/// One call, out of line so that a profiler can count exactly the calls made here.
#[inline(never)]
fn counted(guard: &Guard, payload: &Value, ctx: &mut GuardContext) {
    black_box(guard.evaluate("pre_tool_call", black_box(payload), ctx));
}

fn main() {
    let count: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let guard = match Guard::with_defaults("security_guard") {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("dense_loop: {e}");
            std::process::exit(2);
        }
    };
    let mut ctx = GuardContext::in_memory(std::env::temp_dir());
    let payload = json!({
        "event": "pre_tool_call",
        "session_id": "bench",
        "tool_name": "bash",
        "tool_input": {"command": payloads::dense_command()},
    });
    for _ in 0..20 {
        black_box(guard.evaluate("pre_tool_call", &payload, &mut ctx));
    }
    let start = Instant::now();
    for _ in 0..count {
        counted(&guard, &payload, &mut ctx);
    }
    let each = start.elapsed().as_secs_f64() * 1e6 / f64::from(count.max(1));
    eprintln!("{each:.1} us/call");
}
