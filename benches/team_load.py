#!/usr/bin/env python3
"""A team service under load: a redis-server of its own on a free loopback port, two `serve`
replicas sharing it (`--state redis://…`), each serving its own copy of one policy —
security_guard in-process and one command hook (a Stop hook that always asks for a redo) —
and client processes that send a mix of Claude Code PreToolUse events from many sessions to
both replicas in turn (Bash commands, some of which security_guard blocks, and edits).

Measured: PreToolUse checks per second over both replicas, and the latency percentiles of a
check as the clients saw it. Checked: every answer is a 200 with the decision expected of its
command, and each session's redo cap (3, the default) holds while its Stop events alternate
between the replicas.

Usage: python3 benches/team_load.py [BIN] [SECONDS] [CLIENTS]
  BIN: the agent-hooks binary (default: target/release/agent-hooks, or
  $CARGO_TARGET_DIR/release/agent-hooks); SECONDS: how long the load runs (default 10);
  CLIENTS: client processes (default 4), each with one kept-alive connection per replica.
Needs redis-server on PATH (the Debian package redis-server).
"""

import http.client
import json
import multiprocessing
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

COMMANDS = [
    ("ls -la", "allow"),
    ("git status", "allow"),
    ("cargo test -p core", "allow"),
    ("cat README.md", "allow"),
    ("rm -rf /", "deny"),
    ("grep -rn TODO src", "allow"),
    ("dd if=/dev/zero of=/dev/sda", "deny"),
    ("python3 -m pytest -q", "allow"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def policy(binary, ws, env):
    """The same policy in `ws`: security_guard, and a Stop hook that always asks for a redo."""
    os.makedirs(os.path.join(ws, "hooks"))
    os.makedirs(os.path.join(ws, "config"))
    hook = os.path.join(ws, "hooks", "again.sh")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\ncat >/dev/null\nprintf '{\"decision\":\"block\",\"reason\":\"again\"}'\n")
    os.chmod(hook, 0o755)
    with open(os.path.join(ws, "config", "shell_hooks.yaml"), "w") as f:
        f.write("hooks:\n  - event: on_stop\n    command: hooks/again.sh\n    name: again\n")
    for args in (["on"], ["install", "security_guard"], ["approve", "hooks/again.sh"]):
        subprocess.run([binary, "--workspace", ws, *args], check=True, env=env,
                       stdout=subprocess.DEVNULL)


def start_replica(binary, ws, env, redis_url):
    server = subprocess.Popen(
        [binary, "--workspace", ws, "serve", "--listen", "127.0.0.1:0", "--state", redis_url],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ready = server.stdout.readline()
    port = int(re.search(r"127\.0\.0\.1:(\d+)", ready).group(1))
    return server, port


def pre_tool_use(session, command):
    return json.dumps({"session_id": session, "cwd": "/tmp", "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": command}})


def denied(answer):
    if not answer:
        return False
    out = json.loads(answer).get("hookSpecificOutput") or {}
    return out.get("permissionDecision") == "deny"


def client(index, ports, token, seconds, queue):
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    conns = [http.client.HTTPConnection("127.0.0.1", p) for p in ports]
    bodies = [(pre_tool_use(f"c{index}-s{s}", cmd), expected)
              for s in range(50) for cmd, expected in COMMANDS]
    latencies, wrong, sent = [], 0, 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        body, expected = bodies[sent % len(bodies)]
        conn = conns[sent % len(conns)]
        start = time.perf_counter()
        conn.request("POST", "/v1/hooks/claude-code", body=body, headers=headers)
        response = conn.getresponse()
        answer = response.read()
        latencies.append(time.perf_counter() - start)
        if response.status != 200 or denied(answer) != (expected == "deny"):
            wrong += 1
        sent += 1
    queue.put((latencies, wrong))


def redo_caps(ports, token, sessions):
    """Each session: a first Stop and three redos alternate between the replicas; the first
    three are refused and the last is let through (the cap). The number of sessions where the
    cap did not hold."""
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    conns = [http.client.HTTPConnection("127.0.0.1", p) for p in ports]
    broken = 0
    for s in range(sessions):
        got = []
        for i, active in enumerate([False, True, True, True]):
            body = json.dumps({"session_id": f"stop-{s}", "cwd": "/tmp", "hook_event_name": "Stop",
                               "stop_hook_active": active, "last_assistant_message": "done"})
            conn = conns[(s + i) % len(conns)]
            conn.request("POST", "/v1/hooks/claude-code", body=body, headers=headers)
            answer = conn.getresponse().read()
            got.append(json.loads(answer).get("decision") if answer else None)
        if got != ["block", "block", "block", None]:
            broken += 1
    return broken


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "release/agent-hooks")
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    if shutil.which("redis-server") is None:
        sys.exit("team_load.py: redis-server is not on PATH (the Debian package redis-server)")
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    replicas = []
    try:
        for line in redis.stdout:
            if "Ready to accept connections" in line:
                break
        redis_url = f"redis://127.0.0.1:{port}/0"
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b, \
                tempfile.TemporaryDirectory() as state:
            os.chmod(state, 0o700)
            env = dict(os.environ, AGENT_HOOKS_STATE_DIR=state)
            env.pop("AGENT_HOOKS_LOG", None)
            for ws in (a, b):
                policy(binary, os.path.join(ws, "p"), env)
                replicas.append(start_replica(binary, os.path.join(ws, "p"), env, redis_url))
            ports = [p for _, p in replicas]
            with open(os.path.join(state, "sidecar.token")) as f:
                token = f.read().strip()
            queue = multiprocessing.Queue()
            procs = [multiprocessing.Process(target=client, args=(i, ports, token, seconds, queue))
                     for i in range(clients)]
            started = time.perf_counter()
            for p in procs:
                p.start()
            results = [queue.get() for _ in procs]
            elapsed = time.perf_counter() - started
            for p in procs:
                p.join()
            latencies = sorted(t for lat, _ in results for t in lat)
            wrong = sum(w for _, w in results)
            broken = redo_caps(ports, token, 200)

            def pct(q):
                return latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1e3

            print(f"{len(latencies)} PreToolUse checks in {elapsed:.1f} s over 2 replicas "
                  f"({clients} clients): {len(latencies) / elapsed:,.0f} checks/s; "
                  f"p50 {pct(0.50):.2f} ms, p99 {pct(0.99):.2f} ms, max {latencies[-1] * 1e3:.1f} ms")
            print(f"wrong answers: {wrong}; sessions whose redo cap of 3 did not hold across "
                  f"the replicas: {broken} of 200")
            if wrong or broken:
                sys.exit(1)
    finally:
        for server, _ in replicas:
            server.terminate()
            server.wait()
        redis.terminate()
        redis.wait()


if __name__ == "__main__":
    main()
