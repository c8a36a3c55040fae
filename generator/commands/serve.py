"""A local preview server for a built site (``mcp-portal serve``).

Standard library only: :class:`http.server.ThreadingHTTPServer` with a :class:`~http.server.SimpleHTTPRequestHandler`
rooted at the site directory. It differs from ``python -m http.server`` where a documentation preview needs it to:

* content types are fixed, not guessed from the host's MIME database, and text types name UTF-8 (the Markdown twins
  and ``llms.txt`` are UTF-8 in en, ru, ar);
* a directory URL serves its ``index.html``; a directory without one is a 404, never a listing;
* a missing URL gets the site's own ``404.html`` (the locale's, under ``/L/``) with status 404, as a static host
  would send it;
* content negotiation: a page URL asked for with ``Accept: text/markdown`` (preferred over ``text/html`` by its
  q-value) gets the page's Markdown twin, and every page response says ``Vary: Accept``;
* nothing outside the site directory is served, even through a symlink, and no path with a part that starts with a
  dot (``.git/config``, ``.env``), ``/.well-known/`` aside;
* only requests for the names it is bound to are answered (``Host``: ``localhost``, ``127.0.0.1``, ``[::1]``, the
  ``--host`` given or the bound address, with the port): a web page that points its own domain name at this address
  (DNS rebinding) gets ``421``;
* requests are not logged, and nothing is cached, so a rebuild shows at once;
* a connection that says nothing for :data:`CONNECTION_TIMEOUT` seconds is closed, at most :data:`MAX_CONNECTIONS`
  are served at once (one more is answered ``503`` and closed at once), and at most :data:`MAX_CALLS` Try it calls
  run at once (the others wait their turn): a process on this machine that opens thousands of half-open connections
  (slowloris) or fires calls in bursts cannot stop the preview or make it reset connections.

It is a preview for one person on their own machine, not a production server.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import io
import ipaddress
import os
import posixpath
import re
import socket
import sys
import threading
import urllib.parse
from collections.abc import Callable
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from generator.errors import PortalError
from generator.model.try_it import PROXY_PATH, panel_origin
from generator.render.extras import CONTENT_SECURITY_POLICY, content_security_policy
from generator.text import encodable, for_terminal

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
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".wasm": "application/wasm",
}
"""Content type by file extension (lower case); anything else is ``application/octet-stream``."""

FALLBACK_TYPE = "application/octet-stream"

MARKDOWN = "text/markdown"
_LOCALE_DIR = re.compile(r"[A-Za-z0-9_-]{1,35}")


def _quality(accept: str, media: str) -> float:
    """The q-value *accept* gives *media*: that of its most specific matching range (RFC 9110, 12.5.1)."""
    kind = media.split("/", 1)[0]
    best, found = -1, 0.0
    for entry in accept.split(","):
        name, *params = (piece.strip() for piece in entry.split(";"))
        name = name.lower()
        rank = 2 if name == media else 1 if name == f"{kind}/*" else 0 if name == "*/*" else -1
        if rank <= best:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        best, found = rank, q
    return found


def prefers_markdown(accept: str | None) -> bool:
    """True when *accept* rates ``text/markdown`` above zero and above ``text/html`` (a tie is HTML)."""
    if not accept:
        return False
    markdown = _quality(accept, MARKDOWN)
    return markdown > 0 and markdown > _quality(accept, "text/html")


class CallProxy(Protocol):
    """What answers a Try it panel's calls (``serve --try-it``, :mod:`generator.commands.try_serve`), and
    gives the status, headers and body of :data:`START_PATH`."""

    def start_page(self) -> tuple[int, dict[str, str], bytes]: ...

    def reply(self, path: str, headers: Any, body: bytes, own_origins: set[str]) -> tuple[int, str, dict[str, str]]: ...


LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
"""Names a preview always answers to (besides the ``--host`` given and the address it is bound to)."""
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[^:\[\]]+)(?::([0-9]{1,5}))?")


START_PATH = "/.mcp-portal/start"
"""The address ``serve --try-it`` prints: a page that waits for the build, then leads to the first panel."""
PROXY_BODY_LIMIT = 1024 * 1024
"""The largest Try it call the preview reads, in bytes."""
CONNECTION_TIMEOUT = 10.0
"""Seconds a connection may stay silent (while the preview waits for its request or its body) before it is closed."""
MAX_CONNECTIONS = 64
"""Connections served at once; one more is answered ``503 Service Unavailable`` and closed at once."""
MAX_CALLS = 4
"""Try it calls run at once (each may start a stdio server); the others wait for a turn, up to :data:`CALL_WAIT`."""
CALL_WAIT = 60.0
"""Seconds a Try it call waits for its turn before it is answered ``503``."""
_CONNECT = re.compile(r"connect-src ([^;]*);")


def site_policy(root: Path) -> str:
    """The Content-Security-Policy the site's ``_headers`` file gives, when it is one a build writes.

    A site with Try it panels lets its pages connect to their endpoints' origins; a preview must send
    the same policy, or the browser refuses what the real host allows. The file is read, not trusted:
    its policy is taken only when it is exactly the build's own, with nothing but ``https://`` or
    loopback origins added to ``connect-src``; anything else gives the plain policy.
    """
    try:
        with open(root / "_headers", encoding="utf-8") as file:
            text = file.read(65536)
    except (OSError, UnicodeDecodeError):
        return CONTENT_SECURITY_POLICY
    for line in text.splitlines():
        name, _, value = line.strip().partition(":")
        if name == "Content-Security-Policy":
            value = value.strip()
            found = _CONNECT.search(value)
            origins = tuple(found.group(1).split()[1:]) if found else ()
            plain = all(panel_origin(origin) == origin for origin in origins)
            return value if plain and value == content_security_policy(origins) else CONTENT_SECURITY_POLICY
    return CONTENT_SECURITY_POLICY


def _shown_address(address: str) -> str:
    """An address as a ``Host`` header names it: an IPv6 one in brackets."""
    return f"[{address}]" if ":" in address else address


def _ip_literal(name: str) -> bool:
    """True for ``192.0.2.1`` or ``[2001:db8::1]``: an address, not a name DNS could point anywhere."""
    inner = name[1:-1] if name.startswith("[") else name
    try:
        address = ipaddress.ip_address(inner)
    except ValueError:
        return False
    return (address.version == 6) == name.startswith("[")


def host_allowed(header: str | None, given: str, bound: str, port: int) -> bool:
    """True when a request's ``Host`` header names this server: a name it is bound to, and its port.

    The names are :data:`LOOPBACK_NAMES`, *given* (``--host``) and *bound* (the address it listens
    on); a server bound to every address (``0.0.0.0``, ``::``) also answers to any address literal.
    A domain name that a web page's DNS points at this address is none of these: that page's
    scripts (DNS rebinding) are refused. A missing port means 80.
    """
    match = _HOST.fullmatch((header or "").strip().lower())
    if match is None:
        return False
    name, asked = match.groups()
    if int(asked or 80) != port:
        return False
    if name in LOOPBACK_NAMES or name in {_shown_address(given.lower()), _shown_address(bound.lower())}:
        return True
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(bound).is_unspecified:
            return _ip_literal(name)
    return False


def hidden_path(relative: str) -> bool:
    """True when the ``/``-separated *relative* path has a part starting with a dot, ``.well-known/`` aside.

    A site folder can hold ``.git/`` or ``.env`` beside the pages (a checkout of ``gh-pages``); a
    preview never serves them.
    """
    parts = [part for part in relative.replace("\\", "/").split("/") if part not in {"", "."}]
    if parts and parts[0] == ".well-known":
        parts = parts[1:]
    return any(part.startswith(".") for part in parts)


def twin_of(html_file: str, root: str) -> str | None:
    """The Markdown twin beside a page's ``index.html``: ``D/index.html`` -> ``D.md``, else ``D/index.md``.

    Only a file inside *root* counts: the entry page ``root/index.html`` has no ``root.md``
    twin beside the site, and a symlink out of the site is not followed.
    """
    if os.path.basename(html_file) != "index.html":
        return None
    directory = os.path.dirname(html_file)
    inside = os.path.realpath(root).rstrip(os.sep) + os.sep
    for candidate in (directory + ".md", os.path.join(directory, "index.md")):
        if os.path.realpath(candidate).startswith(inside) and os.path.isfile(candidate):
            return candidate
    return None


class PreviewHandler(SimpleHTTPRequestHandler):
    """Serves one directory: fixed content types, no listings, no escape, no dotfiles, no request log."""

    def __init__(
        self,
        *args: Any,
        host: str = "127.0.0.1",
        policy: str = CONTENT_SECURITY_POLICY,
        proxy: CallProxy | None = None,
        **kwargs: Any,
    ) -> None:
        """*host* is the address asked for with ``--host``, one of the names :func:`host_allowed` accepts;
        *policy* the Content-Security-Policy sent with every answer (:func:`site_policy`); *proxy*
        answers the Try it panels' calls (``serve --try-it``), else a POST is refused."""
        self.given_host = host  # set first: the base class handles the request inside __init__
        self.policy = policy
        self.proxy = proxy
        super().__init__(*args, **kwargs)

    timeout = CONNECTION_TIMEOUT
    """Set on the connection's socket (:class:`socketserver.StreamRequestHandler`): a silent client is let go."""

    def version_string(self) -> str:
        """The ``Server`` header: no Python version."""
        return "mcp-portal-preview"

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        """The content type for *path*, from :data:`CONTENT_TYPES` only (never the host's MIME database)."""
        _, ext = posixpath.splitext(os.fspath(path))
        return CONTENT_TYPES.get(ext.lower(), FALLBACK_TYPE)

    vary = False
    """Set for a page with a twin: its answer depends on ``Accept``."""

    def send_head(self) -> Any:
        """Refuse other hosts' requests and paths that leave the site or name a dotfile, hand a page's
        twin to a Markdown reader, else answer as usual."""
        self.vary = False
        if not self._own_host():
            return None
        if self.proxy is not None and urllib.parse.urlsplit(self.path).path == START_PATH:
            return self._start_page(self.proxy)
        if not self._inside_root() or self._hidden():
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        path = self.translate_path(self.path)
        url_path = urllib.parse.urlsplit(self.path).path
        if os.path.isdir(path) and url_path.endswith("/"):
            path = os.path.join(path, "index.html")
        twin = twin_of(path, self.directory) if os.path.isfile(path) else None
        if twin is not None:
            self.vary = True
            if prefers_markdown(self.headers.get("Accept")):
                # Serve the twin through the standard path: same headers, same If-Modified-Since.
                relative = os.path.relpath(twin, self.directory).replace(os.sep, "/")
                self.path = "/" + urllib.parse.quote(relative)
        return super().send_head()

    def _start_page(self, proxy: CallProxy) -> Any:
        """The address ``serve --try-it`` prints, as the proxy answers it (a page while the site is built,
        then a redirect to the first panel, which the fragment with the run token follows)."""
        status, headers, page = proxy.start_page()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(page)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        return io.BytesIO(page)

    def _own_host(self) -> bool:
        """True when the request names this server in ``Host``; else the refusal is sent and False returned."""
        address = self.server.server_address
        bound, port = (str(address[0]), int(address[1])) if isinstance(address, tuple) else ("", 0)
        host = self.headers.get("Host")
        if not host:
            self.send_error(HTTPStatus.BAD_REQUEST, "No Host header", "A request must name the host it is for.")
            return False
        if not host_allowed(host, self.given_host, bound, port):
            self.send_error(
                HTTPStatus.MISDIRECTED_REQUEST,
                "Not this server's host name",
                "This preview answers only requests for localhost, 127.0.0.1, [::1] or the address it listens on.",
            )
            return False
        return True

    def do_POST(self) -> None:
        """A Try it panel's call, handed to the proxy (``serve --try-it``); any other POST is refused."""
        if not self._own_host():
            return
        if self.proxy is None or not urllib.parse.urlsplit(self.path).path.startswith(PROXY_PATH):
            self.send_error(HTTPStatus.METHOD_NOT_ALLOWED, "A preview serves files: GET or HEAD")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.send_error(HTTPStatus.LENGTH_REQUIRED, "A call states its length")
            return
        if not 0 <= length <= PROXY_BODY_LIMIT:
            self.send_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "A call is at most 1 MiB")
            return
        body = self.rfile.read(length)
        address = self.server.server_address
        port = address[1] if isinstance(address, tuple) else 0
        own = {f"http://{name}:{port}" for name in (*LOOPBACK_NAMES, _shown_address(self.given_host))}
        path = urllib.parse.urlsplit(self.path).path
        turns = getattr(self.server, "calls", None)
        if turns is not None and not turns.acquire(timeout=CALL_WAIT):
            self.send_error(HTTPStatus.SERVICE_UNAVAILABLE, "The preview is busy with other calls: try again")
            return
        try:
            status, text, extra = self.proxy.reply(path, self.headers, body, own)
        finally:
            if turns is not None:
                turns.release()
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if status == 200 else "text/plain; charset=utf-8")
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """A 404 is the site's own ``404.html`` (the locale's under ``/L/``); other errors as usual."""
        page = self._not_found_page() if code == HTTPStatus.NOT_FOUND else None
        if page is None:
            super().send_error(code, message, explain)
            return
        self.send_response(HTTPStatus.NOT_FOUND)
        self.send_header("Content-Type", CONTENT_TYPES[".html"])
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(page)

    def _not_found_page(self) -> bytes | None:
        """The bytes of the 404 page for this request's locale, or the site's; None if the site has none."""
        first = urllib.parse.unquote(self.path.split("?", 1)[0]).lstrip("/").split("/", 1)[0]
        candidates = [os.path.join(first, "404.html")] if _LOCALE_DIR.fullmatch(first) else []
        root = os.path.realpath(self.directory)
        for relative in [*candidates, "404.html"]:
            path = os.path.realpath(os.path.join(root, relative))
            # The page must be the site's own, not a symlink out of it.
            if path.startswith(root.rstrip(os.sep) + os.sep) and os.path.isfile(path):
                with contextlib.suppress(OSError), open(path, "rb") as page:
                    return page.read()
        return None

    def list_directory(self, path: str | os.PathLike[str]) -> io.BytesIO | None:
        """A directory without ``index.html`` is not found: a preview never lists files."""
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")
        return None

    def end_headers(self) -> None:
        """Add headers that keep a preview honest: no caching, no content sniffing."""
        self.send_header("Cache-Control", "no-store")
        if self.vary:
            self.send_header("Vary", "Accept")
        self.send_header("X-Content-Type-Options", "nosniff")
        # The same policy as the published _headers file, so a preview behaves like the real host.
        self.send_header("Content-Security-Policy", self.policy)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a preview does not log each request."""

    def _hidden(self) -> bool:
        """True when the request's path, as asked or once symlinks are resolved, has a dot part."""
        asked = urllib.parse.unquote(self.path.split("?", 1)[0].split("#", 1)[0])
        root = os.path.realpath(self.directory)
        target = os.path.relpath(os.path.realpath(self.translate_path(self.path)), root)
        return hidden_path(asked) or hidden_path(target.replace(os.sep, "/"))

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


