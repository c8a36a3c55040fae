"""Optional translations of server text, pinned to the exact text they translate.

Server text is shown verbatim by default.  A translation file per locale
(``translations/ru.yaml``) may translate the ``title`` or ``description`` of a
tool, a prompt, a resource or a resource template; each entry stores the sha256
of the source text it was made from.  When the server's text changes, the entry
is *stale*: the page falls back to the verbatim text with a notice, and
``build --strict`` fails listing the stale entries.

File format (a section per kind; tools and prompts are keyed by name, resources
by URI and resource templates by URI template)::

    tools:
      search_chat:
        description:
          source_sha256: 9f86d08...   # sha256 of the server's text, UTF-8
          text: Ищет сообщения в архиве чатов...
    prompts:
      triage_defect:
        title: {source_sha256: ..., text: ...}
    resources:
      "teamspace://handbook":
        description: {source_sha256: ..., text: ...}
    resource_templates:
      "teamspace://documents/{document_id}":
        title: {source_sha256: ..., text: ...}
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from generator.config.files import load_yaml, yaml_problem
from generator.errors import PortalError
from generator.snapshot.shape import ITEM_KEYS
from generator.snapshot.snapshot import Snapshot
from generator.text import NotUtf8, counted, utf8_text

FIELDS = ("title", "description")
SECTIONS: dict[str, str] = {"tools": "name", **ITEM_KEYS}
"""Each section of a translation file, and the wire field its entries are keyed by."""
_KEYS = {"source_sha256", "text", "source", "status", "previous_text"}

Key = tuple[str, str, str]
"""(section, item key, field): ``("tools", "search_chat", "description")``."""


def sources(snapshot: Snapshot) -> dict[Key, str]:
    """Every translatable text of *snapshot*, in the order its pages appear."""
    found: dict[Key, str] = {}
    for section in SECTIONS:
        for item in getattr(snapshot, section):
            key = item.get(SECTIONS[section])
            for field in FIELDS:
                text = item.get(field)
                if isinstance(key, str) and isinstance(text, str) and text.strip():
                    found.setdefault((section, key, field), text)
    return found


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Translated:
    source_sha256: str
    text: str


@dataclass(frozen=True)
class Lookup:
    """The outcome for one field on one page: a current translation, a stale one, or none."""

    text: str | None
    stale: bool


@dataclass(frozen=True)
class Translations:
    """Every locale's entries, keyed by (section, item key, field)."""

    entries: Mapping[str, Mapping[Key, Translated]]

    def lookup(self, locale: str, section: str, key: str, field: str, source: str) -> Lookup:
        entry = self.entries.get(locale, {}).get((section, key, field))
        if entry is None or not source:
            return Lookup(None, False)
        if entry.source_sha256 != source_hash(source):
            return Lookup(None, True)
        return Lookup(entry.text, False)

    def stale(self, snapshot: Snapshot) -> list[str]:
        """``locale: section.key.field`` for every entry whose source text changed or disappeared."""
        if not any(self.entries.values()):
            return []  # no translations: the snapshot's texts need not be gathered
        current = sources(snapshot)
        found = []
        for locale, entries in sorted(self.entries.items()):
            for (section, key, field), entry in sorted(entries.items()):
                source = current.get((section, key, field))
                if source is None or entry.source_sha256 != source_hash(source):
                    found.append(f"{locale}: {section}.{key}.{field}")
        return found


class _Dumper(yaml.SafeDumper):
    """Writes multi-line text as literal blocks, so translators see paragraphs as they are."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _problem(path: Path, what: str) -> PortalError:
    return PortalError(
        f"The translation file {path} is invalid: {what}. Each entry is <section>.<name>.<field> with "
        f"`source_sha256` and `text` (sections: {', '.join(SECTIONS)}); regenerate a template with "
        f"`mcp-portal translations --locale ...`."
    )


def _read(path: Path) -> dict[Key, Translated]:
    try:
        data = load_yaml(utf8_text(path.read_bytes())) or {}
    except yaml.YAMLError as exc:
        raise _problem(path, f"it cannot be read as YAML ({yaml_problem(exc)})") from None
    except NotUtf8 as exc:
        raise _problem(path, f"{exc}; save it as UTF-8") from None
    except OSError as exc:
        raise _problem(path, f"it cannot be read ({exc})") from None
    if not isinstance(data, dict) or set(data) - set(SECTIONS):
        raise _problem(path, f"the top level may hold only {', '.join(f'`{k}`' for k in SECTIONS)}")
    entries: dict[Key, Translated] = {}
    for section, items in data.items():
        if not isinstance(items, dict):
            raise _problem(path, f"`{section}` must be a mapping of names to fields")
        for name, fields in items.items():
            where = f"{section}.{name}"
            if not isinstance(fields, dict):
                raise _problem(path, f"`{where}` must be a mapping of fields")
            for field, value in fields.items():
                if field not in FIELDS:
                    raise _problem(path, f"`{where}.{field}` is not a translatable field ({', '.join(FIELDS)})")
                # `source` and `status` are what `mcp-portal translations` writes for translators; allowed, unused.
                if not isinstance(value, dict) or not {"source_sha256", "text"} <= set(value) <= _KEYS:
                    raise _problem(path, f"`{where}.{field}` needs `source_sha256` and `text` (and nothing else)")
                text, digest = value["text"], value["source_sha256"]
                if not isinstance(text, str) or not isinstance(digest, str):
                    raise _problem(path, f"`{where}.{field}` has a non-string value")
                if text.strip():
                    entries[(str(section), str(name), str(field))] = Translated(digest, text)
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


def todo(snapshot: Snapshot, existing: Translations, locale: str, directory: str = "translations") -> tuple[str, int]:
    """YAML for translators: every missing or stale entry, with the source text to translate."""
    current = existing.entries.get(locale, {})
    out: dict[str, dict[str, dict[str, dict[str, str]]]] = {"tools": {}}
    count = 0
    for (section, name, field), source in sources(snapshot).items():
        entry = current.get((section, name, field))
        if entry is not None and entry.source_sha256 == source_hash(source):
            continue
        item = {"source": source, "source_sha256": source_hash(source), "text": "", "status": "missing"}
        if entry:
            # The old translation is kept aside, never as `text`: merged as is, it would pass
            # as a translation of the new source.
            item |= {"status": "stale", "previous_text": entry.text}
        out.setdefault(section, {}).setdefault(name, {})[field] = item
        count += 1
    header = (
        f"# Translations to do for locale {locale}: {counted(count, 'entry', 'entries')}.\n"
        f"# Fill in each `text`, then merge the entries into {directory}/{locale}.yaml.\n"
        "# `source`, `status` and `previous_text` are there to help you and may stay; `source_sha256` pins the\n"
        "# translation to that exact server text, so a later change marks it stale.\n"
    )
    body = yaml.dump(out, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    return header + body, count
