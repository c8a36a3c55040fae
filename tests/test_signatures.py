"""Hand-edited files found without hashing untouched ones (generator/publish/signatures.py), in process.

The build tests reach this module through a subprocess, where mutation testing cannot see it; these pin
what each branch decides: a signature that did not move spares the read, anything else is hashed, and
only regular files are ever intact or recorded.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from generator.publish.location import MANIFEST
from generator.publish.signatures import (
    check_published,
    published_signatures,
    record_published,
    sha256_of,
    signature,
)
from generator.publish.survey import survey


class Kept:
    """A real, in-memory keeper of signatures, as the render cache's ``Published`` is on disk."""

    def __init__(self) -> None:
        self.kept: dict[str, dict[str, list[int]]] = {}

    def signatures(self, site: str) -> dict[str, list[int]]:
        return self.kept.get(site, {})

    def keep(self, site: str, files: dict[str, list[int]]) -> None:
        self.kept[site] = files


def _site(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A published site of three files (a link and a directory listed among them), and its manifest."""
    site = tmp_path / "site"
    (site / "b").mkdir(parents=True)
    files = {"a.html": b"a", "b/c.html": b"c", "d.md": b"d"}
    for path, data in files.items():
        (site / path).write_bytes(data)
    (site / "0-link.html").symlink_to("a.html")
    listed = {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
    listed |= {"0-link.html": listed["a.html"], "b": listed["a.html"], "gone.html": listed["a.html"]}
    return site, listed


def test_intact_edited_and_what_is_neither(tmp_path: Path) -> None:
    """A listed link, a directory and a missing file are neither intact nor edited, and none of them
    (the link sorts first) stops the files after it from being examined."""
    site, listed = _site(tmp_path)
    (site / "d.md").write_bytes(b"edited")
    taken: dict[str, list[int]] = {}
    intact, edited = check_published(site, listed, signatures=taken)
    assert intact == {"a.html": listed["a.html"], "b/c.html": listed["b/c.html"]}
    assert edited == ["d.md"]
    assert taken == {path: signature(os.lstat(site / path)) for path in intact}


def test_a_signature_that_did_not_move_spares_the_read(tmp_path: Path) -> None:
    """A file whose signature is the one seen at the last publish is taken as it was, unread: here its
    manifest digest is wrong on purpose, so only a read would call it edited."""
    site, listed = _site(tmp_path)
    wrong = listed | {"a.html": hashlib.sha256(b"not a").hexdigest()}
    assert check_published(site, wrong)[1] == ["a.html"]
    seen = {"a.html": signature(os.lstat(site / "a.html"))}
    intact, edited = check_published(site, wrong, seen)
    assert intact["a.html"] == wrong["a.html"] and edited == []
    moved = {"a.html": [*seen["a.html"][:-1], seen["a.html"][-1] + 1]}  # its change time moved: read again
    assert check_published(site, wrong, moved)[1] == ["a.html"]


def test_the_signatures_recorded_after_a_publish(tmp_path: Path) -> None:
    """Each regular file's signature is recorded (a link and a missing file are not); one the survey already
    took is recorded as given, without another lstat; no keeper, nothing recorded."""
    site, listed = _site(tmp_path)
    kept = Kept()
    given = {"b/c.html": [1, 2, 3, 4, 5]}
    record_published(kept, site, listed, given)
    assert published_signatures(kept, site) == {
        "a.html": signature(os.lstat(site / "a.html")),
        "b/c.html": [1, 2, 3, 4, 5],
        "d.md": signature(os.lstat(site / "d.md")),
    }
    assert published_signatures(kept, tmp_path / "elsewhere") == {}
    assert published_signatures(None, site) == {}
    record_published(None, site, listed)  # nothing to keep them in: no error
    assert sha256_of(str(site / "d.md")) == listed["d.md"]


def test_the_survey_keeps_what_is_not_listed_and_never_reads_beneath_a_link(tmp_path: Path) -> None:
    """The survey of a previous site, in process: an unlisted file, an empty directory and a link are kept;
    a listed path beneath the link is left alone (never hashed: its bytes elsewhere would read as edited);
    the signatures the last publish recorded spare the read of a file they still describe."""
    site, listed = _site(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.html").write_bytes(b"someone else's")
    (site / "linked").symlink_to(elsewhere)
    (site / "b" / "deep").symlink_to(elsewhere)  # a link one level down: what is listed beneath it is beyond
    (site / "mine.txt").write_bytes(b"mine")
    (site / "empty").mkdir()
    (site / "X").mkdir()
    (site / MANIFEST).write_bytes(b"{}")
    ours = {p: d for p, d in listed.items() if p in ("a.html", "b/c.html", "d.md")}
    listed = ours | {"linked/x.html": hashlib.sha256(b"x").hexdigest(), "a.html": "0" * 64}
    listed |= {"b/deep/sub/y.html": "1" * 64, "gone/z.html": "2" * 64}  # the second's directory was removed
    kept = Kept()
    kept.keep(str(site), {"a.html": signature(os.lstat(site / "a.html"))})
    found = survey(site, listed, kept)
    assert [(f.path, f.kind) for f in found.kept] == [
        ("0-link.html", "symlink"), ("X", "dir"), ("b/deep", "symlink"), ("empty", "dir"), ("linked", "symlink"),
        ("mine.txt", "file"),
    ]  # fmt: skip
    assert found.beyond == ["b/deep/sub/y.html", "linked/x.html"]
    assert found.intact == {"a.html": "0" * 64, "b/c.html": ours["b/c.html"], "d.md": ours["d.md"],
                            MANIFEST: hashlib.sha256(b"{}").hexdigest()}  # fmt: skip
    assert found.edited == [] and set(found.signatures) == {"a.html", "b/c.html", "d.md"}
    assert survey(site, listed, None).edited == ["a.html"]  # no signatures kept: it is read, and differs
