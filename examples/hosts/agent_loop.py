"""A small agent loop put on the agent-hooks sidecar with the Python client: a fake model asks
for Bash tool calls, each goes through the hooks (`call_tool`), and the turn ends through the
stop hooks (`Turn`, with their redo loop).

Usage: python3 examples/hosts/agent_loop.py WORKSPACE
(agent-hooks from $AGENT_HOOKS_BIN or PATH)
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from agent_hooks_runtime import AgentHooks, Redo, Sidecar  # noqa: E402


class FakeModel:
    """Stands in for an LLM: the tool calls of its script, then a final answer."""

    def __init__(self, script):
        self.script = list(script)

    def next(self, transcript):
        return self.script.pop(0) if self.script else {"text": "All done."}


def bash(tool_input):
    done = subprocess.run(
        ["sh", "-c", tool_input["command"]], capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"exit status {done.returncode}")
    return done.stdout


def run_turn(hooks, model, session, user_message):
    """One user turn: the model's tool calls through the hooks, then its answer."""
    said = hooks.dispatch("on_user_message", {"session_id": session, "message": user_message})
    if said.blocked:
        return f"(message refused: {said.reason})"
    transcript = [{"role": "user", "content": said.payload.get("message", user_message)}]
    turn, tools = hooks.turn(session), []
    while True:
        step = model.next(transcript)
        if "tool" in step:
            call = hooks.call_tool(session, step["tool"], step["input"], run=bash)
            tools.append(call.tool_name)
            transcript.append({"role": "tool", "content": call.agent_text()})
            print(f"tool {call.tool_name} {call.status}: {call.agent_text().strip()}")
            for warning in call.warnings:
                print(f"warning: {warning}")
            if call.stop:
                return f"(stopped by a hook: {call.stop})"
            continue
        verdict = turn.stop(step["text"], tools)
        if isinstance(verdict, Redo):
            print(f"redo: {verdict.reason}")
            transcript.append({"role": "user", "content": verdict.reason})
            continue
        return step["text"]


def main():
    workspace = os.path.abspath(sys.argv[1])
    model = FakeModel(
        [
            {"tool": "bash", "input": {"command": "echo hello"}},
            {"tool": "bash", "input": {"command": f"rm -rf {workspace}/precious"}},
        ]
    )
    with Sidecar.start(workspace) as sidecar:
        hooks = AgentHooks(sidecar.url)
        hooks.dispatch("on_session_start", {"session_id": "demo", "status": "started"})
        print("reply:", run_turn(hooks, model, "demo", "tidy up the workspace"))
        hooks.dispatch("on_session_end", {"session_id": "demo", "status": "ended"})
        hooks.close()


if __name__ == "__main__":
    main()
