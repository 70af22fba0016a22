"""open-strix's skill hooks run by the agent-hooks sidecar, in one line:

    from agent_hooks_runtime.integrations import open_strix
    open_strix.install()          # before open_strix.app creates its HookManager

`install()` puts `HookManager` below in place of `open_strix.hooks.HookManager` (and the name
`open_strix.app` imported). It keeps open-strix's interface — `discover()`, `run_event()`,
`wrap_tool()`, `wrap_tools()`, `hooks` — and its log records (through the app's own
`log_event`), while the sidecar reads `skills/**/hooks.json`, runs the hooks with the bytes
open-strix would send, and chains their answers. One sidecar serves each open-strix home for the
life of the process; the app fires the lifecycle events itself, so the sidecar does not.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional

from ..aio import AsyncAgentHooks
from ..client import AgentHooks
from ..outcome import Decision, Diagnostic, Outcome
from ..sidecar import Sidecar

VALID_HOOK_EVENTS: FrozenSet[str] = frozenset(
    {
        "pre_tool_call",
        "post_tool_call",
        "pre_prompt",
        "pre_startup",
        "post_startup",
        "pre_shutdown",
        "post_shutdown",
    }
)

# A skill event's canonical name, as the sidecar's listing names the events of every hook.
_CANONICAL = {name: name for name in VALID_HOOK_EVENTS}
_CANONICAL["pre_prompt"] = "pre_llm_call"

# The skill event's names of a tool call, and the payload's own.
_TOOL_FIELDS = {"tool": "tool_name", "args": "tool_input", "result": "tool_result"}

# Records the wrapper of a tool call writes as open-strix does: only these facts, by name.
_DETAIL_KEY = {"hook_stderr": "stderr", "hook_blocked_tool_call": "reason"}


@dataclass(frozen=True)
class HookConfig:
    """A skill hook as open-strix's `discover()` describes it."""

    name: str
    command: str
    events: FrozenSet[str]
    env: Dict[str, str]
    skill_dir: Path
    timeout_seconds: float = 10.0
    include_conversation: bool = False
    source: str = field(default="", compare=False)


_lock = threading.Lock()
_sidecars: Dict[str, Sidecar] = {}
# The environment each sidecar was started with: open-strix runs hooks with `os.environ` as it
# is at the call, so what changed since is sent with each event.
_started_env: Dict[str, Dict[str, str]] = {}


def _stop_all() -> None:
    with _lock:
        running = list(_sidecars.values())
        _sidecars.clear()
    for sidecar in running:
        sidecar.stop()


atexit.register(_stop_all)


def sidecar_for(home: Path, binary: Optional[str] = None) -> Sidecar:
    """The sidecar of `home`, started on first use and stopped when the process exits."""
    key = os.path.realpath(home)
    with _lock:
        running = _sidecars.get(key)
        if running is not None and running.process.poll() is None:
            return running
        _started_env[key] = dict(os.environ)
        started = Sidecar.start(key, binary=binary, host_lifecycle=True)
        _sidecars[key] = started
        return started


def _changed_env(home: Path) -> Dict[str, str]:
    """The variables of `os.environ` set or changed since the sidecar of `home` started."""
    before = _started_env.get(os.path.realpath(home), {})
    return {k: v for k, v in os.environ.items() if before.get(k) != v}


