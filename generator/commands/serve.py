"""A local preview server for a built site (``mcp-portal serve``).

Standard library only: :class:`http.server.ThreadingHTTPServer` with a
:class:`~http.server.SimpleHTTPRequestHandler` rooted at the site directory.
It differs from ``python -m http.server`` where a documentation preview needs
it to:

* content types are fixed, not guessed from the host's MIME database, and text
  types name UTF-8 (the Markdown twins and ``llms.txt`` are UTF-8 in en, ru, ar);
* a directory URL serves its ``index.html``; a directory without one is a 404,
  never a listing;
* nothing outside the site directory is served, even through a symlink;
* requests are not logged, and nothing is cached, so a rebuild shows at once.

It is a preview for one person on their own machine, not a production server.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import posixpath
import sys
import urllib.parse
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from generator.errors import PortalError
from generator.render.extras import CONTENT_SECURITY_POLICY
from generator.text import for_terminal

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/vnd.microsoft.icon",
    ".xml": "application/xml",
}
"""Content type by file extension (lower case); anything else is ``application/octet-stream``."""

FALLBACK_TYPE = "application/octet-stream"


class PreviewHandler(SimpleHTTPRequestHandler):
    """Serves one directory: fixed content types, no listings, no escape, no request log."""

    def version_string(self) -> str:
        """The ``Server`` header: no Python version."""
        return "mcp-portal-preview"

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        """The content type for *path*, from :data:`CONTENT_TYPES` only (never the host's MIME database)."""
        _, ext = posixpath.splitext(os.fspath(path))
        return CONTENT_TYPES.get(ext.lower(), FALLBACK_TYPE)

    def send_head(self) -> Any:
        """Refuse paths that leave the site, then answer as the standard handler does."""
        if not self._inside_root():
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> io.BytesIO | None:
        """A directory without ``index.html`` is not found: a preview never lists files."""
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")
        return None

    def end_headers(self) -> None:
        """Add headers that keep a preview honest: no caching, no content sniffing."""
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        # The same policy as the published _headers file, so a preview behaves like the real host.
        self.send_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a preview does not log each request."""

    def _inside_root(self) -> bool:
        """True when the request names a location inside the served directory.

        The standard handler already drops ``..`` segments; this also rejects them
        outright (in any percent-encoding, with ``/`` or ``\\`` as separator) and
        resolves symlinks, so nothing outside the directory can be reached.
        """
        raw = self.path.split("?", 1)[0].split("#", 1)[0]
        decoded = urllib.parse.unquote(raw)
        if "\x00" in decoded:
            return False
        segments = decoded.replace("\\", "/").split("/")
        if any(segment in {"..", "."} for segment in segments):
            return False
        root = os.path.realpath(self.directory)
        target = os.path.realpath(self.translate_path(self.path))
        return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def make_server(directory: Path | str, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """A server for *directory*, bound and ready; call ``serve_forever()`` on it (port 0 picks a free one).

    Raises :class:`PortalError` when the directory is missing or the address cannot be bound.
    """
    root = Path(directory)
    if not root.is_dir():
        raise PortalError(f"There is no site at {root}: build one first with `mcp-portal build --out {root}`.")
    handler = functools.partial(PreviewHandler, directory=str(root.resolve()))
    try:
        return ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        raise PortalError(
            f"Cannot listen on {host}:{port} ({exc.strerror or exc}). Choose another port with --port."
        ) from None


def serve(directory: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve *directory* until interrupted (Ctrl+C), printing the URL to open."""
    server = make_server(directory, host, port)
    bound_host, bound_port = server.server_address[:2]
    shown = bound_host.decode() if isinstance(bound_host, bytes) else str(bound_host)
    if ":" in shown:
        shown = f"[{shown}]"
    message = f"Serving {directory} at http://{shown}:{bound_port}/ (Ctrl+C to stop)"
    print(for_terminal(message), file=sys.stdout, flush=True)
    with server, contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
