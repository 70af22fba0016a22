//! The team service attacked through the real binary: every route but health refuses a caller
//! without a token of the store (401) or with too small a role (403); a listener beyond loopback
//! without TLS does not start, nor one no caller could authenticate to; tokens are never in the
//! logs, the metrics or the store; a real TLS client (reqwest on rustls) trusting a CA made here
//! talks to `serve`, mutual TLS lets a certificate in as an agent and keeps others out; and a
//! bridge configured for the service is answered by it — or, when it is down, tells the user
//! (a deny under `--fail-closed`), never a silent allow.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::sidecar_owner::ROUTES;
use crate::support::{self, Entry, Server, Ws};

/// A private state directory with a token store of one agent and one operator.
pub(crate) struct Team {
    state: tempfile::TempDir,
    pub(crate) agent: String,
    pub(crate) operator: String,
}

impl Team {
    pub(crate) fn new() -> Team {
        let state = tempfile::tempdir().expect("tempdir");
        support::set_mode(state.path(), 0o700);
        let add = |name: &str, role: &str| {
            let out = Command::new(support::BIN)
                .args(["token", "add", name, "--role", role, "--tokens"])
                .arg(state.path().join("tokens.json"))
                .output()
                .expect("run agent-hooks token add");
            assert!(out.status.success(), "{out:?}");
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        let agent = add("laptop-1", "agent");
        let operator = add("ops", "operator");
        Team {
            state,
            agent,
            operator,
        }
    }

    pub(crate) fn tokens(&self) -> PathBuf {
        self.state.path().join("tokens.json")
    }

    /// `serve` of `ws` as a team service on `listen`, with `flags` after the token store.
    pub(crate) fn serve(&self, ws: &Ws, listen: &str, flags: &[&str]) -> Command {
        let tokens = self.tokens().display().to_string();
        let mut args = vec!["serve", "--listen", listen, "--tokens", tokens.as_str()];
        args.extend_from_slice(flags);
        let mut cmd = ws.command(&args);
        cmd.env(agent_hooks_server::STATE_DIR_ENV, self.state.path());
        cmd
    }
}

const GUARD: &str = r#"
    case "$(cat)" in *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;; esac
"#;

pub(crate) fn guarded() -> Ws {
    Ws::new()
        .file("config/agent.yaml", "shell_hooks:\n  enabled: true\n")
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .approve_all()
}

/// One request over plain loopback TCP with `token` (or none).
fn call(port: u16, route: &str, token: Option<&str>) -> u16 {
    let (method, rest) = route.split_once(':').expect("METHOD:path");
    let (path, body) = rest.split_once(':').unwrap_or((rest, ""));
    let auth = token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    support::http_with(
        port,
        method,
        path,
        body.as_bytes(),
        &format!("127.0.0.1:{port}"),
        &auth,
    )
    .0
}

fn dispatches(route: &str) -> bool {
    route.starts_with("POST:/v1/events/")
        || route.starts_with("POST:/v1/hooks/") && !route.starts_with("POST:/v1/hooks/command")
}

#[test]
fn every_route_but_health_needs_a_token_of_the_store_and_the_role_it_names() {
    let team = Team::new();
    let ws = guarded();
    let server = Server::spawn(team.serve(&ws, "127.0.0.1:0", &[]));
    let forged = format!("ahk_{}", "0".repeat(64));
    for route in ROUTES {
        if route.starts_with("GET:/v1/health") {
            assert_eq!(call(server.port, route, None), 200);
            continue;
        }
        assert_eq!(
            call(server.port, route, None),
            401,
            "{route} without a token"
        );
        assert_eq!(
            call(server.port, route, Some(&forged)),
            401,
            "{route} with a forged token"
        );
        let as_agent = call(server.port, route, Some(&team.agent));
        if dispatches(route) {
            assert!(
                ![401, 403].contains(&as_agent),
                "{route} as an agent: {as_agent}"
            );
        } else {
            assert_eq!(as_agent, 403, "{route} as an agent");
        }
    }
    // The operator last: some of these routes turn the hooks off.
    for route in ROUTES {
        let as_operator = call(server.port, route, Some(&team.operator));
        assert!(
            ![401, 403].contains(&as_operator),
            "{route} as the operator: {as_operator}"
        );
    }
    // A revoked token is refused from the next request on, without a restart.
    let revoked = Command::new(support::BIN)
        .args(["token", "revoke", "laptop-1", "--tokens"])
        .arg(team.tokens())
        .output()
        .expect("run agent-hooks token revoke");
    assert!(revoked.status.success(), "{revoked:?}");
    let dispatch = ROUTES[1];
    assert_eq!(call(server.port, dispatch, Some(&team.agent)), 401);
}

#[test]
fn a_listener_beyond_loopback_without_tls_or_without_credentials_does_not_start() {
    let team = Team::new();
    let ws = Ws::new();
    let out = team
        .serve(&ws, "0.0.0.0:0", &[])
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("without TLS: tokens would cross the network in clear text"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "it announced an address: {out:?}");

    // TLS, but no token in the store and no client CA: no caller could get in.
    let pki = Pki::new();
    let empty = tempfile::tempdir().expect("tempdir");
    support::set_mode(empty.path(), 0o700);
    let out = ws
        .command(&["serve", "--listen", "0.0.0.0:0", "--tokens"])
        .arg(empty.path().join("tokens.json"))
        .args(pki.server_flags())
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("no caller could authenticate"), "{err}");

