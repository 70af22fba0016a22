"""The synchronous client: one keep-alive `http.client` connection to the sidecar (over its Unix
socket, or loopback TCP with the bearer token), and the agent-loop helpers `call_tool` and
`Turn` on top of it."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from typing import Any, Callable, Dict, List, Optional, Union

from . import endpoint
from .errors import AgentHooksError, TooLarge, error_for
from .host import ToolFailed, call_tool_steps, encode, stop_steps
from .outcome import Health, HookList, Outcome, Redo, Reloaded, Stop, ToolCall

# A hook may run up to 120 s; a dispatch waits for its slowest hook.
DEFAULT_TIMEOUT = 150.0


class _UnixConnection(http.client.HTTPConnection):
    """HTTP/1.1 over a Unix domain socket."""

    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


class Credentials:
    """What a request carries to prove its sender: nothing on the socket (the kernel tells the
    sidecar the caller's uid), the bearer token on TCP — `token` when given, else the token
    file's, read again once when the sidecar refuses it (the token was rotated)."""

    def __init__(self, socket_path: Optional[str], token: Optional[str]):
        self._needed = socket_path is None
        self._fixed = token
        self._read: Optional[str] = None

    def headers(self) -> Dict[str, str]:
        if not self._needed:
            return {}
        token = self._fixed or self._read
        if token is None:
            token = self._read = endpoint.read_token()
        return {"Authorization": f"Bearer {token}"}

    def refresh(self) -> bool:
        """After a 401: whether a fresh read of the token file gave another token."""
        if not self._needed or self._fixed is not None:
            return False
        before, self._read = self._read, None
        try:
            return self.headers()["Authorization"] != f"Bearer {before}"
        except OSError:
            return False


class AgentHooks:
    """A client of `agent-hooks serve` at `url`: `unix:/path/to.sock` (what `Sidecar.start`
    gives; the default is the socket of `$AGENT_HOOKS_WORKSPACE` or the current directory), or
    `http://127.0.0.1:PORT` for a sidecar on TCP, with the token of the token file unless
    `token` is given. Thread-safe: calls share one kept-alive connection, one at a time."""

    def __init__(
        self,
        url: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        token: Optional[str] = None,
    ):
        self.url = (url or endpoint.default_url()).rstrip("/")
        self._socket, self._host, self._port = endpoint.parse(self.url)
        self._credentials = Credentials(self._socket, token)
        self._timeout = timeout
        self._conn: Optional[http.client.HTTPConnection] = None
        self._lock = threading.Lock()

    def _connect(self) -> http.client.HTTPConnection:
        if self._socket is not None:
            return _UnixConnection(self._socket, self._timeout)
        return http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> "AgentHooks":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One request; the decoded JSON answer. Raises AgentHooksError on an error status."""
        status, raw, reason = self._send(method, path, body)
        if status == 401 and self._credentials.refresh():
            status, raw, reason = self._send(method, path, body)
        try:
            answer = json.loads(raw) if raw else None
        except ValueError:
            answer = None
        if status >= 400:
            message = answer.get("error") if isinstance(answer, dict) else None
            raise error_for(status, message or reason)
        return answer

    def _send(self, method: str, path: str, body: Any):
        data = None if body is None else encode(body)
        try:
            headers = self._credentials.headers()
        except OSError as e:
            raise error_for(0, str(e)) from None
        if data is not None:
            headers["Content-Type"] = "application/json"
        with self._lock:
            for attempt in (0, 1):
                if self._conn is None:
                    self._conn = self._connect()
                try:
                    try:
                        self._conn.request(method, path, body=data, headers=headers)
                    except (BrokenPipeError, ConnectionResetError):
                        # The sidecar may answer before reading the whole body (413) and close:
                        # its answer is still there to read; without one, the retry below.
                        response = self._answer_after_refusal()
                        if response is None:
                            raise
                    else:
                        response = self._conn.getresponse()
                    raw = response.read()
                    break
                except (http.client.HTTPException, ConnectionError) as e:
                    # The sidecar closes idle kept-alive connections: retry once on a new one.
                    self._conn.close()
                    self._conn = None
                    if attempt == 1:
                        raise error_for(0, f"cannot reach {self.url}: {e}") from None
                except OSError as e:
                    self._conn.close()
                    self._conn = None
                    raise error_for(0, f"cannot reach {self.url}: {e}") from None
        return response.status, raw, response.reason

    def _answer_after_refusal(self) -> Optional[http.client.HTTPResponse]:
        assert self._conn is not None
        try:
            return self._conn.getresponse()
        except (http.client.HTTPException, OSError):
            return None

    def dispatch(
        self,
        event: str,
        payload: Optional[Dict[str, Any]] = None,
        conversation: Optional[List[Dict[str, Any]]] = None,
        channel_id: Any = None,
        env: Optional[Dict[str, str]] = None,
    ) -> Outcome:
        """Fires `event` (canonical, or a dialect's name such as `pre_prompt`) and returns the
        outcome. `conversation` goes only to hooks that ask for it; `channel_id` is the channel
        the host is in, whose messages those hooks get as `channel_messages`. `env` is the
        host's environment as it is now (or the part that changed since the sidecar started):
        command hooks see it over the sidecar's own, under their own `env`."""
        body = dict(payload or {})
        if env:
            # The host's variables now, for command hooks: set after the sidecar started.
            body["env"] = {str(k): str(v) for k, v in env.items()}
        if conversation is not None:
            # With the host's channel, for the hooks' `channel_messages` when the payload has none.
            body["conversation"] = (
                conversation
                if channel_id is None
                else {"messages": conversation, "channel_id": channel_id}
            )
        return Outcome.from_json(self.request("POST", f"/v1/events/{event}", body))

    def call_tool(
        self,
        session_id: str,
        tool_name: str,
        tool_input: Any,
        run: Callable[[Any], Any],
        on_ask: str = "block",
        fields: Optional[Dict[str, Any]] = None,
        transform: bool = True,
        reraise: bool = True,
        env: Optional[Dict[str, str]] = None,
    ) -> ToolCall:
        """Runs one tool call through the hooks: pre_tool_call, then `run(input)` with the
        rewritten input (not called when a hook blocks), then transform_tool_result (unless
        `transform=False`) and post_tool_call. An exception `run` raises is the tool's error:
        post_tool_call sees it, then it is raised again (`reraise=False` returns it in
        `ToolCall.error` instead). `fields` go into every event of the call (`channel_id`);
        `env` gives the hooks variables of the host's environment now (see `dispatch`).
        `on_ask="allow"` when the host asked its user beforehand; otherwise an `ask` is a
        block."""
        steps = call_tool_steps(session_id, tool_name, tool_input, on_ask, fields, transform)
        answer: Any = None
        try:
            while True:
                step = steps.send(answer)
                if step[0] == "dispatch":
                    try:
                        answer = self.dispatch(step[1], step[2], env=env)
                    except TooLarge as e:
                        # A cap fails the hooks, visibly, never the tool call itself.
                        answer = Outcome.unheard(step[1], step[2], e.message)
                else:
                    try:
                        answer = run(step[1])
                    except Exception as e:  # the tool's failure is data for the hooks
                        answer = ToolFailed(e)
        except StopIteration as done:
            call: ToolCall = done.value
        if reraise and call.error is not None:
            raise call.error
        return call

    def turn(self, session_id: str) -> "Turn":
        return Turn(self, session_id)

    def hooks(self) -> HookList:
        """`GET /v1/hooks`: every hook with its source, events, health, ..."""
        return HookList.from_json(self.request("GET", "/v1/hooks"))

    def health(self) -> Health:
        return Health.from_json(self.request("GET", "/v1/health"))

    def reload(self) -> Reloaded:
        return Reloaded.from_json(self.request("POST", "/v1/reload", {}))

    def approve(self, command: str, enable_master: bool = True) -> Dict[str, Any]:
        body = {"command": command, "enable_master": enable_master}
        return self.request("POST", "/internal/runtime/hooks/approve", body)

    def command(self, line: str) -> str:
        return self.request("POST", "/v1/hooks/command", {"line": line})["text"]


class Turn:
    """One user turn of a session: counts the redos stop hooks force, so `redo_count`,
    `stop_hook_active` and the redo cap are right. Make a new Turn for each user turn."""

    def __init__(self, client: AgentHooks, session_id: str):
        self._client = client
        self.session_id = session_id
        self.redo_count = 0

    def stop(self, response: str, tool_names: List[str] = ()) -> Union[Stop, Redo]:
        """Fires on_stop for the final `response`. On Redo, run the model again with the
        reason and call `stop` again on the same Turn."""
        payload = {
            "session_id": self.session_id,
            "response": response,
            "tool_names": list(tool_names),
        }
        return self._decide("on_stop", payload)

    def completion_claim(
        self, goal: str, summary: str, response: str, tool_names: List[str] = ()
    ) -> Union[Stop, Redo]:
        payload = {
            "session_id": self.session_id,
            "goal": goal,
            "summary": summary,
            "response": response,
            "tool_names": list(tool_names),
        }
        return self._decide("on_completion_claim", payload)

    def _decide(self, event: str, payload: Dict[str, Any]) -> Union[Stop, Redo]:
        steps = stop_steps(event, payload, self.redo_count)
        step = next(steps)
        try:
            steps.send(self._client.dispatch(step[1], step[2]))
        except StopIteration as done:
            verdict = done.value
        if isinstance(verdict, Redo):
            self.redo_count += 1
        return verdict
