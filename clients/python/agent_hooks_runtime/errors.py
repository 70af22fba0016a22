"""The exceptions a host catches, one class per way a request can fail, all under
`AgentHooksError` (whose `status` is the HTTP status, 0 when the sidecar could not be reached)."""

from __future__ import annotations

from typing import Dict, Type


class AgentHooksError(Exception):
    """The sidecar refused the request ({"ok": false, "error": ...}) or could not be reached
    (status 0). `message` is the sidecar's own words."""

    def __init__(self, status: int, message: str):
        super().__init__(f"agent-hooks sidecar: {message} (HTTP {status})")
        self.status = status
        self.message = message


class BadRequest(AgentHooksError):
    """400/404/405/422: the request itself is wrong (an unknown event, a payload that is not an
    object, a field named as another dialect names it). Fix the call; retrying will not help."""


class Unauthorized(AgentHooksError):
    """401/403: the caller is not the sidecar's owner (wrong token, another uid)."""


class TooLarge(AgentHooksError):
    """413: the request was larger than the sidecar reads (`sidecar.max_body`); no hook ran."""


class Unavailable(AgentHooksError):
    """The sidecar could not be reached (status 0), or answered that it cannot serve now
    (502/503/504). The hooks did not run: the host decides whether that fails open."""


class HookFailure(AgentHooksError):
    """500: the dispatch failed inside the sidecar, so the hooks' verdict is unknown."""


_BY_STATUS: Dict[int, Type[AgentHooksError]] = {
    0: Unavailable,
    400: BadRequest,
    401: Unauthorized,
    403: Unauthorized,
    404: BadRequest,
    405: BadRequest,
    413: TooLarge,
    422: BadRequest,
    500: HookFailure,
    502: Unavailable,
    503: Unavailable,
    504: Unavailable,
}


def error_for(status: int, message: str) -> AgentHooksError:
    """The exception of the class that `status` means."""
    cls = _BY_STATUS.get(status)
    if cls is None:
        cls = BadRequest if 400 <= status < 500 else HookFailure
    return cls(status, message)
