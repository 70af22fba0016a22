"""The asyncio client: HTTP/1.1 over the sidecar's Unix socket (`asyncio.open_unix_connection`)
or loopback TCP with the bearer token (`asyncio.open_connection`), a small pool of kept-alive
connections so concurrent dispatches do not wait on each other, and the same `call_tool` and
`Turn` as the synchronous client (the steps are shared, see `host.py`)."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple, Union

from . import endpoint
from .client import DEFAULT_TIMEOUT, Credentials
from .errors import TooLarge, error_for
from .host import ToolFailed, call_tool_steps, encode, stop_steps
from .outcome import Health, HookList, Outcome, Redo, Reloaded, Stop, ToolCall

Connection = Tuple[asyncio.StreamReader, asyncio.StreamWriter]


class AsyncAgentHooks:
    """An asyncio client of `agent-hooks serve` at `url` (as `AgentHooks`: `unix:/path`, the
    default socket when None, or `http://HOST:PORT` with the token)."""

    def __init__(
        self,
        url: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_idle: int = 8,
        token: Optional[str] = None,
    ):
        self.url = (url or endpoint.default_url()).rstrip("/")
        self._socket, self._host, self._port = endpoint.parse(self.url)
        self._credentials = Credentials(self._socket, token)
        self._timeout = timeout
        self._idle: List[Connection] = []
        self._max_idle = max_idle
        # The loop the idle connections belong to: streams cannot cross event loops, so a
        # client used again under another `asyncio.run()` starts a fresh pool.
        self._loop: Optional[asyncio.AbstractEventLoop] = None

    async def close(self) -> None:
        idle = self._pool()
        self._idle = []
        for _, writer in idle:
            writer.close()
        for _, writer in idle:
            try:
                await writer.wait_closed()
            except OSError:
                pass

    async def __aenter__(self) -> "AsyncAgentHooks":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        status, raw = await self._send(method, path, body)
        if status == 401 and self._credentials.refresh():
            status, raw = await self._send(method, path, body)
        try:
            answer = json.loads(raw) if raw else None
        except ValueError:
            answer = None
        if status >= 400:
            error = answer.get("error") if isinstance(answer, dict) else None
            raise error_for(status, error or f"status {status}")
        return answer

    async def _open(self) -> Connection:
        if self._socket is not None:
            return await asyncio.open_unix_connection(self._socket)
        return await asyncio.open_connection(self._host, self._port)

    def _pool(self) -> List[Connection]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            stale, self._idle = self._idle, []
            for _, writer in stale:
                try:
                    writer.close()
                except RuntimeError:
                    # Its loop is closed: the transport went with it.
                    pass
            self._loop = loop
        return self._idle

    async def _send(self, method: str, path: str, body: Any) -> Tuple[int, bytes]:
        data = b"" if body is None else encode(body)
        host = self._host if self._socket is not None else f"{self._host}:{self._port}"
        head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n"
        try:
            for name, value in self._credentials.headers().items():
                head += f"{name}: {value}\r\n"
        except OSError as e:
            raise error_for(0, str(e)) from None
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += f"Content-Length: {len(data)}\r\n\r\n"
        message = head.encode("ascii") + data
        pool = self._pool()
        for attempt in (0, 1):
            reused = bool(pool)
            try:
                if reused:
                    reader, writer = pool.pop()
                else:
                    reader, writer = await asyncio.wait_for(self._open(), self._timeout)
            except OSError as e:
                raise error_for(0, f"cannot reach {self.url}: {e}") from None
            try:
                writer.write(message)
                status, keep, raw = await asyncio.wait_for(self._read(reader), self._timeout)
            except (OSError, asyncio.IncompleteReadError, ValueError) as e:
                writer.close()
                # A kept-alive connection the sidecar closed meanwhile: retry on a fresh one.
                if reused and attempt == 0:
                    continue
                raise error_for(0, f"cannot reach {self.url}: {e}") from None
            if keep and len(pool) < self._max_idle:
                pool.append((reader, writer))
            else:
                writer.close()
            break
        return status, raw

    @staticmethod
    async def _read(reader: asyncio.StreamReader) -> Tuple[int, bool, bytes]:
        status_line = await reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        length, keep, chunked = 0, True, False
        while True:
            line = (await reader.readuntil(b"\r\n")).strip()
            if not line:
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection" and value == "close":
                keep = False
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
        if not chunked:
            return status, keep, await reader.readexactly(length)
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                return status, keep, body
            body += chunk[:-2]

    async def dispatch(
        self,
        event: str,
        payload: Optional[Dict[str, Any]] = None,
        conversation: Optional[List[Dict[str, Any]]] = None,
        channel_id: Any = None,
        env: Optional[Dict[str, str]] = None,
    ) -> Outcome:
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
        return Outcome.from_json(await self.request("POST", f"/v1/events/{event}", body))

    async def call_tool(
        self,
        session_id: str,
        tool_name: str,
        tool_input: Any,
        run: Callable[[Any], Union[Any, Awaitable[Any]]],
        on_ask: str = "block",
        fields: Optional[Dict[str, Any]] = None,
        transform: bool = True,
        reraise: bool = True,
        env: Optional[Dict[str, str]] = None,
    ) -> ToolCall:
        """As `AgentHooks.call_tool`; `run` may be a plain function or a coroutine function."""
        steps = call_tool_steps(session_id, tool_name, tool_input, on_ask, fields, transform)
        answer: Any = None
        try:
            while True:
                step = steps.send(answer)
                if step[0] == "dispatch":
                    try:
                        answer = await self.dispatch(step[1], step[2], env=env)
                    except TooLarge as e:
                        # A cap fails the hooks, visibly, never the tool call itself.
                        answer = Outcome.unheard(step[1], step[2], e.message)
                else:
                    try:
                        answer = run(step[1])
                        if inspect.isawaitable(answer):
                            answer = await answer
                    except Exception as e:
                        answer = ToolFailed(e)
        except StopIteration as done:
            call: ToolCall = done.value
        if reraise and call.error is not None:
            raise call.error
        return call

    def turn(self, session_id: str) -> "AsyncTurn":
        return AsyncTurn(self, session_id)

    async def hooks(self) -> HookList:
        return HookList.from_json(await self.request("GET", "/v1/hooks"))

    async def health(self) -> Health:
        return Health.from_json(await self.request("GET", "/v1/health"))

    async def reload(self) -> Reloaded:
        return Reloaded.from_json(await self.request("POST", "/v1/reload", {}))

    async def approve(self, command: str, enable_master: bool = True) -> Dict[str, Any]:
        body = {"command": command, "enable_master": enable_master}
        return await self.request("POST", "/internal/runtime/hooks/approve", body)

    async def command(self, line: str) -> str:
        answer = await self.request("POST", "/v1/hooks/command", {"line": line})
        return answer["text"]


class AsyncTurn:
    """As `Turn`, for the asyncio client."""

    def __init__(self, client: AsyncAgentHooks, session_id: str):
        self._client = client
        self.session_id = session_id
        self.redo_count = 0

    async def stop(self, response: str, tool_names: List[str] = ()) -> Union[Stop, Redo]:
        payload = {
            "session_id": self.session_id,
            "response": response,
            "tool_names": list(tool_names),
        }
        return await self._decide("on_stop", payload)

    async def completion_claim(
        self, goal: str, summary: str, response: str, tool_names: List[str] = ()
    ) -> Union[Stop, Redo]:
        payload = {
            "session_id": self.session_id,
            "goal": goal,
            "summary": summary,
            "response": response,
            "tool_names": list(tool_names),
        }
        return await self._decide("on_completion_claim", payload)

    async def _decide(self, event: str, payload: Dict[str, Any]) -> Union[Stop, Redo]:
        steps = stop_steps(event, payload, self.redo_count)
        step = next(steps)
        try:
            steps.send(await self._client.dispatch(step[1], step[2]))
        except StopIteration as done:
            verdict = done.value
        if isinstance(verdict, Redo):
            self.redo_count += 1
        return verdict
