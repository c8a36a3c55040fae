"""Syntax highlighting of code blocks at build time (Pygments), as CSS classes only.

A page's code blocks (JSON requests and schemas, shell commands, YAML) are coloured when the
site is built, so nothing runs in the browser and the Content-Security-Policy keeps
``style-src 'self'``: the output carries class names and no ``style`` attribute, and the
colours live in ``assets/highlight.css`` (light and dark).

The class names are Pygments' standard short names of a token's *parent* type (``s`` for every
string, ``m`` for every number, ``k`` for keywords and JSON's ``true``/``false``/``null``,
``nt`` for JSON and YAML keys, ``c`` for comments, ``nv`` for shell variables), so a stylesheet
made with ``pygmentize -S STYLE -f html -a "code.hl"`` works too.  Punctuation, whitespace and
plain text get no span: they take the block's own colour, and a page with a thousand blocks
stays small.

Highlighting is a pure function of (text, language), cached: the same example appears on a
tool's page in every locale, and pages are rendered one tool (all locales) at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape
from pygments.lexer import Lexer
from pygments.lexers.data import JsonLexer, YamlLexer
from pygments.lexers.shell import BashLexer
from pygments.token import Keyword, Name, Number, String

from generator.render.shown import record
from generator.text import visible

# One lexer instance per language, made once: creating a Pygments lexer costs more than
# lexing a small block.  ``stripnl=False`` and ``ensurenl=False`` keep the text exactly as given.
_LEXERS: dict[str, Lexer] = {}
_ALIASES = {
    "json": "json",
    "jsonc": "json",
    "shell": "shell",
    "sh": "shell",
    "bash": "shell",
    "console": "shell",
    "curl": "shell",
    "yaml": "yaml",
    "yml": "yaml",
}
_LEXER_CLASSES: dict[str, type[Lexer]] = {"json": JsonLexer, "shell": BashLexer, "yaml": YamlLexer}

MAX_HIGHLIGHTED = 200_000
"""Longer blocks (a huge raw schema) are shown plain: colour is not worth the page weight there."""

# Token type (or its closest listed ancestor) -> class.  Types not listed get no span.
_CLASSES: dict[str, str] = {
    "Token.Name.Tag": "nt",
    "Token.Name.Attribute": "na",
    "Token.Name.Variable": "nv",
    "Token.Name.Builtin": "nb",
    "Token.Literal.String.Interpol": "nv",
    "Token.Literal.String.Escape": "se",
    "Token.Literal.String": "s",
    "Token.Literal.Number": "m",
    "Token.Keyword": "k",
    "Token.Comment": "c",
    "Token.Operator": "o",
}


def language_of(label: str) -> str | None:
    """The highlighter's language for a code block's label (``json``, ``shell``, ``yaml``), or None."""
    return _ALIASES.get(label.lower())


def _lexer(language: str) -> Lexer:
    lexer = _LEXERS.get(language)
    if lexer is None:
        lexer = _LEXERS[language] = _LEXER_CLASSES[language](stripnl=False, ensurenl=False)
    return lexer


_CLASS_OF: dict[Any, str] = {}
"""Token type -> class, filled as types are met (a few dozen)."""


def _class_of(token: Any) -> str:
    """The class for *token* (a Pygments token type): that of its nearest ancestor in :data:`_CLASSES`,
    or "" for none."""
    current: Any = token
    while current is not None:
        found = _CLASSES.get(str(current))
        if found is not None:
            return found
        current = current.parent
    return ""


@lru_cache(maxsize=256)
def highlight_html(text: str, label: str) -> Markup:
    """The HTML inside ``<code>`` for *text*: escaped, with ``<span class>`` around coloured tokens.

    Unknown labels, and text longer than :data:`MAX_HIGHLIGHTED`, come back escaped and
    uncoloured.  Hidden characters become visible markers first (as everywhere on a page),
    and adjacent tokens of one class share a span.  The text content of the result is
    exactly the (visible) input, so a copy button copying ``innerText`` copies the code.
    """
    shown = visible(text)
    language = language_of(label)
    if language is None or len(shown) > MAX_HIGHLIGHTED:
        return Markup(escape(shown))  # as autoescape would have written it
    if language == "json":
        coloured = json_html(shown)
        if coloured is not None:
            return Markup(coloured)
    # get_tokens_unprocessed: the text is lexed as it is (visible() left no "\r" to normalise).
    return Markup(_spans((token, value) for _, token, value in _lexer(language).get_tokens_unprocessed(shown)))


def _spans(tokens: Iterable[tuple[Any, str]]) -> str:
    """*tokens* as escaped text, each run of one class in one ``<span class>`` (none for no class)."""
    out: list[str] = []
    current, pending = "", list[str]()  # the open class and its pieces of text
    classes = _CLASS_OF
    for token, value in tokens:
        css = classes.get(token)
        if css is None:
            css = classes[token] = _class_of(token)
        if css != current:
            _flush(out, current, pending)
            current, pending = css, []
        pending.append(value)
    _flush(out, current, pending)
    return "".join(out)


_JSON_TOKEN = re.compile(
    r'("(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")([ \n\r\t]*)(:?)'  # a string (a key when ":" follows)
    r"|([ftn][truefalsn]*)"  # true, false, null: JsonLexer reads on while the letters are theirs
    r"|([-0-9][-0-9.eE+]*)"  # a number
    r"|([ \n\r\t{}\[\],:]+)"  # whitespace and punctuation, which get no class
)
"""JSON's tokens as :class:`JsonLexer` cuts them. The alternatives start with different characters,
so a match never backtracks further than one token."""
_JSON_CLASSES = tuple(_class_of(token) for token in (String.Double, Name.Tag, Keyword.Constant, Number))
"""The classes of a JSON string, key, constant and number (whitespace and punctuation have none)."""


def json_html(text: str) -> str | None:
    """What :func:`_spans` writes for Pygments' :class:`JsonLexer` tokens of *text*, or None when
    *text* holds anything but JSON's own tokens (a comment, a stray character, an escape JSON does
    not have, two strings in a row), which is then left to the lexer.

    The lexer reads a character at a time and was most of the time spent colouring examples;
    this reads a token at a time. A string is a key when the next character that is not
    whitespace is ``:``, as the lexer decides. Two coloured tokens of one class never touch in
    what is accepted, so each gets its own span, as the lexer's merged runs would.
    ``tests/test_fast_paths.py`` checks that the two agree, on JSON and on text that is not.
    """
    out: list[str] = []
    at, end = 0, len(text)
    match = _JSON_TOKEN.match
    string, key, constant, number = _JSON_CLASSES
    while at < end:
        found = match(text, at)
        if found is None:
            return None
        at = found.end()
        kind = found.lastindex
        if kind == 6:
            out.append(found.group())
        elif kind == 4:
            out.append(f'<span class="{constant}">{found.group()}</span>')
        elif kind == 5:
            out.append(f'<span class="{number}">{found.group()}</span>')
        else:
            quoted, blanks, colon = found.group(1, 2, 3)
            if not colon and text.startswith('"', at):
                return None  # the lexer would type both strings by what follows the second
            out.append(f'<span class="{key if colon else string}">{_text(quoted)}</span>{blanks}{colon}')
    return "".join(out)


def _flush(out: list[str], css: str, pieces: list[str]) -> None:
    if not pieces:
        return
    text = _text("".join(pieces))
    out.append(f'<span class="{css}">{text}</span>' if css else text)


def _text(text: str) -> str:
    """*text* escaped for a text node: only &, < and > (leaving quotes bare keeps JSON blocks small)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def highlight(text: object, label: str = "json") -> Markup:
    """Jinja filter: ``{{ text|highlight(label) }}`` inside the ``code`` macro's ``<code>``."""
    if isinstance(text, Markup):
        # Already HTML (a caller that built its own markup): leave it as it is.
        return text
    return record(highlight_html(str(text), label))  # hidden characters are markers already
