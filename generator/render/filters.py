"""Jinja filters: each a plain function, tested on its own.

Server text reaches templates only through these, through autoescape (HTML) and through
:func:`md_finalize` (Markdown and llms.txt), so this module and ``text.py`` are where
untrusted strings are made safe.  One escaper per output context; the Markdown ones are
listed in the table below.

The sanitizer for a server's CommonMark in HTML (:func:`markdown`, :func:`markdown_inline`,
:func:`plain_text`) lives in :mod:`generator.render.prose`, and code-block highlighting in
:mod:`generator.render.highlight`; both are registered here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, pass_context
from jinja2.runtime import Context, Macro
from markupsafe import Markup, escape

from generator.render.highlight import highlight
from generator.render.i18n import Catalog
from generator.render.prose import SAFE_SCHEMES, markdown, markdown_inline, plain_text, safe_link, wbr
from generator.render.shown import DirectContext, is_recorded, record
from generator.schema.rows import Row
from generator.text import code_span, fold_lines, json_inline, visible

# Re-exported: the HTML sanitizer lives in its own module, and callers import it from here with the filters.
__all__ = ["FILTERS", "GLOBALS", "SAFE_SCHEMES", "markdown", "markdown_inline", "plain_text", "safe_link", "wbr"]

# --------------------------------------------------------------------------- Markdown
#
# Every server string that reaches a Markdown twin, an llms.txt or a ``diff --format markdown``
# report passes exactly one of the functions below, chosen by where it lands:
#
#   inline text (prose, headings)   md_text       table cell            md_cell
#   link label                      md_label      link target           md_url (md_link: both)
#   code span                       md_code       code span in a cell   md_cell_code
#   fenced block                    md_fence      front matter (YAML)   yaml_str
#   PR-comment text                 md_text(pr=True) / md_cell(pr=True)
#   a catalog string's {placeholders}: escaped by MarkdownCatalog.t (the templates' t and tn)
#
# Each returns :class:`Md`, text already safe for Markdown, which no filter escapes again.  The
# Markdown environment's ``finalize`` (:func:`md_finalize`) escapes any other string as inline
# text, so a forgotten filter shows a few backslashes instead of forging structure.


class Md(str):
    """Text already safe to place in Markdown: an ``md_*`` filter's output, a catalog string, a macro.

    Like :class:`markupsafe.Markup` for HTML: the filters below return it as it is, and
    :func:`md_finalize` lets it through unescaped.  Concatenating it with ``~`` or ``+`` gives
    a plain ``str`` again, which is then escaped, so build links with :func:`md_link`.
    """

    __slots__ = ()


_TICK_RUN = re.compile(r"`+")
# Characters that start emphasis, links, images, strikethrough or code anywhere in a line.
_INLINE = re.compile(r"([*\[\]`~])")
# An underscore can start emphasis only at a word boundary, so snake_case names stay readable.
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# "&name;" and "&#123;" are entities: a server could spell "<" or a bidi control with them.
_ENTITY = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)")
_SPECIAL = re.compile(r"[\\*\[\]`~_&|<]")
"""Any character one of the escapes below rewrites (a quick test before running them all)."""
# At the start of a line: headings, block quotes, list items, setext underlines, thematic breaks.
# Only what can open a block there is escaped, so a version "1.0" or a name "-x" stays as it is.
_LINE_START = re.compile(r"^(?:([#>]|[+=-](?=[\s+=-]|$))|(\d{1,9})([.)])(?=\s|$))")
# What GitHub links in a PR comment: @mentions (and @org/team), #123, GH-123, owner/repo#123, and what its
# Markdown (cmark-gfm's autolink extension) links: bare URLs, www. addresses, e-mail addresses. Each pattern can
# start only where its run of characters starts (the look-behinds), so a long run is scanned once, never from
# every position in it: matching stays linear in the text.
_AUTOREF = re.compile(
    r"(?i:https?|ftp)://[^\s<|`]+|(?<![\w.-])(?i:www)\.[^\s<|`]+|(?<![\w:])(?i:mailto|xmpp):[^\s<|`]+"
    r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|(?<![\w@/.`])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9_.-]+)?"
    r"|(?<![\w.&#/`-])[\w.-]+/[\w.-]+#\d+\b"
    r"|(?<![\w&#/`])#\d+\b"
    r"|\bGH-\d+\b",
)


def _one_line(value: Any) -> str:
    """The value as one line of visible text: newlines (and the blanks around them) become a space."""
    return fold_lines(visible(str(value))).strip()


def _code_spans(text: str) -> list[tuple[bool, str]]:
    """*text* cut into ``(is_code_span, piece)`` exactly where CommonMark finds code spans.

    A run of backticks opens a span closed by the next run of the same length; a run with no
    such closer is literal.  The escaper keeps spans verbatim (code is inert) and escapes the
    rest, doubling every backslash, so no escape can reach a backtick and the parser cuts the
    output where this function cut the input.
    """
    pieces: list[tuple[bool, str]] = []
    start = pos = 0
    while (run := _TICK_RUN.search(text, pos)) is not None:
        closer = re.compile(f"(?<!`){run.group()}(?!`)").search(text, run.end())
        if closer is None:
            pos = run.end()
            continue
        pieces += [(False, text[start : run.start()]), (True, text[run.start() : closer.end()])]
        start = pos = closer.end()
    pieces.append((False, text[start:]))
    return pieces


def _escape_plain(text: str, *, first: bool, pr: bool) -> str:
    """Text outside code spans: every character that could open Markdown structure is escaped."""
    if pr:
        # Each mention or reference becomes a code span, where GitHub links nothing and notifies no one.
        parts, last = [], 0
        for m in _AUTOREF.finditer(text):
            parts += [_escape_plain(text[last : m.start()], first=first and last == 0, pr=False), md_code(m.group())]
            last = m.end()
        if parts:
            return "".join(parts) + _escape_plain(text[last:], first=False, pr=False)
    if _SPECIAL.search(text):  # most names and sentences hold none of these: nothing to escape
        text = text.replace("\\", "\\\\")
        text = _INLINE.sub(r"\\\1", text)
        text = _UNDERSCORE.sub(r"\\_", text)
        text = _ENTITY.sub(r"\\&", text)
        text = text.replace("|", "\\|")
        # Only "<" opens raw HTML and autolinks; an entity would put "&lt;" in front of LLM readers too,
        # but it is the form every Markdown reader understands.
        text = text.replace("<", "&lt;")
    if first:
        text = _LINE_START.sub(lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}", text)
    return text


def _escape_inline(value: Any, *, cell: bool, pr: bool) -> Md:
    text = _one_line(value)
    out = []
    for index, (code, piece) in enumerate(_code_spans(text)):
        if code:
            # GFM splits table cells before it finds code spans, so a pipe inside one is escaped too.
            out.append(piece.replace("|", "\\|") if cell else piece)
        else:
            out.append(_escape_plain(piece, first=index == 0, pr=pr))
    escaped = "".join(out)
    if cell and not pr and text and text.strip() == text and escaped != text.replace("|", "\\|"):
        # A cell's text that an escape other than a pipe's would change is one code span instead (its
        # own code spans included): inert in every renderer, and what an agent reads is what the
        # server sent. A pipe is written \| either way: a GFM table needs it, even in code spans.
        return Md(code_span(text).replace("|", "\\|"))
    return Md(escaped)


def md_text(value: Any, pr: bool = False) -> Md:
    """One line of untrusted text in running Markdown prose or a link label: shown, never structure.

    The server's code spans stay code spans (they are inert); everything else that could start
    emphasis, a link, an image, raw HTML, an entity, a heading, a list or a quote is escaped.
    With *pr* (a pull-request comment), @mentions and #references become code spans too.
    """
    if isinstance(value, Md):
        return value
    return _escape_inline(value, cell=False, pr=pr)


def md_cell(value: Any, pr: bool = False) -> Md:
    """Untrusted text in a Markdown table cell: :func:`md_text`, with pipes in code spans escaped too."""
    if isinstance(value, Md):
        return value
    return _escape_inline(value, cell=True, pr=pr)


def md_code(value: Any) -> Md:
    """Inline code span that survives any backticks inside the value."""
    return Md(code_span(value))


def md_cell_code(value: Any) -> Md:
    """An inline code span inside a table cell: GFM needs its pipes escaped even there."""
    return Md(md_code(value).replace("|", "\\|"))


def md_fence(text: str, info: str = "") -> Md:
    """A fenced code block longer than any backtick run inside *text*."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return Md(f"{fence}{info}\n{text}\n{fence}")