    // A key that is not the certificate's is refused, naming the file.
    let other = rcgen::KeyPair::generate().expect("a key");
    let wrong_key = pki.dir.path().join("other.key");
    std::fs::write(&wrong_key, other.serialize_pem()).expect("write the key");
    let out = team
        .serve(
            &ws,
            "127.0.0.1:0",
            &[
                "--tls-cert",
                &pki.server_cert.display().to_string(),
                "--tls-key",
                &wrong_key.display().to_string(),
            ],
        )
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&*wrong_key.display().to_string()), "{err}");
}

#[test]
fn tokens_are_never_in_the_logs_the_metrics_or_the_store() {
    let team = Team::new();
    let ws = guarded();
    let log = tempfile::NamedTempFile::new().expect("a log file");
    let mut serve = logged(&team.serve(&ws, "127.0.0.1:0", &[]), log.path());
    serve.env("AGENT_HOOKS_LOG", "debug");
    let mut server = Server::spawn(serve);
    let forged = format!("ahk_{}", "1".repeat(64));
    for route in ROUTES {
        for token in [&team.agent, &team.operator, &forged] {
            call(server.port, route, Some(token));
        }
    }
    let (status, metrics) = support::http_with(
        server.port,
        "GET",
        "/metrics",
        b"",
        "127.0.0.1",
        &format!("Authorization: Bearer {}\r\n", team.operator),
    );
    assert_eq!(status, 200);
    server.terminate();
    let log = std::fs::read_to_string(log.path()).expect("read the log");
    assert!(
        log.contains("refused"),
        "the log says nothing of the refusals: {log}"
    );
    let store = std::fs::read_to_string(team.tokens()).expect("read the store");
    let events = std::fs::read_to_string(ws.path("logs/events.jsonl")).unwrap_or_default();
    for token in [&team.agent, &team.operator, &forged] {
        let secret = &token[4..];
        assert!(!log.contains(secret), "a token in the log: {log}");
        assert!(
            !metrics.to_string().contains(secret),
            "a token in the metrics"
        );
        assert!(!store.contains(secret), "a token in the store: {store}");
        assert!(!events.contains(secret), "a token in the event log");
    }
}

/// `serve`, through a shell that sends its stderr to `log`.
pub(crate) fn logged(serve: &Command, log: &Path) -> Command {
    let mut logged = Command::new("sh");
    logged
        .arg("-c")
        .arg("exec \"$@\" 2>\"$LOG\"")
        .arg("sh")
        .arg(serve.get_program())
        .args(serve.get_args())
        .envs(serve.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .env("LOG", log)
        .env_remove("AGENT_HOOKS_WORKSPACE");
    if let Some(dir) = serve.get_current_dir() {
        logged.current_dir(dir);
    }
    logged
}

/// A CA made for the test, a server certificate for `localhost` and 127.0.0.1 it signed, and
/// a client certificate it signed.
pub(crate) struct Pki {
    dir: tempfile::TempDir,
    pub(crate) ca: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
    client: PathBuf,
}

impl Pki {
    pub(crate) fn new() -> Pki {
        let dir = tempfile::tempdir().expect("tempdir");
        let (ca, issuer) = authority("agent-hooks test CA");
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).expect("write a PEM file");
            path
        };
        let (cert, key) = leaf(&issuer, vec!["localhost".into(), "127.0.0.1".into()]);
        let (client_cert, client_key) = leaf(&issuer, vec!["laptop-2".into()]);
        Pki {
            ca: write("ca.pem", &ca),
            server_cert: write("server.pem", &cert),
            server_key: write("server.key", &key),
            client: write("client.pem", &format!("{client_cert}{client_key}")),
            dir,
        }
    }

    pub(crate) fn server_flags(&self) -> Vec<String> {
        vec![
            "--tls-cert".into(),
            self.server_cert.display().to_string(),
            "--tls-key".into(),
            self.server_key.display().to_string(),
        ]
    }
}

