//! A load client for the sidecar: N keep-alive HTTP/1.1 connections, each sending a fixed number
//! of `POST /v1/events/<event>` back to back, then dispatches per second and the latency
//! percentiles over every request. Plain std threads and blocking sockets, so what is measured
//! is the server, not an async client's scheduler.
//!
//! Usage: sidecar-load --port PORT [--connections 2] [--requests 50000] [--event on_session_end]
//!        [--body '{"status": "done"}'] [--token-file PATH]
//!
//! `--token-file` names the sidecar's token file; its token goes in every request's
//! `Authorization` header, as every client of a TCP sidecar sends it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Options {
    port: u16,
    connections: usize,
    requests: usize,
    event: String,
    body: String,
    /// The bearer token, when a token file was given.
    token: Option<String>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        port: 0,
        connections: 2,
        requests: 50_000,
        event: "on_session_end".to_owned(),
        body: r#"{"status": "done"}"#.to_owned(),
        token: None,
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
            "--port" => {
                options.port = value.parse().map_err(|e| format!("--port {value}: {e}"))?;
            }
            "--connections" => options.connections = number()?.max(1),
            "--requests" => options.requests = number()?,
            "--event" => options.event = value,
            "--body" => options.body = value,
            "--token-file" => {
                let text = std::fs::read_to_string(&value)
                    .map_err(|e| format!("--token-file {value}: {e}"))?;
                options.token = Some(text.trim().to_owned());
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.port == 0 {
        return Err("--port is required".to_owned());
    }
    Ok(options)
}

/// One keep-alive connection and its reader.
struct Connection {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    request: Vec<u8>,
    body: Vec<u8>,
}

impl Connection {
    fn open(options: &Options) -> Result<Connection, String> {
        let stream = TcpStream::connect(("127.0.0.1", options.port))
            .map_err(|e| format!("cannot connect to 127.0.0.1:{}: {e}", options.port))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let auth = options
            .token
            .as_ref()
            .map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        let request = format!(
            "POST /v1/events/{} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{auth}\r\n{}",
            options.event,
            options.port,
            options.body.len(),
            options.body
        )
        .into_bytes();
        Ok(Connection {
            writer: stream,
            reader,
            request,
            body: Vec::new(),
        })
    }

    /// Sends one request and reads its whole answer; an error unless the status is 200.
    fn round_trip(&mut self) -> Result<(), String> {
        self.writer
            .write_all(&self.request)
            .map_err(|e| format!("send: {e}"))?;
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .map_err(|e| format!("read the status line: {e}"))?;
        let status_ok = line.split_whitespace().nth(1) == Some("200");
        let status_line = line.trim_end().to_owned();
        let mut length = None;
        loop {
            line.clear();
            self.reader
                .read_line(&mut line)
                .map_err(|e| format!("read a header: {e}"))?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let length = length.ok_or("the answer has no Content-Length")?;
        self.body.resize(length, 0);
        self.reader
            .read_exact(&mut self.body)
            .map_err(|e| format!("read the body: {e}"))?;
        if status_ok {
            Ok(())
        } else {
            Err(format!(
                "{status_line}: {}",
                String::from_utf8_lossy(&self.body)
            ))
        }
    }
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => Arc::new(o),
        Err(e) => {
            eprintln!("sidecar-load: {e}");
            return ExitCode::from(2);
        }
    };
    let mut connections = Vec::with_capacity(options.connections);
    for _ in 0..options.connections {
        match Connection::open(&options) {
            Ok(c) => connections.push(c),
            Err(e) => {
                eprintln!("sidecar-load: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    // Every connection starts at once, after all are open, so the clock measures only requests.
    let start_line = Arc::new(Barrier::new(options.connections + 1));
    let workers: Vec<_> = connections
        .into_iter()
        .map(|mut connection| {
            let options = options.clone();
            let start_line = start_line.clone();
            std::thread::spawn(move || -> Result<Vec<Duration>, String> {
                let mut latencies = Vec::with_capacity(options.requests);
                start_line.wait();
                for _ in 0..options.requests {
                    let sent = Instant::now();
                    connection.round_trip()?;
                    latencies.push(sent.elapsed());
                }
                Ok(latencies)
            })
        })
        .collect();
    start_line.wait();
    let started = Instant::now();
    let mut latencies = Vec::with_capacity(options.connections * options.requests);
    for worker in workers {
        match worker.join() {
            Ok(Ok(l)) => latencies.extend(l),
            Ok(Err(e)) => {
                eprintln!("sidecar-load: {e}");
                return ExitCode::FAILURE;
            }
            Err(_) => {
                eprintln!("sidecar-load: a connection thread panicked");
                return ExitCode::FAILURE;
            }
        }
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    let total = latencies.len();
    println!(
        "{total} dispatches of {} over {} connections in {:.2} s: {:.0} dispatches/s, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        options.event,
        options.connections,
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        ms(percentile(&latencies, 0.50)),
        ms(percentile(&latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
    );
    ExitCode::SUCCESS
}
