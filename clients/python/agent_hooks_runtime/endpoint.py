"""Where a sidecar answers and how to prove you are its owner, by the rules `agent-hooks serve`
follows (`docs/sidecar.md`): a `unix:/path` URL is the socket, where the kernel vouches for
your uid; an `http://` URL is loopback TCP, where every request carries the bearer token read
from the token file in your state directory."""

from __future__ import annotations

import hashlib
import os
from typing import Optional, Tuple
from urllib.parse import urlsplit

TOKEN_FILE = "sidecar.token"


def state_dir() -> str:
    """`$AGENT_HOOKS_STATE_DIR`, else `$XDG_STATE_HOME/agent-hooks`, else
    `~/.local/state/agent-hooks`."""
    named = os.environ.get("AGENT_HOOKS_STATE_DIR")
    if named:
        return os.path.abspath(named)
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "agent-hooks")
    return os.path.join(os.path.expanduser("~"), ".local", "state", "agent-hooks")


def default_socket(workspace: str) -> str:
    """The socket `agent-hooks serve` listens on for `workspace` when not told otherwise."""
    root = os.path.realpath(workspace)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and not os.environ.get("AGENT_HOOKS_STATE_DIR"):
        directory = os.path.join(runtime, "agent-hooks")
    else:
        directory = os.path.join(state_dir(), "run")
    name = hashlib.sha256(os.fsencode(root)).hexdigest()[:16]
    return os.path.join(directory, name + ".sock")


def default_url() -> str:
    """The socket of the workspace in `$AGENT_HOOKS_WORKSPACE`, else of the current
    directory."""
    return "unix:" + default_socket(os.environ.get("AGENT_HOOKS_WORKSPACE") or os.getcwd())


def read_token() -> str:
    """The token of the token file; an error that says where it looked when there is none."""
    path = os.path.join(state_dir(), TOKEN_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError as e:
        raise OSError(
            f"cannot read the sidecar's token ({path}: {e.strerror}); a sidecar started with "
            "`agent-hooks serve --listen` makes it, or pass token="
        ) from None


def parse(url: str) -> Tuple[Optional[str], str, int]:
    """`(socket path, host, port)`: the path for `unix:/path`, else None and the TCP address."""
    if url.startswith("unix:"):
        path = url[len("unix:") :]
        if not path:
            raise ValueError(f"expected unix:/path/to.sock, got {url!r}")
        return path, "localhost", 0
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"expected unix:/path/to.sock or http://HOST:PORT, got {url!r}")
    return None, parts.hostname, parts.port or 80
