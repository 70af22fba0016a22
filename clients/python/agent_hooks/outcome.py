"""The sidecar's answers as typed values: the outcome of a dispatch, a tool call's result, and
what the stop hooks decided. Mirrors the Rust library's `Outcome` and `host` module."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class HookReport:
    """What happened to one hook in a dispatch."""

    hook: str
    source: str
    status: str  # ok | noop | blocked | skipped | timeout | error | invalid_output
    detail: Optional[str]
    ms: float


@dataclass
class Diagnostic:
    """One problem a dispatch or a reload ran into (a hook's stderr, an unusable answer, ...)."""

    type: str
    hook: Optional[str]
    source: Optional[str]
    detail: str


@dataclass
class Outcome:
    """The answer to one event: what the host must apply."""

    event: str
    decision: str  # continue | block | ask
    reason: Optional[str]
    result: Any
    payload: Dict[str, Any]
    context: List[str]
    notes: List[str]
    warnings: List[str]
    model: Optional[str]
    display: Optional[Dict[str, Any]]
    stop: Optional[str]
    hooks: List[HookReport]
    changed: List[str]
    diagnostics: List[Diagnostic]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def blocked(self) -> bool:
        return self.decision == "block"

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Outcome":
        stop = data.get("stop")
        return cls(
            event=data["event"],
            decision=data["decision"],
            reason=data.get("reason"),
            result=data.get("result"),
            payload=data.get("payload") or {},
            context=list(data.get("context") or []),
            notes=list(data.get("notes") or []),
            warnings=list(data.get("warnings") or []),
            model=data.get("model"),
            display=data.get("display"),
            stop=stop.get("reason") if isinstance(stop, dict) else None,
            hooks=[HookReport(**h) for h in data.get("hooks") or []],
            changed=list(data.get("changed") or []),
            diagnostics=[Diagnostic(**d) for d in data.get("diagnostics") or []],
            raw=data,
        )


@dataclass
class ToolCall:
    """How one tool call went through the hooks (see `call_tool`)."""

    tool_name: str
    input: Any  # the input the tool ran with, after hooks' rewrites
    status: str  # success | error | blocked
    result: Any  # what the agent sees (a hook's synthetic result when blocked)
    blocked_reason: Optional[str]
    notes: List[str]
    warnings: List[str]
    stop: Optional[str]  # a hook asked to end the turn: end it after this call
    outcomes: List[Outcome]

    def agent_text(self) -> str:
        """The result (a string as is, anything else as JSON) followed by the hooks' notes."""
        import json

        text = self.result if isinstance(self.result, str) else json.dumps(self.result)
        for note in self.notes:
            text += "\n\n" + note
        return text

    def tool_names(self) -> List[str]:
        return [self.tool_name]


@dataclass
class Stop:
    """The turn ends; `warnings` are for the user (a hook's stop request comes first)."""

    warnings: List[str]


@dataclass
class Redo:
    """A hook refused the stop: give `reason` to the model as its next instruction."""

    reason: str
