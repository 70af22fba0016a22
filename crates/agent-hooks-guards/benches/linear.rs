//! Every ready-made guard on inputs of 1, 2, 4 and 8 MB built to be hard for it (PEM headers
//! with no end, key-shaped runs beside keywords, runs of BIP-39 words, deep and long shell
//! text, e-mail and phone shapes), then a 10 MB tool result. Linear time shows as a flat
//! MB/s column and an 8 MB / 1 MB ratio near 8; the target for 10 MB is under 0.5 s.
//!
//! `cargo bench -p agent-hooks-guards --bench linear` (add a case name to run only the cases
//! whose name contains it).

use std::hint::black_box;
use std::time::{Duration, Instant};

use agent_hooks_guards::{GUARDS, Guard, GuardContext};
use serde_json::{Value, json};

const MB: usize = 1024 * 1024;

/// `unit` repeated to `size` bytes (cut at a character boundary).
fn repeat(unit: &str, size: usize) -> String {
    let mut text = unit.repeat(size / unit.len() + 1);
    let mut cut = size;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text
}

/// The hostile texts: each is a shape that once cost (or could cost) more than linear time.
fn shapes() -> Vec<(&'static str, &'static str)> {
    vec![
        // Each header once restarted a search for its END over the rest of the text.
        ("pem_headers", "-----BEGIN PRIVATE KEY-----\n"),
        (
            "pem_keys",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n-----END RSA PRIVATE KEY-----\n",
        ),
        // Key-shaped runs each a keyword's window apart: every run reaches the next.
        (
            "base58_chain",
            "private key 5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ xx ",
        ),
        (
            "base58_far",
            "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ ....................................................................................... seed ",
        ),
        (
            "bip39_run",
            "abandon ability able about above absent absorb abstract ",
        ),
        (
            "solana_arrays",
            "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, ",
        ),
        (
            "credentials",
            "sk-proj-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa sk-ant-api03-x ghp_abc AKIA1234 Bearer x bearer ",
        ),
        (
            "pii",
            "jane.doe@example.com +1 (555) 010-0199 @@@ 1.2.3.4.5.6.7.8 ",
        ),
        (
            "shell_dense",
            "echo $(ls) && rm -f x; bash -c 'cat y' | xargs echo; ",
        ),
        ("shell_open", "$($($($( ( ( [ [ \"'`"),
        (
            "claims",
            "I published it to https://example.com/p/123 and deployed v2. I'll let you know. ",
        ),
    ]
}

/// The payload of `event` with `text` in the field the guard reads there.
fn payload(event: &str, text: &str) -> Value {
    match event {
        "pre_tool_call" => json!({"tool_name": "bash", "tool_input": {"command": text}}),
        "transform_tool_result" => {
            json!({"tool_name": "bash", "tool_input": {"command": "cat x"}, "tool_result": text})
        }
        "post_tool_call" => {
            json!({"tool_name": "bash", "tool_input": {"command": text}, "tool_result": text})
        }
        "on_user_message" => json!({"message": text}),
        "on_outbound_message" => json!({"notification": text}),
        _ => json!({"response": text, "tool_names": ["bash"], "model": "m", "cost": 0.1}),
    }
}

/// The fastest of three runs: on a shared machine the others measure the neighbours.
fn time(guard: &Guard, event: &str, payload: &Value) -> Duration {
    let dir = std::env::temp_dir();
    let mut ctx = GuardContext::dry_run(dir);
    (0..3)
        .map(|_| {
            let started = Instant::now();
            black_box(guard.evaluate(event, black_box(payload), &mut ctx));
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    println!(
        "{:<48} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9}",
        "guard event shape", "1 step", "2 steps", "4 steps", "8 steps", "8/1", "MB/s @8"
    );
    let mut worst_ratio: f64 = 0.0;
    // `LINEAR_STEP_KB` shrinks the steps (a quick look at a shape that is still slow).
    let step = std::env::var("LINEAR_STEP_KB")
        .ok()
        .and_then(|kb| kb.parse::<usize>().ok())
        .map_or(MB, |kb| kb * 1024);
    for info in GUARDS {
        let Ok(guard) = Guard::with_defaults(info.name) else {
            continue;
        };
        for event in info.events {
            for (shape, unit) in shapes() {
                let name = format!("{} {} {shape}", info.name, event.event);
                if !wanted(&name) {
                    continue;
                }
                let times: Vec<Duration> = [1, 2, 4, 8]
                    .iter()
                    .map(|mb| {
                        let text = repeat(unit, mb * step);
                        time(&guard, event.event, &payload(event.event, &text))
                    })
                    .collect();
                let ratio = times[3].as_secs_f64() / times[0].as_secs_f64().max(1e-6);
                // Under a millisecond the ratio is noise, not growth.
                if times[3] > Duration::from_millis(5) {
                    worst_ratio = worst_ratio.max(ratio);
                }
                println!(
                    "{name:<48} {:>9.1?} {:>9.1?} {:>9.1?} {:>9.1?} {ratio:>8.1} {:>9.0}",
                    times[0],
                    times[1],
                    times[2],
                    times[3],
                    (8 * step) as f64 / MB as f64 / times[3].as_secs_f64().max(1e-9)
                );
            }
        }
    }
    println!("worst 8 MB / 1 MB ratio (cases over 5 ms): {worst_ratio:.1} (linear: about 8)");

    // The acceptance case: a 10 MB tool result through security_guard.
    if step == MB
        && (wanted("security_guard transform_tool_result 10mb") || filter.is_empty())
        && let Ok(guard) = Guard::with_defaults("security_guard")
    {
        for (shape, unit) in shapes() {
            let text = repeat(unit, 10 * MB);
            let took = time(
                &guard,
                "transform_tool_result",
                &payload("transform_tool_result", &text),
            );
            println!(
                "security_guard transform_tool_result 10 MB {shape:<14} {took:>9.1?} (target < 500 ms)"
            );
        }
    }
}
