//! A bridge call answered by a team's policy service (`docs/deploy.md`): when a service URL is
//! configured — `AGENT_HOOKS_URL`, else `url` in the user's `service.json` — `<agent>-hook`
//! sends the agent's input there with the caller's token and prints the service's answer. A
//! service that cannot answer is a lapse the user is told of (a deny under `--fail-closed`),
//! never a silent allow and never a quiet fallback to hooks of this machine.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::PathBuf;
use std::time::Duration;

use agent_hooks_runtime::OnFailure;
use agent_hooks_runtime::bridge::{Agent, AgentAnswer, HTTP_TOKEN_ENV};

/// The service's base URL (`https://hooks.example.com:8443`).
pub(crate) const URL_ENV: &str = "AGENT_HOOKS_URL";

/// A PEM file of the CAs to trust for the service's certificate, instead of the system's.
pub(crate) const CA_ENV: &str = "AGENT_HOOKS_CA";

/// The user's service file in `$XDG_CONFIG_HOME/agent-hooks/` (or `~/.config/agent-hooks/`).
pub(crate) const SERVICE_FILE: &str = "service.json";

/// How long a bridge waits for the service; agents wait for their hooks about as long.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Where the policy service is and how to prove who this caller is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Service {
    pub(crate) url: String,
    pub(crate) token: Option<String>,
    pub(crate) ca: Option<PathBuf>,
}

/// The user's service file, whether or not it exists.
pub(crate) fn service_file() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = var("XDG_CONFIG_HOME")
        .filter(|d| d.is_absolute())
        .or_else(|| var("HOME").map(|home| home.join(".config")))?;
    Some(base.join("agent-hooks").join(SERVICE_FILE))
}

/// The service configured for this user, if any: each of the environment's
/// `AGENT_HOOKS_URL`, `AGENT_HOOKS_TOKEN` and `AGENT_HOOKS_CA` over the file's `url`, `token`
/// and `ca`. `Err` says why a file that is there cannot be used.
pub(crate) fn configured() -> Result<Option<Service>, String> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let file = match service_file() {
        Some(path) => read_file(&path)?,
        None => None,
    };
    let file = file.unwrap_or_default();
    let url = env(URL_ENV).or(Some(file.url).filter(|u| !u.is_empty()));
    let Some(url) = url else {
        return Ok(None);
    };
    Ok(Some(Service {
        url: url.trim_end_matches('/').to_owned(),
        token: env(HTTP_TOKEN_ENV).or(file.token),
        ca: env(CA_ENV).map(PathBuf::from).or(file.ca),
    }))
}

/// Reads the service file; a missing one is `None`. It may hold a token, so one that another
/// user may read or write is refused, as ssh refuses a private key others can read.
fn read_file(path: &std::path::Path) -> Result<Option<Service>, String> {
    let shown = path.display();
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot open {shown}: {e}")),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    let me = nix::unistd::geteuid().as_raw();
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
        return Err(format!(
            "refusing {shown}: it may hold a token, so it must be a regular file of yours that no one else may read (it is uid {}, mode {:04o}); run: chmod 600 {shown}",
            meta.uid(),
            meta.mode() & 0o7777
        ));
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{shown}: not JSON ({e}); expected {{\"url\": \"https://...\", \"token\": \"ahk_...\", \"ca\": \"/path/to/ca.pem\"}}"))?;
    let Some(map) = value.as_object() else {
        return Err(format!(
            "{shown}: expected a JSON object with url, token and ca"
        ));
    };
    let field = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("{shown}: {key}: expected a string, found {other}")),
        }
    };
    if let Some(unknown) = map
        .keys()
        .find(|k| !["url", "token", "ca"].contains(&k.as_str()))
    {
        return Err(format!(
            "{shown}: unknown key \"{unknown}\" (expected url, token, ca)"
        ));
    }
    Ok(Some(Service {
        url: field("url")?.unwrap_or_default(),
        token: field("token")?,
        ca: field("ca")?.map(PathBuf::from),
    }))
}