# Characters a link destination cannot hold bare (or that would end it, or a table cell).
_URL_SAFE = "/:?#[]@!$&*+,;=%-._~"


def md_block(value: Any) -> Md:
    """Blocks a macro wrote, without the blank lines around them, to place between other blocks
    (anything that is not Markdown yet is escaped as inline text first)."""
    return Md((value if isinstance(value, Md) else md_text(value)).strip("\n"))


def md_url(value: Any) -> Md:
    """A link target: percent-encoded where Markdown would end or split it; unsafe schemes refused.

    Spaces, parentheses, angle brackets, quotes, backticks, pipes, backslashes, controls and
    non-ASCII are percent-encoded.  A target with a scheme other than http, https or mailto
    (``javascript:``, ``data:``) becomes an empty target: the link stays, pointing nowhere.
    """
    text = str(value)
    if not safe_link(text):
        return Md("")
    return Md(quote(text, safe=_URL_SAFE))


_INSTALL_URL = re.compile(r"(?:vscode|vscode-insiders|cursor):[A-Za-z0-9%._~:/?&=-]*")


def md_install_url(value: Any) -> Md:
    """A one-click install link (:func:`generator.model.clients.install_links`) as a Markdown link target.

    Those links use a client's own scheme (``vscode:``, ``cursor:``), which :func:`md_url` refuses; they
    are percent-encoded but for ``-._~`` and the scheme's own ``:/?&=``, which needs no escape in a link
    target. Anything else is refused: the link stays, pointing nowhere.
    """
    text = str(value)
    return Md(text) if _INSTALL_URL.fullmatch(text) else Md("")