/// A self-signed CA: its certificate (PEM) and its issuer.
pub(crate) fn authority(name: &str) -> (String, rcgen::Issuer<'static, rcgen::KeyPair>) {
    let key = rcgen::KeyPair::generate().expect("a key");
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let cert = params.self_signed(&key).expect("a CA certificate");
    (cert.pem(), rcgen::Issuer::new(params, key))
}

/// A certificate for `names` signed by `issuer`, and its key (PEM).
pub(crate) fn leaf(
    issuer: &rcgen::Issuer<'_, rcgen::KeyPair>,
    names: Vec<String>,
) -> (String, String) {
    let key = rcgen::KeyPair::generate().expect("a key");
    let params = rcgen::CertificateParams::new(names).expect("params");
    let cert = params.signed_by(&key, issuer).expect("a certificate");
    (cert.pem(), key.serialize_pem())
}

/// A request's status and JSON answer.
async fn send(request: reqwest::RequestBuilder, body: Option<Value>) -> (u16, Value) {
    let request = match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(body.to_string()),
        None => request,
    };
    let response = request.send().await.expect("an answer over TLS");
    let status = response.status().as_u16();
    let bytes = response.bytes().await.expect("the body");
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

pub(crate) fn tls_client(ca: &Path, identity: Option<&Path>) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let pem = std::fs::read(ca).expect("read the CA");
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .tls_certs_only(reqwest::Certificate::from_pem_bundle(&pem).expect("the CA"));
    if let Some(identity) = identity {
        let pem = std::fs::read(identity).expect("read the identity");
        builder = builder.identity(reqwest::Identity::from_pem(&pem).expect("an identity"));
    }
    builder.build().expect("a client")
}

