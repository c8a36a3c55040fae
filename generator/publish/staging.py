"""The new site as it is written: each file straight to disk, hashed on the way.

A :class:`Staging` is the directory a build writes into before :mod:`generator.publish.write`
publishes it. Nothing holds the whole site in memory: a page is written as soon as it is
rendered, and :attr:`Staging.hashes` is all that is kept of it (for ``manifest.json``).

When the output already holds a site we built, a file with the bytes its copy there holds
costs no write: a *lazy* staging only notes it in :attr:`Staging.same` and leaves it where it
is, so a rebuild after a one-tool change writes a handful of files, which the publisher then
moves into place (:mod:`generator.publish.inplace`). :meth:`Staging.complete` puts the
unchanged files in too (hard links) for a step that needs the whole site in one directory
(the search indexer) or for a publish that swaps the whole directory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePosixPath

from generator.errors import PortalError
from generator.publish.location import is_safe_relative


def check_safe(path: str) -> None:
    """Reject any path that could leave the output directory (defence in depth: slugs already avoid it)."""
    if not is_safe_relative(path):
        raise PortalError(f"Refusing to write {path!r}: it would land outside the output directory.")


def safe_relative(path: str) -> PurePosixPath:
    """*path* as a path object, once :func:`check_safe` lets it through."""
    check_safe(path)
    return PurePosixPath(path)


class Staging:
    """A new site as it is being written (see the module docstring)."""

    def __init__(
        self,
        root: Path,
        previous: Path | None = None,
        unchanged: Mapping[str, str] | None = None,
        *,
        lazy: bool = False,
        listed: Mapping[str, str] | None = None,
    ) -> None:
        self.root = root
        self.hashes: dict[str, str] = {}
        self._base = os.fspath(root)
        self._dirs: set[str] = {""}
        """The directories made so far, relative to :attr:`root` (``""`` is the root itself)."""
        self.previous = previous
        """The site being replaced, whose files :attr:`unchanged` lists."""
        self.unchanged: Mapping[str, str] = unchanged or {}
        """The previous site's files that are regular files still holding what its manifest says (path -> sha256)."""
        self.lazy = lazy and previous is not None
        """Whether a file :attr:`unchanged` already holds is left in :attr:`previous` (else it is hard-linked)."""
        self.same: set[str] = set()
        """The files of the new site left in :attr:`previous`, not written to :attr:`root` (lazy only)."""
        self.listed: Mapping[str, str] = listed or {}
        """Every file the previous site's manifest lists that is ours to touch (path -> sha256), intact or not."""

    def fresh(self) -> Staging:
        """A writer into the same directory with its own :attr:`hashes` (one per render worker)."""
        return Staging(self.root, self.previous, self.unchanged, lazy=self.lazy)

    def nested(self, directory: str) -> Staging:
        """A staging for the site that lives in *directory* of this one (a version of a versioned site):
        written under :attr:`root`/*directory*, its previous site the same directory of :attr:`previous`,
        leaving there what this staging knows to be unchanged. :meth:`absorb` takes its files back."""
        check_safe(directory)
        prefix = directory + "/"
        unchanged = {p[len(prefix) :]: d for p, d in self.unchanged.items() if p.startswith(prefix)}
        previous = self.previous / directory if self.previous is not None else None
        (self.root / directory).mkdir(parents=True, exist_ok=True)
        return Staging(self.root / directory, previous, unchanged, lazy=self.lazy)

    def absorb(self, inner: Staging, directory: str) -> None:
        """Count the files *inner* (made by :meth:`nested` for *directory*) wrote, or left in place, as this one's."""
        prefix = directory + "/"
        for path, digest in inner.hashes.items():
            self._note(prefix + path)
            self.hashes[prefix + path] = digest
        self.same |= {prefix + path for path in inner.same}

    def _note(self, path: str) -> None:
        """Check *path* before it is written: inside the site, and written once per build."""
        if path in self.hashes:
            raise PortalError(f"Refusing to write {path!r} twice in one build (two pages claim the same path).")
        check_safe(path)

    def _claim(self, path: str) -> str:
        """Where *path* goes (as a string: a site has thousands of files), its directory made."""
        self._note(path)
        return self._place(path)

    def _place(self, path: str) -> str:
        directory = path.rpartition("/")[0]
        if directory not in self._dirs:
            os.makedirs(os.path.join(self._base, directory), exist_ok=True)
            self._dirs.add(directory)
        return os.path.join(self._base, path)

    def write(self, path: str, data: bytes) -> None:
        """Write one file of the site (*path* relative to its root)."""
        self.write_known(path, hashlib.sha256(data).hexdigest(), lambda: data)

    def write_known(self, path: str, digest: str, load: Callable[[], bytes | None]) -> bool:
        """Write a file whose sha256 is known: nothing at all when a lazy staging's previous site holds
        those bytes, a hard link to that copy otherwise, else the bytes *load* gives. When *load* has
        none (a damaged cache entry), nothing is written and False is returned."""
        if self.lazy and self.unchanged.get(path) == digest:
            self._note(path)
            self.same.add(path)
            self.hashes[path] = digest
            return True
        target = self._claim(path)
        if not (self.unchanged.get(path) == digest and self._link(path, target)):
            data = load()
            if data is None:
                return False
            with open(target, "wb") as handle:
                handle.write(data)
        self.hashes[path] = digest
        return True

    def write_parts(self, path: str, parts: Iterable[bytes], separator: bytes) -> int:
        """Write one file made of *parts* joined by *separator*, one part in memory at a time; return its
        size. As with :meth:`write`, a lazy staging whose previous site holds these very bytes leaves
        them there (the new copy is removed): an identical rebuild then replaces no ``llms-full.txt``."""
        target = self._claim(path)
        digest = hashlib.sha256()
        size = 0
        with open(target, "wb") as handle:
            for i, part in enumerate(parts):
                piece = separator + part if i else part  # one chunk of one locale: a few MB at most
                handle.write(piece)
                digest.update(piece)
                size += len(piece)
        self.hashes[path] = digest.hexdigest()
        if self.lazy and self.unchanged.get(path) == self.hashes[path]:
            os.remove(target)
            self.same.add(path)
        return size

    def write_stream(self, path: str, pieces: Iterable[bytes]) -> None:
        """Write one file made of *pieces*, one in memory at a time (see :meth:`write_parts`)."""
        self.write_parts(path, pieces, b"")

    def _link(self, path: str, target: str) -> bool:
        """Hard-link the previous site's copy of *path* to *target*, if it is a regular file there."""
        if self.previous is None:
            return False
        source = os.path.join(self.previous, path)
        try:
            if not stat.S_ISREG(os.lstat(source).st_mode):
                return False
            os.link(source, target, follow_symlinks=False)
        except OSError:  # another file system, no hard links, a file gone since: write it instead
            return False
        return True

    def complete(self) -> None:
        """Put every file of :attr:`same` into :attr:`root` too, so the directory holds the whole site.

        Hard links where the file system allows them, else copies; from then on the staging is not lazy.
        """
        if self.previous is not None:
            for path in sorted(self.same):
                target = self._place(path)
                if not self._link(path, target):
                    shutil.copyfile(os.path.join(self.previous, path), target, follow_symlinks=False)
        self.same.clear()
        self.lazy = False

    def adopt(self, directory: str) -> None:
        """Record the files another program wrote under *directory* (Pagefind's index)."""
        base = self.root / directory
        for file in sorted(base.rglob("*")):
            if file.is_file() and not file.is_symlink():
                path = file.relative_to(self.root).as_posix()
                safe_relative(path)
                self.hashes[path] = hashlib.sha256(file.read_bytes()).hexdigest()

    def read(self, path: str) -> bytes:
        """A file already written (from the previous site when a lazy staging left it there)."""
        return self.location(path).read_bytes()

    def location(self, path: str) -> Path:
        """Where a file already written is: in the previous site when a lazy staging left it there."""
        parts = safe_relative(path).parts
        if path in self.same and self.previous is not None:
            return self.previous.joinpath(*parts)
        return self.root.joinpath(*parts)
