"""Starting `agent-hooks serve` for a host: on the workspace's Unix socket (or, with `listen`, a
loopback port that needs the token), tied to the host's life (`--exit-with-parent`, and
`--exit-on-stdin-eof` on a pipe only the host holds)."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import List, Optional


class Sidecar:
    """A running `agent-hooks serve`. `url` is where it listens (`unix:/path/to.sock`, or
    `http://127.0.0.1:PORT` with `listen`); give it to `AgentHooks`. `stop()` (or leaving the
    `with` block) sends SIGTERM: the shutdown hooks run and in-flight dispatches finish."""

    def __init__(self, process: subprocess.Popen, url: str):
        self.process = process
        self.url = url

    @classmethod
    def start(
        cls,
        workspace: str,
        binary: Optional[str] = None,
        extra_args: List[str] = (),
        listen: Optional[str] = None,
    ) -> "Sidecar":
        """Starts the sidecar on `workspace`, on its socket, or on loopback TCP at `listen`
        (`"127.0.0.1:0"` picks a free port; clients then send the token). `binary` defaults to
        $AGENT_HOOKS_BIN, then `agent-hooks` on PATH. `extra_args` go after `serve` (e.g.
        `--host-lifecycle`)."""
        program = binary or os.environ.get("AGENT_HOOKS_BIN") or shutil.which("agent-hooks")
        if not program:
            raise FileNotFoundError(
                "agent-hooks not found: pass binary=, set AGENT_HOOKS_BIN, or put it on PATH"
            )
        args = [
            program,
            "--workspace",
            workspace,
            "serve",
            *(["--listen", listen] if listen else []),
            "--exit-with-parent",
            "--exit-on-stdin-eof",
            *extra_args,
        ]
        process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = process.stdout.readline().decode("utf-8", "replace").strip()
        # "agent-hooks serving /path on unix:/run/.../ID.sock" (or "on http://127.0.0.1:PORT")
        url = line.rsplit(" on ", 1)[-1] if (" on unix:" in line or " on http://" in line) else ""
        if not url:
            process.kill()
            process.wait()
            raise RuntimeError(
                f"agent-hooks serve did not start (exit {process.returncode}); see its stderr"
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

    def __exit__(self, *exc) -> None:
        self.stop()
