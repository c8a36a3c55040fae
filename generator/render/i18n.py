"""UI strings per locale, CLDR plurals and text direction.

Each locale is one YAML file in ``locales/``; adding a locale means adding a
file.  Plural forms are chosen by Babel from CLDR, so Russian gets
one/few/many/other and Arabic zero/one/two/few/many/other.  Identifiers, JSON and
URLs never pass through here: only the interface is localized.

A theme (``--templates DIR``) may carry ``DIR/locales/<code>.yaml`` with only the keys it
changes: they are layered over the shipped catalog of the same locale, key by key.  Its
values must be strings; a key mcp-portal does not know is a warning (a typo), except under
``theme:``, where a theme keeps the strings of its own templates.
"""

from __future__ import annotations

import decimal
import math
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from babel import Locale, UnknownLocaleError
from babel.numbers import format_decimal

from generator.config.files import PlainLoader
from generator.errors import PortalError
from generator.resources import data_dir
from generator.text import NotUtf8, utf8_text

PLURAL_CATEGORIES = ("zero", "one", "two", "few", "many", "other")
BASE_LOCALE = "en"

Entry = str | Mapping[str, str]


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Entry]:
    """``{"a": {"b": "x"}}`` -> ``{"a.b": "x"}``; a mapping of plural categories is one entry."""
    flat: dict[str, Entry] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value and set(value) <= set(PLURAL_CATEGORIES) and "other" in value:
            flat[name] = {str(k): str(v) for k, v in value.items()}
        elif isinstance(value, Mapping):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = "" if value is None else str(value)
    return flat