_BUSY_TEXT = b"The preview is serving too many connections at once: try again.\n"
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
    + f"Content-Length: {len(_BUSY_TEXT)}\r\n\r\n".encode()
    + _BUSY_TEXT
)
"""The whole answer to a connection past :data:`MAX_CONNECTIONS`, sent without reading its request."""


class PreviewServer(ThreadingHTTPServer):
    """A thread per connection, :data:`MAX_CONNECTIONS` at most, and :data:`MAX_CALLS` Try it calls at most."""

    request_queue_size = 128
    """The listen backlog (the standard library's is 5, so a burst of connections was reset)."""

    def __init__(self, address: tuple[str, int], *args: Any, **kwargs: Any) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET  # --host ::1 or ::
        self.connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.calls = threading.BoundedSemaphore(MAX_CALLS)
        super().__init__(address, *args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve *request* in a thread of its own, when fewer than :data:`MAX_CONNECTIONS` are served;
        else answer ``503`` and close it at once, without a thread."""
        if not self.connections.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:  # no thread started: its place goes back here. Not on a stop (Ctrl-C, SIGTERM): the
            self.connections.release()  # thread may have given it back, and a second release would lose the stop
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serve one connection, then give its place back."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line for a failed answer, not the standard library's traceback; none for a client gone away."""
        if not isinstance(exc := sys.exc_info()[1], ConnectionError):
            what = for_terminal(str(exc)) or type(exc).__name__
            print(f"mcp-portal: serve: answering a request failed ({what}); the preview goes on.", file=sys.stderr)


def make_server(
    directory: Path | str, host: str = "127.0.0.1", port: int = 8000, proxy: CallProxy | None = None
) -> ThreadingHTTPServer:
    """A server for *directory*, bound and ready; call ``serve_forever()`` on it (port 0 picks a free one).
    Raises :class:`PortalError` when the directory is missing or the address cannot be bound."""
    root = Path(directory)
    if not root.is_dir():
        raise PortalError(f"There is no site at {root}: build one first with `mcp-portal build --out {root}`.")
    policy = site_policy(root)
    handler = functools.partial(PreviewHandler, directory=str(root.resolve()), host=host, policy=policy, proxy=proxy)
    try:
        return PreviewServer((host, port), handler)
    except OSError as exc:  # a port in use or reserved, or a --host that is no address of this machine
        taken = exc.errno in (errno.EADDRINUSE, errno.EACCES)
        fix = "another port, e.g. --port 8080" if taken else "an address of this machine, e.g. --host 127.0.0.1"
        said = f"{_shown_address(host)}:{port} ({exc.strerror or exc})"
        raise PortalError(f"Cannot listen on {said}. Choose {fix}.") from None


def serve(directory: Path, host: str = "127.0.0.1", port: int = 8000, *, proxy: CallProxy | None = None,
          start: str = "", meanwhile: Callable[[ThreadingHTTPServer], None] | None = None) -> None:  # fmt: skip
    """Serve *directory* until interrupted (Ctrl+C) or shut down, printing the URL to open (the root, then
    *start*); *meanwhile* is called with the server once the URL is printed (``serve --try-it`` builds then)."""
    server = make_server(directory, host, port, proxy)
    bound_host, bound_port = server.server_address[:2]
    shown = _shown_address(bound_host.decode() if isinstance(bound_host, bytes) else str(bound_host))
    message = f"Serving {directory} at http://{shown}:{bound_port}/{start} (Ctrl+C to stop)"
    with server, contextlib.suppress(KeyboardInterrupt):  # a stop from the moment the line is out is a clean end
        print(encodable(for_terminal(message), sys.stdout.encoding), file=sys.stdout, flush=True)
        if meanwhile is not None:
            meanwhile(server)
        server.serve_forever()
