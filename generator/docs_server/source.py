"""Reading a built site's files, confined to the site: a folder on this machine or a published copy.

Every path comes from an agent, so every path is checked before anything is opened (:func:`site_path`):
relative, ``/``-separated, no empty, ``.`` or ``..`` part, no part that starts with a dot, only the
characters a built site's file names use. Then:

* a **folder** is walked one directory at a time from a descriptor of its root, each part opened with
  ``O_NOFOLLOW``: a symbolic link anywhere on the way is refused, never followed, so nothing outside the
  folder can be reached through one; only a regular file is read (a FIFO or a device is refused);
* a **URL** is fetched below its base URL only: a redirect is followed only to the same origin and below
  the same base path, anything else is refused; every fetch has a deadline.

Both read at most *limit* bytes (decoded bytes for HTTP, so a compressed reply cannot grow past it).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from typing import Protocol
from urllib.parse import quote, urljoin, urlsplit

import anyio
import httpx2

from generator import __version__
from generator.errors import PortalError, UsageError, certificate_advice
from generator.text import one_line

FETCH_SECONDS = 15.0
"""The deadline of one fetch of a published site's file, redirects included."""
MAX_REDIRECTS = 5
MAX_PATH = 512
_PART = re.compile(r"[A-Za-z0-9_~+@-][A-Za-z0-9._~+@-]{0,199}")


class SiteError(PortalError):
    """The site could not give a file: unreachable, an HTTP error, unreadable. Its message says which."""


class Refused(SiteError):
    """A path or a redirect that would leave the site, or a file that is not a plain file of the site."""


class NotFound(SiteError):
    """The site has no such file."""


class TooLarge(SiteError):
    """The file is larger than the reply may be."""


def _shown(value: object) -> str:
    return repr(one_line(str(value))[:120])


def site_path(path: object) -> str:
    """*path* if it names a file inside the site, else :class:`Refused` saying what is wrong with it."""
    if not isinstance(path, str) or not path:
        raise Refused("The path is empty. Give a path relative to the site's root, e.g. en/tools/search_chat.md.")
    shown = _shown(path)
    if len(path) > MAX_PATH:
        raise Refused(f"The path {shown}... is longer than {MAX_PATH} characters; no file of a built site is.")
    if path.startswith("/") or "\\" in path or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", path):
        raise Refused(
            f"The path {shown} is absolute or names another site. Give a path relative to the site's root, "
            "e.g. en/tools/search_chat.md."
        )
    for part in path.split("/"):
        if part in ("", ".", ".."):
            raise Refused(
                f"The path {shown} leaves the site or has an empty part: a path has no '..', '.' or empty "
                "parts, e.g. en/tools/search_chat.md."
            )
        if not _PART.fullmatch(part):
            raise Refused(
                f"The path {shown} has a part a built site never names ({_shown(part)}): parts use letters, "
                "digits and . _ ~ + @ -, and do not start with a dot."
            )
    return path


class SiteSource(Protocol):
    """Where a built site's files come from."""

    label: str
    """How messages name the site: the folder or the base URL."""
    base_url: str | None
    """The site's base URL (ending in ``/``) when it is published, else None."""

    async def read(self, path: str, limit: int) -> bytes:
        """The bytes of the file at *path* (checked by :func:`site_path`), at most *limit* of them."""
        ...

    async def aclose(self) -> None:
        """Release what the source holds open."""
        ...


class FolderSource:
    """A site in a folder of this machine, read without following any symbolic link inside it."""

    base_url: str | None = None

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self.label = root
        if not os.path.isdir(self.root):
            raise UsageError(
                f"SITE {_shown(root)} is neither a directory nor an http:// or https:// URL. Give the folder "
                "`mcp-portal build` wrote (e.g. site) or the base URL of a published portal."
            )

    async def read(self, path: str, limit: int) -> bytes:
        return read_confined(self.root, site_path(path), limit)

    async def aclose(self) -> None:
        return None


