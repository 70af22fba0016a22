"""The sidecar's answers as typed values: the outcome of a dispatch, a tool call's result, what
the stop hooks decided, and the sidecar's health, hooks and reloads. Mirrors the Rust library's
`Outcome` and `host` module. Enum members are also `str`, so `outcome.decision == "block"`
holds; a value a newer sidecar sends that this client does not know stays a plain `str`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Optional, Type, TypeVar, Union

E = TypeVar("E", bound=Enum)


class Decision(str, Enum):
    """What the hooks decided about an event."""

    CONTINUE = "continue"
    BLOCK = "block"
    ASK = "ask"


class HookStatus(str, Enum):
    """How one hook's run ended."""

    OK = "ok"
    NOOP = "noop"
    BLOCKED = "blocked"
    SKIPPED = "skipped"
    TIMEOUT = "timeout"
    ERROR = "error"
    INVALID_OUTPUT = "invalid_output"


class ToolStatus(str, Enum):
    """How a tool call ended (`post_tool_call`'s `status`)."""

    SUCCESS = "success"
    ERROR = "error"
    BLOCKED = "blocked"


def _enum(cls: Type[E], value: Any) -> Union[E, Any]:
    try:
        return cls(value)
    except ValueError:
        return value


def _known(cls: type, data: Dict[str, Any]) -> Dict[str, Any]:
    """The fields of `data` that `cls` declares (the rest stay in the record's `raw`)."""
    names = getattr(cls, "__dataclass_fields__", {})
    return {k: v for k, v in data.items() if k in names and k != "raw"}


@dataclass
class HookReport:
    """What happened to one hook in a dispatch."""

    hook: str
    source: str
    status: Union[HookStatus, str]
    detail: Optional[str]
    ms: float
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "HookReport":
        return cls(
            hook=data.get("hook", ""),
            source=data.get("source", ""),
            status=_enum(HookStatus, data.get("status")),
            detail=data.get("detail"),
            ms=float(data.get("ms") or 0.0),
            raw=data,
        )


@dataclass
class Diagnostic:
    """One problem a dispatch or a reload ran into (a hook's stderr, an unusable answer, a
    broken file, ...): the record type of `logs/events.jsonl`, and whatever the sidecar says
    of it. Fields the sidecar does not send are None; every field it sent is in `raw`."""

    type: str
    hook: Optional[str]
    source: Optional[str]
    detail: str
    event: Optional[str] = None
    tool: Optional[str] = None
    returncode: Optional[int] = None
    signal: Optional[int] = None
    timeout_seconds: Optional[float] = None
    stdout: Optional[str] = None
    stderr: Optional[str] = None
    output: Optional[str] = None
    file: Optional[str] = None
    line: Optional[int] = None
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Diagnostic":
        values = _known(cls, data)
        values.setdefault("type", "")
        values.setdefault("hook", None)
        values.setdefault("source", None)
        values.setdefault("detail", "")
        returncode = values.get("returncode")
        # An exit status is a number; older sidecars sent prose ("exit status 2: ...").
        if returncode is not None and not isinstance(returncode, int):
            values["returncode"] = None
        return cls(**values, raw=data)


@dataclass
class Outcome:
    """The answer to one event: what the host must apply."""

    event: str
    decision: Union[Decision, str]
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
        return self.decision == Decision.BLOCK

    @classmethod
    def unheard(cls, event: str, payload: Dict[str, Any], why: str) -> "Outcome":
        """The outcome of an event the sidecar refused to read (larger than its cap): no hook
        ran, which the user is told in `warnings`; the call goes on unchanged."""
        warning = f"the hooks did not run on {event}: {why}"
        return cls(
            event=event,
            decision=Decision.CONTINUE,
            reason=None,
            result=None,
            payload=dict(payload),
            context=[],
            notes=[],
            warnings=[warning],
            model=None,
            display=None,
            stop=None,
            hooks=[],
            changed=[],
            diagnostics=[
                Diagnostic(type="hook_payload_too_large", hook=None, source=None, detail=why)
            ],
        )

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Outcome":
        stop = data.get("stop")
        return cls(
            event=data["event"],
            decision=_enum(Decision, data["decision"]),
            reason=data.get("reason"),
            result=data.get("result"),
            payload=data.get("payload") or {},
            context=list(data.get("context") or []),
            notes=list(data.get("notes") or []),
            warnings=list(data.get("warnings") or []),
            model=data.get("model"),
            display=data.get("display"),
            stop=stop.get("reason") if isinstance(stop, dict) else None,
            hooks=[HookReport.from_json(h) for h in data.get("hooks") or []],
            changed=list(data.get("changed") or []),
            diagnostics=[Diagnostic.from_json(d) for d in data.get("diagnostics") or []],
            raw=data,
        )


@dataclass
class ToolCall:
    """How one tool call went through the hooks (see `call_tool`)."""

    tool_name: str
    input: Any  # the input the tool ran with, after hooks' rewrites
    status: Union[ToolStatus, str]
    result: Any  # what the agent sees (a hook's synthetic result when blocked)
    blocked_reason: Optional[str]
    notes: List[str]
    warnings: List[str]
    stop: Optional[str]  # a hook asked to end the turn: end it after this call
    outcomes: List[Outcome]
    error: Optional[BaseException] = None  # what the tool raised, when it did

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


class _Mapping:
    """Typed answers also read as the JSON they came from (`health()["workspace"]`)."""

    raw: Dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)


@dataclass
class Health(_Mapping):
    """`GET /v1/health`. Without the token, a TCP caller learns only `ok` and `auth`."""

    ok: bool
    workspace: Optional[str]
    hooks: Optional[int]
    master_enabled: Optional[bool]
    config_errors: Optional[int]
    uptime_s: Optional[int]
    auth: Optional[str]
    warning: Optional[str]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Health":
        return cls(
            ok=bool(data.get("ok")),
            workspace=data.get("workspace"),
            hooks=data.get("hooks"),
            master_enabled=data.get("master_enabled"),
            config_errors=data.get("config_errors"),
            uptime_s=data.get("uptime_s"),
            auth=data.get("auth"),
            warning=data.get("warning"),
            raw=data,
        )


@dataclass
class HookInfo(_Mapping):
    """One declared hook, as `GET /v1/hooks` lists it (every field the sidecar sends is in
    `raw`)."""

    name: str
    source: str
    events: List[str]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "HookInfo":
        return cls(
            name=data.get("name", ""),
            source=data.get("source", ""),
            events=list(data.get("events") or []),
            raw=data,
        )


@dataclass
class HookList(_Mapping):
    """`GET /v1/hooks`: the master switch, every hook, and the configuration's problems."""

    master_enabled: bool
    hooks: List[HookInfo]
    diagnostics: List[Diagnostic]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "HookList":
        return cls(
            master_enabled=bool(data.get("master_enabled")),
            hooks=[HookInfo.from_json(h) for h in data.get("hooks") or []],
            diagnostics=[Diagnostic.from_json(d) for d in data.get("diagnostics") or []],
            raw=data,
        )


@dataclass
class Reloaded(_Mapping):
    """`POST /v1/reload`: how many hooks are in force now, and the configuration's problems."""

    hooks: int
    errors: List[str]
    diagnostics: List[Diagnostic]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Reloaded":
        return cls(
            hooks=int(data.get("hooks") or 0),
            errors=list(data.get("errors") or []),
            diagnostics=[Diagnostic.from_json(d) for d in data.get("diagnostics") or []],
            raw=data,
        )
