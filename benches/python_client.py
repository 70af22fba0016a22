"""Per-event cost of the Python client (clients/python), sync and asyncio, against a raw
keep-alive http.client baseline (with the bearer token, as every client sends it), on a
sidecar serving a workspace with no hooks over loopback TCP — so what is measured is the client
and the HTTP round trip, not hooks.

Usage: python3 benches/python_client.py [EVENTS]   (default 5000)
Uses $AGENT_HOOKS_BIN, else target/release/agent-hooks (cargo build --release first).

When open-strix is importable (clients/python/integrations-requirements.txt), the same run also
times open-strix's `run_event` through its own HookManager and through
`agent_hooks_runtime.integrations.open_strix`, in the same process on the same home: with one skill hook
on the event (the hook's own process dominates both), and with none (what the sidecar adds).
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

from agent_hooks_runtime import AgentHooks, AsyncAgentHooks, Sidecar  # noqa: E402
from agent_hooks_runtime.endpoint import read_token  # noqa: E402

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


OPEN_STRIX_HOOK = {
    "hooks": [{"name": "echo", "command": "cat", "events": ["pre_prompt"]}]
}


class _Layout:
    def __init__(self, home):
        self.home = home

    @property
    def skills_dir(self):
        from pathlib import Path

        return Path(self.home) / "skills"


class _App:
    """What open-strix's HookManager reads of its app."""

    def __init__(self, home):
        self.layout = _Layout(home)
        self.session_id = "bench"
        self.current_channel_id = "c1"
        self.message_history_all = []
        self.records = 0

    def log_event(self, record_type, **fields):
        self.records += 1


def open_strix(binary, n):
    """Per-event µs of open-strix's own HookManager and of the integration, with one hook and
    with none; None when open-strix is not installed."""
    try:
        from open_strix.hooks import HookManager as Own
    except ImportError:
        return None
    from agent_hooks_runtime.integrations import open_strix as integration

    os.environ.setdefault("AGENT_HOOKS_BIN", binary)
    results = {}
    for hooked in (True, False):
        home = tempfile.mkdtemp(prefix="agent-hooks-bench-os")
        try:
            os.makedirs(os.path.join(home, "skills", "echo"))
            if hooked:
                with open(os.path.join(home, "skills", "echo", "hooks.json"), "w") as f:
                    json.dump(OPEN_STRIX_HOOK, f)
            for name, cls in (("open-strix HookManager", Own), ("agent-hooks integration", integration.HookManager)):
                manager = cls(_App(home))
                manager.discover()

                async def run(count):
                    started = time.perf_counter()
                    for _ in range(count):
                        await manager.run_event("pre_prompt", {"prompt": "hello"})
                    return time.perf_counter() - started

                count = n if not hooked else max(n // 20, 50)
                asyncio.run(run(min(count, 50)))  # warm up
                best = min(asyncio.run(run(count)) for _ in range(3))
                results[(name, hooked)] = (per_event_us(best, count), count)
        finally:
            integration._stop_all()
            shutil.rmtree(home, ignore_errors=True)
    return results


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
    compared = open_strix(binary, n)
    if compared is None:
        print("open-strix is not installed: its HookManager is not compared")
        return
    for hooked in (True, False):
        label = "one hook" if hooked else "no hooks"
        own, count = compared[("open-strix HookManager", hooked)]
        ours, _ = compared[("agent-hooks integration", hooked)]
        print(
            f"open-strix run_event, {label}: HookManager {own:8.1f} µs, integration "
            f"{ours:8.1f} µs ({ours / own:.2f}x, {ours - own:+.1f} µs/event; {count} events, best of 3)"
        )


if __name__ == "__main__":
    main()
