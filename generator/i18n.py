"""UI strings per locale, CLDR plurals and text direction.

Each locale is one YAML file in ``locales/``; adding a locale means adding a
file.  Plural forms are chosen by Babel from CLDR, so Russian gets
one/few/many/other and Arabic zero/one/two/few/many/other.  Identifiers, JSON and
URLs never pass through here: only the interface is localized.
"""

from __future__ import annotations

import decimal
import math
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from babel import Locale, UnknownLocaleError
from babel.numbers import format_decimal

from generator.errors import PortalError
from generator.resources import data_dir

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


@dataclass(frozen=True)
class Catalog:
    """The UI strings of one locale, with English as the fallback for missing keys."""

    code: str
    strings: Mapping[str, Entry]
    fallback: Mapping[str, Entry] = field(default_factory=dict)

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

    @cached_property
    def missing_keys(self) -> tuple[str, ...]:
        """Keys English has and this locale lacks (shown in English, a warning in --strict)."""
        return tuple(sorted(set(self.fallback) - set(self.strings)))

    def _entry(self, key: str) -> Entry:
        if key in self.strings:
            return self.strings[key]
        if key in self.fallback:
            return self.fallback[key]
        raise KeyError(f"no UI string {key!r} in locales/{self.code}.yaml or locales/en.yaml")

    def t(self, key: str, **args: Any) -> str:
        """The string for *key*, with ``{name}`` placeholders filled in."""
        entry = self._entry(key)
        text = entry["other"] if isinstance(entry, Mapping) else entry
        return string.Formatter().vformat(text, (), _Args(args))

    def plural_category(self, n: int | float) -> str:
        return str(self.babel.plural_form(abs(n)))

    def plural(self, key: str, n: int, **args: Any) -> str:
        """The plural form of *key* for *n*; ``{n}`` is the number formatted for the locale."""
        entry = self._entry(key)
        if isinstance(entry, Mapping):
            text = entry.get(self.plural_category(n)) or entry["other"]
        else:
            text = entry
        return string.Formatter().vformat(text, (), _Args(args, n=self.number(n)))

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


def _read(code: str, extra: Path | None) -> dict[str, Entry]:
    for directory in locales_dirs(extra):
        path = directory / f"{code}.yaml"
        if path.is_file():
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            except yaml.YAMLError as exc:
                raise PortalError(f"The locale file {path} is not valid YAML ({exc}). Fix it and run again.") from None
            if not isinstance(data, dict):
                raise PortalError(f"The locale file {path} must be a mapping of keys to strings.")
            return _flatten(data)
    known = ", ".join(available_locales(extra))
    raise PortalError(
        f"There is no locale {code!r}: no locales/{code}.yaml was found. Available locales: {known}. "
        f"To add one, copy locales/en.yaml to locales/{code}.yaml and translate it."
    )


def load_catalog(code: str, extra: Path | None = None) -> Catalog:
    """The catalog for *code*, falling back to English key by key."""
    base = _read(BASE_LOCALE, extra)
    strings = base if code == BASE_LOCALE else _read(code, extra)
    catalog = Catalog(code, strings, base)
    try:
        catalog.babel  # noqa: B018 - validates the code against CLDR now, not mid-render
    except (UnknownLocaleError, ValueError):
        raise PortalError(
            f"The locale {code!r} has a YAML file but CLDR does not know it, so plurals and number formats "
            f"cannot be chosen. Name the file with a CLDR code such as 'pt_BR' or 'zh'."
        ) from None
    return catalog
