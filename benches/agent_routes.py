#!/usr/bin/env python3
"""Server time of an agent's HTTP route per event: a kept-alive connection POSTs a harmless
Claude Code PreToolUse to `/v1/hooks/claude-code` of a sidecar with security_guard installed,
and GETs `/v1/health` of the same sidecar; the difference of the medians is the route's own
work (reading the input, the guard, the decision log, the answer).

With `--console ROUNDS` it asks instead what the web console costs dispatch while no browser is
connected: two sidecars of the same workspace, `serve` and `serve --console`, each on a
kept-alive connection, take ROUNDS x N requests of the same route alternately, one request to
each in turn (the order swapped every pair, so a change of load on the machine hits both
alike), and the medians of their times are compared.

`--control` with it compares `serve` with a second plain `serve` the same way: the ratio the
machine's noise alone gives, to read the console's against.

Usage: python3 benches/agent_routes.py [BIN] [N] [--console ROUNDS [--control]]
  BIN: the agent-hooks binary (default: target/release/agent-hooks, built by `cargo build
  --release -p agent-hooks-cli`); N: requests of each kind (default 2000).
"""

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def median_us(conn, method, path, body, headers, n):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        conn.request(method, path, body=body, headers=headers)
        conn.getresponse().read()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e6


def start(binary, ws, env, extra):
    """`serve --listen 127.0.0.1:0` of `ws` with `extra` flags: the process and its port."""
    server = subprocess.Popen([binary, "--workspace", ws, "serve", "--listen", "127.0.0.1:0",
                               *extra], env=env, stdout=subprocess.PIPE, text=True)
    ready = server.stdout.readline()
    port = int(re.search(r"127\.0\.0\.1:(\d+)", ready).group(1))
    return server, port


def console_cost(binary, ws, env, headers, body, n, rounds, control):
    """Prints the route's median time on `serve` and on `serve --console` (on a second plain
    `serve` with `control`: what the machine's noise alone makes of the ratio), and their
    ratio."""
    second = [] if control else ["--console", "127.0.0.1:0"]
    servers = [start(binary, ws, env, []), start(binary, ws, env, second)]
    try:
        if not control:
            # The console's login line: read, so the pipe never fills; no browser opens it.
            servers[1][0].stdout.readline()
        conns = [http.client.HTTPConnection("127.0.0.1", port) for _, port in servers]
        for conn in conns:
            median_us(conn, "POST", "/v1/hooks/claude-code", body, headers, 200)  # warm-up
        # Request by request, the order swapped every pair: load hits both sidecars alike.
        times = [[], []]
        for r in range(rounds * n):
            for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                start_at = time.perf_counter()
                conns[i].request("POST", "/v1/hooks/claude-code", body=body, headers=headers)
                conns[i].getresponse().read()
                times[i].append(time.perf_counter() - start_at)
        plain, console = (sorted(t)[len(t) // 2] * 1e6 for t in times)
        other = "serve again (control)" if control else "serve --console (no browser)"
        print(f"POST /v1/hooks/claude-code, {rounds * n} requests to each, alternating: "
              f"serve {plain:.0f} us, {other} {console:.0f} us, ratio {console / plain:.3f}")
    finally:
        for server, _ in servers:
            server.terminate()
            server.wait()


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = sys.argv[1:]
    rounds = None
    control = "--control" in args
    if control:
        args.remove("--control")
    if "--console" in args:
        at = args.index("--console")
        rounds = int(args[at + 1])
        del args[at:at + 2]
    binary = args[0] if args else os.path.join(root, "target/release/agent-hooks")
    n = int(args[1]) if len(args) > 1 else 2000
    with tempfile.TemporaryDirectory() as ws, tempfile.TemporaryDirectory() as state:
        os.chmod(state, 0o700)
        env = dict(os.environ, AGENT_HOOKS_STATE_DIR=state)
        for setup in (["on"], ["install", "security_guard"]):
            subprocess.run([binary, "--workspace", ws, *setup], check=True, env=env,
                           stdout=subprocess.DEVNULL)
        body = json.dumps({"session_id": "bench", "cwd": "/tmp", "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_input": {"command": "ls -la"}})
        if rounds is not None:
            # The first sidecar writes the token both read.
            server, _ = start(binary, ws, env, [])
            server.terminate()
            server.wait()
            with open(os.path.join(state, "sidecar.token")) as f:
                token = f.read().strip()
            headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
            console_cost(binary, ws, env, headers, body, n, rounds, control)
            return
        server, port = start(binary, ws, env, [])
        try:
            with open(os.path.join(state, "sidecar.token")) as f:
                token = f.read().strip()
            headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
            conn = http.client.HTTPConnection("127.0.0.1", port)
            median_us(conn, "POST", "/v1/hooks/claude-code", body, headers, 200)  # warm-up
            health = median_us(conn, "GET", "/v1/health", None, headers, n)
            route = median_us(conn, "POST", "/v1/hooks/claude-code", body, headers, n)
            print(f"GET /v1/health {health:.0f} us, POST /v1/hooks/claude-code {route:.0f} us: "
                  f"{route - health:.0f} us of server time per event (target <= 200 us)")
        finally:
            server.terminate()


if __name__ == "__main__":
    main()
