"""`AgentHooksInterceptor` registered on AGENT-HOOKS-0.1's own emitter (`agent-hooks-sdk`),
through a real `agent-hooks serve` ($AGENT_HOOKS_BIN), over a workspace holding each kind of
hook: command, HTTP (a server in this process), built-in (`security_guard`), skill and
Claude Code. Every answer of the sidecar passes the SDK's gates (the response envelope and the
verdict), and every lapse is a deny.

These tests need `agent-hooks-sdk==0.1.0b3` in the interpreter, so they only load when
`AGENT_HOOKS_STANDARDS_TESTS=1` (crates/agent-hooks-cli/tests/cli/standards.rs sets it and
runs them with the pinned interpreter of `$AGENT_HOOKS_STANDARDS_PYTHON`); a plain `unittest
discover` without the SDK leaves them out.
"""

import asyncio
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

BIN = os.environ.get("AGENT_HOOKS_BIN", "agent-hooks")


def load_tests(loader, standard_tests, pattern):
    if os.environ.get("AGENT_HOOKS_STANDARDS_TESTS") != "1":
        return unittest.TestSuite()
    return loader.loadTestsFromTestCase(InterceptorOnTheSidecar)


GUARD = r"""#!/bin/sh
input=$(cat)
case "$input" in
  *crash*) echo "the guard crashed" >&2; exit 1 ;;
  *'rm -rf'*) echo '{"decision": "block", "reason": "no rm -rf"}' ;;
  *'please confirm'*) echo '{"decision": "ask", "reason": "a person must confirm"}' ;;
  *secret.txt*) echo '{"tool_input": {"path": "redacted.txt"}}' ;;
  *shout*) echo '{"message": "SHOUT"}' ;;
esac
"""

SKILL = r"""#!/bin/sh
input=$(cat)
case "$input" in
  *'"tool": "launch"'*) echo '{"_block": {"reason": "launches are off", "result": "not launched"}}' ;;
esac
"""

CLAUDE = r"""#!/bin/sh
case "$(cat)" in
  *forbidden.example*) echo "that site is forbidden" >&2; exit 2 ;;
esac
"""


