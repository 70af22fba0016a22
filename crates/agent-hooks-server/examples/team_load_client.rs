//! The load generator of `benches/team_load.py`: threads that each keep one HTTP/1.1
//! connection open to every replica and send Claude Code PreToolUse checks to them in turn,
//! one request at a time per connection, as an agent's hook calls arrive. Written without an
//! HTTP client library or an async runtime, so that on a machine of two cores the clients cost
//! the service as little CPU as they can: a Python client spent more time building and reading
//! requests than a replica spent answering them.
//!
//! Usage: team_load_client [--all-allowed] SECONDS THREADS TOKEN_FILE PORT...
//! (`--all-allowed`: the policy has no guard, so every answer must be an allow.)
//! Prints one JSON object: checks sent, seconds, wrong answers and latency percentiles (ms).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The commands of the mix, with whether security_guard denies them (as team_load.py's).
const COMMANDS: [(&str, bool); 8] = [
    ("ls -la", false),
    ("git status", false),
    ("cargo test -p core", false),
    ("cat README.md", false),
    ("rm -rf /", true),
    ("grep -rn TODO src", false),
    ("dd if=/dev/zero of=/dev/sda", true),
    ("python3 -m pytest -q", false),
];

/// Sessions each thread speaks for.
const SESSIONS: usize = 50;

struct Load {
    seconds: f64,
    threads: usize,
    token: String,
    ports: Vec<u16>,
    all_allowed: bool,
}

fn usage(why: &str) -> ! {
    eprintln!(
        "team_load_client: {why}\n\
         usage: team_load_client [--all-allowed] SECONDS THREADS TOKEN_FILE PORT..."
    );
    std::process::exit(2)
}

fn load() -> Load {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let all_allowed = args.first().is_some_and(|a| a == "--all-allowed");
    if all_allowed {
        args.remove(0);
    }
    if args.len() < 4 {
        usage("expected SECONDS THREADS TOKEN_FILE and at least one PORT");
    }
    let seconds = args[0]
        .parse()
        .unwrap_or_else(|_| usage(&format!("SECONDS: not a number: {}", args[0])));
    let threads = args[1]
        .parse()
        .unwrap_or_else(|_| usage(&format!("THREADS: not a count: {}", args[1])));
    let token = std::fs::read_to_string(&args[2])
        .unwrap_or_else(|e| usage(&format!("TOKEN_FILE {}: {e}", args[2])))
        .trim()
        .to_owned();
    let ports = args[3..]
        .iter()
        .map(|p| {
            p.parse()
                .unwrap_or_else(|_| usage(&format!("PORT: not a port: {p}")))
        })
        .collect();
    Load {
        seconds,
        threads,
        token,
        ports,
        all_allowed,
    }
}

/// One request, whole, ready to write: its bytes and whether its answer must be a deny.
fn requests(thread: usize, load: &Load) -> Vec<(Vec<u8>, bool)> {
    let token = &load.token;
    let mut out = Vec::with_capacity(SESSIONS * COMMANDS.len());
    for session in 0..SESSIONS {
        for (command, deny) in COMMANDS {
            let body = serde_json::json!({
                "session_id": format!("t{thread}-s{session}"),
                "cwd": "/tmp",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": command},
            })
            .to_string();
            let head = format!(
                "POST /v1/hooks/claude-code HTTP/1.1\r\nHost: 127.0.0.1\r\n\
                 Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\n\r\n",
                body.len()
            );
            let deny = deny && !load.all_allowed;
            out.push(([head.into_bytes(), body.into_bytes()].concat(), deny));
        }
    }
    out
}

/// Reads one response: its status and body.
fn response(
    reader: &mut BufReader<TcpStream>,
    line: &mut String,
) -> std::io::Result<(u16, Vec<u8>)> {
    let broken = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    line.clear();
    reader.read_line(line)?;
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| broken("no status line"))?;
    let mut length = 0;
    loop {
        line.clear();
        if reader.read_line(line)? == 0 {
            return Err(broken("the connection closed in the head"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().map_err(|_| broken("Content-Length"))?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok((status, body))
}

fn denied(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|answer| {
        answer.pointer("/hookSpecificOutput/permissionDecision")
            == Some(&serde_json::Value::from("deny"))
    })
}

/// One thread's run: its latencies (ns) and wrong answers.
fn run(thread: usize, load: &Load, until: Instant) -> std::io::Result<(Vec<u64>, usize)> {
    let mut conns = Vec::new();
    for port in &load.ports {
        let stream = TcpStream::connect(("127.0.0.1", *port))?;
        stream.set_nodelay(true)?;
        conns.push((stream.try_clone()?, BufReader::new(stream)));
    }
    let requests = requests(thread, load);
    let (mut latencies, mut wrong, mut line) = (Vec::new(), 0, String::new());
    let mut sent = 0;
    while Instant::now() < until {
        let (request, deny) = &requests[sent % requests.len()];
        let (writer, reader) = &mut conns[sent % load.ports.len()];
        let start = Instant::now();
        writer.write_all(request)?;
        let (status, body) = response(reader, &mut line)?;
        latencies.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
        if status != 200 || denied(&body) != *deny {
            wrong += 1;
        }
        sent += 1;
    }
    Ok((latencies, wrong))
}

fn main() {
    let load = load();
    let started = Instant::now();
    let until = started + Duration::from_secs_f64(load.seconds);
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..load.threads)
            .map(|thread| {
                let load = &load;
                scope.spawn(move || run(thread, load, until))
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let (mut latencies, mut wrong) = (Vec::new(), 0);
    for result in results {
        match result {
            Ok(Ok((lat, w))) => {
                latencies.extend(lat);
                wrong += w;
            }
            Ok(Err(e)) => {
                eprintln!("team_load_client: a connection failed: {e}");
                std::process::exit(1);
            }
            Err(_) => std::process::exit(1),
        }
    }
    latencies.sort_unstable();
    let pct = |q: f64| {
        let at = ((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1));
        latencies.get(at).map_or(0.0, |ns| *ns as f64 / 1e6)
    };
    println!(
        "{}",
        serde_json::json!({
            "checks": latencies.len(),
            "seconds": elapsed,
            "wrong": wrong,
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "max_ms": latencies.last().map_or(0.0, |ns| *ns as f64 / 1e6),
        })
    );
}
