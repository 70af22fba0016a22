"""The agent-loop sequences of the Rust library's `host` module, written once as generators
that yield what they need (a dispatch, or running the tool) and are driven by the sync client
and by the asyncio one alike, so both behave exactly the same.

- `call_tool_steps`: pre_tool_call -> the tool, or the hooks' synthetic result when blocked ->
  transform_tool_result (only when the tool ran) -> post_tool_call with the right `status`.
- `stop_steps`: on_stop / on_completion_claim with `redo_count` and `stop_hook_active`.
"""

from __future__ import annotations

import json
import time
from typing import Any, Dict, Generator, List, Optional, Tuple, Union

from .outcome import Outcome, Redo, Stop, ToolCall

# A step asks its driver either to dispatch an event or to run the host's tool.
Dispatch = Tuple[str, str, Dict[str, Any]]  # ("dispatch", event, payload)
RunTool = Tuple[str, Any]  # ("run", input)


class ToolFailed:
    """What running the tool gave when it raised: the message and the exception's class name
    (`post_tool_call` hooks get them as `error` and `error_class`)."""

    def __init__(self, error: BaseException):
        self.error = error
        self.message = str(error)
        self.error_class = type(error).__name__


# The fields `call_tool` writes itself; `fields` may not name them.
_OWN_FIELDS = frozenset(
    {
        "event",
        "session_id",
        "tool_name",
        "tool_input",
        "tool_result",
        "status",
        "error",
        "error_class",
        "block_reason",
        "duration_seconds",
    }
)


def call_tool_steps(
    session_id: str,
    tool_name: str,
    tool_input: Any,
    on_ask: str,
    fields: Optional[Dict[str, Any]] = None,
    transform: bool = True,
) -> Generator[Union[Dispatch, RunTool], Any, ToolCall]:
    """The steps of one tool call. `fields` are added to every event of the call, after the
    fields the call writes itself (open-strix's `channel_id`, `current_event`); `transform`
    fires `transform_tool_result` between the tool and `post_tool_call`."""
    if on_ask not in ("block", "allow"):
        raise ValueError(f"on_ask must be 'block' or 'allow', not {on_ask!r}")
    extra = dict(fields or {})
    clash = sorted(_OWN_FIELDS.intersection(extra))
    if clash:
        raise ValueError(
            f"fields may not set {', '.join(clash)}: call_tool writes them itself"
        )
    outcomes: List[Outcome] = []
    warnings: List[str] = []

    before: Outcome = yield (
        "dispatch",
        "pre_tool_call",
        {"session_id": session_id, "tool_name": tool_name, "tool_input": tool_input, **extra},
    )
    tool_input = before.payload.get("tool_input", tool_input)
    warnings.extend(before.warnings)
    stop: Optional[str] = before.stop
    refused = stop is not None or before.decision == "block" or (
        before.decision == "ask" and on_ask == "block"
    )
    # Context about this call goes next to its result, as Claude Code places it.
    notes: List[str] = list(before.context)
    duration: Optional[float] = None
    error: Optional[ToolFailed] = None
    blocked_reason: Optional[str] = None
    if refused:
        reason = before.reason or stop or ""
        status = "blocked"
        result = before.result if before.result is not None else f"[blocked by a hook] {reason}"
        blocked_reason = reason
    else:
        started = time.monotonic()
        ran = yield ("run", tool_input)
        if isinstance(ran, ToolFailed):
            status, result, error = "error", ran.message, ran
        else:
            duration = time.monotonic() - started
            status, result = "success", ran
    outcomes.append(before)

    if status != "blocked" and transform:
        transformed: Outcome = yield (
            "dispatch",
            "transform_tool_result",
            {"session_id": session_id, "tool_name": tool_name, "tool_result": result, **extra},
        )
        notes.extend(transformed.notes)
        warnings.extend(transformed.warnings)
        stop = stop or transformed.stop
        outcomes.append(transformed)

    # In the order open-strix writes the event, so skill hooks read the same bytes.
    post: Dict[str, Any] = {
        "session_id": session_id,
        "tool_name": tool_name,
        "tool_input": tool_input,
        "status": status,
    }
    if error is not None:
        post["error"] = error.message
        post["error_class"] = error.error_class
        post["tool_result"] = result
    elif blocked_reason is not None:
        post["block_reason"] = blocked_reason
        post["tool_result"] = result
    else:
        post["tool_result"] = result
    if duration is not None:
        post["duration_seconds"] = round(duration, 6)
    post.update(extra)
    after: Outcome = yield ("dispatch", "post_tool_call", post)
    # Only a call that succeeded can have its result replaced.
    if status == "success" and "tool_result" in after.payload:
        result = after.payload["tool_result"]
    notes.extend(after.notes)
    warnings.extend(after.warnings)
    stop = stop or after.stop
    outcomes.append(after)

    return ToolCall(
        error=error.error if error is not None else None,
        tool_name=tool_name,
        input=tool_input,
        status=status,
        result=result,
        blocked_reason=blocked_reason,
        notes=notes,
        warnings=warnings,
        stop=stop,
        outcomes=outcomes,
    )


def stop_steps(
    event: str, payload: Dict[str, Any], redo_count: int
) -> Generator[Dispatch, Outcome, Union[Stop, Redo]]:
    payload = dict(payload, redo_count=redo_count, stop_hook_active=redo_count > 0)
    outcome: Outcome = yield ("dispatch", event, payload)
    if outcome.stop is not None:
        # A hook asked the agent to stop altogether: that wins over a redo.
        return Stop(warnings=[outcome.stop] + outcome.warnings)
    # The sidecar already overrules a block at the redo cap; this only counts honoured ones.
    if outcome.blocked:
        return Redo(reason=outcome.reason or "")
    return Stop(warnings=list(outcome.warnings))


def encode(body: Any) -> bytes:
    return json.dumps(body).encode("utf-8")