def read_confined(root: str, path: str, limit: int) -> bytes:
    """Read *path* under the directory *root*, part by part with ``O_NOFOLLOW``; a regular file only."""
    parts = path.split("/")
    flags = os.O_RDONLY | os.O_CLOEXEC
    fd = os.open(root, flags | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            parent, fd = fd, -1
            fd = _step(parent, part, flags | os.O_DIRECTORY | os.O_NOFOLLOW, path)
        parent, fd = fd, -1
        fd = _step(parent, parts[-1], flags | os.O_NOFOLLOW | os.O_NONBLOCK, path)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{_shown(path)} is not a plain file of the site; only files are read.")
        if info.st_size > limit:
            raise TooLarge(f"{_shown(path)} has {info.st_size} bytes, more than the {limit} a reply may carry.")
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise TooLarge(f"{_shown(path)} has more than the {limit} bytes a reply may carry.")
        return data
    finally:
        if fd >= 0:
            os.close(fd)


def _step(fd: int, part: str, flags: int, path: str) -> int:
    """Open *part* in the directory *fd* and return its descriptor; *fd* is closed whatever happens."""
    try:
        return os.open(part, flags, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) or (exc.errno == errno.ENOTDIR and _is_link(fd, part)):
            raise Refused(f"{_shown(path)} goes through a symbolic link; links in a site are never followed.") from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise NotFound(f"The site has no file {_shown(path)}.") from None
        raise SiteError(f"Cannot read {_shown(path)} from the site ({exc.strerror}).") from None
    finally:
        os.close(fd)


def _is_link(fd: int, part: str) -> bool:
    """Whether *part* of the directory *fd* is a symbolic link (a link to a directory opened with
    ``O_DIRECTORY | O_NOFOLLOW`` fails with ENOTDIR, not ELOOP)."""
    try:
        return stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


class URLSource:
    """A published site under *base* (``http://`` or ``https://``), fetched with deadlines and size bounds."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        # A user name, a password (which may hold an unescaped "/"), a query or a fragment may hold a token:
        # a URL that may have one is never shown.
        shown = "SITE" if any(c in base for c in "@?#") else f"SITE {_shown(base)}"
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"{shown} is not an http:// or https:// URL with a host.")
        if parts.username or parts.password or parts.query or parts.fragment:
            raise UsageError(
                "SITE has a user name, a password, a query or a fragment (the URL is not shown here, as any of them "
                "may hold a token); a portal is read without them: give its base URL alone, e.g. "
                "https://docs.example.com/."
            )
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        self.base_url: str | None = f"{parts.scheme}://{parts.netloc}{path}"
        self.label = self.base_url
        self._origin = (parts.scheme, parts.netloc.lower())
        self._path = path
        self._client = httpx2.AsyncClient(
            follow_redirects=False,
            timeout=httpx2.Timeout(FETCH_SECONDS),
            headers={"User-Agent": f"mcp-portal/{__version__} (docs server)"},
        )

    async def read(self, path: str, limit: int) -> bytes:
        url = f"{self.base_url}{'/'.join(quote(part, safe='') for part in site_path(path).split('/'))}"
        try:
            with anyio.fail_after(FETCH_SECONDS):
                return await self._fetch(url, path, limit)
        except TimeoutError:
            raise SiteError(f"{self.label} did not send {_shown(path)} within {FETCH_SECONDS:.0f} s.") from None
        except httpx2.HTTPError as exc:
            advice = certificate_advice(exc)
            said = f"Cannot fetch {_shown(path)} from {self.label} ({type(exc).__name__})."
            raise SiteError(f"{said} {advice}" if advice else said) from None

    async def _fetch(self, url: str, path: str, limit: int) -> bytes:
        for _ in range(MAX_REDIRECTS + 1):
            async with self._client.stream("GET", url) as reply:
                if reply.is_redirect:
                    url = self._redirect(url, reply.headers.get("location", ""), path)
                    continue
                if reply.status_code in (404, 410):
                    raise NotFound(f"The site has no file {_shown(path)} (HTTP {reply.status_code}).")
                if reply.status_code != 200:
                    raise SiteError(f"{self.label} answered HTTP {reply.status_code} for {_shown(path)}.")
                return await _bounded(reply, path, limit)
        raise Refused(f"{_shown(path)} was redirected more than {MAX_REDIRECTS} times.")

    def _redirect(self, url: str, location: str, path: str) -> str:
        target = urljoin(url, location)
        parts = urlsplit(target)
        if (parts.scheme, parts.netloc.lower()) != self._origin or not parts.path.startswith(self._path):
            raise Refused(
                f"{_shown(path)} is redirected to {_shown(target)}, outside {self.label}; a published site is "
                "read from its own origin and base path only."
            )
        return target

    async def aclose(self) -> None:
        await self._client.aclose()


async def _bounded(reply: httpx2.Response, path: str, limit: int) -> bytes:
    """The decoded body of *reply*, refused as soon as it passes *limit* bytes."""
    declared = reply.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit and "content-encoding" not in reply.headers:
        raise TooLarge(f"{_shown(path)} has {declared} bytes, more than the {limit} a reply may carry.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in reply.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"{_shown(path)} has more than the {limit} bytes a reply may carry.")
        chunks.append(chunk)
    return b"".join(chunks)


def open_source(site: str) -> SiteSource:
    """The source for SITE as the command line gives it: a URL when it has a scheme, else a folder."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", site):
        return URLSource(site)
    return FolderSource(site)
