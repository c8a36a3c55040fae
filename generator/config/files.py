"""The user's own files: YAML read without anchors or aliases, files written by replacing their name,
and files opened for reading only when they are regular files.

Every YAML file mcp-portal reads from a user (``portal.yaml``, translations, overlays, theme
catalogs, OpenAPI documents) goes through :class:`PlainLoader`, which refuses anchors (``&name``)
and aliases (``*name``) while it composes the file. An alias repeats a subtree without repeating
its bytes, so nine short lines can stand for a billion values (an "alias bomb") that any later
walk of the data takes for ever to visit; without them the data is never larger than the file.

Every file the CLI writes outside ``--out`` (a snapshot from ``introspect -o``, a translations
to-do list, a regenerated documentation page) goes through :func:`replace_file`: the text is
written to a new file in the same directory, which is then renamed over the name. The rename
replaces whatever held the name, a symlink included, so a link planted at that name can never
turn the write into one of the file it points to; a reader never sees half a file either.

A file mcp-portal reads back on its own (the render cache's records, the signatures of the site
last published) is opened by :func:`open_regular`: a FIFO planted at its name would otherwise make
the ``open`` wait for a writer for ever, past every time bound, and a device could be read without end.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import Any, BinaryIO

import yaml


class PlainLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses anchors and aliases, with the line of the first one found."""

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        """Compose the next node, unless it is an alias or carries an anchor."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        alias = isinstance(event, yaml.AliasEvent)
        name = getattr(event, "anchor", None)
        if alias or name is not None:
            shown = f"{'*' if alias else '&'}{name}"
            raise yaml.composer.ComposerError(
                None,
                None,
                f"it uses the YAML {'alias' if alias else 'anchor'} {shown}, but mcp-portal accepts no anchors or "
                "aliases, since a few lines of them can stand for billions of values; write the value out in full",
                event.start_mark,
            )
        return super().compose_node(parent, index)


def load_yaml(text: str) -> Any:
    """The data of the YAML document *text*, read by :class:`PlainLoader` (None for an empty one).

    Raises :class:`yaml.YAMLError`; :func:`yaml_problem` says what is wrong, and where, in one line.
    """
    loader = PlainLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def yaml_problem(exc: yaml.YAMLError) -> str:
    """What is wrong with a YAML file, on one line and with the line it is on (``line 4: found ...``)."""
    mark = getattr(exc, "problem_mark", None)
    problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
    return f"line {mark.line + 1}: {problem}" if mark is not None else problem


def replace_file(path: Path, text: str) -> None:
    """Write *text* (UTF-8) to *path* by renaming a new file in the same directory over the name.

    A symlink at *path* is replaced, never written through, unless it leads to a pipe or a terminal
    (``-o /dev/stdout``), where no file can be overwritten; a regular file's permissions are kept. A
    pipe or a character device at *path* itself (``-o /dev/null``) is written to as it is, since it
    cannot be renamed over. The directories that are to hold *path* are created. Raises :class:`OSError`,
    naming *path* (never the new file beside it); on failure no file is left behind and *path* is as it was.
    """
    data = text.encode("utf-8")
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        found = None
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    stream = _stream(path, found)
    if stream is not None:
        with open(stream, "wb") as handle:
            handle.write(data)
        return
    keep = stat.S_IMODE(found.st_mode) if found is not None and stat.S_ISREG(found.st_mode) else None
    # A random name created exclusively: nothing planted beside the file can stand in for it.
    temporary = path.with_name(f".{path.name[:100]}.{secrets.token_hex(8)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(temporary, flags, 0o666)
    except OSError as exc:  # the same directory as *path*: named by it, which the user gave
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with open(descriptor, "wb") as handle:
            handle.write(data)
            if keep is not None:
                os.fchmod(handle.fileno(), keep)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _stream(path: Path, found: os.stat_result | None) -> int | None:
    """A descriptor to write to when *path* is a pipe or a device rather than a file, else None.

    Through a symlink only a pipe or a terminal counts, and that is checked on the open descriptor:
    opening for writing, without creating or truncating, changes nothing, so a link swapped meanwhile
    for one to a file is closed unwritten and the name is replaced after all.
    """
    if found is None:
        return None
    if stat.S_ISFIFO(found.st_mode) or stat.S_ISCHR(found.st_mode):
        # O_NOFOLLOW: if a symlink took the pipe's place meanwhile, this fails instead of following it.
        return os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC)
    if not stat.S_ISLNK(found.st_mode):
        return None
    try:
        target = os.stat(path)
    except OSError:
        return None  # a dangling link: replaced
    if not (stat.S_ISFIFO(target.st_mode) or stat.S_ISCHR(target.st_mode)):
        return None
    descriptor = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
    if stat.S_ISFIFO(os.fstat(descriptor).st_mode) or os.isatty(descriptor):
        return descriptor
    os.close(descriptor)
    return None


def open_regular(path: Path, mode: str = "rb", *, follow: bool = True) -> BinaryIO:
    """*path* open in binary *mode* (``rb``, or ``wb``: created or truncated) when it is a regular file;
    :class:`OSError` otherwise, at once.

    The file is opened with ``O_NONBLOCK``, so a FIFO (with no writer, or no reader) or a device never
    makes the ``open`` wait, and anything but a regular file is refused on the open descriptor (so a
    name swapped meanwhile cannot slip one in). With *follow* false a symbolic link at *path* is refused.
    """
    access = os.O_WRONLY | os.O_CREAT | os.O_TRUNC if mode == "wb" else os.O_RDONLY
    flags = access | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    descriptor = os.open(path, flags, 0o666)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(descriptor, True)
        return open(descriptor, "wb" if mode == "wb" else "rb")
    except BaseException:
        os.close(descriptor)
        raise
