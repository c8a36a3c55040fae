"""Tests of the locale catalogs and of CLDR-driven plurals, numbers and text direction."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from pathlib import Path

import pytest
from babel import Locale
from babel.numbers import format_decimal

from generator.errors import PortalError
from generator.render.i18n import PLURAL_CATEGORIES, Catalog, Entry, load_catalog
from tests.conftest import TEMPLATES

REPO_ROOT = Path(__file__).resolve().parent.parent
LOCALES_DIR = REPO_ROOT / "locales"
LOCALE_FILES = sorted(LOCALES_DIR.glob("*.yaml"))
LOCALE_CODES = [p.stem for p in LOCALE_FILES]
TRANSLATED = ["ru", "ar"]

# U+200E/U+200F marks, U+202A-U+202E embeddings/overrides, U+2066-U+2069 isolates.
BIDI_CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# Strings a translation may leave in Latin script or identical to English: protocol names, symbols, and the
# llms.txt section title "Optional", which the llms.txt format gives a meaning of its own.
SAME_AS_ENGLISH = {
    "index.counts",  # only placeholders and punctuation (Arabic uses its own comma)
    "meta.comma",  # the list separator: punctuation only (Arabic uses its own comma)
    "connecting.col_uri",
    "connecting.transport.stdio",
    "connecting.transport.streamable-http",
    "llms.optional",
    "constraint.minimum",
    "constraint.maximum",
    "constraint.exclusiveMinimum",
    "constraint.exclusiveMaximum",
}
SCRIPT = {"ru": re.compile("[\u0400-\u04ff]"), "ar": re.compile("[\u0600-\u06ff]")}


@pytest.fixture(scope="module")
def en() -> Catalog:
    return load_catalog("en")


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a str.format string."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def texts(entry: Entry) -> list[str]:
    return list(entry.values()) if isinstance(entry, Mapping) else [entry]


def cldr_categories(code: str) -> set[str]:
    # Babel's ``tags`` leaves out "other", which every CLDR plural rule set has.
    return set(Locale.parse(code).plural_form.tags) | {"other"}


def plural_keys(catalog: Catalog) -> list[str]:
    return sorted(k for k, v in catalog.strings.items() if isinstance(v, Mapping))


# --- catalog parity ------------------------------------------------------------------------------


def test_the_shipped_locales_are_found() -> None:
    assert {"en", "ru", "ar"} <= set(LOCALE_CODES)


@pytest.mark.parametrize("code", LOCALE_CODES)
def test_locale_has_exactly_the_keys_of_english(code: str, en: Catalog) -> None:
    catalog = load_catalog(code)
    missing = sorted(set(en.strings) - set(catalog.strings))
    extra = sorted(set(catalog.strings) - set(en.strings))
    assert not missing, f"locales/{code}.yaml lacks keys: {missing}"
    assert not extra, f"locales/{code}.yaml has keys English does not: {extra}"
    assert catalog.missing_keys == ()


@pytest.mark.parametrize("code", LOCALE_CODES)
def test_plural_entries_are_plural_in_every_locale(code: str, en: Catalog) -> None:
    catalog = load_catalog(code)
    assert plural_keys(catalog) == plural_keys(en)
    assert plural_keys(en), "en.yaml should have plural entries for this test to mean anything"


@pytest.mark.parametrize("code", LOCALE_CODES)
def test_placeholders_match_english(code: str, en: Catalog) -> None:
    catalog = load_catalog(code)
    assert en.strings.keys() & catalog.strings.keys()
    for key, base in en.strings.items():
        expected = set().union(*(placeholders(t) for t in texts(base)))
        entry = catalog.strings.get(key)
        if entry is None:
            continue  # reported by test_locale_has_exactly_the_keys_of_english
        if isinstance(entry, Mapping):
            # A category may spell its number out ("أداة واحدة"), so it may drop a
            # placeholder, but never invent one, and the entry as a whole uses them all.
            for category, text in entry.items():
                assert placeholders(text) <= expected, f"{code}: {key}.{category} has unknown placeholders"
            found = set().union(*(placeholders(t) for t in entry.values()))
        else:
            found = placeholders(entry)
        assert found == expected, f"{code}: {key} has placeholders {found}, English has {expected}"


def code_spans(text: str) -> list[str]:
    """The code a catalog string marks in backticks, in order."""
    return re.findall(r"`([^`]*)`", text)


@pytest.mark.parametrize("code", LOCALE_CODES)
def test_code_spans_match_english(code: str, en: Catalog) -> None:
    """A translation marks the same code as English (HTML pages isolate each one, left to right), and
    every backtick opens or closes a span."""
    catalog = load_catalog(code)
    for key, entry in catalog.strings.items():
        for text in texts(entry):
            assert text.count("`") % 2 == 0, f"{code}: {key} has an unclosed backtick"
        base = en.strings.get(key)
        if base is not None and not isinstance(entry, Mapping) and not isinstance(base, Mapping):
            assert sorted(code_spans(entry)) == sorted(code_spans(base)), f"{code}: {key} marks other code than English"
    assert any(code_spans(t) for entry in catalog.strings.values() for t in texts(entry))


def test_code_marks_are_kept_for_html_and_dropped_everywhere_else(en: Catalog) -> None:
    assert en.marked("trouble.tool_error.symptom") == "A result with `isError: true`"
    assert en.t("trouble.tool_error.symptom") == "A result with isError: true"
    # An argument's backticks are the server's own: only the catalog's marks are dropped.
    symptom = en.t("trouble.constraint.symptom", names="`x`")
    assert symptom.startswith("A value of `x` is refused: a result with isError: true,")
    assert en.plural("index.tool_count", 2) == "2 tools"


@pytest.mark.parametrize("code", LOCALE_CODES)
def test_plural_entries_have_exactly_the_cldr_categories(code: str) -> None:
    catalog = load_catalog(code)
    expected = cldr_categories(code)
    assert expected <= set(PLURAL_CATEGORIES)
    for key in plural_keys(catalog):
        entry = catalog.strings[key]
        assert isinstance(entry, Mapping)
        assert set(entry) == expected, f"{code}: {key} has {sorted(entry)}, CLDR has {sorted(expected)}"
        assert all(text.strip() for text in entry.values()), f"{code}: {key} has an empty form"


@pytest.mark.parametrize(
    ("code", "categories"),
    [
        ("en", {"one", "other"}),
        ("ru", {"one", "few", "many", "other"}),
        ("ar", {"zero", "one", "two", "few", "many", "other"}),
    ],
)
def test_cldr_categories_are_the_ones_the_translations_were_written_for(code: str, categories: set[str]) -> None:
    assert cldr_categories(code) == categories


@pytest.mark.parametrize("code", LOCALE_CODES)
def test_a_category_covering_several_numbers_shows_the_number(code: str) -> None:
    """Russian "one" is also 21 and 101, so it must say {n}; Arabic "two" is only 2 and may not."""
    catalog = load_catalog(code)
    numbers: dict[str, set[int]] = {}
    for n in range(1000):
        numbers.setdefault(catalog.plural_category(n), set()).add(n)
    keys = plural_keys(catalog)
    assert keys
    for key in keys:
        entry = catalog.strings[key]
        assert isinstance(entry, Mapping)
        for category, text in entry.items():
            if len(numbers.get(category, ())) > 1:
                assert "{n}" in text, f"{code}: {key}.{category} is used for {sorted(numbers[category])[:5]}..."


@pytest.mark.parametrize("path", LOCALE_FILES, ids=lambda p: p.name)
def test_no_bidi_control_characters(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [
        f"line {text.count(chr(10), 0, m.start()) + 1}: U+{ord(m.group()):04X}" for m in BIDI_CONTROLS.finditer(text)
    ]
    assert not found, f"{path.name} contains bidi control characters (use <bdi>/dir in templates): {found}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_are_in_their_own_script(code: str, en: Catalog) -> None:
    catalog = load_catalog(code)
    assert catalog.strings.keys() - SAME_AS_ENGLISH
    for key, entry in catalog.strings.items():
        if key in SAME_AS_ENGLISH:
            continue
        for text in texts(entry):
            assert SCRIPT[code].search(text), f"{code}: {key} looks untranslated: {text!r}"


@pytest.mark.parametrize("code", LOCALE_CODES)
def test_llms_optional_section_keeps_its_reserved_title(code: str) -> None:
    """llms.txt readers may skip a section titled exactly "Optional"; a translated title loses that."""
    assert load_catalog(code).t("llms.optional") == "Optional"


# --- plural selection ----------------------------------------------------------------------------

PLURAL_CASES = [
    ("ru", 1, "one"),
    ("ru", 2, "few"),
    ("ru", 5, "many"),
    ("ru", 11, "many"),
    ("ru", 21, "one"),
    ("ru", 22, "few"),
    ("ru", 25, "many"),
    ("ru", 111, "many"),
    ("ar", 0, "zero"),
    ("ar", 1, "one"),
    ("ar", 2, "two"),
    ("ar", 3, "few"),
    ("ar", 11, "many"),
    ("ar", 100, "other"),
    ("ar", 101, "other"),
    ("ar", 111, "many"),
    ("en", 1, "one"),
    ("en", 0, "other"),
    ("en", 2, "other"),
]


@pytest.mark.parametrize(("code", "n", "category"), PLURAL_CASES)
def test_plural_category(code: str, n: int, category: str) -> None:
    assert load_catalog(code).plural_category(n) == category


@pytest.mark.parametrize(("code", "n", "category"), PLURAL_CASES)
def test_plural_uses_the_form_of_the_category(code: str, n: int, category: str) -> None:
    catalog = load_catalog(code)
    entry = catalog.strings["index.tool_count"]
    assert isinstance(entry, Mapping)
    expected = entry[category].replace("{n}", catalog.number(n))
    assert catalog.plural("index.tool_count", n) == expected
    assert "{" not in expected


@pytest.mark.parametrize(
    ("code", "n", "text"),
    [
        ("en", 1, "1 tool"),
        ("en", 6, "6 tools"),
        ("ru", 1, "1 инструмент"),
        ("ru", 3, "3 инструмента"),
        ("ru", 5, "5 инструментов"),
        ("ru", 21, "21 инструмент"),
        ("ru", 1234567, "1\u00a0234\u00a0567 инструментов"),
        ("ar", 0, "لا توجد أدوات"),
        ("ar", 1, "أداة واحدة"),
        ("ar", 2, "أداتان"),
    ],
)
def test_plural_known_strings(code: str, n: int, text: str) -> None:
    assert load_catalog(code).plural("index.tool_count", n) == text


def test_arabic_counted_noun_agrees_with_the_number() -> None:
    ar = load_catalog("ar")
    assert ar.plural("index.tool_count", 3).endswith("أدوات")  # 3-10: plural
    assert ar.plural("index.tool_count", 11).endswith("أداة")  # 11-99: singular
    assert ar.plural("index.tool_count", 100).endswith("أداة")  # 100: singular


# --- direction, names, numbers -------------------------------------------------------------------


@pytest.mark.parametrize(("code", "direction"), [("en", "ltr"), ("ru", "ltr"), ("ar", "rtl")])
def test_direction(code: str, direction: str) -> None:
    assert load_catalog(code).direction == direction


@pytest.mark.parametrize(("code", "name"), [("en", "English"), ("ru", "Русский"), ("ar", "العربية")])
def test_native_name_comes_from_cldr(code: str, name: str) -> None:
    cldr = Locale.parse(code).get_display_name(code)
    assert cldr is not None
    assert load_catalog(code).native_name == name == cldr[:1].upper() + cldr[1:]


@pytest.mark.parametrize("code", ["en", "ru", "ar"])
def test_number_follows_cldr(code: str) -> None:
    catalog = load_catalog(code)
    assert catalog.number(1234567) == format_decimal(1234567, locale=code)
    assert catalog.plural("connecting.some_tools", 1234567).count(catalog.number(1234567)) == 1


def test_number_grouping_differs_by_locale() -> None:
    assert load_catalog("en").number(1234567) == "1,234,567"
    assert load_catalog("ru").number(1234567) == "1\u00a0234\u00a0567"
    assert load_catalog("ru").number(1234567) != load_catalog("en").number(1234567)


# --- errors --------------------------------------------------------------------------------------


def test_missing_locale_names_the_file_to_add() -> None:
    code = "eo"
    assert not (LOCALES_DIR / f"{code}.yaml").exists(), "pick a locale that is not shipped"
    with pytest.raises(PortalError) as info:
        load_catalog(code)
    message = info.value.message
    assert f"locales/{code}.yaml" in message
    assert "copy locales/en.yaml" in message
    assert "ru" in message and "ar" in message  # lists what is available


@pytest.mark.parametrize(("code", "meant"), [("AR", "ar"), ("Ru", "ru")])
def test_a_locale_written_in_another_case_is_named_as_its_file_is(code: str, meant: str) -> None:
    with pytest.raises(PortalError) as info:
        load_catalog(code)
    message = info.value.message
    assert f"Did you mean {meant}? A code must match its file name, case included." in message
    assert "copy locales/en.yaml" not in message  # no advice to translate a locale that exists


def test_extra_locale_directory_is_used(tmp_path: Path) -> None:
    (tmp_path / "eo.yaml").write_text("meta:\n  languages: Lingvoj\n", encoding="utf-8")
    catalog = load_catalog("eo", extra=tmp_path)
    assert catalog.t("meta.languages") == "Lingvoj"
    assert catalog.t("meta.skip") == "Skip to content"  # English fallback for the rest
    assert "meta.skip" in catalog.missing_keys


def test_invalid_yaml_is_a_portal_error(tmp_path: Path) -> None:
    (tmp_path / "eo.yaml").write_text("meta: [unclosed\n", encoding="utf-8")
    with pytest.raises(PortalError, match="not valid YAML"):
        load_catalog("eo", extra=tmp_path)


def test_code_unknown_to_cldr_is_a_portal_error(tmp_path: Path) -> None:
    (tmp_path / "qq.yaml").write_text("meta:\n  languages: x\n", encoding="utf-8")
    with pytest.raises(PortalError, match="CLDR does not know it"):
        load_catalog("qq", extra=tmp_path)


def test_the_render_workers_fork_with_every_locale_data_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker would otherwise load CLDR's data for every locale itself (the language names in
    the switcher, the direction, plurals): the parent loads it once before forking them."""
    from babel import localedata

    from generator.commands.build import site_files
    from generator.commands.demo_portal import demo_config
    from generator.config.portal import PortalConfig
    from generator.snapshot.snapshot import load_snapshot
    from tests.golden_tool import SNAPSHOT

    preloaded: list[str] = []
    real = Catalog.preload

    def spied(self: Catalog) -> None:
        real(self)
        assert self.babel.language in localedata._cache  # the data a fork shares
        preloaded.append(self.code)

    monkeypatch.setattr(Catalog, "preload", spied)
    config = demo_config(PortalConfig(search=False, locales=("en", "ru", "ar")))
    site_files(load_snapshot(SNAPSHOT), config, jobs=2, renderer=TEMPLATES)
    assert sorted(preloaded) == ["ar", "en", "ru"]
    ar = load_catalog("ar")
    ar.preload()
    assert (ar.__dict__["direction"], ar.__dict__["native_name"]) == ("rtl", "العربية")


