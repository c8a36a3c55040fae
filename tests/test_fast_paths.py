"""Quick paths give exactly what the slow ones give: the Markdown escapers, the site path check, JSON colouring."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.render import filters
from generator.text import code_span, visible

_TEXT = st.text(alphabet=st.sampled_from(list("ab_1 .-#>+=*[]`~&|<\\\n\t;x\u202e")), max_size=12) | st.text(max_size=8)


def _code_span_reference(value: object) -> str:
    """code_span as it was written before its quick path."""
    text = re.sub(r"\s*\n\s*", " ", visible(str(value)))
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _escape_plain_reference(text: str, *, first: bool) -> str:
    """_escape_plain (without pull-request references) as it was written before its quick path."""
    text = text.replace("\\", "\\\\")
    text = filters._INLINE.sub(r"\\\1", text)
    text = filters._UNDERSCORE.sub(r"\\_", text)
    text = filters._ENTITY.sub(r"\\&", text)
    text = text.replace("|", "\\|")
    text = text.replace("<", "&lt;")
    if first:
        text = filters._LINE_START.sub(
            lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}", text
        )
    return text


@settings(max_examples=3000, deadline=None)
@given(_TEXT)
def test_code_span(text: str) -> None:
    assert code_span(text) == _code_span_reference(text)


@settings(max_examples=3000, deadline=None)
@given(_TEXT, st.booleans())
def test_escape_plain(text: str, first: bool) -> None:
    assert filters._escape_plain(text, first=first, pr=False) == _escape_plain_reference(text, first=first)


def _is_safe_relative_reference(path: str) -> bool:
    """is_safe_relative as it was written before it stopped building a PurePosixPath per file."""
    from pathlib import PurePosixPath

    pure = PurePosixPath(path)
    return not (
        pure.is_absolute()
        or not pure.parts
        or ".." in pure.parts
        or any(p in ("", ".") for p in pure.parts)
        or "\x00" in path
        or "\\" in path
        or path != pure.as_posix()
    )


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("a./\\\x00b-_é")), max_size=10))
def test_the_site_path_check_agrees_with_the_path_object_one(path: str) -> None:
    from generator.publish.location import is_safe_relative

    assert is_safe_relative(path) is _is_safe_relative_reference(path)


# --------------------------------------------------------------------------- JSON highlighting

_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)
_JSON_SOUP = st.text(alphabet=st.sampled_from(list('{}[],:" \n\t\r\\/u0189afAEe.+-truelsnx*<&>')), max_size=30)


def _pygments_html(text: str) -> str:
    """The colouring of *text* from Pygments' own JSON lexer, as every other language is coloured."""
    from pygments.lexers.data import JsonLexer

    from generator.render.highlight import _spans

    lexer = JsonLexer(stripnl=False, ensurenl=False)
    return _spans((token, value) for _, token, value in lexer.get_tokens_unprocessed(text))  # type: ignore[no-untyped-call]


@settings(max_examples=750, deadline=None)
@given(_JSON_VALUES, st.sampled_from([None, 2]))
def test_json_html_of_json_is_what_the_lexer_gives(value: object, indent: int | None) -> None:
    from generator.render.highlight import json_html
    from generator.text import json_block

    text = json_block(value) if indent else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    coloured = json_html(text)
    assert coloured is not None, "JSON itself takes the quick path"
    assert coloured == _pygments_html(text)


@settings(max_examples=3000, deadline=None)
@given(_JSON_SOUP)
def test_json_html_of_any_text_is_what_the_lexer_gives_or_none(text: str) -> None:
    from generator.render.highlight import json_html

    coloured = json_html(text)
    assert coloured is None or coloured == _pygments_html(text)
