//! `agent-hooks serve --console` in a real headless Chromium, driven through the DevTools
//! protocol over `--remote-debugging-pipe`: the printed login link, a decision shown live, an
//! approval from the hooks page, and the refusals of requests without a session or CSRF token.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use support::{Entry, Ws, eventually, http, http_with};

const GUARD: &str = r#"
    case "$(cat)" in
      *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;;
    esac
"#;

/// A sidecar with the console: its TCP port, the console's port and the login link.
pub(crate) struct Sidecar {
    child: Child,
    pub(crate) port: u16,
    pub(crate) console: u16,
    pub(crate) link: String,
    /// Kept open: the sidecar prints on stdout after its first two lines.
    _stdout: BufReader<ChildStdout>,
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn port_of(url: &str) -> u16 {
    url.rsplit("://")
        .next()
        .unwrap_or(url)
        .split(['/', ' '])
        .next()
        .and_then(|hostport| hostport.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url:?}"))
}

pub(crate) fn serve_console(ws: &Ws) -> Sidecar {
    serve_console_with(ws, &[], &[])
}

/// [`serve_console`] with more flags for `serve` (`--state redis://…`) and more variables in
/// the sidecar's environment.
pub(crate) fn serve_console_with(
    ws: &Ws,
    flags: &[&str],
    env: &[(&str, &std::path::Path)],
) -> Sidecar {
    let mut command = ws.command(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--console",
        "127.0.0.1:0",
    ]);
    command.args(flags);
    for (name, value) in env {
        command.env(name, value);
    }
    spawn_console(command)
}

/// Starts `command`, a `serve --console`, and reads its ready and console lines.
fn spawn_console(mut command: Command) -> Sidecar {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn agent-hooks serve --console");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut ready = String::new();
    stdout.read_line(&mut ready).expect("read the ready line");
    let mut login = String::new();
    stdout.read_line(&mut login).expect("read the login line");
    let link = login
        .trim()
        .strip_prefix("agent-hooks console: ")
        .unwrap_or_else(|| panic!("no login link in {login:?}"))
        .to_owned();
    Sidecar {
        child,
        port: port_of(ready.trim().rsplit(" on ").next().unwrap_or("")),
        console: port_of(&link),
        link,
        _stdout: stdout,
    }
}

/// Chromium on a DevTools pipe: requests written to its fd 3, answers read from its fd 4,
/// each message a JSON text ended by a NUL byte.
pub(crate) struct Browser {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    next_id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    pub(crate) fn start() -> Browser {
        let profile = tempfile::tempdir().expect("a profile directory");
        // The shell hands our pipes to Chromium as the fds 3 and 4 it reads and writes.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$@\" 3<&0 4>&1 </dev/null >/dev/null")
            .arg("sh")
            .arg("chromium")
            .args(support::HEADLESS_CHROMIUM)
            .arg("--remote-debugging-pipe")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn chromium");
        let to = child.stdin.take().expect("stdin is piped");
        let from = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut browser = Browser {
            child,
            to,
            from,
            next_id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}));
        let attached = browser.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        browser.session = attached["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        browser
    }

    /// Sends one command and returns its result, skipping the events that arrive before it.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        loop {
            let mut raw = Vec::new();
            self.from
                .read_until(0, &mut raw)
                .expect("read from chromium");
            assert!(raw.pop() == Some(0), "chromium closed its pipe");
            let answer: Value = serde_json::from_slice(&raw).expect("chromium speaks JSON");
            if answer["id"] == json!(id) {
                assert!(answer.get("error").is_none(), "{method} failed: {answer}");
                return answer["result"].clone();
            }
        }
    }

    pub(crate) fn goto(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    pub(crate) fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        );
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true in the page.
    pub(crate) fn wait_for(&mut self, expression: &str) {
        let seen = eventually(Duration::from_secs(30), || {
            self.eval(expression) == json!(true)
        });
        assert!(seen, "the page never showed {expression}");
    }
}