def md_label(value: Any) -> Md:
    """Untrusted text as a link label: :func:`md_text`, then no ``[`` or ``]`` left at all.

    CommonMark needs only ``\\]``, but loose link parsers (the ``llms_txt`` package reads a label
    as ``[^\\]]+``) would end the label there and take the server's next ``(...)`` as the target.
    Brackets become the entities ``&#91;`` and ``&#93;``, which every CommonMark reader shows as
    brackets; the server's code spans are escaped as text, since entities do not work inside one.
    """
    if isinstance(value, Md):
        return value
    text = _escape_plain(_one_line(value), first=True, pr=False)
    return Md(text.replace("\\[", "&#91;").replace("\\]", "&#93;"))


def md_link(label: Any, target: Any) -> Md:
    """``[label](target)``: the label as :func:`md_label` (a catalog string as it is)."""
    return Md(f"[{md_label(label)}]({md_url(target)})")


def _md_args(args: dict[str, Any]) -> dict[str, Any]:
    """Catalog arguments for Markdown: strings become inline text unless already Markdown."""
    return {k: md_text(v) if isinstance(v, str) else v for k, v in args.items()}


class MarkdownCatalog:
    """A locale's catalog for the Markdown templates: placeholders filled with escaped text.

    Catalog strings are the project's (or the author's) Markdown and stay as they are; each
    ``{placeholder}`` value that is not already :class:`Md` is escaped as inline text, so a
    server's version in "Generated from version {version}" cannot open a heading or a link.
    """

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    @property
    def code(self) -> str:
        return self.catalog.code

    @property
    def native_name(self) -> Md:
        return md_text(self.catalog.native_name)

    def t(self, key: str, **args: Any) -> Md:
        return Md(self.catalog.t(key, **_md_args(args)) if args else self.catalog.t(key))

    def plural(self, key: str, n: int, **args: Any) -> Md:
        return Md(self.catalog.plural(key, n, **_md_args(args)))

    def number(self, n: int | float) -> Md:
        return md_text(self.catalog.number(n))


def md_catalog(catalog: Catalog) -> MarkdownCatalog:
    return MarkdownCatalog(catalog)


