"""Per-event cost of the Python client (clients/python), sync and asyncio, against a raw
keep-alive http.client baseline (with the bearer token, as every client sends it), on a
sidecar serving a workspace with no hooks over loopback TCP — so what is measured is the client
and the HTTP round trip, not hooks.

Usage: python3 benches/python_client.py [EVENTS]   (default 5000)
Uses $AGENT_HOOKS_BIN, else target/release/agent-hooks (cargo build --release first).
"""

import asyncio
import http.client
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))

from agent_hooks import AgentHooks, AsyncAgentHooks, Sidecar  # noqa: E402
from agent_hooks.endpoint import read_token  # noqa: E402

PAYLOAD = {"session_id": "bench", "status": "ended"}


def per_event_us(total_s, n):
    return total_s / n * 1e6


def raw(url, n):
    host, port = url[len("http://"):].split(":")
    conn = http.client.HTTPConnection(host, int(port))
    body = json.dumps(PAYLOAD).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {read_token()}"}
    started = time.perf_counter()
    for _ in range(n):
        conn.request("POST", "/v1/events/on_session_end", body=body, headers=headers)
        json.loads(conn.getresponse().read())
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def sync_client(url, n):
    hooks = AgentHooks(url)
    started = time.perf_counter()
    for _ in range(n):
        hooks.dispatch("on_session_end", PAYLOAD)
    elapsed = time.perf_counter() - started
    hooks.close()
    return elapsed


def async_client(url, n):
    async def run():
        async with AsyncAgentHooks(url) as hooks:
            started = time.perf_counter()
            for _ in range(n):
                await hooks.dispatch("on_session_end", PAYLOAD)
            return time.perf_counter() - started

    return asyncio.run(run())


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    binary = os.environ.get("AGENT_HOOKS_BIN") or os.path.join(
        ROOT, "target", "release", "agent-hooks"
    )
    workspace = tempfile.mkdtemp(prefix="agent-hooks-bench")
    try:
        with Sidecar.start(workspace, binary=binary, listen="127.0.0.1:0") as sidecar:
            for name, measure in (
                ("raw http.client", raw),
                ("AgentHooks (sync)", sync_client),
                ("AsyncAgentHooks", async_client),
            ):
                measure(sidecar.url, min(n, 500))  # warm up
                best = min(measure(sidecar.url, n) for _ in range(3))
                print(f"{name:<20} {per_event_us(best, n):8.1f} µs/event  ({n} events, best of 3)")
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


if __name__ == "__main__":
    main()
