"""A client of the agent-hooks sidecar (`agent-hooks serve`), standard library only.

Usage: python3 client.py [PORT]   (default 8787; `agent-hooks serve --listen` must be running)
"""

import json
import os
import sys
import urllib.error
import urllib.request


def sidecar_token():
    """The bearer token every request needs, from the sidecar's token file."""
    state = os.environ.get("AGENT_HOOKS_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "agent-hooks"
    )
    with open(os.path.join(state, "sidecar.token"), encoding="utf-8") as f:
        return f.read().strip()


class AgentHooksError(Exception):
    """The sidecar answered {"ok": false, "error": ...} or could not be reached."""

    def __init__(self, status, message):
        super().__init__(f"agent-hooks sidecar: {message} (HTTP {status})")
        self.status = status
        self.message = message


class AgentHooks:
    def __init__(self, base_url="http://127.0.0.1:8787", timeout=150.0, token=None):
        # The timeout must outlive the slowest hook: a hook may run up to 120 s.
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.token = token or sidecar_token()

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {self.token}",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as e:
            try:
                message = json.load(e).get("error", e.reason)
            except ValueError:
                message = e.reason
            raise AgentHooksError(e.code, message) from None
        except urllib.error.URLError as e:
            raise AgentHooksError(0, f"cannot reach {self.base_url}: {e.reason}") from None

    def dispatch(self, event, payload):
        """Fires `event` and returns the outcome: decision, reason, payload, context, ..."""
        return self._call("POST", f"/v1/events/{event}", payload)

    def approve(self, command, enable_master=True):
        """Approves every event `command` is declared for (it must be declared already)."""
        body = {"command": command, "enable_master": enable_master}
        return self._call("POST", "/internal/runtime/hooks/approve", body)

    def command(self, line):
        """Runs a `/hooks ...` command line and returns the text a user would see."""
        return self._call("POST", "/v1/hooks/command", {"line": line})["text"]

    def health(self):
        return self._call("GET", "/v1/health")


def main():
    port = sys.argv[1] if len(sys.argv) > 1 else "8787"
    hooks = AgentHooks(f"http://127.0.0.1:{port}")
    print("hooks:", hooks.health()["hooks"])
    outcome = hooks.dispatch(
        "pre_tool_call",
        {"tool_name": "bash", "tool_input": {"command": "rm -rf /"}},
    )
    print("decision:", outcome["decision"])
    print("reason:", outcome["reason"])
    if outcome["decision"] == "continue":
        # Run the tool with the (possibly rewritten) input the hooks left.
        print("tool_input:", json.dumps(outcome["payload"]["tool_input"]))


if __name__ == "__main__":
    try:
        main()
    except AgentHooksError as e:
        sys.exit(str(e))
