"""A client of the agent-hooks sidecar (`agent-hooks serve`), standard library only.

    from agent_hooks import AgentHooks, Sidecar
    with Sidecar.start("/path/to/workspace") as sidecar:   # on the workspace's Unix socket
        hooks = AgentHooks(sidecar.url)
        call = hooks.call_tool("s1", "bash", {"command": "ls"}, run=my_bash)

`AgentHooks()` with no URL attaches to the socket of `$AGENT_HOOKS_WORKSPACE` (or the current
directory); `AgentHooks("http://127.0.0.1:8787")` to a sidecar on TCP, sending the token of
`~/.local/state/agent-hooks/sidecar.token`.
"""

from .aio import AsyncAgentHooks, AsyncTurn
from .client import AgentHooks, AgentHooksError, Turn
from .outcome import Diagnostic, HookReport, Outcome, Redo, Stop, ToolCall
from .sidecar import Sidecar

__all__ = [
    "AgentHooks",
    "AgentHooksError",
    "AsyncAgentHooks",
    "AsyncTurn",
    "Diagnostic",
    "HookReport",
    "Outcome",
    "Redo",
    "Sidecar",
    "Stop",
    "ToolCall",
    "Turn",
]
