"""Side by side: every scenario runs through open-strix's own HookManager and through
`agent_hooks_runtime.integrations.open_strix` (the sidecar), on two homes with the same skill, and the
two must agree on the bytes each hook read on stdin, on what the app takes from the chain's
final event, and on the records logged — but for the differences `docs/skill-hooks.md` lists.

Needs open-strix (clients/python/integrations-requirements.txt) and $AGENT_HOOKS_BIN:
    python -m pytest clients/python/tests/open_strix
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

open_strix_hooks = pytest.importorskip("open_strix.hooks")

from agent_hooks_runtime.integrations import open_strix as integration  # noqa: E402

STAMP = "2026-05-19T10:00:00.000001+00:00"

# One hook program for every behaviour: it appends the exact bytes it read to stdin.bin in its
# skill directory, then answers as MODE says.
HOOK = r'''
import json, os, sys, time
raw = sys.stdin.buffer.readline()
with open(os.path.join(os.environ["STATE_DIR"], "stdin.bin"), "ab") as f:
    f.write(raw)
mode = sys.argv[1]
event = json.loads(raw)
kind = event.get("type")
if mode == "noop":
    pass
elif mode == "echo":
    print(json.dumps(event))
elif mode == "upper":
    if isinstance(event.get("args"), dict) and isinstance(event["args"].get("text"), str):
        event["args"]["text"] = event["args"]["text"].upper()
    print(json.dumps(event))
elif mode == "add_arg":
    if isinstance(event.get("args"), dict):
        event["args"]["added"] = [1, 2.5, None, "\u00e9"]
    print(json.dumps(event))
elif mode == "args_not_object":
    event["args"] = "nope"
    print(json.dumps(event))
elif mode == "result":
    event["result"] = "rewritten: " + str(event.get("result"))
    print(json.dumps(event))
elif mode == "prompt":
    event["prompt"] = "replaced " + str(event.get("prompt"))
    print(json.dumps(event))
elif mode == "append":
    event["append_prompt"] = "extra context \u2713"
    print(json.dumps(event))
elif mode == "block":
    event["_block"] = {"reason": "policy", "result": "blocked by policy"}
    print(json.dumps(event))
elif mode == "bad_block":
    event["_block"] = {"reason": "incomplete"}
    print(json.dumps(event))
elif mode == "unblock":
    event.pop("_block", None)
    print(json.dumps(event))
elif mode == "partial":
    print(json.dumps({"note": "only this"}))
elif mode == "exit":
    print("failing on purpose", file=sys.stderr)
    sys.exit(3)
elif mode == "stderr":
    print("a warning", file=sys.stderr)
    print(json.dumps(event))
elif mode == "not_json":
    print("this is not json")
elif mode == "list":
    print("[1, 2]")
elif mode == "empty_object":
    print("{}")
elif mode == "timeout":
    time.sleep(5)
elif mode == "big_result":
    event["result"] = {"big": 2**100 + 3, "neg": -(2**90), "f": 1e300}
    print(json.dumps(event))
elif mode == "marker":
    event["seen_by"] = event.get("seen_by", []) + [os.environ["HOOK_NAME"]]
    print(json.dumps(event))
'''


class Layout:
    def __init__(self, home: Path) -> None:
        self.home = home

    @property
    def skills_dir(self) -> Path:
        return self.home / "skills"


class App:
    def __init__(self, home: Path) -> None:
        self.layout = Layout(home)
        self.session_id = "side-by-side"
        self.current_channel_id = "c1"
        self.current_event_label = "test"
        self.message_history_all: List[Dict[str, Any]] = []
        self.events: List[Dict[str, Any]] = []

    def log_event(self, event_type: str, **payload: Any) -> None:
        self.events.append({"type": event_type, **payload})


TOOL_EVENTS = {
    "pre_tool_call": {"tool": "send_message", "args": {"text": "h\u00e9llo \U0001F600", "n": 1.0},
                      "channel_id": "c1", "current_event": None},
    "post_tool_call": {"tool": "send_message", "args": {"text": "hi"}, "status": "success",
                       "result": "sent", "duration_seconds": 0.012345, "channel_id": "c1",
                       "current_event": None},
    "post_tool_call/error": {"tool": "bash", "args": {"command": "false"}, "status": "error",
                             "error": "boom", "error_class": "RuntimeError", "channel_id": "c1",
                             "current_event": "x"},
    "post_tool_call/blocked": {"tool": "bash", "args": {"command": "rm"}, "status": "blocked",
                               "block_reason": "policy", "result": "no", "channel_id": "c1",
                               "current_event": None},
    # What Python's JSON holds and a double cannot: integers of any size, NaN, the infinities.
    "post_tool_call/numbers": {"tool": "calc", "args": {"id": 2**100 + 7, "neg": -(2**70),
                                                         "x": float("nan"), "up": float("inf"),
                                                         "down": float("-inf"), "f": 0.1},
                               "status": "success", "result": 2**80 + 1, "channel_id": "c1",
                               "current_event": None},
}
OTHER_EVENTS = {
    "pre_prompt": {"prompt": "hello", "source_event_type": "web_message", "channel_id": "c1",
                   "author": "alice", "attachment_names": []},
    "pre_startup": {"home": "/h"},
    "post_startup": {"home": "/h", "api_port": 0, "web_ui_port": 0, "scheduler_running": False},
    "pre_shutdown": {"home": "/h"},
    "post_shutdown": {"home": "/h"},
}

MODES = {
    "pre_tool_call": ["noop", "echo", "upper", "add_arg", "args_not_object", "block", "bad_block",
                      "partial", "exit", "stderr", "not_json", "list", "empty_object"],
    "post_tool_call": ["noop", "echo", "result", "partial", "exit", "stderr", "not_json",
                       "empty_object"],
    "post_tool_call/error": ["noop", "echo", "result", "exit"],
    "post_tool_call/blocked": ["noop", "echo", "result"],
    "post_tool_call/numbers": ["noop", "echo", "result", "big_result"],
    "pre_prompt": ["noop", "echo", "prompt", "append", "partial", "exit", "stderr", "not_json",
                   "list", "empty_object"],
    "pre_startup": ["noop", "echo", "exit", "stderr"],
    "post_startup": ["noop", "echo", "not_json"],
    "pre_shutdown": ["noop", "echo"],
    "post_shutdown": ["noop", "echo"],
}

CHAINS = [
    ("pre_tool_call", ["timeout"]),
    ("pre_prompt", ["timeout", "append"]),
    ("pre_tool_call", ["missing"]),
    ("post_startup", ["missing", "echo"]),
    ("pre_tool_call", ["upper", "add_arg"]),
    ("pre_tool_call", ["block", "echo"]),
    ("pre_tool_call", ["block", "unblock"]),
    ("pre_tool_call", ["upper", "exit", "echo"]),
    ("pre_tool_call", ["partial", "echo"]),
    ("pre_tool_call", ["marker", "marker", "marker"]),
    ("post_tool_call", ["result", "result"]),
    ("pre_prompt", ["append", "prompt"]),
    ("pre_prompt", ["prompt", "not_json", "append"]),
    ("pre_prompt", ["marker", "stderr", "marker"]),
    ("post_startup", ["marker", "marker"]),
]

SCENARIOS: List[Tuple[str, List[str]]] = [
    (event, [mode]) for event, modes in MODES.items() for mode in modes
] + CHAINS

# Records this runtime writes where open-strix writes none, or one the other does not
# (docs/skill-hooks.md, "Where this runtime differs"): a change that cannot take effect is
# logged as hook_invalid_mutation, and a malformed _block as soon as a hook writes it.
BETTER = {"hook_invalid_mutation"}


def _event_name(key: str) -> str:
    return key.split("/")[0]


def _home(hooks: List[str], event: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix="side-by-side"))
    skill = home / "skills" / "probe"
    skill.mkdir(parents=True)
    (skill / "hook.py").write_text(HOOK, encoding="utf-8")
    entries: List[Dict[str, Any]] = []
    for i, mode in enumerate(hooks):
        entry: Dict[str, Any] = {
            "name": f"h{i}-{mode}",
            "command": f"{shlex.quote(sys.executable)} hook.py {mode}",
            "events": [event],
        }
        if mode == "timeout":
            entry["timeout_seconds"] = 0.5
        if mode == "missing":
            entry["command"] = "cat >> stdin.bin; no-such-program-for-agent-hooks"
        entries.append(entry)
    (skill / "hooks.json").write_text(json.dumps({"hooks": entries}), encoding="utf-8")
    return home


def _effective(event: str, final: Dict[str, Any], given: Dict[str, Any]) -> Any:
    """What open-strix's app and tool wrapper take from the chain's final event."""
    if event == "pre_tool_call":
        args = final.get("args", given["args"])
        spec = final.get("_block")
        block = None
        if isinstance(spec, dict) and isinstance(spec.get("reason"), str) and isinstance(
            spec.get("result"), str
        ):
            block = (spec["reason"], spec["result"])
        return (args if isinstance(args, dict) else given["args"], block)
    if event == "post_tool_call":
        # The wrapper reads the result of a call that succeeded only: a failed call is raised
        # again, a blocked one returns the block's result.
        if given.get("status") != "success":
            return None
        return final.get("result", given.get("result"))
    if event == "pre_prompt":
        prompt = final.get("prompt", given["prompt"])
        prompt = prompt if isinstance(prompt, str) else given["prompt"]
        extra = final.get("append_prompt")
        return f"{prompt}\n\n{extra}" if isinstance(extra, str) and extra else prompt
    return None


def _call_tool(manager: Any) -> Any:
    """A tool call as open-strix's agent makes one: through the manager's wrapped tool. What
    the tool ran with and what the agent got back."""
    from langchain_core.tools import tool

    ran: List[Dict[str, Any]] = []

    @tool("send_message")
    async def send_message(text: str, n: float = 0.0) -> str:
        """Sends a message."""
        ran.append({"text": text, "n": n})
        return f"sent {text}"

    hooked = manager.wrap_tool(send_message)
    given = TOOL_EVENTS["pre_tool_call"]["args"]
    returned = asyncio.run(hooked.ainvoke(dict(given)))
    return ran, returned


def _run(manager_class: Any, hooks: List[str], key: str) -> Tuple[bytes, Any, List[str]]:
    event = _event_name(key)
    given = dict(TOOL_EVENTS.get(key) or OTHER_EVENTS[key], timestamp=STAMP)
    home = _home(hooks, event)
    try:
        app = App(home)
        manager = manager_class(app)
        manager.discover()
        if event == "pre_tool_call":
            effect = _call_tool(manager)
            # The wrapper stamps its own events: the bytes are compared without the time.
            lines = (home / "skills" / "probe" / "stdin.bin").read_bytes().splitlines(True)
            stdin = b"".join(_unstamped(line) for line in lines)
            return stdin, effect, sorted(e["type"] for e in app.events)
        final = asyncio.run(manager.run_event(event, dict(given)))
        stdin = (home / "skills" / "probe" / "stdin.bin").read_bytes()
        records = sorted(e["type"] for e in app.events)
        return stdin, _effective(event, final, given), records
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _unstamped(line: bytes) -> bytes:
    """`line` with its `"timestamp": "..."` value blanked (the key and its place stay)."""
    start = line.find(b'"timestamp": "')
    if start < 0:
        return line
    value = start + len(b'"timestamp": "')
    end = line.find(b'"', value)
    return line[:value] + line[end:]


def teardown_module() -> None:
    integration._stop_all()


@pytest.mark.parametrize(
    "key,hooks", SCENARIOS, ids=[f"{k}:{'+'.join(h)}" for k, h in SCENARIOS]
)
def test_the_sidecar_agrees_with_open_strix(key: str, hooks: List[str]) -> None:
    theirs = _run(open_strix_hooks.HookManager, hooks, key)
    ours = _run(integration.HookManager, hooks, key)
    assert ours[0] == theirs[0], "the bytes on the hooks' stdin differ"
    assert ours[1] == theirs[1], "what the app takes from the chain differs"
    assert [r for r in ours[2] if r not in BETTER] == [
        r for r in theirs[2] if r not in BETTER
    ], "the records differ"


def test_there_are_at_least_sixty_scenarios() -> None:
    assert len(SCENARIOS) >= 60
