//! The HTTP transport (`docs/configuration.md`): POST the hook's input to a URL and hand back a 2xx
//! answer's body as the hook's stdout, for the dialect to read exactly like a command hook's.
//!
//! One client per process ([`HttpClient::shared`]) keeps connections alive between calls. It uses
//! no proxy, follows no redirect (a 3xx is a failure), and its only DNS step is the
//! [`ssrf::Guard`](super::ssrf::Guard), so it connects to exactly the addresses the guard checked.
//! The URL rules and literal addresses are checked again before every call, since the client skips
//! DNS for them.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hmac::{Hmac, Mac};
use reqwest::header::{self, HeaderName, HeaderValue};
use sha2::Sha256;

use super::ssrf::{Guard, Refusal};
use super::{Failure, Reply, STDOUT_CAP};

/// The header carrying the body's HMAC when the hook has a `secret`.
pub const SIGNATURE_HEADER: &str = "X-Agent-Hooks-Signature";

/// Headers a hook may not set: the transport owns them.
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "connection",
    "x-agent-hooks-signature",
];

/// An HTTP hook: where to POST and what to send with it.
#[derive(Debug, Clone)]
pub struct HttpSpec {
    /// The URL exactly as written in the configuration (what approvals key on).
    pub url: String,
    /// Extra request headers; values may use `${VAR}` for variables listed in `allowed_env`.
    pub headers: Vec<(HeaderName, Template)>,
    /// Key of the `X-Agent-Hooks-Signature` HMAC.
    pub secret: Option<Template>,
    /// The variables the templates may read (what the entry's `allowed_env` lists).
    pub allowed_env: Vec<String>,
}

/// Why a configured HTTP hook is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpSpecError {
    /// The URL breaks the URL rules (scheme, credentials, a literal private address, ...).
    #[error("url refused: {0}")]
    Url(Refusal),
    /// A header name or value template is not valid.
    #[error("{0}")]
    Header(String),
}

/// A header value or secret that may name environment variables as `${NAME}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Var(String),
}

impl Template {
    /// Parses `raw`; every `${NAME}` must be one of `allowed`, so a config cannot read any
    /// variable of the runtime's environment it was not explicitly given.
    pub fn parse(raw: &str, allowed: &[String]) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = raw;
        while let Some(start) = rest.find("${") {
            if start > 0 {
                parts.push(Part::Text(rest[..start].to_owned()));
            }
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                return Err(format!("unclosed \"${{\" in \"{raw}\""));
            };
            let name = &after[..end];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("\"${{{name}}}\" is not a variable name"));
            }
            if !allowed.iter().any(|a| a == name) {
                return Err(format!(
                    "${{{name}}} is not listed in allowed_env (add it there to let this hook read it)"
                ));
            }
            parts.push(Part::Var(name.to_owned()));
            rest = &after[end + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_owned()));
        }
        Ok(Template { parts })
    }

    /// Parses a header value of a Claude Code HTTP hook: `$NAME` and `${NAME}` name variables,
    /// and one not in `allowed` (its `allowedEnvVars`) becomes the empty string, as Claude Code
    /// does. The names so dropped come back beside the template, for a warning.
    pub fn parse_claude(raw: &str, allowed: &[String]) -> (Template, Vec<String>) {
        let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let mut parts = Vec::new();
        let mut dropped = Vec::new();
        let mut text = String::new();
        let mut rest = raw;
        while let Some(at) = rest.find('$') {
            text.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (name, tail) = match after.strip_prefix('{') {
                Some(braced) => match braced.find('}') {
                    Some(end) if braced[..end].chars().all(is_name) => {
                        (&braced[..end], &braced[end + 1..])
                    }
                    _ => ("", after),
                },
                None => {
                    let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
                    (&after[..end], &after[end..])
                }
            };
            if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                text.push('$');
                rest = after;
                continue;
            }
            if allowed.iter().any(|a| a == name) {
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                parts.push(Part::Var(name.to_owned()));
            } else if !dropped.iter().any(|d| d == name) {
                dropped.push(name.to_owned());
            }
            rest = tail;
        }
        text.push_str(rest);
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        (Template { parts }, dropped)
    }

    /// The value with the variables filled in from the runtime's environment, read now so a
    /// rotated token is picked up without a reload.
    pub fn expand(&self) -> Result<String, String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Var(name) => match std::env::var(name) {
                    Ok(value) => out.push_str(&value),
                    Err(_) => return Err(format!("environment variable {name} is not set")),
                },
            }
        }
        Ok(out)
    }
}

