"""agent-hooks through AGENT-HOOKS-0.1 (`agent-hooks-sdk` on PyPI, import name `agent_hooks`):
an interceptor any conforming host registers, and a host whose agent loop emits the standard's
eight points through the SDK's own emitter. Needs `pip install agent-hooks-sdk==0.1.0b3`; the
rest of this package needs nothing beyond the standard library.

- `AgentHooksInterceptor`: the workspace's whole policy as one async interceptor. Each context
  goes to the sidecar's `POST /v1/standards/agent-hooks/intercept`, which maps the point to
  the canonical event, runs the hooks and answers the verdict (`docs/standards.md`). A sidecar
  that cannot be reached, or a policy that could not be fully evaluated, is a `deny` with a
  `runtime_error:` reason: fail-closed, as the standard asks.
- `StandardsHost`: an agent loop's side. It owns the context builder and an
  `InterceptionEmitter` (composition, identities, records and the approval seam are the SDK's,
  untouched) and offers one call per point; a deny raises `InterceptionBlocked`.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from typing import Any, Awaitable, Callable, Dict, List, Optional, Union

from agent_hooks import (
    AgentContext,
    AgentContextBuilder,
    EnforcementMode,
    InterceptionEmitter,
    InterceptionPoint,
    InterceptionRecord,
    InterceptorResponse,
    Verdict,
)
from agent_hooks.composition import CompositionConfig

from .aio import AsyncAgentHooks
from .errors import AgentHooksError

#: The sidecar's route for one interception.
ROUTE = "/v1/standards/agent-hooks/intercept"

#: Where our account of a verdict (events fired, each hook's report, diagnostics, lapses)
#: travels in the interceptor response; `agent_hooks` is the standard's own namespace.
EXTENSION = "agent_hooks_runtime"

#: The name the interceptor is registered under, as records show it.
NAME = "agent-hooks"


class AgentHooksInterceptor:
    """The workspace's hooks as one AGENT-HOOKS-0.1 interceptor, on the sidecar at `client`
    (an `AsyncAgentHooks`; a URL or None builds one as `AsyncAgentHooks` does)."""

    def __init__(self, client: Union[AsyncAgentHooks, str, None] = None):
        self.client = client if isinstance(client, AsyncAgentHooks) else AsyncAgentHooks(client)

    async def intercept(self, context: AgentContext) -> Verdict:
        return (await self.respond(context)).verdict

    async def respond(self, context: AgentContext) -> InterceptorResponse:
        """The verdict with our account of it under `extensions["agent_hooks_runtime"]`."""
        try:
            answer = await self.client.request("POST", ROUTE, context)
        except AgentHooksError as e:
            # Convert, don't raise: a raise reaches the host as `host_error:interceptor_failed`
            # and the reason would be lost.
            return _unjudged("sidecar_unavailable", str(e))
        except asyncio.TimeoutError:
            return _unjudged("sidecar_timeout", "the sidecar did not answer in time")
        try:
            return InterceptorResponse.parse(answer)
        except ValueError as e:
            return _unjudged("response_invalid", f"the sidecar's answer is not a verdict: {e}")


def _unjudged(code: str, message: str) -> InterceptorResponse:
    return InterceptorResponse(
        verdict=Verdict.deny(reason=f"runtime_error:{code}", message=message),
        extensions={EXTENSION: {"error": message}},
    )


class ToolResult:
    """What a tool returns to `StandardsHost.call_tool` when its result is an error the model
    should see (`is_error`) rather than an exception."""

    def __init__(self, value: Any, is_error: bool = False):
        self.value = value
        self.is_error = is_error


#: The eight points, in lifecycle order: the host emits every one.
POINTS = [p.value for p in InterceptionPoint]


def declaration(
    host_id: str = "agent-hooks-runtime", capabilities: Optional[List[str]] = None
) -> Dict[str, Any]:
    """This host's declaration document (AGENT-HOOKS-0.1 §7.7), without bindings: every
    point, every composition profile and knob, buffered output. `capabilities` are the
    surface's (model and tool calls by default); the emitter built from it with
    `InterceptionEmitter.from_declaration_value` is what `StandardsHost` runs."""
    return {
        "declaration": "agent-hooks-declaration/1.0",
        "spec": "agent-hooks/0.1",
        "id": host_id,
        "host": {"name": host_id, "version": "0.1.0"},
        "configuration": {
            "mode": "enforce",
            "composition": {"profile": "sequential/first_deny", "on_approval": "stop"},
            "identity_provider": "jcs-sha256",
            "approval": {"resolver": None, "redactor": None},
            "posture": {"tool_seam_host_error": "continue"},
            "timeouts": {"interceptor_ms": 5000, "approval_resolver_ms": 5000},
            "records": {"max_buffered": None},
        },
        "surface": {
            "interception_points": list(POINTS),
            "capabilities": sorted(capabilities or ["model_calls", "tool_calls"]),
            "profiles": {
                "sequential/first_deny": {"on_approval": ["resume", "stop"]},
                "sequential/run_all": {},
                "parallel/strictest": {"on_transform_conflict": ["approval", "deny"]},
                "parallel/unanimous": {"on_disagreement": ["approval", "deny"]},
            },
            "buffered_output": True,
            "declaration_versions": ["agent-hooks-declaration/1.0"],
        },
        "bindings": [],
        "extensions": {},
    }


class StandardsHost:
    """One agent session emitting AGENT-HOOKS-0.1's points through `emitter`.

    Every call builds the point's context, emits it and returns what the action must consume
    (the target after any transform); a verdict that stops the action raises
    `agent_hooks.InterceptionBlocked` carrying the record. Output is buffered: `output()` hands
    back the text to show only once its verdict allows it.
    """

    def __init__(
        self,
        emitter: InterceptionEmitter,
        agent_id: str = "agent",
        framework: str = "agent-hooks-runtime",
        session_id: Optional[str] = None,
    ):
        self.emitter = emitter
        self.builder = AgentContextBuilder(
            agent_id=agent_id,
            framework=framework,
            session_id=session_id or str(uuid.uuid4()),
        )

    @classmethod
    def with_hooks(
        cls,
        client: Union[AsyncAgentHooks, str, None] = None,
        mode: str = "enforce",
        composition: Optional[CompositionConfig] = None,
        resolver: Any = None,
        others: Optional[List[Any]] = None,
        **session: Any,
    ) -> "StandardsHost":
        """A host whose emitter runs the workspace's hooks (first), then `others`."""
        emitter = InterceptionEmitter(
            mode=EnforcementMode(mode), resolver=resolver, composition=composition
        )
        emitter.register(AgentHooksInterceptor(client), name=NAME)
        for other in others or []:
            emitter.register(other)
        return cls(emitter, **session)

    @property
    def records(self) -> List[InterceptionRecord]:
        """One payload-free record per emission, in order (the SDK's)."""
        return self.emitter.results

    async def startup(self, tools: List[str]) -> None:
        await self.emitter.emit(self.builder.agent_startup(tools_registered=sorted(tools)))

    async def input(self, content: Any, role: str = "user") -> Any:
        ctx = self.builder.input(content=content, role=role)
        await self.emitter.emit(ctx)
        return ctx["input"]["content"]

    async def pre_model_call(
        self, model_id: str, messages: List[Dict[str, Any]]
    ) -> List[Dict[str, Any]]:
        """The messages the model is to be sent."""
        ctx = self.builder.pre_model_call(model_id=model_id, messages=list(messages))
        await self.emitter.emit(ctx)
        return ctx["messages"]

    async def post_model_call(
        self,
        model_id: str,
        content: Any,
        tool_calls: List[Dict[str, Any]],
        finish_reason: str,
    ) -> Any:
        """The reply as the loop may use it."""
        ctx = self.builder.post_model_call(
            model_id=model_id,
            content=content,
            tool_calls=list(tool_calls),
            finish_reason=finish_reason,
        )
        await self.emitter.emit(ctx)
        return ctx["response"]

    async def call_tool(
        self,
        call_id: str,
        name: str,
        args: Dict[str, Any],
        run: Callable[[Dict[str, Any]], Union[Any, Awaitable[Any]]],
    ) -> Any:
        """`pre_tool_call`, the tool on the arguments as they stand after it, `post_tool_call`.
        `run` returns the value, or raises (the tool's error goes to `post_tool_call` as an
        error result, then is raised again). Returns the result to incorporate; a deny at
        `post_tool_call` withholds it (raises)."""
        ctx = self.builder.pre_tool_call(call_id=call_id, name=name, args=dict(args))
        await self.emitter.emit(ctx)
        args = ctx["tool_call"]["args"]
        failure: Optional[BaseException] = None
        is_error = False
        try:
            value = run(dict(args))
            if inspect.isawaitable(value):
                value = await value
        except Exception as e:  # the tool's failure is reported, then raised again
            failure, value, is_error = e, str(e), True
        if isinstance(value, ToolResult):
            value, is_error = value.value, value.is_error
        after = self.builder.post_tool_call(
            call_id=call_id, name=name, args=dict(args), value=value, is_error=is_error
        )
        await self.emitter.emit(after)
        if failure is not None:
            raise failure
        return after["tool_result"]["value"]

    async def output(self, content: Any) -> Any:
        """The final output to release, after its verdict."""
        ctx = self.builder.output(content=content)
        await self.emitter.emit(ctx)
        return ctx["output"]["content"]

    async def shutdown(self, reason: str = "completed") -> InterceptionRecord:
        """`agent_shutdown`: recorded, never raised (the session ends either way)."""
        return await self.emitter.emit_unchecked(self.builder.agent_shutdown(reason=reason))


__all__ = [
    "EXTENSION",
    "NAME",
    "ROUTE",
    "AgentHooksInterceptor",
    "InterceptionPoint",
    "StandardsHost",
    "ToolResult",
    "declaration",
]