def md_finalize(value: Any) -> Any:
    """Every ``{{ expression }}`` of a Markdown template: escaped as inline text unless already Markdown."""
    if isinstance(value, Md):
        return value if is_recorded(value) else visible(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return md_text(value)


class MarkdownContext(DirectContext):
    """The Markdown environment's template context: a macro's output is Markdown it already escaped."""

    def produced(self, result: Any) -> Any:
        return record(Md(result)) if isinstance(result, str) else result  # its expressions passed md_finalize


def markdown_environment(env: Environment) -> None:
    """Make *env* (created with ``finalize=md_finalize``) treat macro output as escaped Markdown."""
    env.context_class = MarkdownContext


# Line breaks keep the scalar on one line.  "<", "[", "]" and "&" are written as YAML escapes too:
# the value reads back the same, and a reader that shows front matter as Markdown (most do when
# they do not know it) finds no HTML, link, image or entity in it.
_YAML_ESCAPES = {
    "\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\u2028": "\\L", "\u2029": "\\P",
    "<": "\\x3C", "[": "\\x5B", "]": "\\x5D", "&": "\\x26",
}  # fmt: skip
_YAML_SPECIAL = re.compile("[" + re.escape("".join(_YAML_ESCAPES)) + "]")


def yaml_str(value: Any) -> Md:
    """A double-quoted YAML scalar (front matter) that reads back as the value, for any input.

    Hidden and control characters show as ``[U+XXXX]`` markers, as everywhere else.
    """
    text = visible(str(value))
    return Md('"' + _YAML_SPECIAL.sub(lambda m: _YAML_ESCAPES[m.group()], text) + '"')


def inline_json(value: Any) -> str:
    return json_inline(value)


@pass_context
def commas(context: Context, items: Iterable[Any], empty: Any = "", caller: Macro | None = None) -> Markup | Md:
    """*items* joined with the locale's list separator (``meta.comma``): the one way templates join a list.

    A filter and a global at once, in three forms:

    - ``{{ tool.profiles|map('md_code')|commas }}``: items already laid out by a filter;
    - ``{{ op.scopes|map('md_cell_code')|commas(t('tool.no_scopes')) }}``: with the text shown when
      the list is empty;
    - ``{% call(p) commas(tool.profiles) %}<code dir="ltr">{{ p }}</code>{% endcall %}``: a call
      block whose body lays out one item.

    Items and the empty text are escaped for the output (HTML, or Markdown inline text) unless
    they are already safe (:class:`~markupsafe.Markup`, :class:`Md`, a call block's body), and
    hidden characters become visible markers, so the result is finished text in either
    environment: a call block's output passes no ``finalize``.

    The separator is the catalog's string, not CLDR's list pattern: Babel's ``format_list``
    fails for some locale styles (Russian ``standard-narrow`` with three items) and adds a
    conjunction ("و" in Arabic) where pages list names, not prose.
    """
    separator = visible(context.resolve("L").t("meta.comma"))
    parts = [caller(item) for item in items] if caller is not None else list(items)
    if context.eval_ctx.autoescape:
        html = escape(empty) if not parts else Markup(escape(separator)).join(parts)
        return record(Markup(visible(str(html))))
    if not parts:
        return record(Md(visible(md_text(empty))))
    # A call block's body is Markdown its own expressions escaped; anything else is inline text.
    safe = [Md(part) if caller is not None else md_text(part) for part in parts]
    return record(Md(visible(separator.join(safe))))


def _ltr_code(text: str) -> str:
    return f'<code dir="ltr">{escape(text)}</code>'


@pass_context
def type_words(context: Context, row: Row) -> Markup:
    """A row's type for the HTML tables: JSON keywords in code, the words around them in the page's language.

    ``string | null`` stays one code span; ``array of object`` becomes the catalog's
    ``tool.type_array_of`` around ``<code>object</code>`` ("массив из", "مصفوفة من"); a row
    with no type says ``tool.type_any`` or ``tool.type_never``.  The Markdown twins keep the
    English :attr:`Row.type_label`, which an agent reads as JSON Schema.
    """
    catalog = context.resolve("L")
    if not row.types:
        return Markup(escape(catalog.t(f"tool.type_{row.type_label}")))
    if "array" not in row.types or not row.item_types:
        return Markup(_ltr_code(row.type_label))
    parts = []
    for t in row.types:
        if t != "array":
            parts.append(_ltr_code(t))
            continue
        inner = _ltr_code(" | ".join(row.item_types))
        items = f"({inner})" if len(row.item_types) > 1 else inner
        # The catalog string is escaped first, then the code spans go where {items} was.
        parts.append(str(escape(catalog.t("tool.type_array_of", items="\x1e"))).replace("\x1e", items))
    return Markup(" | ".join(parts))


FILTERS = {
    "md_install_url": md_install_url,
    "markdown": markdown,
    "markdown_inline": markdown_inline,
    "plain_text": plain_text,
    "wbr": wbr,
    "md_cell": md_cell,
    "md_code": md_code,
    "md_cell_code": md_cell_code,
    "md_fence": md_fence,
    "md_block": md_block,
    "md_text": md_text,
    "md_url": md_url,
    "md_link": md_link,
    "md_label": md_label,
    "md_catalog": md_catalog,
    "yaml_str": yaml_str,
    "json": inline_json,
    "visible": visible,
    "commas": commas,
    "highlight": highlight,
    "type_words": type_words,
}
"""Every filter of both environments; :func:`commas` is a global too (see :data:`GLOBALS`)."""

GLOBALS = {"commas": commas}
"""Functions templates call by name: :func:`commas` as a call block needs it."""