class HttpGuard(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        answer = {}
        if b"evil.example" in body:
            answer = {"decision": "block", "reason": "the HTTP guard refuses evil.example"}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def write(root, path, text, mode=None):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    if mode:
        os.chmod(full, mode)


def approve(root, what):
    # The HTTP hook is on loopback: allowed for the approval as for the sidecar.
    env = dict(os.environ, AGENT_HOOKS_HTTP_ALLOW_LOCAL="1")
    subprocess.run(
        [BIN, "--workspace", root, "approve", what], check=True, stdout=subprocess.DEVNULL, env=env
    )


class InterceptorOnTheSidecar(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from agent_hooks import AgentContextBuilder  # noqa: F401  (fails loudly without the SDK)

        cls.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HttpGuard)
        threading.Thread(target=cls.http.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.http.shutdown()
        cls.http.server_close()

    def setUp(self):
        from agent_hooks_runtime import Sidecar

        self.root = tempfile.mkdtemp(prefix="agent-hooks-standards")
        url = f"http://127.0.0.1:{self.http.server_address[1]}/hook"
        root = self.root
        write(root, "config/agent.yaml", "shell_hooks:\n  enabled: true\n")
        write(root, "hooks/guard.sh", GUARD, 0o755)
        write(
            root,
            "config/shell_hooks.yaml",
            "hooks:\n"
            "  - {event: pre_tool_call, command: hooks/guard.sh, name: guard}\n"
            "  - {event: on_user_message, command: hooks/guard.sh, name: guard}\n"
            "  - {event: post_tool_call, command: hooks/guard.sh, name: guard}\n"
            f"  - {{event: pre_tool_call, type: http, url: '{url}', name: http-guard}}\n"
            "  - {event: pre_tool_call, type: builtin, name: security_guard}\n",
        )
        write(root, "skills/s/hook.sh", SKILL, 0o755)
        write(
            root,
            "skills/s/hooks.json",
            json.dumps(
                {"hooks": [{"name": "launch-policy", "command": "sh hook.sh", "events": ["pre_tool_call"]}]}
            ),
        )
        write(root, ".claude/hooks/fetch.sh", CLAUDE, 0o755)
        write(
            root,
            ".claude/settings.json",
            json.dumps(
                {
                    "hooks": {
                        "PreToolUse": [
                            {
                                "matcher": "WebFetch",
                                "hooks": [{"type": "command", "command": ".claude/hooks/fetch.sh"}],
                            }
                        ]
                    }
                }
            ),
        )
        for what in ("hooks/guard.sh", url, "builtin:security_guard", ".claude/hooks/fetch.sh"):
            approve(root, what)
        self.sidecar = Sidecar.start(root, binary=BIN, env={"AGENT_HOOKS_HTTP_ALLOW_LOCAL": "1"})

    def tearDown(self):
        if self.sidecar is not None:
            self.sidecar.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def run_async(self, coroutine):
        return asyncio.run(coroutine)

    async def emit(self, build):
        """Emits `build(builder)` through the SDK's emitter holding only our interceptor;
        returns the record, the response the sidecar gave, and the context after the emission."""
        from agent_hooks import AgentContextBuilder, InterceptionEmitter, InterceptorResponse
        from agent_hooks import _core
        from agent_hooks_runtime import AsyncAgentHooks
        from agent_hooks_runtime.standards import AgentHooksInterceptor

        async with AsyncAgentHooks(self.sidecar.url if self.sidecar else None) as client:
            interceptor = AgentHooksInterceptor(client)
            emitter = InterceptionEmitter()
            emitter.register(interceptor, name="agent-hooks")
            ctx = build(AgentContextBuilder(agent_id="a", framework="tests", session_id="s1"))
            response = await interceptor.respond(dict(ctx))
            # The SDK's own gates, on the wire form and on the bare verdict.
            InterceptorResponse.parse(json.dumps(response.to_wire()))
            _core.validate_verdict(json.dumps(response.verdict.to_wire()))
            record = await emitter.emit_unchecked(ctx)
            return record, response, ctx

    def verdict(self, build):
        record, response, ctx = self.run_async(self.emit(build))
        verdict = response.verdict.to_wire()
        # The record keeps the decision, payload-free: no transform value, no evidence.
        combined = record.verdict.to_wire()
        for key in ("decision", "reason", "message"):
            self.assertEqual(combined.get(key), verdict.get(key), key)
        return verdict, response, ctx

    def test_every_point_is_answered_with_a_valid_verdict(self):
        builds = [
            lambda b: b.agent_startup(tools_registered=["read"]),
            lambda b: b.input(content="hello", role="user"),
            lambda b: b.pre_model_call(model_id="m", messages=[{"role": "user", "content": "hi"}]),
            lambda b: b.post_model_call(model_id="m", content="hi", tool_calls=[], finish_reason="stop"),
            lambda b: b.pre_tool_call(call_id="c", name="read", args={"path": "a.txt"}),
            lambda b: b.post_tool_call(call_id="c", name="read", args={"path": "a.txt"}, value="x"),
            lambda b: b.output(content="done"),
            lambda b: b.agent_shutdown(reason="completed"),
        ]
        for build in builds:
            verdict, response, _ = self.verdict(build)
            self.assertEqual(verdict["decision"], "allow", response.extensions)
            self.assertIn("events", response.extensions["agent_hooks_runtime"])

    def test_a_command_hook_blocks_asks_and_rewrites(self):
        verdict, _, _ = self.verdict(
            lambda b: b.pre_tool_call(call_id="c", name="bash", args={"command": "rm -rf /"})
        )
        self.assertEqual((verdict["decision"], verdict["reason"]), ("deny", "hook:guard"))
        self.assertEqual(verdict["message"], "no rm -rf")
        self.assertNotIn("approval", verdict)

        verdict, _, _ = self.verdict(
            lambda b: b.pre_tool_call(call_id="c", name="bash", args={"command": "please confirm"})
        )
        self.assertEqual((verdict["decision"], verdict["approval"]), ("deny", {}))

        verdict, _, ctx = self.verdict(
            lambda b: b.pre_tool_call(call_id="c", name="read", args={"path": "secret.txt"})
        )
        self.assertEqual(verdict["transform"], {"path": "$target", "value": {"path": "redacted.txt"}})
        self.assertEqual(ctx["tool_call"]["args"], {"path": "redacted.txt"})

        verdict, _, ctx = self.verdict(lambda b: b.input(content="shout it", role="user"))
        self.assertEqual(verdict["transform"]["path"], "$target.content")
        self.assertEqual(ctx["input"]["content"], "SHOUT")

    def test_an_http_hook_blocks(self):
        verdict, _, _ = self.verdict(
            lambda b: b.pre_tool_call(call_id="c", name="fetch", args={"url": "https://evil.example"})
        )
        self.assertEqual(verdict["reason"], "hook:http-guard")
        self.assertEqual(verdict["message"], "the HTTP guard refuses evil.example")

    def test_the_built_in_guard_asks_and_warns(self):
        verdict, response, _ = self.verdict(
            lambda b: b.pre_tool_call(
                call_id="c", name="bash", args={"command": "git push --force origin main"}
            )
        )
        self.assertEqual(verdict["decision"], "deny", response.extensions)
        self.assertEqual(verdict["reason"], "hook:security_guard")
        self.assertEqual(verdict["approval"], {})

        verdict, _, _ = self.verdict(
            lambda b: b.pre_tool_call(call_id="c", name="bash", args={"command": "cat ~/.ssh/id_rsa"})
        )
        self.assertEqual(verdict["decision"], "allow")
        self.assertIn("reads a credential file", verdict["warnings"][0]["message"])

    def test_a_skill_hook_blocks_with_a_synthetic_result(self):
        verdict, response, _ = self.verdict(
            lambda b: b.pre_tool_call(call_id="c", name="launch", args={"target": "moon"})
        )
        self.assertEqual((verdict["decision"], verdict["reason"]), ("deny", "hook:launch-policy"))
        (event,) = response.extensions["agent_hooks_runtime"]["events"]
        self.assertEqual(event["result"], "not launched")

    def test_a_claude_code_hook_blocks(self):
        verdict, _, _ = self.verdict(
            lambda b: b.pre_tool_call(call_id="c", name="WebFetch", args={"url": "https://forbidden.example"})
        )
        self.assertEqual(verdict["decision"], "deny")
        self.assertEqual(verdict["message"], "that site is forbidden")

    def test_a_failing_hook_denies_even_after_the_tool_ran(self):
        verdict, response, _ = self.verdict(
            lambda b: b.post_tool_call(call_id="c", name="read", args={}, value="crash")
        )
        self.assertEqual(
            (verdict["decision"], verdict["reason"]), ("deny", "runtime_error:hook_failed")
        )
        (event,) = response.extensions["agent_hooks_runtime"]["events"]
        self.assertEqual(event["lapses"][0]["hook"], "guard")

    def test_a_sidecar_that_is_gone_denies(self):
        self.sidecar.stop()
        self.sidecar = None
        os.environ["AGENT_HOOKS_WORKSPACE"] = self.root
        try:
            verdict, response, _ = self.verdict(
                lambda b: b.pre_tool_call(call_id="c", name="read", args={"path": "a.txt"})
            )
        finally:
            del os.environ["AGENT_HOOKS_WORKSPACE"]
        self.assertEqual(
            (verdict["decision"], verdict["reason"]), ("deny", "runtime_error:sidecar_unavailable")
        )

    def test_the_host_runs_the_workspace_hooks_as_its_interceptor(self):
        from agent_hooks import InterceptionBlocked
        from agent_hooks_runtime import AsyncAgentHooks
        from agent_hooks_runtime.standards import StandardsHost

        async def session():
            async with AsyncAgentHooks(self.sidecar.url) as client:
                host = StandardsHost.with_hooks(client, session_id="s2")
                await host.startup(["bash", "read"])
                ran = []
                value = await host.call_tool(
                    "c1", "read", {"path": "secret.txt"}, lambda args: ran.append(args) or "ok"
                )
                with self.assertRaises(InterceptionBlocked):
                    await host.call_tool("c2", "bash", {"command": "rm -rf /"}, ran.append)
                await host.shutdown()
                return value, ran, host.records

        value, ran, records = self.run_async(session())
        self.assertEqual((value, ran), ("ok", [{"path": "redacted.txt"}]))
        points = [r.interception_point.value for r in records]
        self.assertEqual(
            points,
            ["agent_startup", "pre_tool_call", "post_tool_call", "pre_tool_call", "agent_shutdown"],
        )
        self.assertTrue(all(r.input_identity for r in records))


if __name__ == "__main__":
    unittest.main()
