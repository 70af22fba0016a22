"""`agent-hooks ahp-serve` ($AGENT_HOOKS_BIN) as a stdio backend of the Agent Hooks Protocol
SDK's own harness (`agenthooksprotocol.Hooks`, which validates every response against the
protocol's bundled schemas and the request's grants before it settles), over a workspace with a
command hook; the raw frames, checked here against the same schemas; and the other way round, a
backend written with the SDK's server (`agenthooksprotocol.server`, which validates every
request) declared as a `type: ahp` hook of a workspace.

Loaded only with `AGENT_HOOKS_STANDARDS_TESTS=1`, in an interpreter with
`agenthooksprotocol==0.10.1` (see test_standards.py).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

BIN = os.environ.get("AGENT_HOOKS_BIN", "agent-hooks")


def load_tests(loader, standard_tests, pattern):
    if os.environ.get("AGENT_HOOKS_STANDARDS_TESTS") != "1":
        return unittest.TestSuite()
    suite = unittest.TestSuite()
    for case in (AhpBackend, AhpHook):
        suite.addTests(loader.loadTestsFromTestCase(case))
    return suite


GUARD = r"""#!/bin/sh
input=$(cat)
case "$input" in
  *crash*) echo "the guard crashed" >&2; exit 1 ;;
  *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;;
  *'please confirm'*) echo '{"decision": "ask", "reason": "a person must confirm"}' ;;
  *secret.txt*) echo '{"tool_input": {"path": "redacted.txt"}}' ;;
