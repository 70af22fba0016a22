//! Remote approval of `ask` (`ask: {via: console}` in `config/agent.yaml`): a real bridge
//! process waits for the operator's answer at `serve --console`, the timeout's default applies
//! and says so, an ask is answered exactly once, and a pending ask outlives the sidecar.

use crate::{loopback, support};

use std::io::Write;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use support::{Entry, Ran, Ws};

use crate::console::{Browser, Sidecar, screenshot, serve_console, serve_console_with, signed_in};
use crate::shared_state::Redis;

/// A hook that asks before any `git push`.
const ASKER: &str = r#"
    case "$(cat)" in
      *'git push'*) echo '{"decision": "ask", "reason": "pushes need a person"}' ;;
    esac
"#;

/// A workspace whose approved hook `pusher` asks before a push, with `ask` as written.
fn asking(ask: &str) -> Ws {
    let ws = Ws::new()
        .sh("hooks/pusher.sh", ASKER)
        .hook(Entry::new("pre_tool_call", "hooks/pusher.sh").name("pusher"))
        .approve_all();
    ws.file(
        "config/agent.yaml",
        &format!("shell_hooks:\n  enabled: true\n{ask}"),
    )
}

fn push() -> Value {
    json!({"session_id": "s-7", "tool_name": "bash", "tool_input": {"command": "git push origin main"}})
}

/// Claude Code's PreToolUse input for a push.
fn claude_push() -> Value {
    json!({
        "session_id": "s-7",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push origin main"},
        "cwd": "/tmp",
    })
}

fn claude_hook(ws: &Ws, input: &Value) -> Ran {
    Ran::of(ws.command(&["claude-hook"]), input.to_string().as_bytes())
}

