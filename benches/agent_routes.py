#!/usr/bin/env python3
"""Server time of an agent's HTTP route per event: a kept-alive connection POSTs a harmless
Claude Code PreToolUse to `/v1/hooks/claude-code` of a sidecar with security_guard installed,
and GETs `/v1/health` of the same sidecar; the difference of the medians is the route's own
work (reading the input, the guard, the decision log, the answer).

Usage: python3 benches/agent_routes.py [BIN] [N]
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


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target/release/agent-hooks")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    with tempfile.TemporaryDirectory() as ws, tempfile.TemporaryDirectory() as state:
        os.chmod(state, 0o700)
        env = dict(os.environ, AGENT_HOOKS_STATE_DIR=state)
        for args in (["on"], ["install", "security_guard"]):
            subprocess.run([binary, "--workspace", ws, *args], check=True, env=env,
                           stdout=subprocess.DEVNULL)
        server = subprocess.Popen([binary, "--workspace", ws, "serve", "--listen", "127.0.0.1:0"],
                                  env=env, stdout=subprocess.PIPE, text=True)
        try:
            ready = server.stdout.readline()
            port = int(re.search(r"127\.0\.0\.1:(\d+)", ready).group(1))
            with open(os.path.join(state, "sidecar.token")) as f:
                token = f.read().strip()
            headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
            body = json.dumps({"session_id": "bench", "cwd": "/tmp", "hook_event_name": "PreToolUse",
                               "tool_name": "Bash", "tool_input": {"command": "ls -la"}})
            conn = http.client.HTTPConnection("127.0.0.1", port)
            median_us(conn, "POST", "/v1/hooks/claude-code", body, headers, 200)  # warm-up
            health = median_us(conn, "GET", "/v1/health", None, headers, n)
            route = median_us(conn, "POST", "/v1/hooks/claude-code", body, headers, n)
            print(f"GET /v1/health {health:.0f} us, POST /v1/hooks/claude-code {route:.0f} us: "
                  f"{route - health:.0f} us of server time per event (target <= 200 us)")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