class _Args(dict[str, Any]):
    """Format arguments that leave an unknown ``{placeholder}`` visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


CODE_MARK = "`"
"""Around the code a catalog string names (see the module's docstring)."""


def unmarked(text: str) -> str:
    """*text* with its code marks dropped: the words as a reader reads them."""
    return text.replace(CODE_MARK, "") if CODE_MARK in text else text


_NAME_WORDS = re.compile(r"[A-Z]?[a-z]{2,30}")
"""The words of a tool name (snake, kebab or camel case), each bounded: a linear match."""


@dataclass(frozen=True)
class Catalog:
    """The UI strings of one locale, with English as the fallback for missing keys."""

    code: str
    strings: Mapping[str, Entry]
    fallback: Mapping[str, Entry] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    """Warnings about the theme catalogs this one was layered from (keys nobody knows)."""

    @cached_property
    def babel(self) -> Locale:
        return Locale.parse(self.code.replace("-", "_"))

    @cached_property
    def direction(self) -> str:
        """``rtl`` or ``ltr``, from CLDR's character order for the locale."""
        return "rtl" if self.babel.character_order == "right-to-left" else "ltr"

    @cached_property
    def native_name(self) -> str:
        name = self.babel.get_display_name(self.babel) or self.code
        return name[:1].upper() + name[1:]

    def preload(self) -> None:
        """Load the locale's CLDR data now (its name, direction, plural rules and number formats read it):
        the render workers fork after this, so they share one load instead of each paying for its own."""
        _ = self.direction, self.native_name

    @cached_property
    def missing_keys(self) -> tuple[str, ...]:
        """Keys English has and this locale lacks (shown in English, a warning in --strict)."""
        return tuple(sorted(set(self.fallback) - set(self.strings)))

    def search_words(self, name: str) -> str:
        """Words of this locale for the English words of a tool's *name* (``delete_document`` →
        "удалить удаление … документ"), from the catalog's ``glossary``: indexed for search on the
        tool's page and never shown, so that a reader finds a tool by a word of their own language."""
        found: list[str] = []
        for word in _NAME_WORDS.findall(name[:200]):
            key = "glossary." + word.lower()
            entry = self.strings.get(key, self.fallback.get(key))
            if isinstance(entry, str) and entry not in found:
                found.append(entry)
        return " ".join(found)

    def _entry(self, key: str) -> Entry:
        if key in self.strings:
            return self.strings[key]
        if key in self.fallback:
            return self.fallback[key]
        also = "" if self.code == BASE_LOCALE else f" or locales/{BASE_LOCALE}.yaml"
        raise KeyError(f"no UI string {key!r} in locales/{self.code}.yaml{also}")

    @cached_property
    def _plain(self) -> dict[str, str]:
        """The strings with no placeholder, by key, code marks dropped: what most ``t()`` calls ask for,
        found in one lookup."""
        found: dict[str, str] = {}
        for strings in (self.fallback, self.strings):
            for key, entry in strings.items():
                if isinstance(entry, str) and "{" not in entry and "}" not in entry:
                    found[key] = unmarked(entry)
                else:
                    found.pop(key, None)
        return found

    def t(self, key: str, **args: Any) -> str:
        """The string for *key*, with ``{name}`` placeholders filled in and its code marks dropped."""
        plain = self._plain.get(key)
        if plain is not None:
            return plain
        return self._filled(key, args, keep_marks=False)

    def marked(self, key: str, **args: Any) -> str:
        """:meth:`t` with the string's code marks kept (the HTML sentences make each marked span an
        element); the marks are those of the catalog's own text, never of an argument."""
        return self._filled(key, args, keep_marks=True)

    def _filled(self, key: str, args: Mapping[str, Any], *, keep_marks: bool) -> str:
        entry = self._entry(key)
        text = entry["other"] if isinstance(entry, Mapping) else entry
        if not keep_marks:
            text = unmarked(text)  # before the arguments go in: a server's backtick is its own
        if "{" not in text and "}" not in text:  # most strings have no placeholder: nothing to format
            return text
        return text.format_map(_Args(args))  # str.format's own parser, in C: what Formatter does, 4× faster

    def plural_category(self, n: int | float) -> str:
        return str(self.babel.plural_form(abs(n)))

    def plural(self, key: str, n: int, **args: Any) -> str:
        """The plural form of *key* for *n*; ``{n}`` is the number formatted for the locale."""
        entry = self._entry(key)
        if isinstance(entry, Mapping):
            text = entry.get(self.plural_category(n)) or entry["other"]
        else:
            text = entry
        return unmarked(text).format_map(_Args(args, n=self.number(n)))

    def plural_forms(self, key: str) -> dict[str, str]:
        """Every plural form of *key* by CLDR category, for a script that counts in the browser
        (``Intl.PluralRules`` gives the same categories); ``{n}`` is left for the script to fill."""
        entry = self._entry(key)
        return dict(entry) if isinstance(entry, Mapping) else {"other": entry}

    def section(self, prefix: str) -> dict[str, str]:
        """Every string under *prefix* (``try.script``) by the rest of its key, with its ``{name}``
        placeholders left for a script to fill and its code marks kept (a script shows the text with
        ``textContent``, and each code span and value as an element of its own)."""
        keys = sorted({key for key in (*self.fallback, *self.strings) if key.startswith(prefix + ".")})
        found: dict[str, str] = {}
        for key in keys:
            entry = self._entry(key)
            found[key[len(prefix) + 1 :]] = entry["other"] if isinstance(entry, Mapping) else entry
        return found

    def number(self, n: int | float) -> str:
        # Babel rounds in the current decimal context, whose 28 digits a legal JSON number such as
        # a resource size of 1e27 exceeds (decimal.InvalidOperation); give it the digits it needs.
        with decimal.localcontext() as context:
            if isinstance(n, int) or math.isfinite(n):
                context.prec = max(context.prec, len(str(abs(int(n)))) + 28)
            return str(format_decimal(n, locale=self.babel))


def locales_dirs(extra: Path | None = None) -> list[Path]:
    return ([extra] if extra else []) + [data_dir("locales")]


def available_locales(extra: Path | None = None) -> list[str]:
    codes = {p.stem for d in locales_dirs(extra) if d.is_dir() for p in d.glob("*.yaml")}
    return sorted(codes)


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (the wheels are), else the pure-Python one."""


def _read_shipped(code: str) -> dict[str, Entry] | None:
    """The shipped catalog of *code* (a copy), or None when mcp-portal ships none.

    Each locale's catalog reads English's as its fallback, so a build of three locales asked for
    ``en.yaml`` three times: a file is parsed again only when its signature moved since."""
    path = data_dir("locales") / f"{code}.yaml"
    try:
        info = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    signature = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    known = _SHIPPED.get(code)
    if known is None or known[0] != signature:
        try:
            # Our own files, read on every build: libyaml's safe loader is about ten times faster.
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER) or {}
        except yaml.YAMLError as exc:
            raise PortalError(f"The locale file {path} is not valid YAML ({exc}). Fix it and run again.") from None
        if not isinstance(data, dict):
            raise PortalError(f"The locale file {path} must be a mapping of keys to strings.")
        known = _SHIPPED[code] = (signature, _flatten(data))
    return dict(known[1])


_SHIPPED: dict[str, tuple[tuple[int, ...], dict[str, Entry]]] = {}
"""Locale -> the signature of its shipped file when it was parsed, and its flattened strings."""


THEME_PREFIX = "theme."
"""Keys of a theme's own strings (for its own templates): never reported as unknown."""

_STR = "tag:yaml.org,2002:str"
_KINDS = {
    "tag:yaml.org,2002:null": "empty",
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
}


@dataclass(frozen=True)
class ThemeCatalog:
    """A theme's ``locales/<code>.yaml``: its strings, and the line each key is on."""

    path: Path
    strings: dict[str, Entry]
    lines: dict[str, int]


def _theme_error(path: Path, node: yaml.Node | None, problem: str) -> PortalError:
    where = f", line {node.start_mark.line + 1}," if node is not None else ""
    return PortalError(
        f"The theme catalog {path}{where} {problem}. A theme catalog maps UI string keys (as in the shipped "
        f"locales/en.yaml, or your own under `theme:`) to strings, and may hold only the keys it changes; "
        f"fix the file and run again."
    )


def _theme_entries(path: Path, node: yaml.MappingNode, prefix: str, into: ThemeCatalog) -> None:
    """Flatten a theme catalog's mapping node, checking that every value is a string."""
    for key_node, value in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR:
            raise _theme_error(path, key_node, "has a key that is not a plain name")
        name = prefix + key_node.value
        if isinstance(value, yaml.MappingNode):
            keys = [k.value for k, _ in value.value if isinstance(k, yaml.ScalarNode)]
            if keys and set(keys) <= set(PLURAL_CATEGORIES):
                into.strings[name] = _plural_entry(path, name, value)
                into.lines[name] = key_node.start_mark.line + 1
            else:
                _theme_entries(path, value, name + ".", into)
        elif isinstance(value, yaml.ScalarNode) and value.tag == _STR:
            into.strings[name] = value.value
            into.lines[name] = key_node.start_mark.line + 1
        else:
            kind = "a list" if isinstance(value, yaml.SequenceNode) else _KINDS.get(value.tag, "not a string")
            raise _theme_error(path, value, f"gives {name!r} a value that is {kind}; write the text in quotes")


def _plural_entry(path: Path, name: str, node: yaml.MappingNode) -> dict[str, str]:
    """A plural entry ``{one: ..., other: ...}``: strings only, and an ``other`` form."""
    forms: dict[str, str] = {}
    for key_node, value in node.value:
        if not (isinstance(value, yaml.ScalarNode) and value.tag == _STR):
            raise _theme_error(path, value, f"gives {name}.{key_node.value} a value that is not a string")
        forms[str(key_node.value)] = value.value
    if "other" not in forms:
        raise _theme_error(path, node, f"gives the plural entry {name!r} no `other` form, which every locale needs")
    return forms


def read_theme_catalog(path: Path) -> ThemeCatalog:
    """Read and check a theme's catalog: YAML, a mapping, string values (with the line of each key)."""
    try:
        # A theme's catalog is the user's file: no anchors or aliases (generator.config.files).
        root = yaml.compose(utf8_text(path.read_bytes()), Loader=PlainLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f", line {mark.line + 1}," if mark is not None else ""
        raise PortalError(
            f"The theme catalog {path}{where} is not valid YAML ({getattr(exc, 'problem', None) or 'unreadable'}). "
            f"Fix it and run again."
        ) from None
    except NotUtf8 as exc:
        raise PortalError(f"The theme catalog {path} cannot be read: {exc}. Save it as UTF-8 and run again.") from None
    except OSError as exc:
        raise PortalError(f"The theme catalog {path} cannot be read ({exc}). Fix it and run again.") from None
    theme = ThemeCatalog(path, {}, {})
    if root is None:
        return theme
    if not isinstance(root, yaml.MappingNode):
        raise _theme_error(path, root, "is not a mapping of keys to strings")
    _theme_entries(path, root, "", theme)
    return theme


def _layer(theme: ThemeCatalog | None, known: set[str], notes: list[str]) -> dict[str, Entry]:
    """The theme's strings that override or add a key; a note for each key nobody knows (a typo)."""
    if theme is None:
        return {}
    layered: dict[str, Entry] = {}
    for key, entry in theme.strings.items():
        if key in known or key.startswith(THEME_PREFIX):
            layered[key] = entry
        else:
            notes.append(
                f"{theme.path}, line {theme.lines[key]}: {key!r} is not a UI string mcp-portal knows, so it is "
                f"ignored; check its spelling against the shipped locales/{theme.path.stem}.yaml (strings for "
                f"your own templates go under `theme:`)"
            )
    return layered


def _theme_file(code: str, extra: Path | None) -> ThemeCatalog | None:
    path = extra / f"{code}.yaml" if extra else None
    return read_theme_catalog(path) if path is not None and path.is_file() else None


def load_catalog(code: str, extra: Path | None = None) -> Catalog:
    """The catalog for *code*: a theme's keys over the shipped catalog, over English, key by key.

    *extra* is a theme's ``locales/`` directory. Its ``<code>.yaml`` may hold only the keys it
    changes; the rest come from the shipped catalog of the same locale, and what that lacks from
    English (itself the theme's English keys over the shipped ones). A locale only the theme has
    is its own keys over English. Theme keys nobody knows become the catalog's :attr:`notes`.
    """
    if not (code.isascii() and code.replace("_", "-").replace("-", "").isalnum()):  # it names a file
        raise PortalError(f"{code!r} is not a locale code: a locale is named as its catalog file is, e.g. ru or pt_BR.")
    notes: list[str] = []
    shipped_base = _read_shipped(BASE_LOCALE) or {}
    base = shipped_base | _layer(_theme_file(BASE_LOCALE, extra), set(shipped_base), notes)
    if code == BASE_LOCALE:
        strings = base
    else:
        shipped = _read_shipped(code)
        theme = _theme_file(code, extra)
        if shipped is None and theme is None:
            known = available_locales(extra)
            same = [k for k in known if k.lower() == code.lower()]  # --locales AR: a code is its file's name
            # --locales en-US or pt_BR: the language alone may be what ships.
            language = [k for k in known if k.lower() == re.split(r"[-_]", code, maxsplit=1)[0].lower()]
            fix = (f"Did you mean {same[0]}? A code must match its file name, case included." if same else
                   f"Did you mean {language[0]}? Or, for a locale of its own, copy locales/en.yaml to "
                   f"locales/{code}.yaml and translate it." if language else
                   f"To add one, copy locales/en.yaml to locales/{code}.yaml and translate it.")  # fmt: skip
            raise PortalError(
                f"There is no locale {code!r}: no locales/{code}.yaml was found. Available locales: "
                f"{', '.join(known)}. {fix}"
            )
        own = shipped or {}
        strings = own | _layer(theme, set(own) | set(shipped_base), notes)
    catalog = Catalog(code, strings, base, tuple(notes))
    try:
        catalog.babel  # noqa: B018 - validates the code against CLDR now, not mid-render
    except (UnknownLocaleError, ValueError):
        raise PortalError(
            f"The locale {code!r} has a YAML file but CLDR does not know it, so plurals and number formats "
            f"cannot be chosen. Name the file with a CLDR code such as 'pt_BR' or 'zh'."
        ) from None
    return catalog


def catalog_warnings(catalogs: Mapping[str, Catalog]) -> list[str]:
    """Every theme catalog note once (English's are seen by every locale that falls back to it)."""
    return list(dict.fromkeys(note for catalog in catalogs.values() for note in catalog.notes))
