"""Relative links between site paths: the segment arithmetic gives what posixpath.relpath gives."""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.model.pages import relative

_SEGMENT = st.sampled_from(["en", "ar", "tools", "search_chat", "index.html", "llms.txt", "a.md", "", ".", ".."])
_PATH = st.lists(_SEGMENT, max_size=5).map("/".join)


def _relpath(from_path: str, to_path: str) -> str:
    """The definition: posixpath.relpath from the directory of *from_path*, a trailing ``/`` kept."""
    rel = posixpath.relpath(to_path, posixpath.dirname(from_path) or ".")
    return rel + "/" if to_path.endswith("/") and not rel.endswith("/") else rel


@settings(max_examples=3000, deadline=None)
@given(_PATH, _PATH, st.booleans())
def test_a_link_is_what_relpath_gives(from_path: str, to_path: str, directory: bool) -> None:
    to_path += "/" if directory else ""
    if to_path:
        assert relative(from_path, to_path) == _relpath(from_path, to_path)


def test_the_links_a_page_makes() -> None:
    assert relative("en/tools/a/index.html", "en/index.html") == "../../index.html"
    assert relative("en/tools/a/index.html", "ru/tools/a/index.html") == "../../../ru/tools/a/index.html"
    assert relative("en/tools/a/index.html", "en/tools/a/") == "./"
    assert relative("index.html", "en/") == "en/"
    assert relative("en/llms-full.txt", "en/tools/a.md") == "tools/a.md"