/// The answer of the configured service to a bridge's `input`, or `None` when no service is
/// configured. A service that does not answer, or a service file that cannot be used, is
/// answered as a lapse in the agent's format.
pub(crate) async fn hook(agent: Agent, input: &[u8], mode: OnFailure) -> Option<AgentAnswer> {
    let why = match configured() {
        Ok(None) => return None,
        Ok(Some(service)) => match answer(&service, agent, input, mode).await {
            Ok(answer) => return Some(answer),
            Err(e) => format!("the policy service at {} did not answer ({e})", service.url),
        },
        Err(why) => why,
    };
    Some(
        agent_hooks_runtime::bridge::answer(
            agent,
            Err(&why),
            input,
            mode,
            agent_hooks_runtime::decisions::Surface::Bridge,
        )
        .await,
    )
}

/// `--http` of an installer: the URL given, else (the flag alone) the configured service's.
pub(crate) fn http_base(flag: Option<String>) -> Result<Option<String>, String> {
    match flag {
        Some(url) if url.is_empty() => match configured()? {
            Some(service) => Ok(Some(service.url)),
            None => Err(format!(
                "--http without a URL takes the service's from ${URL_ENV} or the url of {}, and neither is set",
                service_file().map_or_else(|| SERVICE_FILE.into(), |p| p.display().to_string())
            )),
        },
        other => Ok(other),
    }
}

/// Whether `url` may carry a token: HTTPS, or plain HTTP to this machine only.
fn safe_for_a_token(url: &reqwest::Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// The service's answer to `input`, or why there is none.
pub(crate) async fn answer(
    service: &Service,
    agent: Agent,
    input: &[u8],
    mode: OnFailure,
) -> Result<AgentAnswer, String> {
    let client = client(service)?;
    let block = if mode == OnFailure::Block {
        "&on_failure=block"
    } else {
        ""
    };
    let url = format!("{}{}?caller=bridge{block}", service.url, agent.http_route());
    let url = reqwest::Url::parse(&url)
        .map_err(|e| format!("{URL_ENV} {:?} is not a URL: {e}", service.url))?;
    if service.token.is_some() && !safe_for_a_token(&url) {
        return Err(format!(
            "refusing to send the token to {} in clear text: use https:// (plain http:// only to this machine)",
            service.url
        ));
    }
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .body(input.to_vec());
    if let Some(token) = &service.token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.map_err(|e| describe(&e))?;
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(|e| format!("its answer broke off: {}", describe(&e)))?;
    let value: serde_json::Value = serde_json::from_slice(&body).map_err(|_| {
        format!(
            "status {status}, and the answer is not JSON: {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        )
    })?;
    if !status.is_success() {
        let error = value
            .get("error")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("no reason given");
        return Err(format!("status {status}: {error}"));
    }
    let text = |key: &str| value.get(key).and_then(serde_json::Value::as_str);
    match (
        text("stdout"),
        text("stderr"),
        value.get("exit").and_then(serde_json::Value::as_i64),
    ) {
        (Some(stdout), Some(stderr), Some(exit)) => Ok(AgentAnswer {
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            exit: i32::try_from(exit).unwrap_or(1),
        }),
        _ => Err("its answer is not a bridge's answer (stdout, stderr, exit); is it an agent-hooks team service?".into()),
    }
}

/// An error of the HTTP client with its causes, which say what actually failed (a refused
/// connection, an unknown certificate authority).
fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

fn client(service: &Service) -> Result<reqwest::Client, String> {
    // reqwest is built without a bundled crypto provider: ring, as for the HTTP hooks.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(ANSWER_TIMEOUT)
        .user_agent(concat!("agent-hooks/", env!("CARGO_PKG_VERSION")));
    if let Some(ca) = &service.ca {
        let pem = std::fs::read(ca)
            .map_err(|e| format!("cannot read the CA file {}: {e}", ca.display()))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| format!("{}: not a PEM certificate bundle: {e}", ca.display()))?;
        if certs.is_empty() {
            return Err(format!("{}: no certificate in it", ca.display()));
        }
        builder = builder.tls_certs_only(certs);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {}", describe(&e)))
}
