"""Run the demo's Streamable HTTP server in a child process for as long as a build needs it.

``mcp-portal build`` with no server documents the demo's three endpoints, so it starts the demo's
HTTP server (``python -m generator.demo --http``) on a free port of 127.0.0.1, waits until it
accepts connections, and stops it afterwards, whatever happened in between. The server runs in a
process group of its own (a Ctrl-C at the terminal reaches the build, which stops it) and dies with
the build however the build ends, SIGKILL included: it is started through :func:`main`, which has
the kernel end it when its parent dies (:func:`generator.forked.die_with_parent`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from generator.errors import PortalError
from generator.forked import die_with_parent

STARTUP_SECONDS = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _accepting(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


@contextlib.contextmanager
def running_http_demo() -> Iterator[str]:
    """Yield the base URL (``http://127.0.0.1:PORT``) of a demo HTTP server that runs meanwhile."""
    port = _free_port()
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    argv = [sys.executable, "-m", "generator.demo.launch", str(os.getpid()), "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(
        argv,
        cwd=package_root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        process_group=0,
    )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _accepting(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                exited = proc.poll() is not None and proc.stderr is not None
                err = proc.stderr.read().decode("utf-8", "replace")[-400:] if exited and proc.stderr else ""
                raise PortalError(
                    f"The bundled demo's HTTP server did not start on 127.0.0.1:{port} within "
                    f"{STARTUP_SECONDS:.0f} s{': ' + err.strip() if err.strip() else ''}. Run "
                    "`python -m generator.demo --http` to see why, or document your own server with --stdio or --url."
                )
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def main(argv: Sequence[str]) -> int:
    """``python -m generator.demo.launch PARENT [--host H] [--port N]``: the demo's HTTP server, which the
    kernel ends as soon as the process PARENT (the build that started it) is gone."""
    die_with_parent(int(argv[0]))
    from generator.demo.server import main as serve

    return serve(["--http", *argv[1:]])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
