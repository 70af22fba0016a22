"""A small agent loop put on the agent-hooks sidecar with the Python client: a fake model asks
for Bash tool calls, each goes through the hooks (`call_tool`), and the turn ends through the
stop hooks (`Turn`, with their redo loop).

Usage: python3 examples/hosts/agent_loop.py [WORKSPACE]
(agent-hooks from $AGENT_HOOKS_BIN or PATH)

With no WORKSPACE it runs on the example workspace (examples/workspace) and approves that
workspace's hooks first, as examples/demo.sh does. The model's dangerous call is an
`rm -rf` of a scratch directory this script makes and removes itself, so whatever the
workspace's hooks decide, no file of yours is at stake; the last line says whether a hook
stopped it.
"""

import os
import shutil
import subprocess
import sys
import tempfile

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


def binary():
    """The agent-hooks the sidecar will run, found the way the client finds it."""
    program = os.environ.get("AGENT_HOOKS_BIN") or shutil.which("agent-hooks")
    if not program:
        sys.exit(
            "agent_loop.py: agent-hooks not found: set AGENT_HOOKS_BIN or put it on PATH "
            "(cargo install --locked --path crates/agent-hooks-cli)"
        )
    return program


def approve_example_hooks(program, workspace):
    """Approvals pin this checkout's files, so they are made where the example runs."""
    for command in ("hooks/block_dangerous.sh", "hooks/project_context.sh"):
        subprocess.run(
            [program, "--workspace", workspace, "approve", command],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help")):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    program = binary()
    if len(sys.argv) == 2:
        workspace = os.path.abspath(sys.argv[1])
    else:
        workspace = os.path.normpath(os.path.join(HERE, "..", "workspace"))
        approve_example_hooks(program, workspace)
    scratch = tempfile.mkdtemp(prefix="agent-loop-")
    target = os.path.join(scratch, "precious")
    with open(target, "w") as file:
        file.write("keep me\n")
    model = FakeModel(
        [
            {"tool": "bash", "input": {"command": "echo hello"}},
            {"tool": "bash", "input": {"command": f"rm -rf {target}"}},
        ]
    )
    try:
        with Sidecar.start(workspace, binary=program) as sidecar:
            hooks = AgentHooks(sidecar.url)
            hooks.dispatch("on_session_start", {"session_id": "demo", "status": "started"})
            print("reply:", run_turn(hooks, model, "demo", "tidy up the workspace"))
            hooks.dispatch("on_session_end", {"session_id": "demo", "status": "ended"})
            hooks.close()
        if os.path.exists(target):
            print("scratch file kept: a hook blocked the rm -rf")
        else:
            print("scratch file deleted: no hook of this workspace blocked the rm -rf")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