impl HttpSpec {
    /// Validates a configured hook: the URL against the guard (as this process's environment
    /// sets allow-local), header names and literal values.
    pub fn new(
        url: &str,
        headers: Vec<(String, Template)>,
        secret: Option<Template>,
    ) -> Result<HttpSpec, HttpSpecError> {
        Guard::from_env()
            .check_url(url)
            .map_err(HttpSpecError::Url)?;
        let headers = headers
            .into_iter()
            .map(|(name, value)| {
                let parsed = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| format!("headers: \"{name}\" is not a valid header name"))?;
                if RESERVED_HEADERS.contains(&parsed.as_str()) {
                    return Err(format!("headers: \"{name}\" is set by the runtime"));
                }
                let literal: String = value
                    .parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Text(t) => Some(t.as_str()),
                        Part::Var(_) => None,
                    })
                    .collect();
                if HeaderValue::from_str(&literal).is_err() {
                    return Err(format!(
                        "headers.{name}: the value has characters a header cannot carry"
                    ));
                }
                Ok((parsed, value))
            })
            .collect::<Result<_, _>>()
            .map_err(HttpSpecError::Header)?;
        Ok(HttpSpec {
            url: url.to_owned(),
            headers,
            secret,
            allowed_env: Vec::new(),
        })
    }

    /// POSTs `body` through the process's shared client.
    pub async fn run(&self, body: Vec<u8>, timeout: Duration) -> Result<Reply, Failure> {
        self.run_with(HttpClient::shared()?, body, timeout).await
    }

    /// POSTs `body` through `client` and returns the 2xx answer's body as the reply's stdout.
    pub async fn run_with(
        &self,
        client: &HttpClient,
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<Reply, Failure> {
        let url = client.guard.check_url(&self.url).map_err(refused)?;
        let mut request = client
            .client
            .post(url)
            .header(header::CONTENT_TYPE, "application/json")
            .timeout(timeout);
        for (name, value) in &self.headers {
            let value = value
                .expand()
                .map_err(|e| Failure::Exec(format!("header {name}: {e}")))?;
            let value = HeaderValue::from_str(&value).map_err(|_| {
                Failure::Exec(format!(
                    "header {name}: its expanded value has characters a header cannot carry"
                ))
            })?;
            request = request.header(name, value);
        }
        if let Some(secret) = &self.secret {
            let key = secret
                .expand()
                .map_err(|e| Failure::Exec(format!("secret: {e}")))?;
            request = request.header(SIGNATURE_HEADER, signature(key.as_bytes(), &body));
        }
        let request = request.body(body);

        let exchange = async {
            let mut response = request
                .send()
                .await
                .map_err(|e| self.send_failure(&e, timeout))?;
            let status = response.status();
            if !status.is_success() {
                let mut detail = format!("POST {} answered {status}", self.url);
                if status.is_redirection() {
                    let to = response
                        .headers()
                        .get(header::LOCATION)
                        .and_then(|l| l.to_str().ok())
                        .unwrap_or("?");
                    detail.push_str(&format!(" (to {to}); redirects are not followed"));
                }
                return Err(Failure::Exec(detail));
            }
            let too_big = || {
                Failure::Exec(format!(
                    "POST {} answered a body larger than {} bytes; it was not read further",
                    self.url, STDOUT_CAP
                ))
            };
            if response
                .content_length()
                .is_some_and(|n| n > STDOUT_CAP as u64)
            {
                return Err(too_big());
            }
            let mut bytes = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.send_failure(&e, timeout))?
            {
                if bytes.len() + chunk.len() > STDOUT_CAP {
                    return Err(too_big());
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(bytes)
        };
        let stdout = match tokio::time::timeout(timeout, exchange).await {
            Ok(result) => result?,
            Err(_) => return Err(Failure::Timeout(timeout)),
        };
        Ok(Reply::answered(stdout))
    }

    fn send_failure(&self, err: &reqwest::Error, timeout: Duration) -> Failure {
        if err.is_timeout() {
            return Failure::Timeout(timeout);
        }
        // The guard's refusal travels up from the resolver as an error source; say it plainly.
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
        let mut chain = Vec::new();
        while let Some(e) = source {
            if let Some(refusal) = e.downcast_ref::<Refusal>() {
                return refused(refusal.clone());
            }
            let text = e.to_string();
            if !chain.iter().any(|c: &String| c.contains(&text)) {
                chain.push(text);
            }
            source = e.source();
        }
        Failure::Exec(format!("POST {}: {}", self.url, chain.join(": ")))
    }
}

fn refused(refusal: Refusal) -> Failure {
    Failure::Exec(format!("refused by the SSRF guard: {refusal}"))
}

/// `sha256=<hex HMAC-SHA256 of body keyed with key>`, the value of [`SIGNATURE_HEADER`].
pub fn signature(key: &[u8], body: &[u8]) -> String {
    // HMAC takes keys of any length; the error case cannot happen for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return String::new();
    };
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    let mut out = String::with_capacity(7 + digest.len() * 2);
    out.push_str("sha256=");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The HTTP client hooks are called with, and the guard it resolves through.
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: reqwest::Client,
    guard: Guard,
}

