//! The SSRF guard of HTTP hooks, end to end through the HTTP transport, with allow-local off
//! and DNS played by a fake resolver. Every refusal is also checked against a loopback server
//! that must never see a request.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;

use super::loopback::{Response, Server};
use super::{HttpClient, HttpSpec};
use crate::ssrf::{Guard, Resolver};
use crate::{Failure, Reply};

/// DNS as a test wants it: each name has a list of answers, given in turn (the last repeats).
#[derive(Debug, Default)]
struct FakeDns {
    answers: Mutex<HashMap<String, Vec<Vec<IpAddr>>>>,
    lookups: AtomicUsize,
}

impl FakeDns {
    fn with(entries: &[(&str, &[&[&str]])]) -> Arc<FakeDns> {
        let dns = FakeDns::default();
        {
            let mut answers = dns.answers.lock().expect("fresh lock");
            for (name, turns) in entries {
                let turns = turns
                    .iter()
                    .map(|turn| {
                        turn.iter()
                            .map(|a| a.parse().expect("test address"))
                            .collect()
                    })
                    .collect();
                answers.insert((*name).to_owned(), turns);
            }
        }
        Arc::new(dns)
    }

    fn lookups(&self) -> usize {
        self.lookups.load(Ordering::SeqCst)
    }
}

impl Resolver for FakeDns {
    fn lookup(&self, host: String) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        let answer = match answers.get_mut(&host) {
            Some(turns) if turns.len() > 1 => Ok(turns.remove(0)),
            Some(turns) => Ok(turns.first().cloned().unwrap_or_default()),
            None => Err(io::Error::new(io::ErrorKind::NotFound, "no such host")),
        };
        Box::pin(async move { answer })
    }
}

fn client(dns: &Arc<FakeDns>, allow_local: bool) -> HttpClient {
    HttpClient::new(Guard::new(dns.clone(), allow_local)).expect("client")
}

/// A spec built without the load-time check, to show the call-time check holds on its own.
fn spec(url: &str) -> HttpSpec {
    HttpSpec {
        url: url.to_owned(),
        headers: Vec::new(),
        secret: None,
        allowed_env: Vec::new(),
    }
}

async fn call(client: &HttpClient, url: &str) -> Result<Reply, Failure> {
    spec(url)
        .run_with(
            client,
            b"{\"event\":\"pre_tool_call\"}\n".to_vec(),
            Duration::from_secs(2),
        )
        .await
}

