//! Tries routes of a sidecar as one client would, one fresh connection each, and prints what
//! came back: `<METHOD> <PATH> <status>` or `<METHOD> <PATH> refused: <why>` when no HTTP
//! answer arrived (the connection was refused or closed). Standard library only, so the tests
//! compile it with a bare `rustc` and run it as another user.
//!
//! Usage: `sidecar-probe (--socket PATH | --port PORT) [--token TOKEN] [--host HOST]
//! METHOD:PATH[:BODY]...` (`Host: localhost` unless `--host` names another).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::time::Duration;

/// Where the sidecar is.
enum Target {
    Socket(String),
    Port(u16),
}

/// A connected stream of either kind.
trait Conn: Read + Write {}
impl<T: Read + Write> Conn for T {}

fn connect(target: &Target) -> std::io::Result<Box<dyn Conn>> {
    let timeout = Some(Duration::from_secs(20));
    match target {
        Target::Socket(path) => {
            let stream = UnixStream::connect(path)?;
            stream.set_read_timeout(timeout)?;
            Ok(Box::new(stream))
        }
        Target::Port(port) => {
            let stream = std::net::TcpStream::connect(("127.0.0.1", *port))?;
            stream.set_read_timeout(timeout)?;
            Ok(Box::new(stream))
        }
    }
}

/// One request; the status code, or why there was none.
fn probe(
    target: &Target,
    token: Option<&str>,
    host: &str,
    method: &str,
    path: &str,
    body: &str,
) -> String {
    let mut stream = match connect(target) {
        Ok(stream) => stream,
        Err(e) => return format!("refused: {e}"),
    };
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{auth}\r\n{body}",
        body.len()
    );
    // A refusal may close the socket before the request is all written.
    let _ = stream.write_all(request.as_bytes());
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    match text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.split_whitespace().next())
    {
        Some(status) => status.to_owned(),
        None => "refused: the connection closed without an answer".to_owned(),
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut target = None;
    let mut token = None;
    let mut host = "localhost".to_owned();
    let mut routes = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--socket" => target = args.next().map(Target::Socket),
            "--port" => target = args.next().and_then(|p| p.parse().ok()).map(Target::Port),
            "--token" => token = args.next(),
            "--host" => host = args.next().unwrap_or(host),
            _ => routes.push(arg),
        }
    }
    let Some(target) = target else {
        eprintln!(
            "usage: sidecar-probe (--socket PATH | --port PORT) [--token T] [--host H] METHOD:PATH[:BODY]..."
        );
        return ExitCode::from(2);
    };
    for route in routes {
        let mut parts = route.splitn(3, ':');
        let method = parts.next().unwrap_or("GET");
        let path = parts.next().unwrap_or("/");
        let body = parts.next().unwrap_or("");
        let result = probe(&target, token.as_deref(), &host, method, path, body);
        println!("{method} {path} {result}");
    }
    ExitCode::SUCCESS
}