impl HttpClient {
    /// A client that resolves every name through `guard` and connects only to what it returns.
    pub fn new(guard: Guard) -> Result<HttpClient, String> {
        // reqwest is built without a bundled crypto provider; use ring unless the host process
        // already chose one (then installing fails, and theirs is used).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(guard.clone()))
            .user_agent(concat!("agent-hooks/", env!("CARGO_PKG_VERSION")))
            .pool_idle_timeout(Duration::from_secs(30))
            .tcp_nodelay(true)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(HttpClient { client, guard })
    }

    /// The process's client: system DNS, allow-local as the environment says.
    pub fn shared() -> Result<&'static HttpClient, Failure> {
        static SHARED: OnceLock<Result<HttpClient, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| HttpClient::new(Guard::from_env()))
            .as_ref()
            .map_err(|e| Failure::Exec(e.clone()))
    }

    /// The SSRF guard every call goes through.
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// The underlying client, for benchmarks that compare a bare POST with a hook call.
    pub fn reqwest(&self) -> &reqwest::Client {
        &self.client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_expand_only_allowed_names() {
        let allowed = vec!["TOKEN".to_owned()];
        assert!(Template::parse("Bearer ${TOKEN}", &allowed).is_ok());
        let err = Template::parse("Bearer ${HOME}", &allowed).expect_err("not allowed");
        assert!(err.contains("allowed_env"), "{err}");
        assert!(Template::parse("${TOKEN", &allowed).is_err());
        assert!(Template::parse("${}", &allowed).is_err());
        let plain = Template::parse("just $text", &[]).expect("no variables");
        assert_eq!(plain.expand().as_deref(), Ok("just $text"));
    }

    #[test]
    fn claude_templates_read_both_spellings_and_empty_unlisted_names() {
        let allowed = vec!["MY_TOKEN".to_owned()];
        let (t, dropped) = Template::parse_claude("Bearer $MY_TOKEN", &allowed);
        assert_eq!(
            t.parts,
            vec![Part::Text("Bearer ".into()), Part::Var("MY_TOKEN".into())]
        );
        assert!(dropped.is_empty());
        let (t, dropped) = Template::parse_claude("${MY_TOKEN}:$HOME/x costs $5 ${", &allowed);
        assert_eq!(
            t.parts,
            vec![
                Part::Var("MY_TOKEN".into()),
                Part::Text(":/x costs $5 ${".into())
            ]
        );
        assert_eq!(dropped, vec!["HOME".to_owned()]);
    }

    #[test]
    fn signature_is_hex_hmac_sha256() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn reserved_and_invalid_headers_are_config_errors() {
        let t = |v: &str| Template::parse(v, &[]).expect("template");
        assert!(HttpSpec::new("https://h.example/", vec![("Host".into(), t("x"))], None).is_err());
        assert!(
            HttpSpec::new(
                "https://h.example/",
                vec![("bad name".into(), t("x"))],
                None
            )
            .is_err()
        );
        assert!(
            HttpSpec::new("https://h.example/", vec![("X-Ok".into(), t("a\nb"))], None).is_err()
        );
        assert!(
            HttpSpec::new("https://h.example/", vec![("X-Ok".into(), t("fine"))], None).is_ok()
        );
    }
}

#[cfg(test)]
#[path = "../tests/loopback/mod.rs"]
mod loopback;
#[cfg(test)]
mod ssrf_end_to_end;
