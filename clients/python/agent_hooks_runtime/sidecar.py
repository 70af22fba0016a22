"""Starting `agent-hooks serve` for a host: on the workspace's Unix socket (or, with `listen`, a
loopback port that needs the token), tied to the host's life (`--exit-with-parent`, and
`--exit-on-stdin-eof` on a pipe only the host holds). The host owns the lifecycle events by
default (`--host-lifecycle`): a host that fires `pre_startup` and friends itself must not get
them twice."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sysconfig
from typing import Dict, List, Optional, Sequence, Tuple

from .errors import Unavailable


def _command(
    workspace: str,
    binary: Optional[str],
    extra_args: Sequence[str],
    listen: Optional[str],
    host_lifecycle: bool,
) -> List[str]:
    program = (
        binary
        or os.environ.get("AGENT_HOOKS_BIN")
        # The one the wheel installed with this client, into the interpreter's scripts
        # directory (on PATH only while its venv is activated), so the two always match.
        or shutil.which("agent-hooks", path=sysconfig.get_path("scripts"))
        or shutil.which("agent-hooks")
    )
    if not program:
        raise FileNotFoundError(
            "agent-hooks not found: pass binary=, set AGENT_HOOKS_BIN, or put it on PATH"
        )
    return [
        program,
        "--workspace",
        workspace,
        "serve",
        *(["--listen", listen] if listen else []),
        "--exit-with-parent",
        "--exit-on-stdin-eof",
        *(["--host-lifecycle"] if host_lifecycle else []),
        *extra_args,
    ]


def _environment(env: Optional[Dict[str, str]]) -> Optional[Dict[str, str]]:
    """The sidecar's environment: the host's, with `env` on top (None: the host's as it is)."""
    if env is None:
        return None
    return {**os.environ, **{str(k): str(v) for k, v in env.items()}}


def _url(line: str) -> str:
    # "agent-hooks serving /path on unix:/run/.../ID.sock" (or "on http://127.0.0.1:PORT")
    return line.rsplit(" on ", 1)[-1] if (" on unix:" in line or " on http://" in line) else ""


class Sidecar:
    """A running `agent-hooks serve`. `url` is where it listens (`unix:/path/to.sock`, or
    `http://127.0.0.1:PORT` with `listen`); give it to `AgentHooks`. `stop()` (or leaving the
    `with` block) sends SIGTERM: in-flight dispatches finish (and, with
    `host_lifecycle=False`, the shutdown hooks run)."""

    def __init__(self, process: subprocess.Popen, url: str):
        self.process = process
        self.url = url

    @classmethod
    def start(
        cls,
        workspace: str,
        binary: Optional[str] = None,
        extra_args: Sequence[str] = (),
        listen: Optional[str] = None,
        env: Optional[Dict[str, str]] = None,
        host_lifecycle: bool = True,
    ) -> "Sidecar":
        """Starts the sidecar on `workspace`, on its socket, or on loopback TCP at `listen`
        (`"127.0.0.1:0"` picks a free port; clients then send the token). `binary` defaults to
        $AGENT_HOOKS_BIN, then the `agent-hooks` the wheel installed with this package, then
        `agent-hooks` on PATH. `env` is added to the host's environment
        for the sidecar and its hooks. `host_lifecycle=False` lets the sidecar fire
        `pre_startup`/`post_startup` on start and the shutdown events on stop, for a host that
        does not fire them itself. `extra_args` go after `serve`."""
        args = _command(workspace, binary, extra_args, listen, host_lifecycle)
        process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_environment(env)
        )
        assert process.stdout is not None
        url = _url(process.stdout.readline().decode("utf-8", "replace").strip())
        if not url:
            process.kill()
            process.wait()
            raise Unavailable(
                0, f"agent-hooks serve did not start (exit {process.returncode}); see its stderr"
            )
        return cls(process, url)

    def stop(self, timeout: float = 40.0) -> int:
        """Stops the sidecar and returns its exit status."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        return self.process.returncode

    def __enter__(self) -> "Sidecar":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class AsyncSidecar:
    """`Sidecar` for asyncio hosts: `await AsyncSidecar.start(...)`, `await stop()`, or
    `async with await AsyncSidecar.start(...)`. Nothing blocks the event loop."""

    def __init__(self, process: "asyncio.subprocess.Process", url: str):
        self.process = process
        self.url = url

    @classmethod
    async def start(
        cls,
        workspace: str,
        binary: Optional[str] = None,
        extra_args: Sequence[str] = (),
        listen: Optional[str] = None,
        env: Optional[Dict[str, str]] = None,
        host_lifecycle: bool = True,
    ) -> "AsyncSidecar":
        """As `Sidecar.start`."""
        args = _command(workspace, binary, extra_args, listen, host_lifecycle)
        process = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=_environment(env),
        )
        assert process.stdout is not None
        url = _url((await process.stdout.readline()).decode("utf-8", "replace").strip())
        if not url:
            process.kill()
            await process.wait()
            raise Unavailable(
                0, f"agent-hooks serve did not start (exit {process.returncode}); see its stderr"
            )
        return cls(process, url)

    async def stop(self, timeout: float = 40.0) -> int:
        """Stops the sidecar and returns its exit status."""
        if self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self.process.stdin is not None:
            self.process.stdin.close()
        code = self.process.returncode
        return code if code is not None else -1

    async def __aenter__(self) -> "AsyncSidecar":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


__all__: Tuple[str, ...] = ("Sidecar", "AsyncSidecar")
