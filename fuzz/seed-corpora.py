#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/seed-* from the test suite's own inputs
(the guards' case tables, the default rules files, the library's test fixtures and the JSON
answers and URLs its tests use). Run from the repository root; a second run writes the same
files."""
import glob, hashlib, json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
CORPUS = "fuzz/corpus"
# Enough inputs to reach every rule and branch the tables pin, small enough to commit.
MAX_SEEDS = 300
MAX_BYTES = 4096


def write(target, data, limit=MAX_BYTES):
    if isinstance(data, str):
        data = data.encode()
    if not data or len(data) > limit:
        return
    os.makedirs(f"{CORPUS}/{target}", exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(f"{CORPUS}/{target}/seed-{name}", "wb") as f:
        f.write(data)


def cases():
    for path in sorted(glob.glob("crates/agent-hooks-guards/tests/cases/*.json")):
        yield from json.load(open(path))["cases"]


def guards_seeds():
    commands, texts = [], []
    for case in cases():
        payload = case["payload"]
        command = payload.get("tool_input", {}).get("command")
        if case["guard"] == "security_guard" and isinstance(command, str):
            commands.append(command)
        for key in ("message", "response", "notification", "tool_result"):
            if isinstance(payload.get(key), str):
                texts.append(payload[key])
    # Every n-th command, so the seeds span every table.
    step = -(-len(commands) // MAX_SEEDS)
    for command in commands[::step]:
        write("shell_tokenizer", command)
    for text in texts:
        write("secret_scanner", text)
    names = [os.path.basename(p)[:-5] for p in sorted(glob.glob("crates/agent-hooks-guards/rules/*.yaml"))]
    order = guard_order()
    for name in names:
        if name in order:
            text = open(f"crates/agent-hooks-guards/rules/{name}.yaml").read()
            write("guard_rules", bytes([order.index(name)]) + text.encode(), limit=64 * 1024)


def guard_order():
    """The guards in the order of agent_hooks_guards::GUARDS (the target picks by index)."""
    src = open("crates/agent-hooks-guards/src/guards/mod.rs").read()
    start = src.index("pub const GUARDS")
    names = []
    for line in src[start:].splitlines():
        line = line.strip()
        if line.startswith('name: "'):
            names.append(line.split('"')[1])
    return names


def rust_sources():
    for pattern in ("crates/agent-hooks-runtime/src/**/*.rs", "crates/agent-hooks-runtime/tests/**/*.rs",
                    "crates/agent-hooks-cli/tests/**/*.rs"):
        for path in sorted(glob.glob(pattern, recursive=True)):
            yield open(path).read()


def json_objects():
    """The JSON objects the library's tests write as raw strings (hook answers, configs)."""
    found = []
    for src in rust_sources():
        for m in re.finditer(r'r#"(\{.*?\})"#', src, re.S):
            try:
                value = json.loads(m.group(1))
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(m.group(1))
    return found


def event_order():
    """The canonical events in the order of agent_hooks_runtime::EVENTS (the targets pick by index)."""
    src = open("crates/agent-hooks-core/src/event.rs").read()
    start = src.index("pub static EVENTS")
    return re.findall(r'spec\(\s*Event::\w+,\s*"(\w+)"', src[start:])


CLAUDE_INPUTS = [
    {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/work", "tool_name": "Bash",
     "tool_input": {"command": "rm -rf /"}},
    {"hook_event_name": "PostToolUse", "session_id": "s1", "tool_name": "Bash",
     "tool_input": {"command": "cat .env"}, "tool_response": {"stdout": "AKIAIOSFODNN7EXAMPLE"}},
    {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "my key is sk-ant-api03-aaaaaaaaaaaaaaaaaaaaaaaa"},
    {"hook_event_name": "Stop", "session_id": "s1", "stop_hook_active": True,
     "last_assistant_message": "Done, published."},
    {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup", "model": "m"},
    {"hook_event_name": "SessionEnd", "session_id": "s1", "reason": "exit"},
    {"hook_event_name": "Notification", "session_id": "s1", "message": "waiting", "notification_type": "idle"},
    {"hook_event_name": "PostToolUseFailure", "session_id": "s1", "tool_name": "Write",
     "tool_input": {"file_path": "/tmp/x"}, "error": "denied", "is_interrupt": False},
]


def runtime_seeds():
    urls = set()
    for src in rust_sources():
        urls.update(re.findall(r'"(https?://[^"\s]*)"', src))
    for url in sorted(urls):
        write("ssrf_url", url)

    events = event_order()
    answers = json_objects()
    picked = [e for e in ("pre_tool_call", "on_user_message", "transform_tool_result",
                          "post_tool_call", "on_stop", "on_response_end", "pre_llm_call")
              if e in events]
    # Each answer once in each dialect, the events taken in turn.
    for i, answer in enumerate(answers):
        for dialect in range(3):
            event = picked[(i + dialect) % len(picked)]
            write("hook_answer", bytes([dialect + 3 * events.index(event), 0]) + answer.encode())
    for event in picked:
        for dialect in range(3):
            # Exit 2 with a reason on stderr.
            write("hook_answer", bytes([dialect + 3 * events.index(event), 4]) + b"\0no, not that")

    files = [("config/shell_hooks.yaml", 0), ("config/agent.yaml", 1), ("hooks.json", 2), ("settings.json", 3)]
    for path in sorted(glob.glob("examples/**/*", recursive=True)) + sorted(
            glob.glob("crates/agent-hooks-cli/tests/**/*", recursive=True)):
        for suffix, pick in files:
            if path.endswith(suffix) and os.path.isfile(path):
                write("config_files", bytes([pick]) + open(path, "rb").read(), limit=64 * 1024)
    for text in answers:
        if '"hooks"' in text:
            write("config_files", bytes([2]) + text.encode())
            write("config_files", bytes([3]) + text.encode())

    for claude in CLAUDE_INPUTS:
        write("claude_bridge", json.dumps(claude))
    # Routes in the order of the target's table: every event, then the named others.
    others = ["PreToolUse", "pre_prompt", "no_such_event", "approve", "revoke", "command", "claude", "reload"]
    route = {name: i for i, name in enumerate(events + others)}
    payloads = [{"tool_name": "bash", "tool_input": {"command": "ls -la"}},
                {"message": "hello", "channel": "cli"},
                {"response": "done", "tokens": {"input": 1, "output": 2}, "cost": 0.1},
                {"redo_count": "3", "stop_hook_active": True, "response": "x"},
                {"conversation": [{"type": "message", "content": "hi"}], "tool_name": "t"}]
    for event in events + ["PreToolUse", "pre_prompt"]:
        for payload in payloads:
            write("sidecar_bodies", bytes([route[event]]) + json.dumps(payload).encode())
    write("sidecar_bodies", bytes([route["command"]]) + b'{"line": "/hooks list"}')
    write("sidecar_bodies", bytes([route["command"]]) + b'{"line": "/hooks doctor --json"}')
    write("sidecar_bodies", bytes([route["approve"]]) + b'{"command": "sh hooks/guard.sh", "enable_master": false}')
    write("sidecar_bodies", bytes([route["revoke"]]) + b'{"command": "sh hooks/guard.sh"}')
    write("sidecar_bodies", bytes([route["reload"]]))
    for claude in CLAUDE_INPUTS:
        write("sidecar_bodies", bytes([route["claude"]]) + json.dumps(claude).encode())


if __name__ == "__main__":
    guards_seeds()
    runtime_seeds()
