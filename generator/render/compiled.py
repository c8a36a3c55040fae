"""Compiled templates kept between builds, so a rebuild does not compile its fifty templates again.

Jinja compiles each template to Python code the first time it is used: about half a second for
a build's templates, a sixth of a rebuild after one tool changed. :class:`CheckedBytecodeCache`
keeps that code in the render cache's directory (``templates-<environment>/``), one file per
template. A file is used only when everything it was compiled from is unchanged:

- Jinja itself checks its version, Python's, and a hash of the template's source;
- the directory is named by a hash of the environment's settings that shape the compiled code
  (autoescaping, whitespace control, delimiters, finalize, filters, tests, extensions) and of the
  mcp-portal version, so the HTML and Markdown environments never share code, and a changed
  setting starts a new directory;
- each file carries a sha256 of its own bytes, so a damaged file is compiled again rather than
  run (Jinja's own cache trusts whatever it reads).

Writes are atomic (a temporary file, then a rename), and a file that cannot be written costs
only time. Only files named like ours (``<sha1>.code``) are ever written here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path

from jinja2 import Environment
from jinja2.bccache import Bucket, BytecodeCache

from generator import __version__


def settings_key(env: Environment) -> str:
    """A short hash of what, besides a template's source, decides the code Jinja compiles it to."""
    parts = [
        __version__,
        repr(env.autoescape),
        env.trim_blocks,
        env.lstrip_blocks,
        env.keep_trailing_newline,
        env.newline_sequence,
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.optimized,
        env.finalize is not None,
        getattr(env.finalize, "__qualname__", None),
        sorted(env.filters),
        sorted(env.tests),
        sorted(env.extensions),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


class CheckedBytecodeCache(BytecodeCache):
    """Jinja's bytecode cache in one directory, each file checked against its own sha256."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _file(self, bucket: Bucket) -> Path:
        return self.directory / f"{bucket.key}.code"

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            data = self._file(bucket).read_bytes()
        except OSError:
            return
        digest, _, body = data.partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() == digest:
            bucket.bytecode_from_string(body)  # Jinja checks its version and the source's hash

    def dump_bytecode(self, bucket: Bucket) -> None:
        body = bucket.bytecode_to_string()
        target = self._file(bucket)
        temporary = self.directory / f".{bucket.key}.{os.getpid()}.tmp"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(temporary, target)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()


def keep_compiled(env: Environment, root: Path) -> str:
    """Have *env* keep its compiled templates under *root* (the render cache's directory); return the
    name of the directory they go to."""
    name = f"templates-{settings_key(env)}"
    env.bytecode_cache = CheckedBytecodeCache(root / name)
    return name


COMPILED_DIR = re.compile(r"templates-[0-9a-f]{16}")
"""The names of the directories :func:`keep_compiled` uses."""
COMPILED_FILE = re.compile(r"[0-9a-f]{40}\.code")
"""The names of the files :class:`CheckedBytecodeCache` writes (Jinja's bucket key, a sha1)."""
