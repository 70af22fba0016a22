//! `ask` in `config/agent.yaml`: where a hook's `ask` goes. Without it, to the agent's own
//! prompt; with `via: console`, to the operator at `serve --console`, who has `timeout` to
//! answer before `on_timeout` decides.

use std::time::Duration;

use serde_json::Value;

use agent_hooks_transports::session_state::asks::AskDecision;

/// How long an ask waits for an operator unless `ask.timeout` says otherwise.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The longest wait `ask.timeout` may set: an agent's hook runs no longer than this in any case.
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

const KEYS: [&str; 4] = ["via", "timeout", "on_timeout", "webhook"];

/// Asks go to the console: how long they wait, and what applies when no one answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AskRoute {
    /// `ask.timeout`.
    pub timeout: Duration,
    /// `ask.on_timeout`: `deny` (the default), `allow`, or `ask` (the agent's own prompt).
    pub on_timeout: AskDecision,
    /// `ask.webhook`: a URL each new ask is also POSTed to (a chat or push service), behind
    /// the HTTP hooks' SSRF guard.
    pub webhook: Option<String>,
}

/// What a broken `ask` section comes to, at the end of each message: an ask is never allowed
/// by a mistake in the file.
const FALLBACK: &str = "asks go to the agent's own prompt until it is fixed";

/// Reads the `ask` section: `None` when absent (asks go to the agent's own prompt).
pub(crate) fn read(section: Option<&Value>) -> Result<Option<AskRoute>, String> {
    let map = match section {
        None => return Ok(None),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(format!(
                "ask: expected a mapping such as {{via: console, timeout: 120s, on_timeout: deny}}, found {}; {FALLBACK}",
                agent_hooks_core::wording::kind_of(other)
            ));
        }
    };
    if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        let meant = agent_hooks_core::wording::nearest(key, KEYS.iter().copied(), |d, _| d <= 2);
        return Err(format!(
            "ask.{key}: not a setting of ask{} (it has via, timeout, on_timeout, webhook); {FALLBACK}",
            agent_hooks_core::wording::did_you_mean(meant)
        ));
    }
    match map.get("via") {
        Some(Value::String(via)) if via == "console" => {}
        None => {
            return Err(format!(
                "ask.via: missing; write `via: console` to send asks to `agent-hooks serve --console`; {FALLBACK}"
            ));
        }
        Some(other) => {
            return Err(format!(
                "ask.via: expected \"console\", found {other}; {FALLBACK}"
            ));
        }
    }
    let timeout = match map.get("timeout") {
        None => DEFAULT_TIMEOUT,
        Some(value) => duration(value).ok_or_else(|| {
            format!(
                "ask.timeout: expected a time from 1s to 24h (such as 90, 120s, 5m, 1h), found {value}; {FALLBACK}"
            )
        })?,
    };
    let on_timeout = match map.get("on_timeout").map(|v| (v, v.as_str())) {
        None | Some((_, Some("deny"))) => AskDecision::Deny,
        Some((_, Some("allow"))) => AskDecision::Allow,
        Some((_, Some("ask"))) => AskDecision::Ask,
        Some((value, _)) => {
            return Err(format!(
                "ask.on_timeout: expected deny, allow or ask, found {value}; {FALLBACK}"
            ));
        }
    };
    let webhook = match map.get("webhook") {
        None => None,
        Some(Value::String(url)) => {
            // The URL rules of HTTP hooks, as this process's environment sets allow-local; the
            // addresses are checked again at each post.
            agent_hooks_transports::http::HttpSpec::new(url, Vec::new(), None)
                .map_err(|e| format!("ask.webhook: {e}; {FALLBACK}"))?;
            Some(url.clone())
        }
        Some(other) => {
            return Err(format!(
                "ask.webhook: expected an http(s) URL, found {other}; {FALLBACK}"
            ));
        }
    };
    Ok(Some(AskRoute {
        timeout,
        on_timeout,
        webhook,
    }))
}

/// Seconds as a number, or a number with `s`, `m` or `h`; within 1s and [`MAX_TIMEOUT`].
fn duration(value: &Value) -> Option<Duration> {
    let seconds = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(text) => {
            let text = text.trim();
            let (number, unit) = match text.char_indices().last()? {
                (at, 's') => (&text[..at], 1.0),
                (at, 'm') => (&text[..at], 60.0),
                (at, 'h') => (&text[..at], 3600.0),
                _ => (text, 1.0),
            };
            number.trim().parse::<f64>().ok()? * unit
        }
        _ => return None,
    };
    let wait = Duration::try_from_secs_f64(seconds).ok()?;
    (Duration::from_secs(1)..=MAX_TIMEOUT)
        .contains(&wait)
        .then_some(wait)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_route_with_its_defaults() {
        assert_eq!(read(None), Ok(None));
        assert_eq!(
            read(Some(&json!({"via": "console"}))),
            Ok(Some(AskRoute {
                timeout: DEFAULT_TIMEOUT,
                on_timeout: AskDecision::Deny,
                webhook: None,
            }))
        );
        for (written, secs) in [
            (json!(90), 90),
            (json!("120s"), 120),
            (json!("5m"), 300),
            (json!("1h"), 3600),
        ] {
            let route = read(Some(
                &json!({"via": "console", "timeout": written, "on_timeout": "ask"}),
            ))
            .expect("a route")
            .expect("routed");
            assert_eq!(route.timeout, Duration::from_secs(secs));
            assert_eq!(route.on_timeout, AskDecision::Ask);
        }
    }

    #[test]
    fn each_mistake_is_named_with_what_was_found() {
        let cases = [
            (json!("console"), "ask: expected a mapping"),
            (json!({"timeout": "2m"}), "ask.via: missing"),
            (
                json!({"via": "slack"}),
                "ask.via: expected \"console\", found \"slack\"",
            ),
            (
                json!({"via": "console", "timeout": "0s"}),
                "ask.timeout: expected a time",
            ),
            (
                json!({"via": "console", "timeout": "2 weeks"}),
                "found \"2 weeks\"",
            ),
            (json!({"via": "console", "timeout": "25h"}), "ask.timeout"),
            (
                json!({"via": "console", "on_timeout": "maybe"}),
                "ask.on_timeout: expected deny, allow or ask, found \"maybe\"",
            ),
            (
                json!({"via": "console", "on_timeot": "deny"}),
                "did you mean \"on_timeout\"",
            ),
            (
                json!({"via": "console", "webhook": "ftp://chat.example/x"}),
                "ask.webhook: url refused",
            ),
            (
                json!({"via": "console", "webhook": 7}),
                "ask.webhook: expected an http(s) URL, found 7",
            ),
        ];
        for (section, expected) in cases {
            let error = read(Some(&section)).expect_err("a mistake");
            assert!(error.contains(expected), "{section}: {error}");
            assert!(error.ends_with(FALLBACK), "{error}");
        }
    }
}