esac
"""


class AhpBackend(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="agent-hooks-ahp")
        os.makedirs(os.path.join(self.root, "config"))
        os.makedirs(os.path.join(self.root, "hooks"))
        with open(os.path.join(self.root, "config", "agent.yaml"), "w") as f:
            f.write("shell_hooks:\n  enabled: true\n")
        with open(os.path.join(self.root, "config", "shell_hooks.yaml"), "w") as f:
            f.write(
                "hooks:\n"
                "  - {event: pre_tool_call, command: hooks/guard.sh, name: guard}\n"
                "  - {event: on_user_message, command: hooks/guard.sh, name: guard}\n"
            )
        guard = os.path.join(self.root, "hooks", "guard.sh")
        with open(guard, "w") as f:
            f.write(GUARD)
        os.chmod(guard, 0o755)
        subprocess.run(
            [BIN, "--workspace", self.root, "approve", "hooks/guard.sh"],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def registration(
        self, lifecycle="persistent", policy="fail-closed", subscriptions=True, transport=None
    ):
        backend = {
            "id": "dev.agent-hooks.workspace",
            "transport": transport
            or {
                "type": "stdio",
                "command": BIN,
                "args": ["--workspace", self.root, "ahp-serve"],
                "lifecycle": lifecycle,
            },
        }
        if subscriptions:
            backend["subscriptions"] = [
                {
                    "events": ["tool.before"],
                    "mode": "intercept",
                    "timeoutMs": 10000,
                    "failurePolicy": policy,
                    "content": {"default": "metadata"},
                }
            ]
        return {"protocolVersion": "draft", "hooks": [backend]}

    def tool_before(self, args, modify=True, ask=False, **registration):
        import anyio
        from agenthooksprotocol import Hooks, Permission, capability, event, state
        from agenthooksprotocol.runtime import Validator

        grants = {"allow": True, "deny": True, "ask": ask}
        if modify:
            grants["modify_input"] = capability.Modify.REPLACE

        async def run():
            async with Hooks(
                self.registration(**registration),
                source="urn:agent-hooks:tests",
                harness=event.Harness(name="agent-hooks-tests", version="1"),
                capabilities=capability.HostCapabilities(
                    tool_before=capability.ToolBeforeCapabilities(
                        intercept=capability.ToolBeforeIntercept(**grants)
                    )
                ),
            ) as hooks:
                result = await hooks.tool_before(
                    event.ToolBeforeInput(
                        call_id="call-1", name="bash", input=args, path="native", origin="native"
                    ),
                    initial_state=state.initial(Permission.NONE),
                )
                return result, hooks.configuration_diagnostics

        result, discovery = anyio.run(run)
        validator = Validator()
        for response in result.accepted_responses:
            validator.validate("intercept-response", dict(response))
        return result, discovery

    def test_a_block_is_a_deny_and_a_rewrite_replaces_the_input(self):
        result, _ = self.tool_before({"command": "rm -rf /"})
        self.assertEqual(result.permission.value, "deny")
        (response,) = result.accepted_responses
        self.assertEqual(response["result"]["effects"], [{"type": "deny", "reason": "no rm -rf"}])

        result, _ = self.tool_before({"path": "secret.txt"})
        self.assertEqual(result.input, {"path": "redacted.txt"})
        self.assertEqual(result.permission.value, "none")

        result, _ = self.tool_before({"command": "ls"})
        self.assertEqual(result.permission.value, "none")
        self.assertEqual(result.accepted_responses[0]["result"]["effects"], [])
        self.assertEqual(result.diagnostics, [])

    def test_an_ask_is_asked_only_where_the_request_advertises_it(self):
        result, _ = self.tool_before({"command": "please confirm"}, ask=True)
        self.assertEqual(result.permission.value, "ask")
        result, _ = self.tool_before({"command": "please confirm"}, ask=False)
        self.assertEqual(result.permission.value, "deny")

    def test_a_rewrite_the_request_cannot_take_falls_to_the_subscriptions_fail_mode(self):
        result, _ = self.tool_before({"path": "secret.txt"}, modify=False)
        self.assertEqual(result.permission.value, "deny")
        self.assertEqual([d["code"] for d in result.diagnostics], ["remote_rpc"])
        self.assertEqual(result.input, {"path": "secret.txt"})

    def test_a_lapse_honours_each_subscriptions_fail_mode(self):
        closed, _ = self.tool_before({"path": "crash"}, policy="fail-closed")
        self.assertEqual(closed.permission.value, "deny")
        opened, _ = self.tool_before({"path": "crash"}, policy="fail-open")
        self.assertEqual(opened.permission.value, "none")
        for result in (closed, opened):
            self.assertEqual([d["code"] for d in result.diagnostics], ["remote_rpc"])

    def test_per_event_processes_and_discovered_subscriptions(self):
        result, _ = self.tool_before({"command": "rm -rf /"}, lifecycle="per_event")
        self.assertEqual(result.permission.value, "deny")
        result, discovery = self.tool_before({"command": "rm -rf /"}, subscriptions=False)
        self.assertEqual(discovery, [])
        self.assertEqual(result.permission.value, "deny")

    def test_a_user_message_is_judged_on_its_text_with_the_discovered_subscription(self):
        import anyio
        from agenthooksprotocol import Hooks, capability, event

        async def run(text):
            async with Hooks(
                self.registration(subscriptions=False),
                source="urn:agent-hooks:tests",
                harness=event.Harness(name="agent-hooks-tests", version="1"),
                capabilities=capability.HostCapabilities(
                    user_message_inbound=capability.UserMessageInboundCapabilities(
                        intercept=capability.UserMessageInboundIntercept(deny=True)
                    )
                ),
            ) as hooks:
                message = {"id": "m1", "role": "user", "parts": [{"kind": "text", "text": text}]}
                inbound = {"message": {"channel": "chat", "sender": "u1", "messages": [message]}}
                return await hooks.dispatch("user.message.inbound", inbound)

        denied = anyio.run(run, "please rm -rf everything")
        self.assertEqual(denied.permission.value, "deny")
        self.assertEqual(
            denied.accepted_responses[0]["result"]["effects"],
            [{"type": "deny", "reason": "no rm -rf"}],
        )
        self.assertEqual(anyio.run(run, "hello").permission.value, "none")

    def test_the_sidecar_is_the_same_backend_over_http(self):
        from agent_hooks_runtime import Sidecar
        from agent_hooks_runtime.endpoint import read_token

        sidecar = Sidecar.start(self.root, binary=BIN, listen="127.0.0.1:0")
        try:
            transport = {
                "type": "http",
                "url": sidecar.url + "/v1/standards/ahp",
                "headers": {"Authorization": "Bearer " + read_token()},
            }
            result, _ = self.tool_before({"command": "rm -rf /"}, transport=transport)
            self.assertEqual(result.permission.value, "deny")
            self.assertEqual(result.diagnostics, [])
            result, discovery = self.tool_before(
                {"path": "secret.txt"}, transport=transport, subscriptions=False
            )
            self.assertEqual(discovery, [])
            self.assertEqual(result.input, {"path": "redacted.txt"})
        finally:
            sidecar.stop()

    def test_raw_frames_are_schema_valid(self):
        from agenthooksprotocol.runtime import Validator

        validator = Validator()
        event = {
            "id": "e-1",
            "source": "urn:agent-hooks:tests",
            "type": "tool.before",
            "time": "2026-01-01T00:00:00Z",
            "harness": {"name": "agent-hooks-tests", "version": "1"},
            "call": {"id": "call-1"},
            "tool": {"name": "bash", "input": {"command": "rm -rf /"}, "origin": "native"},
            "path": "native",
        }
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "hooks/configuration",
             "params": {"protocolVersion": "draft"}},
            {"jsonrpc": "2.0", "id": "e-1", "method": "hooks/intercept",
             "params": {"protocolVersion": "draft", "event": event,
                        "capabilities": {"effects": ["deny"]},
                        "state": {"permission": "none", "candidate": None}}},
            {"jsonrpc": "2.0", "method": "hooks/observe",
             "params": {"protocolVersion": "draft", "event": dict(event, id="e-2")}},
            {"jsonrpc": "2.0", "id": 3, "method": "hooks/intercept",
             "params": {"protocolVersion": "0.1", "event": event, "capabilities": {"effects": []}}},
            {"jsonrpc": "2.0", "id": 4, "method": "hooks/nothing", "params": {}},
        ]
        validator.validate("configuration-request", requests[0])
        validator.validate("intercept-request", requests[1])
        validator.validate("observe-notification", requests[2])
        stdin = "".join(json.dumps(r) + "\n" for r in requests) + "{not json\n"
        out = subprocess.run(
            [BIN, "--workspace", self.root, "ahp-serve"],
            input=stdin.encode(),
            capture_output=True,
            check=True,
        )
        answers = [json.loads(line) for line in out.stdout.decode().splitlines()]
        # The notification is never answered.
        self.assertEqual(len(answers), 5, answers)
        configuration, deny, version, unknown, parse = answers
        validator.validate("configuration-response", configuration)
        validator.validate("configuration", configuration["result"]["configuration"])
        validator.validate("intercept-response", deny)
        self.assertEqual(deny["id"], "e-1")
        self.assertEqual(deny["result"]["effects"], [{"type": "deny", "reason": "no rm -rf"}])
        for error in (version, unknown, parse):
            validator.validate("json-rpc-message", error)
        self.assertEqual(version["error"]["code"], -32001)
        self.assertEqual(version["error"]["data"], {"supported": ["draft"]})
        self.assertEqual(unknown["error"]["code"], -32601)
        self.assertEqual((parse["id"], parse["error"]["code"]), (None, -32700))


BACKEND = r"""
import anyio
from agenthooksprotocol.server import hooks, serve
from agenthooksprotocol import effect


