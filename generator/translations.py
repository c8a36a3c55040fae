"""Optional translations of server text, pinned to the exact text they translate.

Server text is shown verbatim by default.  A translation file per locale
(``translations/ru.yaml``) may translate a tool's ``title`` or ``description``;
each entry stores the sha256 of the source text it was made from.  When the
server's text changes, the entry is *stale*: the page falls back to the verbatim
text with a notice, and ``build --strict`` fails listing the stale entries.

File format::

    tools:
      search_chat:
        description:
          source_sha256: 9f86d08...   # sha256 of the server's text, UTF-8
          text: Ищет сообщения в архиве чатов...
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.errors import PortalError

FIELDS = ("title", "description")
_KEYS = {"source_sha256", "text", "source", "status", "previous_text"}


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Entry:
    source_sha256: str
    text: str


@dataclass(frozen=True)
class Lookup:
    """The outcome for one field on one page: a current translation, a stale one, or none."""

    text: str | None
    stale: bool


@dataclass(frozen=True)
class Translations:
    """Every locale's entries, keyed by (tool name, field)."""

    entries: Mapping[str, Mapping[tuple[str, str], Entry]]

    def lookup(self, locale: str, tool: str, field: str, source: str) -> Lookup:
        entry = self.entries.get(locale, {}).get((tool, field))
        if entry is None or not source:
            return Lookup(None, False)
        if entry.source_sha256 != source_hash(source):
            return Lookup(None, True)
        return Lookup(entry.text, False)

    def stale(self, tools: Iterable[Mapping[str, Any]]) -> list[str]:
        """``locale: tool.field`` for every entry whose source text changed or disappeared."""
        by_name = {t.get("name"): t for t in tools}
        found = []
        for locale, entries in sorted(self.entries.items()):
            for (tool, field), entry in sorted(entries.items()):
                source = by_name.get(tool, {}).get(field)
                if not isinstance(source, str) or entry.source_sha256 != source_hash(source):
                    found.append(f"{locale}: {tool}.{field}")
        return found


class _Dumper(yaml.SafeDumper):
    """Writes multi-line text as literal blocks, so translators see paragraphs as they are."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _problem(path: Path, what: str) -> PortalError:
    return PortalError(
        f"The translation file {path} is invalid: {what}. Each entry is tools.<tool>.<field> with "
        f"`source_sha256` and `text`; regenerate a template with `mcp-portal translations --locale ...`."
    )


def _read(path: Path) -> dict[tuple[str, str], Entry]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise _problem(path, f"it cannot be read as YAML ({exc})") from None
    tools = data.get("tools", {}) if isinstance(data, dict) else None
    if not isinstance(tools, dict) or set(data) - {"tools"}:
        raise _problem(path, "the top level must hold only `tools`")
    entries: dict[tuple[str, str], Entry] = {}
    for tool, fields in tools.items():
        if not isinstance(fields, dict):
            raise _problem(path, f"`tools.{tool}` must be a mapping of fields")
        for field, value in fields.items():
            if field not in FIELDS:
                raise _problem(path, f"`tools.{tool}.{field}` is not a translatable field ({', '.join(FIELDS)})")
            # `source` and `status` are what `mcp-portal translations` writes for translators; allowed, unused.
            if not isinstance(value, dict) or not {"source_sha256", "text"} <= set(value) <= _KEYS:
                raise _problem(path, f"`tools.{tool}.{field}` needs `source_sha256` and `text` (and nothing else)")
            text, digest = value["text"], value["source_sha256"]
            if not isinstance(text, str) or not isinstance(digest, str):
                raise _problem(path, f"`tools.{tool}.{field}` has a non-string value")
            if text.strip():
                entries[(str(tool), str(field))] = Entry(digest, text)
    return entries


def load_translations(directory: Path | None, locales: Iterable[str]) -> Translations:
    """Read ``<directory>/<locale>.yaml`` for each locale that has one."""
    if directory is None:
        return Translations({})
    if not directory.is_dir():
        raise PortalError(f"The translations directory {directory} does not exist. Create it or fix --translations.")
    found = {}
    for locale in locales:
        path = directory / f"{locale}.yaml"
        if path.is_file():
            found[locale] = _read(path)
    return Translations(found)


def todo(
    tools: Iterable[Mapping[str, Any]], existing: Translations, locale: str, directory: str = "translations"
) -> tuple[str, int]:
    """YAML for translators: every missing or stale entry, with the source text to translate."""
    current = existing.entries.get(locale, {})
    out: dict[str, dict[str, dict[str, str]]] = {}
    count = 0
    for tool in tools:
        name = tool.get("name")
        for field in FIELDS:
            source = tool.get(field)
            if not isinstance(name, str) or not isinstance(source, str) or not source.strip():
                continue
            entry = current.get((name, field))
            if entry is not None and entry.source_sha256 == source_hash(source):
                continue
            item = {"source": source, "source_sha256": source_hash(source), "text": "", "status": "missing"}
            if entry:
                # The old translation is kept aside, never as `text`: merged as is, it would pass
                # as a translation of the new source.
                item |= {"status": "stale", "previous_text": entry.text}
            out.setdefault(name, {})[field] = item
            count += 1
    header = (
        f"# Translations to do for locale {locale}: {count} entr{'y' if count == 1 else 'ies'}.\n"
        f"# Fill in each `text`, then merge the entries into {directory}/{locale}.yaml.\n"
        "# `source`, `status` and `previous_text` are there to help you and may stay; `source_sha256` pins the\n"
        "# translation to that exact server text, so a later change marks it stale.\n"
    )
    body = yaml.dump({"tools": out}, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    return header + body, count
