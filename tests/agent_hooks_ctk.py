#!/usr/bin/env python3
"""AGENT-HOOKS-0.1's conformance kit against this runtime's host, `StandardsHost`
(clients/python/agent_hooks_runtime/standards.py).

    python3 tests/agent_hooks_ctk.py [--verbose]

Needs an interpreter with `agent-hooks-sdk==0.1.0b3` installed (`.ci/run` makes one); the
vectors are the ones that release ships (MIT, github.com/responsibleai/agent-hooks), read from
the installed package at run time, never copied here. The kit's own reference harness runs
the same vectors first: every vector it passes must pass here, and a vector it skips is
skipped here for the same reason. Prints one line per vector that did not pass, then
`N passed, M failed, K skipped`; exits 1 on any failure.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

try:
    from agent_hooks import InterceptionBlocked, InterceptionEmitter  # noqa: E402
    from agent_hooks.ctk import (  # noqa: E402
        Capability,
        RunOutcome,
        RunRecord,
        Scenario,
        load_vectors,
        redact_paths,
        run_vector,
    )
    from agent_hooks.ctk.reference import ReferenceHarness  # noqa: E402
    from agent_hooks.declaration import HostRegistry, HostSurface  # noqa: E402
except ImportError as e:
    sys.exit(f"agent_hooks_ctk: needs agent-hooks-sdk==0.1.0b3 in this interpreter ({e})")

from agent_hooks_runtime.standards import StandardsHost, ToolResult, declaration  # noqa: E402

#: The SDK release whose vectors this claim is about.
PINNED = "0.1.0b3"


class RuntimeHarness:
    """The kit's harness seam over `StandardsHost`: the vector's scripted interceptors are
    bound by index through the kit's `ctk.instance` kind, the emitter is built from this
    host's declaration, and the scenario is driven through the host's calls."""

    name = "agent-hooks-runtime"
    capabilities = frozenset(
        {
            Capability.MODEL_CALLS,
            Capability.TOOL_CALLS,
            Capability.INT64_JSON,
            # Python holds integers past 2^64 exactly.
            Capability.BIGINT_JSON,
            Capability.HOST_DECLARATION,
        }
    )
    tool_seam_host_error = "continue"

    def __init__(self) -> None:
        self._scenario: Optional[Scenario] = None
        self._host: Optional[StandardsHost] = None
        self._tools: List[Dict[str, Any]] = []

    def host_surface(self) -> HostSurface:
        return HostSurface.from_capabilities(
            sorted(c.value for c in self.capabilities), self.tool_seam_host_error
        )

    def declaration(self) -> Dict[str, Any]:
        return declaration(capabilities=sorted(c.value for c in self.capabilities))

    def setup(
        self,
        scenario: Scenario,
        interceptors: List[Any],
        resolver: Any,
        mode: Any,
        composition: Any = None,
        identity_provider: Optional[str] = "jcs-sha256",
        redact_for_approval: Optional[List[str]] = None,
    ) -> None:
        doc = self.declaration()
        cfg = doc["configuration"]
        cfg["mode"] = mode.value
        if composition is not None:
            cfg["composition"] = composition.to_wire()
        registry = HostRegistry.for_conformance(self.host_surface())
        if identity_provider == "ctk-fault":

            def fault(_ctx: Any) -> str:
                raise RuntimeError("ctk scripted provider fault")

            registry.identity_provider("ctk-fault", fault)
        cfg["identity_provider"] = identity_provider
        if resolver is not None:
            registry.approval_resolver("ctk-scripted", resolver)
        paths = list(redact_for_approval or [])
        if paths:
            registry.approval_redactor("ctk-redact", lambda ctx: redact_paths(ctx, paths))
        cfg["approval"] = {
            "resolver": "ctk-scripted" if resolver is not None else None,
            "redactor": "ctk-redact" if paths else None,
        }
        slots: List[Any] = list(interceptors)

        def instance(config: Any, ctx: Any) -> Any:
            i = config.get("index") if isinstance(config, dict) else None
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(slots):
                raise ValueError(f"no interceptor instance {i!r} for binding {ctx.id}")
            return slots[i]

        registry.kind("ctk.instance", instance)
        doc["bindings"] = [
            {"id": f"interceptor-{i}", "kind": "ctk.instance", "config": {"index": i}}
            for i in range(len(slots))
        ]
        self._start(scenario, InterceptionEmitter.from_declaration_value(doc, registry))

    def setup_declared(self, scenario: Scenario, document: Any, registry: HostRegistry) -> None:
        self._start(scenario, InterceptionEmitter.from_declaration_value(document, registry))

    def _start(self, scenario: Scenario, emitter: InterceptionEmitter) -> None:
        self._scenario = scenario
        self._tools = []
        self._host = StandardsHost(emitter, agent_id="ctk-agent", framework=self.name)

    async def run(self) -> RunRecord:
        assert self._scenario is not None and self._host is not None
        s, host = self._scenario, self._host
        outcome, final = RunOutcome.COMPLETED, None
        try:
            await host.startup(list(s.tools))
            await host.input(s.input["content"], s.input["role"])
            messages = [{"role": s.input["role"], "content": s.input["content"]}]
            for reply in s.model_script:
                messages = await host.pre_model_call("mock", messages)
                await host.post_model_call(
                    "mock", reply.content, reply.tool_calls, reply.finish_reason
                )
                if not reply.tool_calls:
                    final = reply.content
                    break
                for call in reply.tool_calls:
                    try:
                        value = await host.call_tool(
                            call["id"], call["name"], dict(call["args"]), self._tool(call["name"])
                        )
                    except InterceptionBlocked as e:
                        value = f"blocked: {e.result.verdict.reason}"
                    messages.append({"role": "tool", "content": value})
                messages.append({"role": "assistant", "content": reply.content or ""})
            if final is not None:
                final = await host.output(final)
        except InterceptionBlocked:
            outcome, final = RunOutcome.BLOCKED, None
        await host.shutdown("completed" if outcome is RunOutcome.COMPLETED else "error")
        return RunRecord(
            outcome=outcome,
            final_output=final,
            tool_invocations=list(self._tools),
            identities=[(r.input_identity, r.enforced_identity) for r in host.records],
            records=[r.to_wire() for r in host.records],
        )

    def _tool(self, name: str) -> Any:
        assert self._scenario is not None
        spec = self._scenario.tools[name]

        def run(args: Dict[str, Any]) -> ToolResult:
            value, is_error = spec.invoke(args)
            self._tools.append({"name": name, "args": dict(args)})
            return ToolResult(value, is_error)

        return run

    def teardown(self) -> None:
        self._scenario = self._host = None


async def main(verbose: bool) -> int:
    from importlib.metadata import version

    installed = version("agent-hooks-sdk")
    if installed != PINNED:
        print(f"agent_hooks_ctk: agent-hooks-sdk {installed} is installed, the kit's is {PINNED}")
        return 1
    passed = failed = skipped = 0
    for vector in load_vectors():
        reference = await run_vector(ReferenceHarness(), vector)
        ours = await run_vector(RuntimeHarness(), vector)
        if reference.status == "skip":
            if ours.status == "skip":
                skipped += 1
                print(f"skip {ours.id}: {ours.detail}")
                continue
            # A vector the reference cannot run is no claim either way; ours must not fail it.
        if ours.status == "pass":
            passed += 1
            if verbose:
                print(f"pass {ours.id}")
        elif ours.status == "skip":
            failed += 1
            print(f"FAIL {ours.id}: skipped here ({ours.detail}), {reference.status} on the reference")
        else:
            failed += 1
            why = "; ".join(ours.failures) or ours.detail
            print(f"FAIL {ours.id} ({ours.title}): {why}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main("--verbose" in sys.argv[1:])))
