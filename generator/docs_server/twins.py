"""A Markdown twin taken apart for the search index: its front matter, its labelled lines and its prose.

A twin starts with YAML front matter (``title``, ``description``, ``locale``, ``verbatim_language``,
``canonical``...) and then Markdown. The index weighs its parts differently, so they are kept apart:
the title and description of the front matter, the values of ``**Label:** value`` lines (a tool's
title, in a translation where there is one), and the rest of the text. Fenced code is left out of the
text (raw schemas and call sequences say the same of every tool), except ``text`` and ``markdown``
fences, which hold the server's own descriptions and the authors' notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

KINDS = {"tools": "tool", "prompts": "prompt", "resources": "resource", "resource-templates": "resource-template"}
"""The directory of a locale's twins that documents one kind of item, and that kind."""
_KEPT_FENCES = ("text", "markdown")
_LABEL = re.compile(r"\*\*[^*\n]{1,80}:\*\* (.+)")
_FENCE = re.compile(r"(`{3,}|~{3,})([A-Za-z0-9_-]*)")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FRONT_LINE = re.compile(r'([A-Za-z_][A-Za-z0-9_]*): (?:"((?:[^"\\]|\\.)*)"|([^"\s]\S*))')
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
_ESCAPES = {"n": "\n", "t": "\t", "L": "\u2028", "P": "\u2029", "0": "\0", "/": "/", "\\": "\\", '"': '"'}


@dataclass(frozen=True)
class Twin:
    """One twin: where it is, what kind of page it is, and its text in the parts the index weighs."""

    path: str
    locale: str
    kind: str
    front: dict[str, str]
    labels: tuple[str, ...]
    prose: tuple[str, ...] = field(repr=False)

    @property
    def title(self) -> str:
        return self.front.get("title", "")

    @property
    def description(self) -> str:
        return self.front.get("description", "")


def kind_of(path: str) -> str:
    """``tool`` for ``L/tools/x.md`` (and the like for prompts, resources, templates), else ``page``."""
    parts = path.split("/")
    return KINDS.get(parts[-2], "page") if len(parts) >= 3 else "page"


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """The front matter's string values and the Markdown after it; no front matter gives ``{}`` and *text*.

    A twin's front matter is one ``key: "double-quoted scalar"`` (or plain word) per line, read here
    directly; anything else is handed to a YAML parser.
    """
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 3)
    if end < 0:
        return {}, text
    block, body = text[4:end], text[end + 5 :]
    front: dict[str, str] = {}
    for line in block.splitlines():
        match = _FRONT_LINE.fullmatch(line)
        if match is None:
            return _yaml_front(block), body
        quoted, plain = match.group(2), match.group(3)
        front[match.group(1)] = _ESCAPE.sub(_unescape, quoted) if quoted is not None else plain
    return front, body


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "xuU":
        return chr(int(code[1:], 16))
    return _ESCAPES.get(code, code)


def _yaml_front(block: str) -> dict[str, str]:
    try:
        data: Any = yaml.load(block, Loader=_LOADER)
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str | int | float)}


def parse_twin(path: str, text: str) -> Twin:
    """*text* (the twin at *path*) in the parts :mod:`.index` weighs."""
    front, body = front_matter(text)
    labels: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    keep = True
    for line in body.splitlines():
        opened = _FENCE.match(line.lstrip()) if "```" in line[:12] or "~~~" in line[:12] else None
        if fence is None and opened:
            fence, keep = opened.group(1), opened.group(2) in _KEPT_FENCES
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            elif keep:
                prose.append(line)
            continue
        label = _LABEL.fullmatch(line.strip()) if line.startswith("**") else None
        if label:
            labels.append(label.group(1).replace("`", ""))
        elif line.strip():
            prose.append(line)
    locale = front.get("locale") or path.split("/", 1)[0]
    return Twin(path, locale, kind_of(path), front, tuple(labels), tuple(prose))
