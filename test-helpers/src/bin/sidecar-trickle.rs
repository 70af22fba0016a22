//! The slow-body attack on the sidecar, measured: opens N connections that each send a request
//! head announcing a large body and then trickle it a byte at a time, keeps them trickling,
//! and meanwhile times `GET /v1/health` on fresh connections, as a host's readiness check does.
//! Prints how many trickling connections the sidecar still held at the end, how many it had
//! answered (408 at the body deadline, or cut to make room), and the health latency
//! percentiles. Standard library only.
//!
//! Usage: `sidecar-trickle (--socket PATH | --port PORT [--token-file PATH]) [--clients 1000]
//! [--checks 200] [--interval-ms 20]`

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Options {
    socket: Option<String>,
    port: Option<u16>,
    token: Option<String>,
    clients: usize,
    checks: usize,
    interval: Duration,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        socket: None,
        port: None,
        token: None,
        clients: 1000,
        checks: 200,
        interval: Duration::from_millis(20),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|e| format!("{flag} {value}: {e}"))
        };
        match flag.as_str() {
            "--socket" => options.socket = Some(value),
            "--port" => {
                options.port = Some(value.parse().map_err(|e| format!("--port {value}: {e}"))?);
            }
            "--token-file" => {
                let text = std::fs::read_to_string(&value)
                    .map_err(|e| format!("--token-file {value}: {e}"))?;
                options.token = Some(text.trim().to_owned());
            }
            "--clients" => options.clients = number()?,
            "--checks" => options.checks = number()?.max(1),
            "--interval-ms" => options.interval = Duration::from_millis(number()? as u64),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.socket.is_none() && options.port.is_none() {
        return Err("--socket or --port is required".to_owned());
    }
    Ok(options)
}

/// A stream to the sidecar, either kind.
enum Stream {
    Unix(UnixStream),
    Tcp(std::net::TcpStream),
}

impl Stream {
    fn open(options: &Options) -> std::io::Result<Stream> {
        match (&options.socket, options.port) {
            (Some(path), _) => UnixStream::connect(path).map(Stream::Unix),
            (None, Some(port)) => {
                let s = std::net::TcpStream::connect(("127.0.0.1", port))?;
                s.set_nodelay(true)?;
                Ok(Stream::Tcp(s))
            }
            (None, None) => Err(std::io::Error::other("no target")),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.write_all(bytes),
            Stream::Tcp(s) => s.write_all(bytes),
        }
    }

    fn read_to_end(&mut self, into: &mut Vec<u8>) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read_to_end(into),
            Stream::Tcp(s) => s.read_to_end(into),
        }
    }

    fn set_timeout(&self, timeout: Duration) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.set_read_timeout(Some(timeout)),
            Stream::Tcp(s) => s.set_read_timeout(Some(timeout)),
        }
    }

    /// Whether the sidecar has closed or answered this connection, without waiting (reads the
    /// answer's first byte, if any: the connection is done with either way).
    fn answered(&mut self) -> bool {
        let mut byte = [0u8; 1];
        let read = match self {
            Stream::Unix(s) => s.set_nonblocking(true).and_then(|()| s.read(&mut byte)),
            Stream::Tcp(s) => s.set_nonblocking(true).and_then(|()| s.read(&mut byte)),
        };
        !matches!(read, Err(ref e) if e.kind() == std::io::ErrorKind::WouldBlock)
    }
}

fn auth(options: &Options) -> String {
    options
        .token
        .as_ref()
        .map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"))
}

/// One health check on a fresh connection: its latency, or why it failed.
fn health(options: &Options) -> Result<Duration, String> {
    let started = Instant::now();
    let mut stream = Stream::open(options).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_timeout(Duration::from_secs(30))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{}\r\n",
        auth(options)
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("send: {e}"))?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|e| format!("read: {e}"))?;
    let elapsed = started.elapsed();
    if answer.starts_with(b"HTTP/1.1 200") {
        Ok(elapsed)
    } else {
        Err(format!(
            "answer: {}",
            String::from_utf8_lossy(&answer[..answer.len().min(120)])
        ))
    }
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn run(options: &Options) -> Result<(), String> {
    let head = format!(
        "POST /v1/events/pre_tool_call HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n{}\r\n{{",
        auth(options)
    );
    let mut tricklers = Vec::with_capacity(options.clients);
    let opening = Instant::now();
    for i in 0..options.clients {
        let mut stream =
            Stream::open(options).map_err(|e| format!("open trickling client {i}: {e}"))?;
        stream
            .write_all(head.as_bytes())
            .map_err(|e| format!("send the head of trickling client {i}: {e}"))?;
        tricklers.push(Some(stream));
    }
    println!(
        "{} trickling clients opened in {:.0} ms, each announcing a 1,000,000-byte body",
        options.clients,
        opening.elapsed().as_secs_f64() * 1000.0
    );
    let mut latencies = Vec::with_capacity(options.checks);
    let mut failures = 0usize;
    let mut next_trickle = Instant::now();
    for _ in 0..options.checks {
        // One more byte on every live trickler, twice a second.
        if Instant::now() >= next_trickle {
            for slot in &mut tricklers {
                if let Some(stream) = slot
                    && stream.write_all(b" ").is_err()
                {
                    *slot = None;
                }
            }
            next_trickle = Instant::now() + Duration::from_millis(500);
        }
        match health(options) {
            Ok(latency) => latencies.push(latency),
            Err(e) => {
                failures += 1;
                eprintln!("health check failed: {e}");
            }
        }
        std::thread::sleep(options.interval);
    }
    let held = tricklers
        .iter_mut()
        .filter_map(Option::as_mut)
        .map(|s| s.answered())
        .filter(|answered| !answered)
        .count();
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "trickling clients still held by the sidecar: {held} of {}",
        options.clients
    );
    println!(
        "GET /v1/health over {} checks: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {failures} failed",
        latencies.len() + failures,
        ms(percentile(&latencies, 0.50)),
        ms(percentile(&latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
    );
    if failures > 0 {
        return Err(format!("{failures} health checks failed"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("sidecar-trickle: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sidecar-trickle: {e}");
            ExitCode::FAILURE
        }
    }
}
