"""A client of the agent-hooks sidecar (`agent-hooks serve`), standard library only.

    from agent_hooks_runtime import AgentHooks, Sidecar
    with Sidecar.start("/path/to/workspace") as sidecar:   # on the workspace's Unix socket
        hooks = AgentHooks(sidecar.url)
        call = hooks.call_tool("s1", "bash", {"command": "ls"}, run=my_bash)

`AgentHooks()` with no URL attaches to the socket of `$AGENT_HOOKS_WORKSPACE` (or the current
directory); `AgentHooks("http://127.0.0.1:8787")` to a sidecar on TCP, sending the token of
`~/.local/state/agent-hooks/sidecar.token`. `AsyncAgentHooks` and `AsyncSidecar` are the same
for asyncio.
"""

from .aio import AsyncAgentHooks, AsyncTurn
from .client import AgentHooks, Turn
from .errors import (
    AgentHooksError,
    BadRequest,
    HookFailure,
    TooLarge,
    Unauthorized,
    Unavailable,
)
from .outcome import (
    Decision,
    Diagnostic,
    Health,
    HookInfo,
    HookList,
    HookReport,
    HookStatus,
    Outcome,
    Redo,
    Reloaded,
    Stop,
    ToolCall,
    ToolStatus,
)
from .sidecar import AsyncSidecar, Sidecar

__all__ = [
    "AgentHooks",
    "AgentHooksError",
    "AsyncAgentHooks",
    "AsyncSidecar",
    "AsyncTurn",
    "BadRequest",
    "Decision",
    "Diagnostic",
    "Health",
    "HookFailure",
    "HookInfo",
    "HookList",
    "HookReport",
    "HookStatus",
    "Outcome",
    "Redo",
    "Reloaded",
    "Sidecar",
    "Stop",
    "TooLarge",
    "ToolCall",
    "ToolStatus",
    "Turn",
    "Unauthorized",
    "Unavailable",
]
