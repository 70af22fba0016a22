"""A client of the agent-hooks sidecar (`agent-hooks serve`), standard library only.

    from agent_hooks import AgentHooks, Sidecar
    with Sidecar.start("/path/to/workspace") as sidecar:
        hooks = AgentHooks(sidecar.url)
        call = hooks.call_tool("s1", "bash", {"command": "ls"}, run=my_bash)
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