/// A sidecar with the console, and a browser signed in with its link on the live page.
pub(crate) fn signed_in(ws: &Ws) -> (Sidecar, Browser) {
    signed_in_with(ws, &[])
}

fn signed_in_with(ws: &Ws, env: &[(&str, &std::path::Path)]) -> (Sidecar, Browser) {
    let sidecar = serve_console_with(ws, &[], env);
    let mut browser = Browser::start();
    browser.goto(&sidecar.link);
    browser.wait_for("document.getElementById('live-state')?.textContent === 'live'");
    (sidecar, browser)
}

fn guarded() -> Ws {
    support::guarded_by(GUARD)
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn a_browser_signs_in_with_the_printed_link_and_sees_a_decision_live() {
    let ws = guarded();
    let (sidecar, mut browser) = signed_in(&ws);
    // The session cookie is HttpOnly: the page's own script cannot read it.
    assert_eq!(browser.eval("document.cookie"), json!(""));

    let (status, outcome) = post(
        sidecar.port,
        "/v1/events/pre_tool_call",
        json!({"session_id": "s-42", "tool_name": "bash", "tool_input": {"command": "rm -rf /"}}),
    );
    assert_eq!((status, &outcome["decision"]), (200, &json!("block")));
    browser.wait_for(
        "[...document.querySelectorAll('#decisions tr')].some(tr => \
         tr.children[1].textContent === 'host' && tr.textContent.includes('s-42') \
         && tr.textContent.includes('block') && tr.textContent.includes('guard'))",
    );

    // A POST from the signed-in page itself, but without the CSRF token, is refused.
    let refused = browser.eval(
        "fetch('/api/hooks/approve', {method: 'POST', headers: {'Content-Type': 'application/json'}, \
         body: JSON.stringify({key: 'hooks/guard.sh'})}).then(r => r.status)",
    );
    assert_eq!(refused, json!(403));
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn a_decision_of_an_agent_route_is_shown_live() {
    let ws = guarded();
    let (sidecar, mut browser) = signed_in(&ws);
    // Claude Code's own HTTP hook, not the host's event route.
    let (status, answer) = post(
        sidecar.port,
        "/v1/hooks/claude-code",
        json!({
            "session_id": "claude-s-7",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf /"},
            "cwd": ws.root(),
        }),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(answer.to_string().contains("no rm -rf"), "{answer}");
    browser.wait_for(
        "[...document.querySelectorAll('#decisions tr')].some(tr => \
         tr.children[1].textContent === 'claude' && tr.children[2].textContent === 'claude-s-7' \
         && tr.children[5].textContent === 'block' && tr.textContent.includes('guard'))",
    );
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn a_hook_is_approved_from_the_hooks_page() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"));
    let (sidecar, mut browser) = signed_in(&ws);
    browser.goto(&format!("http://127.0.0.1:{}/#hooks", sidecar.console));
    browser.wait_for("document.querySelector('tr[data-hook=guard] button.approve') !== null");
    browser.eval("document.querySelector('tr[data-hook=guard] button.approve').click(); true");
    browser.wait_for("document.querySelector('tr[data-hook=guard] button.revoke') !== null");
    let listed = support::list_text(&ws);
    assert!(
        listed.contains("approved") && !listed.contains("not approved"),
        "{listed}"
    );
}

#[test]
fn requests_without_a_session_and_a_spent_login_link_are_refused() {
    let ws = guarded();
    let sidecar = serve_console(&ws);
    let host = format!("127.0.0.1:{}", sidecar.console);
    for path in ["/", "/api/hooks", "/api/live"] {
        let (status, body) = http_with(sidecar.console, "GET", path, b"", &host, "");
        assert_eq!(status, 401, "{path}: {body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap_or("")
                .contains("not signed in"),
            "{body}"
        );
    }
    // Same origin and a made-up cookie: still no session.
    let (status, _) = http_with(
        sidecar.console,
        "POST",
        "/api/hooks/approve",
        br#"{"key": "hooks/guard.sh"}"#,
        &host,
        &format!("Origin: http://{host}\r\nCookie: agent_hooks_console=forged\r\n"),
    );
    assert_eq!(status, 401);

    let login = sidecar
        .link
        .split_once(&host)
        .map(|(_, path)| path.to_owned())
        .expect("the link is on the console's address");
    let (first, _) = http_with(sidecar.console, "GET", &login, b"", &host, "");
    assert_eq!(first, 303);
    let (again, body) = http_with(sidecar.console, "GET", &login, b"", &host, "");
    assert_eq!(again, 401, "the link is one-time: {body}");

    // A page elsewhere reaching the console through DNS rebinding shows another Host.
    let (status, _) = http_with(sidecar.console, "GET", "/", b"", "evil.example:80", "");
    assert_eq!(status, 403);
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn a_changed_hook_is_approved_after_its_diff_is_shown() {
    let ws = guarded();
    let script = ws.root().join("hooks/guard.sh");
    let approved = std::fs::read_to_string(&script).expect("read the approved script");
    std::fs::write(
        &script,
        approved.replace(
            "esac",
            "  *'curl'*) echo '{\"decision\": \"block\"}' ;;\nesac",
        ),
    )
    .expect("change the script");
    let (sidecar, mut browser) = signed_in(&ws);
    browser.goto(&format!("http://127.0.0.1:{}/#hooks", sidecar.console));
    browser.wait_for("document.querySelector('tr[data-hook=guard] button.review') !== null");
    // Nothing to approve before the changes are shown.
    assert_eq!(
        browser.eval("document.querySelector('tr[data-hook=guard] button.approve') === null"),
        json!(true)
    );
    browser.eval("document.querySelector('tr[data-hook=guard] button.review').click(); true");
    browser.wait_for(
        "[...document.querySelectorAll('tr[data-changes-of=guard] pre.diff .added')]\
         .some(line => line.textContent.startsWith('+ ') && line.textContent.includes('curl'))",
    );
    assert_eq!(
        browser.eval(
            "[...document.querySelectorAll('tr[data-changes-of=guard] pre.diff .removed')].length"
        ),
        json!(0),
        "only a line was added"
    );
    browser
        .eval("document.querySelector('tr[data-changes-of=guard] button.approve').click(); true");
    browser.wait_for("document.querySelector('tr[data-hook=guard] button.revoke') !== null");
    let listed = support::list_text(&ws);
    assert!(!listed.contains("changed"), "{listed}");
}

const SESSION: &str = "7d2e9a40-1c3b-4f5e-8a6d-0b9c8e7f6a51";

/// One line of a Claude Code transcript: the assistant calling `tool` with `input`.
fn tool_use(id: &str, tool: &str, input: &Value, second: u32) -> String {
    json!({
        "type": "assistant", "sessionId": SESSION, "cwd": "/w", "isSidechain": false,
        "uuid": format!("00000000-0000-4000-8000-00000000000{second}"),
        "timestamp": format!("2026-12-01T10:00:0{second}.000Z"),
        "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": tool, "input": input},
        ]},
    })
    .to_string()
}

/// One POST of `body` to the sidecar on `port`, with its token.
fn post(port: u16, path: &str, body: Value) -> (u16, Value) {
    let host = format!("127.0.0.1:{port}");
    http(port, "POST", path, body.to_string().as_bytes(), &host)
}

/// A Claude Code config directory whose one project holds the transcript of [`SESSION`]: the
/// assistant making `calls` (id, tool, input), one a line.
fn claude_transcript(calls: &[(&str, &str, Value)]) -> tempfile::TempDir {
    let claude = tempfile::tempdir().expect("a Claude Code config directory");
    let project = claude.path().join("projects/-w");
    std::fs::create_dir_all(&project).expect("create the project directory");
    let lines: Vec<String> = calls
        .iter()
        .zip(1..)
        .map(|((id, tool, input), second)| tool_use(id, tool, input, second))
        .collect();
    std::fs::write(
        project.join(format!("{SESSION}.jsonl")),
        lines.join("\n") + "\n",
    )
    .expect("write the transcript");
    claude
}

/// Sends each of `calls` to the sidecar on `port` as Claude Code's PreToolUse of [`SESSION`].
fn claude_calls(port: u16, calls: &[(&str, &str, Value)]) {
    for (id, tool, input) in calls {
        let (status, answer) = post(
            port,
            "/v1/hooks/claude-code",
            json!({
                "session_id": SESSION, "hook_event_name": "PreToolUse", "cwd": "/w",
                "tool_name": tool, "tool_input": input, "tool_use_id": id,
            }),
        );
        assert_eq!(status, 200, "{answer}");
    }
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn a_session_shows_its_decisions_in_order_and_its_audit() {
    let ws = guarded();
    // Three calls, of which the hooks see only the first two.
    let calls = [
        ("toolu_01", "Bash", json!({"command": "ls"})),
        ("toolu_02", "Bash", json!({"command": "rm -rf /"})),
        ("toolu_03", "Read", json!({"file_path": "/w/notes.txt"})),
    ];
    let claude = claude_transcript(&calls);
    let (sidecar, mut browser) = signed_in_with(&ws, &[("CLAUDE_CONFIG_DIR", claude.path())]);
    claude_calls(sidecar.port, &calls[..2]);
    browser.goto(&format!("http://127.0.0.1:{}/#sessions", sidecar.console));
    let row = format!("#session-rows tr[data-session='{SESSION}'] a");
    browser.wait_for(&format!("document.querySelector(\"{row}\") !== null"));
    browser.eval(&format!("document.querySelector(\"{row}\").click(); true"));
    browser.wait_for("document.querySelectorAll('#session-events tr').length === 2");
    let steps = browser.eval(
        "[...document.querySelectorAll('#session-events tr')].map(tr => \
         [...tr.children].slice(2, 7).map(td => td.textContent))",
    );
    assert_eq!(
        steps,
        // The tool as the hooks saw it: Claude Code's `Bash` is the runtime's `bash`.
        json!([
            ["claude", "pre_tool_call", "bash", "ls", "allow"],
            ["claude", "pre_tool_call", "bash", "rm -rf /", "block"],
        ])
    );
    let coverage = browser.eval(
        "(({total, seen, lapsed, unseen}) => ({total, seen, lapsed, unseen}))\
         (document.getElementById('session-coverage').dataset)",
    );
    assert_eq!(
        coverage,
        json!({"total": "3", "seen": "2", "lapsed": "0", "unseen": "1"})
    );
    let uncovered = browser.eval("document.getElementById('session-uncovered').textContent");
    assert!(
        uncovered
            .as_str()
            .is_some_and(|t| t.contains("unseen: Read") && t.contains("notes.txt")),
        "{uncovered}"
    );
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn the_metrics_page_charts_decisions_and_hook_latency() {
    let ws = guarded();
    let (sidecar, mut browser) = signed_in(&ws);
    for command in ["rm -rf /", "ls", "rm -rf ~", "pwd", "rm -rf ."] {
        let (status, _) = post(
            sidecar.port,
            "/v1/events/pre_tool_call",
            json!({"tool_name": "bash", "tool_input": {"command": command}}),
        );
        assert_eq!(status, 200);
    }
    browser.goto(&format!("http://127.0.0.1:{}/#metrics", sidecar.console));
    browser.wait_for("document.querySelector('#latency-chart rect.bar') !== null");
    let bar = browser.eval(
        "(b => ({hook: b.dataset.hook, calls: b.dataset.calls, \
         ordered: +b.dataset.p50 <= +b.dataset.p99 && +b.dataset.p50 > 0}))\
         (document.querySelector('#latency-chart rect.bar'))",
    );
    assert_eq!(bar, json!({"hook": "guard", "calls": "5", "ordered": true}));
    let last = |browser: &mut Browser, decision: &str| {
        browser.eval(&format!(
            "(p => p.length ? +p[p.length - 1].dataset.count : null)\
             ([...document.querySelectorAll('#decisions-chart circle.point[data-decision={decision}]')])"
        ))
    };
    assert_eq!(last(&mut browser, "block"), json!(3));
    assert_eq!(last(&mut browser, "continue"), json!(2));
    // Sampled again while the page is open: a new decision is a new point.
    let (status, _) = post(
        sidecar.port,
        "/v1/events/pre_tool_call",
        json!({"tool_name": "bash", "tool_input": {"command": "rm -rf /tmp"}}),
    );
    assert_eq!(status, 200);
    browser.wait_for(
        "[...document.querySelectorAll('#decisions-chart circle.point[data-decision=block]')]\
         .some(p => p.dataset.count === '4')",
    );
}

/// The size a PNG says it is, from its `IHDR` chunk; `None` when `bytes` is no PNG.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let signature = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || &bytes[..8] != signature || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Some((word(16), word(20)))
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn every_page_is_captured_as_a_screenshot() {
    let ws = Ws::new()
        .master(true)
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"))
        .sh("hooks/notify.sh", "cat >/dev/null\n")
        .hook(Entry::new("post_tool_call", "hooks/notify.sh").name("notify"))
        .approve_all();
    let notify = ws.root().join("hooks/notify.sh");
    let approved = std::fs::read_to_string(&notify).expect("read the approved script");
    std::fs::write(
        &notify,
        approved + "curl -s -d 'a tool ran' https://chat.example/hook >/dev/null\n",
    )
    .expect("change the notify hook");
    let calls = [
        ("toolu_01", "Bash", json!({"command": "cargo test"})),
        ("toolu_02", "Bash", json!({"command": "rm -rf target /"})),
        ("toolu_03", "Read", json!({"file_path": "/w/src/main.rs"})),
    ];
    let claude = claude_transcript(&calls);
    let (sidecar, mut browser) = signed_in_with(&ws, &[("CLAUDE_CONFIG_DIR", claude.path())]);
    claude_calls(sidecar.port, &calls[..2]);
    let (status, _) = post(
        sidecar.port,
        "/v1/events/post_tool_call",
        json!({"session_id": "host-1", "tool_name": "bash", "tool_input": {"command": "cargo test"},
               "status": "success", "tool_result": "ok"}),
    );
    assert_eq!(status, 200);
    browser.wait_for("document.querySelectorAll('#decisions tr').length === 3");

    let mut shots = Vec::new();
    let mut capture = |browser: &mut Browser, name: &str| {
        shots.push((name.to_owned(), screenshot(browser, name)));
    };
    capture(&mut browser, "live");

    browser.goto(&format!("http://127.0.0.1:{}/#hooks", sidecar.console));
    browser.wait_for("document.querySelector('tr[data-hook=notify] button.review') !== null");
    browser.eval("document.querySelector('tr[data-hook=notify] button.review').click(); true");
    browser
        .wait_for("document.querySelector('tr[data-changes-of=notify] pre.diff .added') !== null");
    capture(&mut browser, "hooks");

    browser.goto(&format!("http://127.0.0.1:{}/#sessions", sidecar.console));
    let row = format!("#session-rows tr[data-session='{SESSION}'] a");
    browser.wait_for(&format!("document.querySelector(\"{row}\") !== null"));
    browser.eval(&format!("document.querySelector(\"{row}\").click(); true"));
    browser.wait_for("document.getElementById('session-coverage').dataset.unseen === '1'");
    capture(&mut browser, "sessions");

    browser.goto(&format!("http://127.0.0.1:{}/#metrics", sidecar.console));
    // Two samples, so the decisions chart has a line to draw.
    browser.wait_for(
        "document.querySelectorAll('#decisions-chart circle.point[data-decision=block]').length >= 2",
    );
    capture(&mut browser, "metrics");

    // Each page looks different from the others.
    for (i, (a, first)) in shots.iter().enumerate() {
        for (b, second) in &shots[i + 1..] {
            assert_ne!(first, second, "the {a} and {b} screenshots are the same");
        }
    }
}

/// A screenshot of the page `browser` shows, at 1200×760, checked to be a PNG of that size;
/// with `AGENT_HOOKS_UPDATE_SCREENSHOTS=1` it is also written to `docs/console/<name>.png`.
pub(crate) fn screenshot(browser: &mut Browser, name: &str) -> Vec<u8> {
    use base64::Engine as _;
    const WIDTH: u32 = 1200;
    const HEIGHT: u32 = 760;
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": false}),
    );
    let shot = browser.call("Page.captureScreenshot", json!({"format": "png"}));
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().unwrap_or(""))
        .expect("the screenshot is base64");
    assert_eq!(
        png_size(&png),
        Some((WIDTH, HEIGHT)),
        "{name} is no PNG of the page's size"
    );
    if std::env::var_os("AGENT_HOOKS_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/console");
        std::fs::create_dir_all(&dir).expect("create docs/console");
        std::fs::write(dir.join(format!("{name}.png")), &png).expect("write a screenshot");
    }
    png
}

