"""The Python client against a real `agent-hooks serve` ($AGENT_HOOKS_BIN) on a workspace of
sh hooks: a guard that blocks `rm -rf` and rewrites `ls`, a post_tool_call recorder, and an
on_stop verifier that asks for one redo."""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from agent_hooks_runtime import (  # noqa: E402
    AgentHooks,
    AgentHooksError,
    AsyncAgentHooks,
    AsyncSidecar,
    BadRequest,
    Decision,
    Health,
    HookStatus,
    Redo,
    Sidecar,
    Stop,
    TooLarge,
    ToolStatus,
    Unauthorized,
    Unavailable,
)

BIN = os.environ.get("AGENT_HOOKS_BIN", "agent-hooks")

HOOKS = {
    "guard.sh": r"""
input=$(cat)
case "$input" in
  *'rm -rf'*) echo '{"decision": "block", "reason": "[security] no rm -rf: rm -rf /"}' ;;
  *'"command":"ls"'*) echo "guard looked" >&2; echo '{"tool_input": {"command": "ls -a"}}' ;;
esac
""",
    "post.sh": r"""
cat >> "$AGENT_HOOKS_WORKSPACE/post.jsonl"
echo >> "$AGENT_HOOKS_WORKSPACE/post.jsonl"
""",
    "verify.sh": r"""
case "$(cat)" in
  *'"stop_hook_active":false'*) echo '{"decision": "block", "reason": "run the tests first"}' ;;
esac
""",
}

YAML = """hooks:
  - event: pre_tool_call
    command: hooks/guard.sh
    name: guard
  - event: post_tool_call
    command: hooks/post.sh
    name: post
  - event: on_stop
    command: hooks/verify.sh
    name: verify
"""