#[test]
fn a_tls_client_trusting_the_team_ca_is_served_and_others_cannot_connect() {
    let team = Team::new();
    let ws = guarded();
    let pki = Pki::new();
    let flags = pki.server_flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    // Beyond loopback, as a team deploys it; reached here through loopback.
    let server = Server::spawn(team.serve(&ws, "0.0.0.0:0", &flags));
    let base = format!("https://localhost:{}", server.port);
    runtime().block_on(async {
        let client = tls_client(&pki.ca, None);
        let (_, health) = send(client.get(format!("{base}/v1/health")), None).await;
        assert_eq!(health["auth"], "team", "{health}");
        // A Host that is not loopback is the service's own name: accepted.
        let (status, outcome) = send(
            client
                .post(format!("{base}/v1/events/pre_tool_call"))
                .bearer_auth(&team.agent),
            Some(json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /"}})),
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(outcome["decision"], "block", "{outcome}");
        let (status, _) = send(
            client
                .post(format!("{base}/v1/reload"))
                .bearer_auth(&team.agent),
            Some(json!({})),
        )
        .await;
        assert_eq!(status, 403);

        // A client that does not trust the team's CA does not get through the handshake.
        let (_, stranger) = authority("another CA");
        let (other_ca, _) = leaf(&stranger, vec!["x".into()]);
        let other = pki.dir.path().join("other-ca.pem");
        std::fs::write(&other, other_ca).expect("write");
        let err = tls_client(&other, None)
            .get(format!("{base}/v1/health"))
            .send()
            .await
            .expect_err("an untrusted certificate");
        assert!(err.is_connect(), "{err:?}");
    });
    // Plain HTTP on the TLS port gets no answer from the routes.
    let mut plain = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    std::io::Write::write_all(
        &mut plain,
        b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .expect("send");
    let mut answer = Vec::new();
    let _ = std::io::Read::read_to_end(&mut plain, &mut answer);
    assert!(
        !String::from_utf8_lossy(&answer).contains("\"ok\""),
        "{answer:?}"
    );
}

#[test]
fn with_a_client_ca_a_certificate_it_signed_is_an_agent_and_another_is_refused() {
    let team = Team::new();
    let ws = guarded();
    let pki = Pki::new();
    let mut flags = pki.server_flags();
    flags.extend(["--tls-client-ca".into(), pki.ca.display().to_string()]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = Server::spawn(team.serve(&ws, "127.0.0.1:0", &flags));
    let base = format!("https://localhost:{}", server.port);
    runtime().block_on(async {
        let client = tls_client(&pki.ca, Some(&pki.client));
        let (status, _) = send(
            client.post(format!("{base}/v1/events/pre_tool_call")),
            Some(json!({"tool_name": "bash", "tool_input": {"command": "ls"}})),
        )
        .await;
        assert_eq!(status, 200);
        let (status, body) = send(client.post(format!("{base}/v1/reload")), Some(json!({}))).await;
        assert_eq!(status, 403);
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with("\"cert:") && error.contains("agent role"),
            "{body}"
        );
        // Without a certificate nor a token: 401.
        let (status, _) = send(
            tls_client(&pki.ca, None).post(format!("{base}/v1/events/pre_tool_call")),
            Some(json!({})),
        )
        .await;
        assert_eq!(status, 401);

        // A certificate of another CA fails the handshake.
        let (_, stranger) = authority("another CA");
        let (cert, key) = leaf(&stranger, vec!["intruder".into()]);
        let intruder = pki.dir.path().join("intruder.pem");
        std::fs::write(&intruder, format!("{cert}{key}")).expect("write");
        let refused = tls_client(&pki.ca, Some(&intruder))
            .get(format!("{base}/v1/health"))
            .send()
            .await;
        assert!(refused.is_err(), "{refused:?}");
    });
}

/// `claude-hook` with the service's URL, token and CA in its environment and a private,
/// empty configuration directory.
fn bridge(env: &[(&str, &str)], input: &Value, flags: &[&str]) -> support::Ran {
    let config = tempfile::tempdir().expect("tempdir");
    let mut cmd = Command::new(support::BIN);
    cmd.arg("claude-hook")
        .args(flags)
        .current_dir(std::env::temp_dir())
        .env_remove("AGENT_HOOKS_WORKSPACE")
        .env_remove("AGENT_HOOKS_TOKEN")
        .env_remove("AGENT_HOOKS_CA")
        .env("XDG_CONFIG_HOME", config.path())
        .envs(env.iter().copied());
    support::Ran::of(cmd, input.to_string().as_bytes())
}

fn pre_tool_use(command: &str) -> Value {
    json!({
        "session_id": "s1",
        "cwd": "/nonexistent/laptop/checkout",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
}

#[test]
fn a_bridge_pointed_at_the_service_is_answered_by_it_and_a_service_down_is_never_a_silent_allow() {
    let team = Team::new();
    let ws = guarded();
    let pki = Pki::new();
    let flags = pki.server_flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let mut server = Server::spawn(team.serve(&ws, "127.0.0.1:0", &flags));
    let url = format!("https://localhost:{}", server.port);
    let ca = pki.ca.display().to_string();
    let env = [
        ("AGENT_HOOKS_URL", url.as_str()),
        ("AGENT_HOOKS_TOKEN", team.agent.as_str()),
        ("AGENT_HOOKS_CA", ca.as_str()),
    ];
    // The laptop has no workspace at all: the service's policy decides.
    let denied = bridge(&env, &pre_tool_use("rm -rf /"), &[]);
    assert_eq!(denied.code, 0, "{denied:?}");
    assert!(denied.stdout.contains("no rm -rf"), "{denied:?}");
    let allowed = bridge(&env, &pre_tool_use("ls"), &[]);
    assert_eq!(allowed.code, 0, "{allowed:?}");
    assert!(!allowed.stdout.contains("deny"), "{allowed:?}");

    // The same from the user's service file (0600); a file others may read is refused.
    let config = tempfile::tempdir().expect("tempdir");
    let file = config.path().join("agent-hooks/service.json");
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
    std::fs::write(
        &file,
        json!({"url": url, "token": team.agent, "ca": ca}).to_string(),
    )
    .expect("write the service file");
    support::set_mode(&file, 0o600);
    let config_dir = config.path().display().to_string();
    let from_file = bridge(
        &[("XDG_CONFIG_HOME", &config_dir)],
        &pre_tool_use("rm -rf /"),
        &[],
    );
    assert!(from_file.stdout.contains("no rm -rf"), "{from_file:?}");
    support::set_mode(&file, 0o644);
    let exposed = bridge(
        &[("XDG_CONFIG_HOME", &config_dir)],
        &pre_tool_use("ls"),
        &["--fail-closed"],
    );
    let told = format!("{}{}", exposed.stdout, exposed.stderr);
    assert!(told.contains("chmod 600"), "{exposed:?}");
    assert!(exposed.stdout.contains("deny"), "{exposed:?}");

    // A wrong token: the service's refusal is told to the user.
    let wrong = [env[0], ("AGENT_HOOKS_TOKEN", "ahk_wrong"), env[2]];
    let refused = bridge(&wrong, &pre_tool_use("ls"), &[]);
    let told = format!("{}{}", refused.stdout, refused.stderr);
    assert!(told.contains("401"), "{refused:?}");
    assert!(
        !told.contains("ahk_wrong"),
        "the token was echoed: {refused:?}"
    );

    // The service gone: a lapse the user sees, and a deny under --fail-closed.
    server.terminate();
    let lapsed = bridge(&env, &pre_tool_use("rm -rf /"), &[]);
    let told = format!("{}{}", lapsed.stdout, lapsed.stderr);
    assert!(told.contains("did not answer"), "{lapsed:?}");
    let closed = bridge(&env, &pre_tool_use("ls"), &["--fail-closed"]);
    assert!(closed.stdout.contains("deny"), "{closed:?}");

    // A token is never sent in clear text beyond this machine.
    let far = [
        ("AGENT_HOOKS_URL", "http://192.0.2.1:8080"),
        ("AGENT_HOOKS_TOKEN", team.agent.as_str()),
    ];
    let clear = bridge(&far, &pre_tool_use("ls"), &[]);
    assert!(
        format!("{}{}", clear.stdout, clear.stderr).contains("in clear text"),
        "{clear:?}"
    );
}

#[test]
fn json_logs_are_one_object_a_line_and_hold_no_token_and_no_tool_input() {
    let team = Team::new();
    let ws = guarded();
    let forged = format!("ahk_{}", "2".repeat(64));
    // A tool input no log may repeat: it is what the agent was about to run.
    let marker = "secret-tool-input-7f3a9c";
    let event = json!({
        "session_id": "s1",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": format!("rm -rf /{marker}")},
    })
    .to_string();
    // The flag, and the variable alone: both give JSON.
    for (flags, env) in [
        (&["--log-format", "json"][..], None),
        (&[][..], Some("json")),
    ] {
        let log = tempfile::NamedTempFile::new().expect("a log file");
        let mut serve = team.serve(&ws, "127.0.0.1:0", flags);
        serve.env("AGENT_HOOKS_LOG", "debug");
        if let Some(format) = env {
            serve.env("AGENT_HOOKS_LOG_FORMAT", format);
        }
        let mut server = Server::spawn(logged(&serve, log.path()));
        for token in [&team.agent, &team.operator, &forged] {
            let auth = format!("Authorization: Bearer {token}\r\n");
            let (status, answer) = support::http_with(
                server.port,
                "POST",
                "/v1/hooks/claude-code",
                event.as_bytes(),
                "127.0.0.1",
                &auth,
            );
            if token == &forged {
                assert_eq!(status, 401, "{answer}");
            } else {
                assert_eq!(status, 200, "{answer}");
            }
        }
        server.terminate();
        let log = std::fs::read_to_string(log.path()).expect("read the log");
        let lines: Vec<Value> = log
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("a log line that is not JSON ({e}): {line}"))
            })
            .collect();
        assert!(
            lines
                .iter()
                .all(|l| l["level"].is_string() && l["fields"].is_object()),
            "{log}"
        );
        assert!(
            lines.iter().any(|l| l["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("refused"))),
            "the refused token is not in the log: {log}"
        );
        assert!(!log.contains(marker), "the tool input is in the log: {log}");
        for token in [&team.agent, &team.operator, &forged] {
            assert!(!log.contains(&token[4..]), "a token in the log: {log}");
        }
    }
}