def test_a_shipped_catalog_is_parsed_once_until_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every locale falls back to English, so English's file is asked for once per locale: it is parsed once,
    and again only when the file changes."""
    import shutil

    import yaml

    from generator.render import i18n
    from generator.resources import data_dir

    locales = tmp_path / "locales"
    shutil.copytree(data_dir("locales"), locales)
    monkeypatch.setattr("generator.render.i18n.data_dir", lambda name: locales if name == "locales" else tmp_path)
    monkeypatch.setattr(i18n, "_SHIPPED", {})
    parsed: list[str] = []
    real = yaml.load

    def counting(text: str, Loader: object) -> object:
        parsed.append(text[:40])
        return real(text, Loader=Loader)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml, "load", counting)
    for code in ("en", "ru", "ar"):
        i18n.load_catalog(code)
    assert len(parsed) == 3, "en.yaml was parsed more than once"
    english = i18n.load_catalog("en").t("index.col_access")
    text = (locales / "en.yaml").read_text(encoding="utf-8")
    (locales / "en.yaml").write_text(text.replace(f": {english}\n", ": Changed\n", 1), encoding="utf-8")
    assert i18n.load_catalog("en").t("index.col_access") == "Changed" and len(parsed) == 4


@pytest.mark.parametrize(("code", "meant"), [("en-US", "en"), ("ru_RU", "ru"), ("AR-EG", "ar")])
def test_a_locale_with_a_region_points_to_its_language(code: str, meant: str) -> None:
    with pytest.raises(PortalError) as info:
        load_catalog(code)
    message = info.value.message
    assert message.endswith(
        f"Did you mean {meant}? Or, for a locale of its own, copy locales/en.yaml to locales/{code}.yaml and "
        "translate it."
    ), message