def before(ctx):
    args = ctx.raw["params"]["event"]["tool"]["input"]
    if "rm -rf" in args.get("command", ""):
        return hooks.ToolBeforeReply(effects=(effect.DenyEffect(reason="the AHP backend refuses rm -rf"),))
    if args.get("path") == "secret.txt":
        return hooks.ToolBeforeReply(effects=(hooks.ReplaceInput({"path": "redacted.txt"}),))
    if args.get("path") == "confirm.txt":
        return hooks.ToolBeforeReply(effects=(effect.AskEffect(),))
    if args.get("path") == "crash.txt":
        raise RuntimeError("the backend crashed")
    return hooks.ToolBeforeReply()


anyio.run(serve, hooks.Handlers(intercept=hooks.InterceptHandlers(tool_before=before)))
"""


class AhpHook(unittest.TestCase):
    def setUp(self):
        from agent_hooks_runtime import AgentHooks, Sidecar

        self.root = tempfile.mkdtemp(prefix="agent-hooks-ahp-hook")
        os.makedirs(os.path.join(self.root, "config"))
        os.makedirs(os.path.join(self.root, "hooks"))
        with open(os.path.join(self.root, "hooks", "backend.py"), "w") as f:
            f.write(BACKEND)
        with open(os.path.join(self.root, "config", "agent.yaml"), "w") as f:
            f.write("shell_hooks:\n  enabled: true\n")
        # The backend runs on this interpreter, which has the SDK.
        command = f"{sys.executable} hooks/backend.py"
        with open(os.path.join(self.root, "config", "shell_hooks.yaml"), "w") as f:
            f.write(
                "hooks:\n"
                f"  - {{event: pre_tool_call, type: ahp, command: '{command}', name: policy}}\n"
            )
        subprocess.run(
            [BIN, "--workspace", self.root, "approve", command],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.sidecar = Sidecar.start(self.root, binary=BIN)
        self.hooks = AgentHooks(self.sidecar.url)

    def tearDown(self):
        self.hooks.close()
        self.sidecar.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def fire(self, args):
        return self.hooks.dispatch("pre_tool_call", {"tool_name": "bash", "tool_input": args})

    def test_the_backends_effects_are_the_hooks_answer(self):
        denied = self.fire({"command": "rm -rf /"})
        self.assertEqual(denied.decision, "block")
        self.assertEqual(denied.reason, "the AHP backend refuses rm -rf")
        self.assertEqual(denied.hooks[0].hook, "policy")

        rewritten = self.fire({"path": "secret.txt"})
        self.assertEqual(rewritten.decision, "continue")
        self.assertEqual(rewritten.payload["tool_input"], {"path": "redacted.txt"})

        asked = self.fire({"path": "confirm.txt"})
        self.assertEqual(asked.decision, "ask")

        clean = self.fire({"path": "a.txt"})
        self.assertEqual(clean.decision, "continue")
        self.assertEqual(clean.hooks[0].status, "noop")
        self.assertEqual(clean.raw["lapses"], [])

    def test_a_backend_error_is_a_failing_hook(self):
        # The SDK's server answers a raising callback with "Backend internal error".
        outcome = self.fire({"path": "crash.txt"})
        self.assertEqual(outcome.decision, "continue")
        self.assertEqual(outcome.hooks[0].status, "error", outcome.hooks)
        self.assertIn("-32004", outcome.hooks[0].detail)
        self.assertEqual([l["kind"] for l in outcome.raw["lapses"]], ["hook_failed"])


if __name__ == "__main__":
    unittest.main()