/// A request of the team console's: its status, `Set-Cookie` and JSON (or text) answer.
async fn team_call(request: reqwest::RequestBuilder) -> (u16, String, Value) {
    let response = request.send().await.expect("an answer over TLS");
    let status = response.status().as_u16();
    let cookie = response
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let text = response.text().await.expect("the body");
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, cookie, body)
}

#[test]
fn a_team_console_signs_in_an_operator_token_over_tls_and_refuses_an_agents() {
    use crate::team::{Pki, Team, runtime, tls_client};
    let team = Team::new();
    let ws = guarded();
    let pki = Pki::new();
    let mut flags = pki.server_flags();
    flags.extend(["--console".into(), "0.0.0.0:0".into()]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let sidecar = spawn_console(team.serve(&ws, "0.0.0.0:0", &flags));
    // Nothing secret is printed: the link is the login page.
    assert!(
        sidecar.link.starts_with("https://") && sidecar.link.ends_with("/login"),
        "{}",
        sidecar.link
    );
    let base = format!("https://localhost:{}", sidecar.console);
    runtime().block_on(async {
        let client = tls_client(&pki.ca, None);
        let (status, _, _) = team_call(client.get(format!("{base}/api/hooks"))).await;
        assert_eq!(status, 401, "no session");
        // An agent's token is no key to the console, as a bearer or at the login.
        let (status, _, _) = team_call(
            client
                .get(format!("{base}/api/hooks"))
                .bearer_auth(&team.agent),
        )
        .await;
        assert_eq!(status, 401);
        let (status, _, page) = team_call(client.get(format!("{base}/login"))).await;
        assert_eq!(status, 200);
        assert!(
            page.as_str().is_some_and(|p| p.contains("operator token")),
            "{page}"
        );
        let login = |token: &str, origin: &str| {
            let mut request = client
                .post(format!("{base}/login"))
                .header("content-type", "application/json")
                .body(json!({"token": token}).to_string());
            if !origin.is_empty() {
                request = request.header("origin", origin);
            }
            team_call(request)
        };
        let (status, cookie, body) = login(&team.agent, &base).await;
        assert_eq!((status, cookie.as_str()), (403, ""), "{body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("agent role")),
            "{body}"
        );
        let (status, _, _) = login(&format!("ahk_{}", "0".repeat(64)), &base).await;
        assert_eq!(status, 401, "a forged token");
        let (status, _, _) = login(&team.operator, "https://evil.example").await;
        assert_eq!(status, 403, "a login posted from another site");

        let (status, cookie, body) = login(&team.operator, &base).await;
        assert_eq!(status, 200, "{body}");
        assert!(
            cookie.contains("HttpOnly")
                && cookie.contains("Secure")
                && cookie.contains("SameSite=Strict"),
            "{cookie}"
        );
        let session = cookie.split(';').next().unwrap_or("").to_owned();
        let (status, _, hooks) = team_call(
            client
                .get(format!("{base}/api/hooks"))
                .header("cookie", &session),
        )
        .await;
        assert_eq!(status, 200, "{hooks}");
        assert_eq!(hooks["hooks"][0]["name"], "guard", "{hooks}");
        // The live page's event stream, through the service's TLS listener.
        let live = client
            .get(format!("{base}/api/live"))
            .header("cookie", &session)
            .send()
            .await
            .expect("the live stream's head");
        assert_eq!(live.status().as_u16(), 200);
        assert_eq!(
            live.headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("text/event-stream")
        );
        drop(live);
        let (_, _, signed) = team_call(
            client
                .get(format!("{base}/api/session"))
                .header("cookie", &session),
        )
        .await;
        let csrf = signed["csrf"].as_str().unwrap_or("").to_owned();
        // A state-changing POST of the signed-in operator, from the console's own origin.
        let (status, _, revoked) = team_call(
            client
                .post(format!("{base}/api/hooks/revoke"))
                .header("cookie", &session)
                .header("origin", &base)
                .header("x-csrf-token", &csrf)
                .header("content-type", "application/json")
                .body(json!({"key": "hooks/guard.sh"}).to_string()),
        )
        .await;
        assert_eq!(status, 200, "{revoked}");

        // The operator's token revoked, its session ends at the next request.
        let out = Command::new(support::BIN)
            .args(["token", "revoke", "ops", "--tokens"])
            .arg(team.tokens())
            .output()
            .expect("run agent-hooks token revoke");
        assert!(out.status.success(), "{out:?}");
        let (status, _, body) = team_call(
            client
                .get(format!("{base}/api/hooks"))
                .header("cookie", &session),
        )
        .await;
        assert_eq!(status, 401, "{body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("revoked")),
            "{body}"
        );
    });
    assert!(support::list_text(&ws).contains("not approved"));
    // Plain HTTP on the console's TLS port gets no page.
    let mut plain = std::net::TcpStream::connect(("127.0.0.1", sidecar.console)).expect("connect");
    plain
        .write_all(b"GET /login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .expect("send");
    let mut answer = Vec::new();
    let _ = std::io::Read::read_to_end(&mut plain, &mut answer);
    assert!(
        !String::from_utf8_lossy(&answer).contains("operator token"),
        "{answer:?}"
    );
}

#[test]
fn another_user_gets_nothing_from_the_console_and_cannot_read_its_login_link() {
    use crate::sidecar_owner::{NOBODY, can_become_nobody, dir_with_mode, probe, probe_for_nobody};
    use std::os::unix::process::CommandExt;
    if !can_become_nobody(
        "another_user_gets_nothing_from_the_console_and_cannot_read_its_login_link",
    ) {
        return;
    }
    let (_probe_dir, program) = probe_for_nobody();
    let ws = guarded();
    let state = dir_with_mode("agent-hooks-state", 0o700);
    let mut command = ws.command(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--console",
        "127.0.0.1:0",
    ]);
    command.env(agent_hooks_server::STATE_DIR_ENV, state.path());
    let sidecar = spawn_console(command);
    let token = sidecar
        .link
        .rsplit("token=")
        .next()
        .expect("a token in the link")
        .to_owned();
    let host = format!("127.0.0.1:{}", sidecar.console);
    let target = [
        "--port".to_owned(),
        sidecar.console.to_string(),
        "--host".to_owned(),
        host.clone(),
    ];
    let routes = [
        "GET:/",
        "GET:/api/session",
        "GET:/api/hooks",
        "GET:/api/live",
        "GET:/api/sessions",
        "GET:/api/metrics",
        r#"POST:/api/hooks/approve:{"key": "hooks/guard.sh"}"#,
        r#"POST:/api/hooks/revoke:{"key": "hooks/guard.sh"}"#,
        "GET:/login?token=0123456789abcdef",
    ];
    let tried = probe(&program, &target, None, Some(NOBODY), &routes);
    assert_eq!(tried.len(), routes.len(), "{tried:?}");
    for (route, status) in &tried {
        assert!(
            status == "401" || status == "403",
            "{route} as nobody: {status}"
        );
    }

    // The link is printed to the owner's stdout and kept nowhere else: not in the process's
    // arguments, which every user may read, nor in a file of the state or the workspace.
    let pid = sidecar.child.id().to_string();
    let searched = [
        format!("/proc/{pid}/cmdline"),
        format!("/proc/{pid}/environ"),
        state.path().display().to_string(),
        ws.root().display().to_string(),
    ];
    let found = Command::new("grep")
        .args(["-rlF", &token])
        .args(&searched)
        .uid(NOBODY)
        .gid(NOBODY)
        .stderr(Stdio::null())
        .output()
        .expect("run grep as nobody");
    assert_eq!(
        String::from_utf8_lossy(&found.stdout),
        "",
        "nobody read the login token"
    );
    let found = Command::new("grep")
        .args(["-rlF", &token])
        .args(&searched[2..])
        .output()
        .expect("run grep");
    assert_eq!(
        String::from_utf8_lossy(&found.stdout),
        "",
        "the login token is in a file"
    );

    // Once the owner has used it, even the real link is nothing to another user.
    let login = format!("/login?token={token}");
    let (status, _) = http_with(sidecar.console, "GET", &login, b"", &host, "");
    assert_eq!(status, 303);
    let tried = probe(
        &program,
        &target,
        None,
        Some(NOBODY),
        &[&format!("GET:{login}")],
    );
    assert_eq!(tried[0].1, "401", "{tried:?}");
}

#[test]
#[cfg_attr(
    not(have_chromium),
    ignore = "needs chromium on PATH (.ci/run installs it)"
)]
fn with_self_approve_off_the_console_refuses_to_approve_and_says_why() {
    let ws = Ws::new()
        .file(
            "config/agent.yaml",
            "shell_hooks:\n  enabled: true\n  self_approve: false\n",
        )
        .sh("hooks/guard.sh", GUARD)
        .hook(Entry::new("pre_tool_call", "hooks/guard.sh").name("guard"));
    let (sidecar, mut browser) = signed_in(&ws);
    browser.goto(&format!("http://127.0.0.1:{}/#hooks", sidecar.console));
    browser.wait_for("document.querySelector('tr[data-hook=guard] button.approve') !== null");
    browser.eval("document.querySelector('tr[data-hook=guard] button.approve').click(); true");
    browser.wait_for(
        "document.getElementById('hooks-state').textContent.includes(\
         'self-approve is turned off (shell_hooks.self_approve: false), so the console may not approve hooks')",
    );
    assert!(support::list_text(&ws).contains("not approved"));
    // Nor through the API with the page's own CSRF token.
    let status = browser.eval(
        "fetch('/api/session').then(r => r.json()).then(s => fetch('/api/hooks/approve', \
         {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf}, \
         body: JSON.stringify({key: 'hooks/guard.sh'})})).then(r => r.status)",
    );
    assert_eq!(status, json!(403));
    assert!(support::list_text(&ws).contains("not approved"));
}