def workspace():
    root = tempfile.mkdtemp(prefix="agent-hooks-py")
    os.makedirs(os.path.join(root, "config"))
    os.makedirs(os.path.join(root, "hooks"))
    with open(os.path.join(root, "config", "agent.yaml"), "w") as f:
        f.write("shell_hooks:\n  enabled: true\n")
    with open(os.path.join(root, "config", "shell_hooks.yaml"), "w") as f:
        f.write(YAML)
    for name, body in HOOKS.items():
        path = os.path.join(root, "hooks", name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        subprocess.run(
            [BIN, "--workspace", root, "approve", "hooks/" + name],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return root


def posts(root):
    path = os.path.join(root, "post.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class OnSidecar(unittest.TestCase):
    """A workspace (with what `prepare` adds), its sidecar, and a sync client of it."""

    def prepare(self, root):
        pass

    def setUp(self):
        self.root = workspace()
        self.prepare(self.root)
        self.sidecar = Sidecar.start(self.root, binary=BIN)
        self.hooks = AgentHooks(self.sidecar.url)

    def tearDown(self):
        self.hooks.close()
        self.assertEqual(self.sidecar.stop(), 0)
        subprocess.run(["rm", "-rf", self.root], check=True)


class SyncClient(OnSidecar):

    def test_dispatch_returns_a_typed_outcome_with_diagnostics_and_changed_fields(self):
        outcome = self.hooks.dispatch(
            "pre_tool_call", {"tool_name": "bash", "tool_input": {"command": "ls"}}
        )
        self.assertEqual(outcome.decision, "continue")
        self.assertEqual(outcome.payload["tool_input"], {"command": "ls -a"})
        self.assertEqual(outcome.changed, ["tool_input"])
        stderr = [d for d in outcome.diagnostics if d.type == "hook_stderr"]
        self.assertEqual(len(stderr), 1)
        self.assertEqual((stderr[0].hook, stderr[0].detail), ("guard", "guard looked"))
        self.assertEqual(outcome.hooks[0].hook, "guard")

    def test_a_blocked_call_never_runs_the_tool_and_post_tool_call_sees_it_blocked(self):
        ran = []
        call = self.hooks.call_tool(
            "s1", "bash", {"command": "rm -rf /"}, run=lambda i: ran.append(i)
        )
        self.assertEqual(ran, [])
        self.assertEqual(call.status, "blocked")
        self.assertEqual(call.blocked_reason, "[security] no rm -rf: rm -rf /")
        self.assertEqual(call.agent_text(), "[blocked by a hook] [security] no rm -rf: rm -rf /")
        self.assertEqual(len(call.outcomes), 2)
        (post,) = posts(self.root)
        self.assertEqual(post["status"], "blocked")
        self.assertEqual(post["block_reason"], call.blocked_reason)

    def test_the_tool_runs_with_the_rewritten_input_and_every_event_fires(self):
        call = self.hooks.call_tool(
            "s1", "bash", {"command": "ls"}, run=lambda i: "ran " + i["command"]
        )
        self.assertEqual(call.status, "success")
        self.assertEqual(call.input, {"command": "ls -a"})
        self.assertEqual(call.result, "ran ls -a")
        self.assertEqual(
            [o.event for o in call.outcomes],
            ["pre_tool_call", "transform_tool_result", "post_tool_call"],
        )
        (post,) = posts(self.root)
        self.assertEqual(post["status"], "success")
        self.assertIn("duration_seconds", post)

    def test_a_tool_that_raises_is_seen_by_the_hooks_then_raised_again(self):
        def fails(_):
            raise PermissionError("denied")

        with self.assertRaises(PermissionError):
            self.hooks.call_tool("s1", "bash", {"command": "cat x"}, run=fails)
        (post,) = posts(self.root)
        self.assertEqual((post["error"], post["error_class"]), ("denied", "PermissionError"))
        self.assertEqual(post["status"], "error")
        call = self.hooks.call_tool(
            "s1", "bash", {"command": "cat x"}, run=fails, reraise=False
        )
        self.assertEqual((call.status, call.result), (ToolStatus.ERROR, "denied"))
        self.assertIsInstance(call.error, PermissionError)

    def test_call_tool_passes_the_hosts_fields_and_may_skip_transform(self):
        call = self.hooks.call_tool(
            "s1",
            "bash",
            {"command": "pwd"},
            run=lambda i: "/",
            fields={"channel_id": "c1", "current_event": None},
            transform=False,
        )
        self.assertEqual([o.event for o in call.outcomes], ["pre_tool_call", "post_tool_call"])
        (post,) = posts(self.root)
        self.assertEqual((post["channel_id"], post["current_event"]), ("c1", None))
        with self.assertRaises(ValueError):
            self.hooks.call_tool("s1", "bash", {}, run=lambda i: i, fields={"status": "x"})

    def test_answers_are_typed(self):
        outcome = self.hooks.dispatch(
            "pre_tool_call", {"tool_name": "bash", "tool_input": {"command": "ls"}}
        )
        self.assertIs(outcome.decision, Decision.CONTINUE)
        self.assertEqual(outcome.decision, "continue")
        self.assertIs(outcome.hooks[0].status, HookStatus.OK)
        health = self.hooks.health()
        self.assertIsInstance(health, Health)
        self.assertEqual((health.hooks, health.master_enabled), (3, True))
        listing = self.hooks.hooks()
        self.assertEqual([h.name for h in listing.hooks], ["guard", "post", "verify"])
        self.assertEqual(self.hooks.reload().hooks, 3)
        package = os.path.join(os.path.dirname(__file__), "..", "agent_hooks_runtime", "py.typed")
        self.assertTrue(os.path.exists(package))

    def test_errors_have_a_class_per_cause(self):
        with self.assertRaises(BadRequest) as bad:
            self.hooks.dispatch("pre_tool", {})
        self.assertEqual(bad.exception.status, 404)
        with self.assertRaises(BadRequest) as misnamed:
            self.hooks.dispatch("pre_tool_call", {"tool": "bash", "args": {"command": "ls"}})
        self.assertEqual(misnamed.exception.status, 400)
        self.assertIn("tool_name", misnamed.exception.message)
        gone = AgentHooks("unix:" + os.path.join(self.root, "no.sock"))
        with self.assertRaises(Unavailable):
            gone.health()
        gone.close()

    def test_turn_redoes_once_then_stops(self):
        turn = self.hooks.turn("s1")
        self.assertEqual(turn.stop("done"), Redo(reason="run the tests first"))
        self.assertEqual(turn.redo_count, 1)
        self.assertEqual(turn.stop("done, tests pass"), Stop(warnings=[]))

    def test_the_sidecar_is_on_its_socket_and_the_default_url_finds_it(self):
        self.assertTrue(self.sidecar.url.startswith("unix:"), self.sidecar.url)
        saved = os.environ.get("AGENT_HOOKS_WORKSPACE")
        os.environ["AGENT_HOOKS_WORKSPACE"] = self.root
        try:
            found = AgentHooks()
        finally:
            if saved is None:
                del os.environ["AGENT_HOOKS_WORKSPACE"]
            else:
                os.environ["AGENT_HOOKS_WORKSPACE"] = saved
        self.assertEqual(found.url, self.sidecar.url)
        self.assertEqual(found.health()["workspace"], os.path.realpath(self.root))
        found.close()

    def test_a_second_client_attaches_to_the_url_and_errors_are_raised(self):
        other = AgentHooks(self.sidecar.url)
        self.assertEqual(other.health()["hooks"], 3)
        names = [h["name"] for h in other.hooks()["hooks"]]
        self.assertEqual(names, ["guard", "post", "verify"])
        with self.assertRaises(AgentHooksError) as refused:
            other.dispatch("pre_tool", {})
        self.assertEqual(refused.exception.status, 404)
        self.assertIn('did you mean "pre_tool_call"', refused.exception.message)
        other.close()


class TcpClient(unittest.TestCase):
    def setUp(self):
        self.root = workspace()
        self.sidecar = Sidecar.start(self.root, binary=BIN, listen="127.0.0.1:0")

    def tearDown(self):
        self.assertEqual(self.sidecar.stop(), 0)
        subprocess.run(["rm", "-rf", self.root], check=True)

    def test_over_tcp_both_clients_send_the_token_file_and_a_wrong_token_is_refused(self):
        self.assertTrue(self.sidecar.url.startswith("http://127.0.0.1:"), self.sidecar.url)
        hooks = AgentHooks(self.sidecar.url)
        self.assertEqual([h["name"] for h in hooks.hooks()["hooks"]], ["guard", "post", "verify"])
        hooks.close()

        async def scenario():
            async with AsyncAgentHooks(self.sidecar.url) as hooks:
                return await hooks.hooks()

        self.assertEqual(len(asyncio.run(scenario())["hooks"]), 3)
        stranger = AgentHooks(self.sidecar.url, token="0" * 64)
        with self.assertRaises(Unauthorized) as refused:
            stranger.hooks()
        self.assertEqual(refused.exception.status, 401)
        self.assertIn("not this sidecar's", refused.exception.message)
        stranger.close()


class AsyncClient(unittest.TestCase):
    def setUp(self):
        self.root = workspace()
        self.sidecar = Sidecar.start(self.root, binary=BIN)

    def tearDown(self):
        self.assertEqual(self.sidecar.stop(), 0)
        subprocess.run(["rm", "-rf", self.root], check=True)

    def test_call_tool_turn_and_concurrent_dispatches(self):
        async def scenario():
            async with AsyncAgentHooks(self.sidecar.url) as hooks:

                async def run(tool_input):
                    await asyncio.sleep(0)
                    return "ran " + tool_input["command"]

                call = await hooks.call_tool("s1", "bash", {"command": "ls"}, run=run)
                blocked = await hooks.call_tool("s1", "bash", {"command": "rm -rf /"}, run=run)
                turn = hooks.turn("s1")
                verdicts = [await turn.stop("done"), await turn.stop("done")]
                many = await asyncio.gather(
                    *[hooks.dispatch("on_session_end", {"status": "x"}) for _ in range(20)]
                )
                return call, blocked, verdicts, many

        call, blocked, verdicts, many = asyncio.run(scenario())
        self.assertEqual((call.status, call.result), ("success", "ran ls -a"))
        self.assertEqual(blocked.status, "blocked")
        self.assertEqual(verdicts, [Redo(reason="run the tests first"), Stop(warnings=[])])
        self.assertEqual({o.event for o in many}, {"on_session_end"})

    def test_async_parity_and_reuse_across_event_loops(self):
        hooks = AsyncAgentHooks(self.sidecar.url)

        async def first():
            return (await hooks.health(), await hooks.reload(), await hooks.command("list"))

        async def second():
            outcome = await hooks.dispatch("on_session_end", {"status": "x"})
            await hooks.close()
            return outcome

        health, reloaded, listed = asyncio.run(first())
        self.assertEqual((health.hooks, reloaded.hooks), (3, 3))
        self.assertIn("guard", listed)
        # The same client under a second asyncio.run(): its old connections are dropped.
        self.assertEqual(asyncio.run(second()).event, "on_session_end")


LIFE = """{"hooks": [
  {"name": "life", "command": "cat > /dev/null; echo $HOOK_EVENT >> life.txt",
   "events": ["pre_startup", "post_startup", "pre_shutdown", "post_shutdown"]},
  {"name": "mark", "command": "cat > /dev/null; echo $MARK >> mark.txt",
   "events": ["pre_prompt"]}
]}"""


class Lifecycle(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="agent-hooks-py")
        os.makedirs(os.path.join(self.root, "skills", "probe"))
        with open(os.path.join(self.root, "skills", "probe", "hooks.json"), "w") as f:
            f.write(LIFE)

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.root], check=True)

    def lines(self, name):
        path = os.path.join(self.root, "skills", "probe", name)
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().split()

    def test_the_host_owns_the_lifecycle_by_default_and_env_reaches_the_hooks(self):
        sidecar = Sidecar.start(self.root, binary=BIN, env={"MARK": "from-start"})
        hooks = AgentHooks(sidecar.url)
        hooks.dispatch("pre_prompt", {"prompt": "hi"})
        hooks.close()
        self.assertEqual(sidecar.stop(), 0)
        self.assertEqual(self.lines("life.txt"), [])
        self.assertEqual(self.lines("mark.txt"), ["from-start"])

        sidecar = Sidecar.start(self.root, binary=BIN, host_lifecycle=False)
        self.assertEqual(sidecar.stop(), 0)
        self.assertEqual(
            self.lines("life.txt"),
            ["pre_startup", "post_startup", "pre_shutdown", "post_shutdown"],
        )

    def test_the_hosts_environment_at_call_time_reaches_the_hooks(self):
        sidecar = Sidecar.start(self.root, binary=BIN, env={"MARK": "at-start"})
        hooks = AgentHooks(sidecar.url)
        hooks.dispatch("pre_prompt", {"prompt": "hi"}, env={"MARK": "at-call"})
        hooks.dispatch("pre_prompt", {"prompt": "hi"})
        with self.assertRaises(BadRequest):
            hooks.request("POST", "/v1/events/pre_prompt", {"env": {"MARK": 1}})
        hooks.close()
        self.assertEqual(sidecar.stop(), 0)
        self.assertEqual(self.lines("mark.txt"), ["at-call", "at-start"])

    def test_async_sidecar_starts_and_stops_without_blocking_the_loop(self):
        async def scenario():
            sidecar = await AsyncSidecar.start(self.root, binary=BIN, env={"MARK": "async"})
            async with AsyncAgentHooks(sidecar.url) as hooks:
                outcome = await hooks.dispatch("pre_prompt", {"prompt": "hi"})
            return outcome, await sidecar.stop()

        outcome, code = asyncio.run(scenario())
        self.assertEqual((outcome.event, code), ("pre_llm_call", 0))
        self.assertEqual(self.lines("mark.txt"), ["async"])


class Limits(unittest.TestCase):
    def setUp(self):
        self.root = workspace()
        with open(os.path.join(self.root, "config", "agent.yaml"), "a") as f:
            f.write("sidecar:\n  max_body: 4096\n")
        self.sidecar = Sidecar.start(self.root, binary=BIN)

    def tearDown(self):
        self.assertEqual(self.sidecar.stop(), 0)
        subprocess.run(["rm", "-rf", self.root], check=True)

    def test_a_request_beyond_the_cap_is_too_large(self):
        hooks = AgentHooks(self.sidecar.url)
        with self.assertRaises(TooLarge) as refused:
            hooks.dispatch("on_session_end", {"status": "x" * 10000})
        self.assertEqual(refused.exception.status, 413)
        self.assertIsInstance(refused.exception, AgentHooksError)
        # Through call_tool the cap fails the hooks, visibly, and the tool still runs.
        call = hooks.call_tool("s1", "write", {"text": "y" * 10000}, run=lambda i: len(i["text"]))
        self.assertEqual((call.status, call.result), ("success", 10000))
        self.assertEqual(len(call.warnings), 2, call.warnings)
        self.assertIn("the hooks did not run on pre_tool_call", call.warnings[0])
        self.assertEqual(call.outcomes[0].diagnostics[0].type, "hook_payload_too_large")
        hooks.close()


class ExactNumbers(OnSidecar):
    """What Python's JSON holds and a double cannot: integers of any size, NaN, the infinities."""

    def prepare(self, root):
        skill = os.path.join(root, "skills", "echo")
        os.makedirs(skill)
        with open(os.path.join(skill, "hooks.json"), "w") as f:
            json.dump({"hooks": [{"name": "echo", "command": "tee -a seen.jsonl", "events": ["pre_tool_call"]}]}, f)

    def test_a_tools_big_integer_and_nan_reach_the_hook_and_come_back_unchanged(self):
        big = 2**100 + 7
        args = {"id": big, "neg": -big, "x": float("nan"), "up": float("inf"), "down": float("-inf")}
        call = self.hooks.call_tool("s1", "t", args, run=lambda i: i)
        self.assertEqual(call.status, "success", call.warnings)
        got = call.result
        self.assertEqual((got["id"], got["neg"]), (big, -big))
        self.assertIsInstance(got["id"], int)
        self.assertTrue(got["x"] != got["x"], "NaN")
        self.assertEqual((got["up"], got["down"]), (float("inf"), float("-inf")))
        with open(os.path.join(self.root, "skills", "echo", "seen.jsonl")) as f:
            seen = f.readline()
        self.assertIn('"id": %d, "neg": -%d, "x": NaN, "up": Infinity, "down": -Infinity' % (big, big), seen)


if __name__ == "__main__":
    unittest.main()