/// The pending asks the workspace's file store holds, as the console lists them.
fn pending_files(ws: &Ws) -> usize {
    std::fs::read_dir(ws.runtime_path("asks"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn without_an_operator_the_timeout_denies_and_says_so() {
    let ws = asking("ask: {via: console, timeout: 1s, on_timeout: deny}\n");
    let fired = ws.fire("pre_tool_call", push());
    assert_eq!(fired.decision(), "block", "{}", fired.outcome);
    assert!(
        fired
            .reason()
            .starts_with("no operator answered within 1s; denied by on_timeout"),
        "{}",
        fired.reason()
    );
    assert!(
        fired.reason().contains("pushes need a person"),
        "{}",
        fired.reason()
    );
    assert!(
        fired.elapsed >= Duration::from_secs(1),
        "{:?}",
        fired.elapsed
    );
    // The ask was kept in the store while it waited.
    assert_eq!(pending_files(&ws), 1);

    // The bridge answers Claude Code with the deny, in its own JSON.
    let ran = claude_hook(&ws, &claude_push());
    let answer = ran.json();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    assert!(
        specific["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .contains("no operator answered within 1s; denied by on_timeout"),
        "{answer}"
    );
}

#[test]
fn on_timeout_ask_falls_back_to_the_agents_own_prompt_and_allow_lets_it_run() {
    let ws = asking("ask: {via: console, timeout: 1, on_timeout: ask}\n");
    let answer = claude_hook(&ws, &claude_push()).json();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "ask", "{answer}");
    let reason = specific["permissionDecisionReason"].as_str().unwrap_or("");
    assert!(
        reason.contains("pushes need a person")
            && reason.contains(
                "no operator answered within 1s; left to the agent's own prompt by on_timeout"
            ),
        "{answer}"
    );

    let ws = asking("ask:\n  via: console\n  timeout: 1s\n  on_timeout: allow\n");
    let fired = ws.fire("pre_tool_call", push());
    assert_eq!(fired.decision(), "continue", "{}", fired.outcome);
    assert!(
        fired
            .warnings()
            .iter()
            .any(|w| w == "no operator answered within 1s; allowed by on_timeout"),
        "{:?}",
        fired.warnings()
    );
}

#[test]
fn a_call_no_hook_asks_about_never_waits() {
    let ws = asking("ask: {via: console, timeout: 1h}\n");
    let fired = ws.fire(
        "pre_tool_call",
        json!({"session_id": "s-7", "tool_name": "bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(fired.decision(), "continue");
    assert_eq!(pending_files(&ws), 0);
}

#[test]
fn a_broken_ask_section_is_a_located_error_and_leaves_the_ask_to_the_agent() {
    let ws = asking("ask: {via: console, on_timeout: maybe}\n");
    let fired = ws.fire("pre_tool_call", push());
    // The agent's own prompt asks; the mistake is told, with the file and the key.
    assert_eq!(fired.decision(), "ask", "{}", fired.outcome);
    let told = fired.warnings().join("\n");
    assert!(
        told.contains("config/agent.yaml")
            && told.contains("ask.on_timeout: expected deny, allow or ask, found \"maybe\""),
        "{told}"
    );
    assert_eq!(pending_files(&ws), 0);
    let listed = support::list_text(&ws);
    assert!(listed.contains("ask.on_timeout"), "{listed}");
}

/// `agent-hooks claude-hook` started on a push and left waiting for its answer.
fn waiting_bridge(ws: &Ws) -> Child {
    let mut child = ws
        .command(&["claude-hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-hooks claude-hook");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin
        .write_all(claude_push().to_string().as_bytes())
        .expect("write the hook input");
    drop(stdin);
    child
}

/// What the bridge printed for Claude Code once it answered.
fn bridge_answer(child: Child) -> Value {
    let out = child.wait_with_output().expect("the bridge ends");
    assert!(
        out.status.success(),
        "the bridge failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the bridge printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// A browser signed in to `sidecar`'s console, on its Pending page, once `pending` rows show.
fn on_pending_page(sidecar: &Sidecar, pending: usize) -> Browser {
    let mut browser = Browser::start();
    browser.goto(&sidecar.link);
    browser.wait_for("document.getElementById('live-state')?.textContent === 'live'");
    browser.goto(&format!("http://127.0.0.1:{}/#asks", sidecar.console));
    browser.wait_for(&format!(
        "document.querySelectorAll('#ask-rows tr').length === {pending} \
         && !document.getElementById('asks').hidden"
    ));
    browser
}

/// Writes `note` in the first pending row and clicks `button`; returns the ask's id.
fn answer_first(browser: &mut Browser, button: &str, note: &str) -> String {
    let id = browser.eval("document.querySelector('#ask-rows tr').dataset.ask");
    browser.eval(&format!(
        "const tr = document.querySelector('#ask-rows tr'); \
         tr.querySelector('input.note').value = {note}; \
         tr.querySelector('button.{button}').click(); true",
        note = json!(note)
    ));
    id.as_str().expect("the row names its ask").to_owned()
}

/// A POST of an answer from the signed-in page, with its CSRF token: `[status, error]`.
fn post_answer(browser: &mut Browser, id: &str, decision: &str) -> Value {
    browser.eval(&format!(
        "(async () => {{ \
           const csrf = (await (await fetch('/api/session')).json()).csrf; \
           const r = await fetch('/api/asks/answer', {{method: 'POST', \
             headers: {{'Content-Type': 'application/json', 'X-CSRF-Token': csrf}}, \
             body: JSON.stringify({{id: {id}, decision: {decision}, note: ''}})}}); \
           return [r.status, (await r.json()).error || null]; }})()",
        id = json!(id),
        decision = json!(decision)
    ))
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn an_operator_denies_a_waiting_bridge_from_the_console_with_a_note() {
    let ws = asking("ask: {via: console, timeout: 5m, on_timeout: allow}\n");
    let (sidecar, mut browser) = signed_in(&ws);
    let bridge = waiting_bridge(&ws);
    browser.goto(&format!("http://127.0.0.1:{}/#asks", sidecar.console));
    // The pending call shows with its input, the asking hook and its reason.
    browser.wait_for(
        "[...document.querySelectorAll('#ask-rows tr')].some(tr => \
         tr.querySelector('pre.ask-input').textContent.includes('git push origin main') \
         && tr.textContent.includes('pusher: pushes need a person') \
         && tr.textContent.includes('s-7') && tr.textContent.includes('claude') \
         && tr.textContent.includes('bash'))",
    );
    screenshot(&mut browser, "pending");
    let id = answer_first(&mut browser, "deny", "not on Fridays");

    let answer = bridge_answer(bridge);
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny", "{answer}");
    assert_eq!(
        specific["permissionDecisionReason"],
        "an operator answered deny at the console: not on Fridays (the hook asked: pushes need a person)",
        "{answer}"
    );
    // Answered, it leaves the page; a second answer is refused with the first.
    browser.wait_for("document.querySelectorAll('#ask-rows tr').length === 0");
    let again = post_answer(&mut browser, &id, "allow");
    assert_eq!(again[0], 409, "{again}");
    assert!(
        again[1]
            .as_str()
            .unwrap_or("")
            .contains("already answered: deny by operator (not on Fridays)"),
        "{again}"
    );
    // An answer without the CSRF token is refused, and an unknown ask is not found.
    let refused = browser.eval(&format!(
        "fetch('/api/asks/answer', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, \
         body: JSON.stringify({{id: {id}, decision: 'allow'}})}}).then(r => r.status)",
        id = json!(id)
    ));
    assert_eq!(refused, json!(403));
    let unknown = post_answer(&mut browser, &"0".repeat(32), "allow");
    assert_eq!(unknown[0], 404, "{unknown}");
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn a_pending_ask_outlives_a_restart_of_the_sidecar() {
    let ws = asking("ask: {via: console, timeout: 5m, on_timeout: deny}\n");
    let first = serve_console(&ws);
    let bridge = waiting_bridge(&ws);
    let browser = on_pending_page(&first, 1);
    drop(browser);
    drop(first);

    // Another sidecar, started after the first is gone, lists the same ask and delivers its
    // answer to the bridge that is still waiting.
    let second = serve_console(&ws);
    let mut browser = on_pending_page(&second, 1);
    answer_first(&mut browser, "allow", "ok for once");
    let answer = bridge_answer(bridge);
    assert!(
        answer["hookSpecificOutput"]["permissionDecision"].is_null(),
        "an allowed ask leaves the decision to Claude Code's own rules: {answer}"
    );
    assert_eq!(
        answer["systemMessage"], "an operator answered allow at the console: ok for once",
        "{answer}"
    );
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn with_redis_state_an_ask_made_at_one_replica_is_answered_at_another() {
    let Some(redis) = Redis::start() else {
        return;
    };
    let state = ["--state", redis.url.as_str()];
    // Two replicas, each with its own copy of the policy, as on two machines.
    let one = asking("ask: {via: console, timeout: 5m, on_timeout: deny}\n");
    let two = asking("ask: {via: console, timeout: 5m, on_timeout: deny}\n");
    let asked_at = serve_console_with(&one, &state, &[]);
    let answered_at = serve_console_with(&two, &state, &[]);
    let port = asked_at.port;
    let waiting = std::thread::spawn(move || {
        support::http(
            port,
            "POST",
            "/v1/events/pre_tool_call",
            push().to_string().as_bytes(),
            &format!("127.0.0.1:{port}"),
        )
    });
    // The first replica's page shows the ask too, and follows its answer live.
    let mut watching = on_pending_page(&asked_at, 1);
    let mut browser = on_pending_page(&answered_at, 1);
    answer_first(&mut browser, "deny", "use a pull request");
    let (status, outcome) = waiting.join().expect("the request thread");
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["decision"], "block", "{outcome}");
    assert!(
        outcome["reason"]
            .as_str()
            .unwrap_or("")
            .starts_with("an operator answered deny at the console: use a pull request"),
        "{outcome}"
    );
    watching.wait_for("document.querySelectorAll('#ask-rows tr').length === 0");
}

#[test]
fn a_store_that_does_not_answer_leaves_the_ask_to_the_agent_and_says_so() {
    let Some(redis) = Redis::start() else {
        return;
    };
    let ws = asking("ask: {via: console, timeout: 5m}\n");
    let strict = asking("ask: {via: console, timeout: 5m}\non_failure: block\n");
    let open = support::Server::start_with(&ws, &["--state", &redis.url]);
    let closed = support::Server::start_with(&strict, &["--state", &redis.url]);
    drop(redis);

    let (status, outcome) = open.post("/v1/events/pre_tool_call", push());
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["decision"], "ask", "{outcome}");
    let told = outcome["warnings"].to_string();
    assert!(
        told.contains("the ask could not be sent to the console")
            && told.contains("the agent's own prompt asks instead"),
        "{outcome}"
    );
    // Under on_failure: block the lapse denies the call.
    let (_, outcome) = closed.post("/v1/events/pre_tool_call", push());
    assert_eq!(outcome["decision"], "block", "{outcome}");
    assert!(
        outcome["reason"]
            .as_str()
            .unwrap_or("")
            .contains("the ask could not be sent to the console"),
        "{outcome}"
    );
}

/// `fire pre_tool_call` on a push, with HTTP to this machine allowed or not (as the SSRF guard
/// reads it from the environment).
fn fire_push(ws: &Ws, allow_local: bool) -> Value {
    let mut command = ws.command(&["fire", "pre_tool_call"]);
    command.env_remove(ALLOW_LOCAL);
    if allow_local {
        command.env(ALLOW_LOCAL, "1");
    }
    let ran = Ran::of(command, push().to_string().as_bytes());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    ran.json()
}

const ALLOW_LOCAL: &str = "AGENT_HOOKS_HTTP_ALLOW_LOCAL";

#[test]
fn each_ask_is_posted_to_its_webhook_and_a_failed_post_is_told() {
    let receiver = loopback::Server::start(|_| loopback::Response::json("{}"));
    let url = receiver.url("/asks");
    let ws = asking(&format!(
        "ask: {{via: console, timeout: 1s, webhook: \"{url}\"}}\n"
    ));
    let outcome = fire_push(&ws, true);
    assert_eq!(outcome["decision"], "block", "{outcome}");
    assert!(
        !outcome["warnings"].to_string().contains("webhook"),
        "{outcome}"
    );
    let requests = receiver.requests();
    assert_eq!(requests.len(), 1);
    let sent: Value = serde_json::from_slice(&requests[0].body).expect("the body is JSON");
    assert_eq!(sent["type"], "agent_hooks.ask");
    assert_eq!(sent["ask"]["tool_input"]["command"], "git push origin main");
    assert_eq!(sent["ask"]["hooks"], json!(["pusher"]));
    assert_eq!(sent["ask"]["reason"], "pushes need a person");
    assert_eq!(sent["ask"]["id"].as_str().map(str::len), Some(32));
    assert!(
        sent["text"]
            .as_str()
            .unwrap_or("")
            .starts_with("pusher asks about bash: pushes need a person"),
        "{sent}"
    );

    // A receiver that refuses: the user is told, and the ask still waited at the console.
    let refusing = loopback::Server::start(|_| loopback::Response::status(500));
    let ws = asking(&format!(
        "ask: {{via: console, timeout: 1s, webhook: \"{}\"}}\n",
        refusing.url("/asks")
    ));
    let outcome = fire_push(&ws, true);
    assert_eq!(outcome["decision"], "block", "{outcome}");
    let told = outcome["warnings"].to_string();
    assert!(
        told.contains("was not delivered") && told.contains("500"),
        "{outcome}"
    );
}

#[test]
fn a_webhook_to_this_machine_is_refused_by_the_ssrf_guard_without_allow_local() {
    let receiver = loopback::Server::start(|_| loopback::Response::json("{}"));
    let ws = asking(&format!(
        "ask: {{via: console, timeout: 1s, webhook: \"{}\"}}\n",
        receiver.url("/asks")
    ));
    let outcome = fire_push(&ws, false);
    // The section is refused whole: the agent's own prompt asks, and the reason is told.
    assert_eq!(outcome["decision"], "ask", "{outcome}");
    assert!(
        outcome["warnings"]
            .to_string()
            .contains("ask.webhook: url refused"),
        "{outcome}"
    );
    assert!(receiver.requests().is_empty());
}
