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
  CLIENTS: client threads (default 4), each with one kept-alive connection per replica.
Environment:
  CLIENT=rust (default): the clients are threads of one compiled program
    (crates/agent-hooks-server/examples/team_load_client.rs, built by this script), cheap
    enough that the replicas, not the clients, are what is measured; CLIENT=python: Python
    processes with http.client (what this benchmark used first; on two cores they took more
    CPU than the replicas).
  STATE=redis (default) | files: the replicas' session state; `files` serves ONE replica
    with its state in local files, the floor of the same load without Redis.
  HOOKS=0: no hook at all in the policy (the HTTP floor: routing, auth and an empty dispatch).
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


def policy(binary, ws, env, hooks=True):
    """The same policy in `ws`: security_guard, and a Stop hook that always asks for a redo
    (`hooks` false: the switch on and no hook at all)."""
    os.makedirs(os.path.join(ws, "hooks"))
    os.makedirs(os.path.join(ws, "config"))
    steps = [["on"]]
    if hooks:
        hook = os.path.join(ws, "hooks", "again.sh")
        with open(hook, "w") as f:
            f.write("#!/bin/sh\ncat >/dev/null\nprintf '{\"decision\":\"block\",\"reason\":\"again\"}'\n")
        os.chmod(hook, 0o755)
        with open(os.path.join(ws, "config", "shell_hooks.yaml"), "w") as f:
            f.write("hooks:\n  - event: on_stop\n    command: hooks/again.sh\n    name: again\n")
        steps += [["install", "security_guard"], ["approve", "hooks/again.sh"]]
    for args in steps:
        subprocess.run([binary, "--workspace", ws, *args], check=True, env=env,
                       stdout=subprocess.DEVNULL)


def start_replica(binary, ws, env, redis_url):
    state = ["--state", redis_url] if redis_url else []
    server = subprocess.Popen(
        [binary, "--workspace", ws, "serve", "--listen", "127.0.0.1:0", *state],
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


def client(index, ports, token, seconds, queue, hooks=True):
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
        if response.status != 200 or denied(answer) != (hooks and expected == "deny"):
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


def rust_client(root, target):
    """Builds the compiled load generator; its path."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "agent-hooks-server",
                    "--example", "team_load_client"], check=True, cwd=root,
                   env=dict(os.environ, CARGO_TARGET_DIR=target))
    return os.path.join(target, "release", "examples", "team_load_client")


def load_rust(program, ports, state, seconds, clients, hooks):
    """The load from the compiled generator: checks, seconds, wrong answers, percentiles."""
    args = [program] + ([] if hooks else ["--all-allowed"])
    args += [str(seconds), str(clients), os.path.join(state, "sidecar.token")]
    out = subprocess.run(args + [str(p) for p in ports], check=True, capture_output=True,
                         text=True).stdout
    r = json.loads(out)
    return r["checks"], r["seconds"], r["wrong"], r["p50_ms"], r["p99_ms"], r["max_ms"]


def load_python(ports, token, seconds, clients, hooks):
    """The same load from Python processes (http.client)."""
    queue = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=client,
                                     args=(i, ports, token, seconds, queue, hooks))
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

    def pct(q):
        return latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1e3

    return len(latencies), elapsed, wrong, pct(0.50), pct(0.99), latencies[-1] * 1e3


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "release/agent-hooks")
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    kind = os.environ.get("CLIENT", "rust")
    shared = os.environ.get("STATE", "redis")
    hooks = os.environ.get("HOOKS", "1") != "0"
    if kind not in ("rust", "python") or shared not in ("redis", "files"):
        sys.exit("team_load.py: CLIENT is rust or python, STATE is redis or files")
    if shared == "redis" and shutil.which("redis-server") is None:
        sys.exit("team_load.py: redis-server is not on PATH (the Debian package redis-server)")
    program = rust_client(root, target) if kind == "rust" else None
    redis = None
    replicas = []
    try:
        redis_url = None
        if shared == "redis":
            port = free_port()
            redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            for line in redis.stdout:
                if "Ready to accept connections" in line:
                    break
            redis_url = f"redis://127.0.0.1:{port}/0"
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b, \
                tempfile.TemporaryDirectory() as state:
            os.chmod(state, 0o700)
            env = dict(os.environ, AGENT_HOOKS_STATE_DIR=state)
            env.pop("AGENT_HOOKS_LOG", None)
            # With files, sessions are not shared: one replica is the whole service.
            for ws in (a, b) if redis_url else (a,):
                policy(binary, os.path.join(ws, "p"), env, hooks)
                replicas.append(start_replica(binary, os.path.join(ws, "p"), env, redis_url))
            ports = [p for _, p in replicas]
            with open(os.path.join(state, "sidecar.token")) as f:
                token = f.read().strip()
            if program:
                checks, elapsed, wrong, p50, p99, worst = load_rust(
                    program, ports, state, seconds, clients, hooks)
            else:
                checks, elapsed, wrong, p50, p99, worst = load_python(
                    ports, token, seconds, clients, hooks)
            broken = redo_caps(ports, token, 200) if hooks else 0
            where = f"{len(ports)} replica{'s' if len(ports) > 1 else ''}, state in {shared}"
            print(f"{checks} PreToolUse checks in {elapsed:.1f} s over {where} "
                  f"({clients} {kind} clients{'' if hooks else ', no hooks'}): "
                  f"{checks / elapsed:,.0f} checks/s; "
                  f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {worst:.1f} ms")
            if hooks:
                print(f"wrong answers: {wrong}; sessions whose redo cap of 3 did not hold "
                      f"across the replicas: {broken} of 200")
            else:
                print(f"wrong answers: {wrong}")
            if wrong or broken:
                sys.exit(1)
    finally:
        for server, _ in replicas:
            server.terminate()
            server.wait()
        if redis:
            redis.terminate()
            redis.wait()


if __name__ == "__main__":
    main()