def _env_values(path: Path, name: str) -> Dict[str, str]:
    """The `env` of hook `name` in `path`, as open-strix's `discover()` shows it (values
    stringified). The sidecar lists only the names; the values are read here for display."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8")).get("hooks", [])
    except (OSError, ValueError, AttributeError):
        return {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and str(entry.get("name", "")).strip() == name:
            env = entry.get("env", {})
            return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}
    return {}


class HookManager:
    """open-strix's `HookManager`, backed by the sidecar of the app's home."""

    def __init__(self, strix: Any, binary: Optional[str] = None) -> None:
        self.strix = strix
        self.hooks: List[HookConfig] = []
        self._binary = binary
        self._sync: Optional[AgentHooks] = None
        self._async: Optional[AsyncAgentHooks] = None
        # The canonical events some hook (of any source) takes, as of the last `discover()`:
        # like open-strix, an event no discovered hook takes is not sent anywhere.
        self._hooked: FrozenSet[str] = frozenset()

    @property
    def home(self) -> Path:
        return Path(self.strix.layout.skills_dir).parent

    def _url(self) -> str:
        return sidecar_for(self.home, self._binary).url

    def _client(self) -> AgentHooks:
        if self._sync is None:
            self._sync = AgentHooks(self._url())
        return self._sync

    def _aclient(self) -> AsyncAgentHooks:
        if self._async is None:
            self._async = AsyncAgentHooks(self._url())
        return self._async

    def discover(self) -> List[HookConfig]:
        """Has the sidecar read `skills/**/hooks.json` again; the skill hooks in force, and each
        file's problems logged with open-strix's record types. As with open-strix, what this
        finds is what `run_event` runs until the next `discover()`: an event no hook takes
        costs no round trip."""
        client = self._client()
        reloaded = client.reload()
        for problem in reloaded.diagnostics:
            if problem.source and problem.source.startswith("skills/"):
                self.log_event(
                    problem.type, path=str(self.home / problem.source), error=problem.detail
                )
        hooks: List[HookConfig] = []
        listing = client.hooks().hooks
        self._hooked = frozenset(event for hook in listing for event in hook.events)
        for hook in listing:
            if hook.source != "skill":
                continue
            file = self.home / str(hook.get("file", ""))
            hooks.append(
                HookConfig(
                    name=hook.name,
                    command=str(hook.get("run", "")),
                    events=frozenset(hook.get("dialect_events") or []),
                    env=_env_values(file, hook.name),
                    skill_dir=file.parent,
                    timeout_seconds=float(hook.get("timeout_s") or 10.0),
                    include_conversation=bool(hook.get("include_conversation")),
                    source=str(hook.get("file", "")),
                )
            )
        self.hooks = hooks
        return hooks

    async def run_event(self, event_type: str, event: Dict[str, Any]) -> Dict[str, Any]:
        """Runs the hooks of `event_type` on `event` through the sidecar; the event as the
        chain leaves it, read back the way open-strix reads it."""
        if event_type not in VALID_HOOK_EVENTS:
            return event
        current: Dict[str, Any] = {
            "type": event_type,
            "timestamp": event.get("timestamp")
            or datetime.now(tz=timezone.utc).isoformat(),
            "session_id": getattr(self.strix, "session_id", "unknown"),
            **event,
        }
        if _CANONICAL[event_type] not in self._hooked:
            return current
        payload: Dict[str, Any] = {}
        for key, value in current.items():
            if key == "type":
                continue
            if event_type in ("pre_tool_call", "post_tool_call"):
                key = _TOOL_FIELDS.get(key, key)
            payload[key] = value
        outcome = await self._aclient().dispatch(
            event_type,
            payload,
            conversation=self._memory(),
            channel_id=getattr(self.strix, "current_channel_id", None),
            env=_changed_env(self.home),
        )
        self._log(outcome.diagnostics, event_type)
        return self._final(event_type, current, outcome)

    def _memory(self) -> Optional[List[Dict[str, Any]]]:
        """open-strix's in-memory history, for hooks that ask for the conversation when the
        chat-history log has none."""
        layout = getattr(self.strix, "layout", None)
        log = getattr(layout, "chat_history_log", None)
        if log is not None and Path(log).exists() and Path(log).stat().st_size > 0:
            return None
        history = getattr(self.strix, "message_history_all", None)
        return list(history) if history else None

    def _sidecar_logs_for_the_app(self) -> bool:
        """Whether the app's event log is the file the sidecar writes its records to (in
        open-strix's schema): then they are there already, and logging them again through the
        app would write each twice."""
        events_log = getattr(getattr(self.strix, "layout", None), "events_log", None)
        if events_log is None:
            return False
        ours = self.home / "logs" / "events.jsonl"
        return os.path.realpath(events_log) == os.path.realpath(ours)

    def log_event(self, record_type: str, **fields: Any) -> None:
        """A record about the hooks, through the app's own `log_event` unless the sidecar
        already wrote it where the app logs."""
        if not self._sidecar_logs_for_the_app():
            self.strix.log_event(record_type, **fields)

    def _log(self, diagnostics: List[Diagnostic], event_type: str) -> None:
        for problem in diagnostics:
            facts = {
                k: v
                for k, v in problem.raw.items()
                if k not in ("type", "hook", "source", "detail", "event")
            }
            key = _DETAIL_KEY.get(problem.type, "error")
            if problem.type in ("hook_blocked_tool_call", "hook_invalid_block"):
                # As open-strix's tool wrapper logs them: about the call, not a hook.
                self.log_event(problem.type, **facts, **{key: problem.detail})
                continue
            record: Dict[str, Any] = {
                "name": problem.hook,
                "hook_event_type": problem.event or event_type,
                **facts,
            }
            if key not in record:
                record[key] = problem.detail
            self.log_event(problem.type, **record)

    @staticmethod
    def _final(event_type: str, current: Dict[str, Any], outcome: Outcome) -> Dict[str, Any]:
        final = dict(current)
        payload = outcome.payload
        if event_type == "pre_tool_call":
            final["args"] = payload.get("tool_input", current.get("args"))
            if outcome.decision == Decision.BLOCK and isinstance(outcome.result, str):
                final["_block"] = {"reason": outcome.reason or "", "result": outcome.result}
        elif event_type == "post_tool_call":
            if "tool_result" in payload:
                final["result"] = payload["tool_result"]
        elif event_type == "pre_prompt":
            final["prompt"] = payload.get("prompt", current.get("prompt"))
        return final

    def wrap_tools(self, tools: List[Any]) -> List[Any]:
        return [self.wrap_tool(tool) for tool in tools]

    def wrap_tool(self, wrapped: Any) -> Any:
        """A tool whose calls go through `pre_tool_call` and `post_tool_call` as open-strix
        runs them: a block returns its synthetic result without running the tool (and
        `post_tool_call` sees `status: "blocked"`), a failure is seen by the hooks and raised
        again, and a success's result is what the hooks leave."""
        from langchain_core.tools import StructuredTool

        manager = self
        tool_name = str(getattr(wrapped, "name", "unknown_tool"))

        def context() -> Dict[str, Any]:
            return {
                "channel_id": getattr(manager.strix, "current_channel_id", None),
                "current_event": getattr(manager.strix, "current_event_label", None),
            }

        async def hooked(**kwargs: Any) -> Any:
            before = await manager.run_event(
                "pre_tool_call", {"tool": tool_name, "args": kwargs, **context()}
            )
            block = before.get("_block")
            if isinstance(block, dict):
                manager.log_event(
                    "hook_blocked_tool_call",
                    tool=tool_name,
                    reason=block["reason"],
                    channel_id=context()["channel_id"],
                )
                await manager.run_event(
                    "post_tool_call",
                    {
                        "tool": tool_name,
                        "args": before.get("args", kwargs),
                        "status": "blocked",
                        "block_reason": block["reason"],
                        "result": block["result"],
                        **context(),
                    },
                )
                return block["result"]
            args = before.get("args", kwargs)
            if not isinstance(args, dict):
                args = kwargs
            started = datetime.now(tz=timezone.utc)
            try:
                result = await wrapped.ainvoke(args)
            except Exception as exc:
                await manager.run_event(
                    "post_tool_call",
                    {
                        "tool": tool_name,
                        "args": args,
                        "status": "error",
                        "error": str(exc),
                        "error_class": type(exc).__name__,
                        **context(),
                    },
                )
                raise
            took = (datetime.now(tz=timezone.utc) - started).total_seconds()
            after = await manager.run_event(
                "post_tool_call",
                {
                    "tool": tool_name,
                    "args": args,
                    "status": "success",
                    "result": result,
                    "duration_seconds": round(took, 6),
                    **context(),
                },
            )
            return after.get("result", result)

        tool = StructuredTool.from_function(
            coroutine=hooked,
            name=tool_name,
            description=str(getattr(wrapped, "description", "")),
            return_direct=bool(getattr(wrapped, "return_direct", False)),
            args_schema=getattr(wrapped, "args_schema", None),
            response_format=getattr(wrapped, "response_format", "content"),
        )
        tool.handle_tool_error = getattr(wrapped, "handle_tool_error", False)
        tool.handle_validation_error = getattr(wrapped, "handle_validation_error", False)
        tool.metadata = getattr(wrapped, "metadata", None)
        tool.tags = getattr(wrapped, "tags", None)
        return tool


def install() -> None:
    """Makes open-strix create this `HookManager`: `open_strix.hooks.HookManager` and the name
    `open_strix.app` imported from it. Call it before the app is created."""
    import open_strix.hooks as hooks_module

    hooks_module.HookManager = HookManager  # type: ignore[misc]
    try:
        import open_strix.app as app_module
    except ImportError:
        return
    app_module.HookManager = HookManager  # type: ignore[attr-defined]


def pytest_configure(config: Any) -> None:
    """As a pytest plugin (`pytest -p agent_hooks_runtime.integrations.open_strix`): open-strix's own
    tests run on the sidecar."""
    install()