fn refusal(result: Result<Reply, Failure>) -> String {
    match result {
        Err(Failure::Exec(text)) if text.starts_with("refused by the SSRF guard") => text,
        other => panic!("expected an SSRF refusal, got {other:?}"),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn every_internal_address_spelling_is_refused_and_nothing_is_sent() {
    let server = Server::start(|_| Response::json("{}"));
    let port = server.port();
    let dns = FakeDns::with(&[]);
    let client = client(&dns, false);
    runtime().block_on(async {
        for host in [
            "127.0.0.1",
            "127.1",
            "2130706433",
            "0x7f000001",
            "017700000001",
            "0.0.0.0",
            "[::]",
            "[::1]",
            "[::ffff:127.0.0.1]",
            "[::ffff:7f00:1]",
            "169.254.169.254",
            "[fd00:ec2::254]",
            "100.64.0.1",
            "10.0.0.1",
            "172.16.0.1",
            "192.168.1.1",
            "localhost",
            "metadata.google.internal",
        ] {
            let url = format!("http://{host}:{port}/hook");
            let text = refusal(call(&client, &url).await);
            assert!(
                text.contains(" is ") || text.contains("names this machine"),
                "{url}: {text}"
            );
        }
    });
    assert_eq!(
        dns.lookups(),
        0,
        "literals and forbidden names never reach DNS"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_refusal_names_the_address_and_the_rule() {
    let dns = FakeDns::with(&[]);
    let text =
        refusal(runtime().block_on(call(&client(&dns, false), "http://[::ffff:a9fe:a9fe]/")));
    assert!(
        text.contains("::ffff:169.254.169.254 (which reaches 169.254.169.254) is link-local"),
        "{text}"
    );
    assert!(text.contains("169.254.0.0/16"), "{text}");
}

#[test]
fn a_name_resolving_to_a_private_address_is_refused() {
    let dns = FakeDns::with(&[("internal.example.com", &[&["10.1.2.3"]])]);
    let text =
        refusal(runtime().block_on(call(&client(&dns, false), "http://internal.example.com/")));
    assert!(
        text.contains("10.1.2.3, an address of \"internal.example.com\", is private (10.0.0.0/8)"),
        "{text}"
    );
}

#[test]
fn one_private_address_among_public_ones_refuses_the_whole_answer() {
    let dns = FakeDns::with(&[("mixed.example.com", &[&["93.184.216.34", "127.0.0.1"]])]);
    let text =
        refusal(runtime().block_on(call(&client(&dns, false), "https://mixed.example.com/")));
    assert!(
        text.contains("127.0.0.1") && text.contains("loopback"),
        "{text}"
    );
}

#[test]
fn a_second_answer_that_turns_private_is_refused() {
    let server = Server::start(|_| Response::json("{}"));
    let dns = FakeDns::with(&[("rebind.example.com", &[&["192.0.2.1"], &["127.0.0.1"]])]);
    let client = client(&dns, false);
    let url = format!("http://rebind.example.com:{}/", server.port());
    runtime().block_on(async {
        // First answer: documentation space, refused too (and it is what a test can name
        // without reaching the internet). Second answer: loopback.
        let first = refusal(call(&client, &url).await);
        assert!(first.contains("192.0.2.1"), "{first}");
        let second = refusal(call(&client, &url).await);
        assert!(
            second.contains("127.0.0.1") && second.contains("loopback"),
            "{second}"
        );
    });
    assert_eq!(dns.lookups(), 2);
    assert!(server.requests().is_empty());
}

#[test]
fn the_connection_goes_to_the_checked_address_without_a_second_lookup() {
    // Allow-local on, so loopback stands in for a public address: the name first resolves to
    // 127.0.0.1 (server A), and any later lookup would say 127.0.0.2 (server B, same port).
    let a = Server::start(|_| Response::json("{}"));
    let b = Server::bind(SocketAddr::from(([127, 0, 0, 2], a.port())), |_| {
        Response::json("{}")
    });
    let dns = FakeDns::with(&[("pinned.example.com", &[&["127.0.0.1"], &["127.0.0.2"]])]);
    let client = client(&dns, true);
    let url = format!("http://pinned.example.com:{}/", a.port());
    runtime().block_on(async {
        call(&client, &url).await.expect("first call");
        call(&client, &url)
            .await
            .expect("second call, on the kept connection");
    });
    assert_eq!(
        dns.lookups(),
        1,
        "one lookup, then the checked connection is reused"
    );
    assert_eq!(a.requests().len(), 2);
    assert!(b.requests().is_empty());
}

#[test]
fn scheme_and_userinfo_are_refused_even_with_allow_local() {
    let server = Server::start(|_| Response::json("{}"));
    let dns = FakeDns::with(&[("example.com", &[&["93.184.216.34"]])]);
    runtime().block_on(async {
        for allow_local in [false, true] {
            let client = client(&dns, allow_local);
            for url in [
                format!("https://user:pass@{}/", server.addr),
                "https://user:pass@example.com/".to_owned(),
                "file:///etc/passwd".to_owned(),
                format!("gopher://{}/", server.addr),
            ] {
                refusal(call(&client, &url).await);
            }
        }
    });
    assert_eq!(dns.lookups(), 0);
    assert!(server.requests().is_empty());
}

#[test]
fn a_redirect_to_loopback_is_not_followed() {
    // Allow-local on only so the "public" server can live on loopback; the redirect target is
    // a second server that must see nothing.
    let target = Server::start(|_| Response::json("{\"decision\":\"allow\"}"));
    let location = format!("http://127.0.0.1:{}/", target.port());
    let public = Server::start(move |_| Response::status(302).header("Location", &location));
    let dns = FakeDns::with(&[]);
    let result = runtime().block_on(call(&client(&dns, true), &public.url("/hook")));
    match result {
        Err(Failure::Exec(text)) => {
            assert!(
                text.contains("302") && text.contains("redirects are not followed"),
                "{text}"
            )
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    assert_eq!(public.requests().len(), 1);
    assert!(target.requests().is_empty());
}
