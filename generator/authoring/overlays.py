"""Author overlays: what a tool's maintainers add to its page, checked like server data.

One YAML file per tool in the overlay directory (``--overlays DIR``), any name ending in
``.yaml`` or ``.yml``, read in name order::

    tool: search_chat                                   # required
    notes: {en: "Results are capped at 50.", ru: ...}   # CommonMark per locale
    troubleshooting:                                    # rows per locale, or one list for all
      en: [{symptom: "error: chat not found", cause: A misspelled alias., action: Ask the admin.}]
    examples:                                           # title and result are optional
      - {title: The release, arguments: {query: "release 2.4"}, result: {found: 1}}
    related: [my_capabilities]                          # other tools of the server
    scope: read_all                                     # a string or a list
    operation: searchChatMessages                       # an OpenAPI operationId or "METHOD /path"

The format is :data:`OVERLAY_SCHEMA`. Every problem of a file is reported at once with its
key path and line. Examples are then validated against the tool's schemas
(:func:`check_overlays`): a page must never show an example that does not work.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, ValidationError

from generator.config.files import PlainLoader
from generator.errors import PortalError
from generator.schema.validation import validate
from generator.text import NotUtf8, utf8_text

MAX_BYTES = 1024 * 1024
_MAX_DEPTH = 64  # nesting
_MAX_NODES = 100_000  # values in one file (anchors and aliases are refused as the file is composed)
_LOCALE = r"^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$"

_TEXT, _ROW = {"$ref": "#/$defs/text"}, {"$ref": "#/$defs/row"}
OVERLAY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "mcp-portal tool overlay",
    "type": "object",
    "required": ["tool"],
    "additionalProperties": False,
    "properties": {
        "tool": _TEXT,
        "notes": {"type": "object", "patternProperties": {_LOCALE: _TEXT}, "additionalProperties": False},
        "troubleshooting": {  # a plain list of rows means every locale
            "type": ["array", "object"],
            "items": _ROW,
            "patternProperties": {_LOCALE: {"type": "array", "items": _ROW}},
            "additionalProperties": False,
        },
        "examples": {"type": "array", "items": {"$ref": "#/$defs/example"}},
        "related": {"type": "array", "items": _TEXT, "uniqueItems": True},
        "scope": {"type": ["string", "array"], "pattern": r"\S", "items": _TEXT, "uniqueItems": True},
        "operation": _TEXT,
    },
    "$defs": {
        "text": {"type": "string", "pattern": r"\S"},
        "row": {
            "type": "object",
            "required": ["symptom", "cause", "action"],
            "additionalProperties": False,
            "properties": {"symptom": _TEXT, "cause": _TEXT, "action": _TEXT},
        },
        "example": {
            "type": "object",
            "required": ["arguments"],
            "additionalProperties": False,
            "properties": {"title": _TEXT, "arguments": {"type": "object"}, "result": {"type": "object"}},
        },
    },
}
_VALIDATOR = Draft202012Validator(OVERLAY_SCHEMA)

_JsonPath = tuple[str | int, ...]


@dataclass(frozen=True)
class AuthorExample:
    title: str
    arguments: Any
    result: Any = None
    has_result: bool = False


@dataclass(frozen=True)
class TroubleRow:
    symptom: str
    cause: str
    action: str


@dataclass(frozen=True)
class Overlay:
    """What the authors add to one tool's page; locale-keyed parts keep the file's order."""

    tool: str
    source: str
    examples: tuple[AuthorExample, ...] = ()
    troubleshooting: tuple[tuple[str, TroubleRow], ...] = ()  # (locale, or "*" for every locale; row)
    notes: tuple[tuple[str, str], ...] = ()  # (locale, CommonMark)
    related: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    operation: str | None = None

    def troubleshooting_for(self, locale: str) -> tuple[TroubleRow, ...]:
        """The rows for every locale plus those for *locale*, in file order (``pt-BR`` matches ``pt_BR``)."""
        wanted = _same_locale(locale)
        return tuple(row for where, row in self.troubleshooting if where == "*" or _same_locale(where) == wanted)

    def note_for(self, locale: str, fallback: str = "en") -> tuple[str, str] | None:
        """(locale used, text): *locale*'s note, else *fallback*'s, else the first one, else None."""
        notes = {_same_locale(code): (code, text) for code, text in reversed(self.notes)}
        for code in (locale, fallback):
            if _same_locale(code) in notes:
                return notes[_same_locale(code)]
        return self.notes[0] if self.notes else None


def _same_locale(code: str) -> str:
    """The form under which two spellings of one locale compare equal (``pt_BR``, ``pt-br``)."""
    return code.replace("_", "-").lower()


def _fail(source: str, *problems: tuple[int | None, str]) -> PortalError:
    """One paragraph listing *problems*, each as ``FILE:LINE: message`` so editors can jump to it."""
    listing = "; ".join(f"{source}:{line}: {text}" if line else text for line, text in problems)
    return PortalError(f"The overlay {source} is invalid: {listing}. Fix the file and build again.")


def _where(path: _JsonPath) -> str:
    """``troubleshooting.en[0].action``: the key path as the author would write it."""
    parts = (f"[{p}]" if isinstance(p, int) else f".{p}" if re.fullmatch(r"[\w-]+", p) else f"[{p!r}]" for p in path)
    return "".join(parts).lstrip(".")


class _Reader:
    """Turns a composed YAML node tree into JSON data, noting the line of every key and item.

    Keys stay the text the author wrote (``no`` is Norwegian, not false); dates stay strings.
    """

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader, self.source = loader, source
        self.lines: dict[_JsonPath, int] = {}
        self.problems: list[tuple[int, str]] = []
        self.bad: set[_JsonPath] = set()  # values already reported, so the schema does not report them again
        self.count = 0

    def line(self, path: _JsonPath) -> int:
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)

    def value(self, node: yaml.Node, path: _JsonPath) -> Any:
        line = node.start_mark.line + 1
        self.lines.setdefault(path, line)
        self.count += 1
        if len(path) > _MAX_DEPTH or self.count > _MAX_NODES:
            raise _fail(self.source, (line, "the data nests too deeply or has too many values"))
        if isinstance(node, yaml.SequenceNode) and node.tag == "tag:yaml.org,2002:seq":
            return [self.value(item, (*path, i)) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode) and node.tag == "tag:yaml.org,2002:map":
            own, written = {id(k) for k, _ in node.value}, set[str]()
            self.loader.flatten_mapping(node)  # puts what a `<<:` key merges first, so own keys override it
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key, at = key_node.value, key_node.start_mark.line + 1
                if not isinstance(key_node, yaml.ScalarNode):
                    self.problems.append((at, f"`{_where(path) or 'the file'}` has a key that is not plain text"))
                    continue
                if id(key_node) in own:
                    if key in written:
                        self.problems.append((at, f"`{_where((*path, key))}` is given twice"))
                    written.add(key)
                self.lines[(*path, key)] = at
                out[key] = self.value(value_node, (*path, key))
            return out
        if node.tag == "tag:yaml.org,2002:timestamp":
            return node.value
        why = f"has the tag {node.tag.replace('tag:yaml.org,2002:', '!!')}, which an overlay cannot use"
        if isinstance(node, yaml.ScalarNode):
            with contextlib.suppress(yaml.YAMLError):
                value = self.loader.construct_object(node)
                if isinstance(value, str | int | float | bool | None):
                    return value
                why = f"is {type(value).__name__}, which JSON cannot hold"
        self.problems.append((line, f"`{_where(path)}` {why}"))
        self.bad.add(path)
        return None


_KINDS = {dict: "a mapping", list: "a list", str: "a string", bool: "true/false", int: "a number", float: "a number"}
_WANT = {"object": "a mapping", "array": "a list", "string": "a string"}


def _messages(error: ValidationError, path: _JsonPath) -> list[tuple[_JsonPath, str]]:
    """Readable messages for one schema error, each with the path whose line it concerns."""
    where, kind, schema = _where(path), error.validator, error.schema
    if kind == "additionalProperties" and isinstance(schema, dict) and isinstance(error.instance, dict):
        known, patterns = sorted(schema.get("properties", {})), list(schema.get("patternProperties", {}))
        extra = [k for k in error.instance if k not in known and not any(re.search(p, k) for p in patterns)]
        return [_unknown_key((*path, key), known, patterns) for key in extra]
    if kind == "required" and isinstance(error.instance, dict) and isinstance(error.validator_value, list):
        missing = [f"`{k}`" for k in error.validator_value if k not in error.instance]
        keys = f"the required key{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
        return [(path, f"`{where}` lacks {keys}" if path else f"the file lacks {keys}")]
    if kind == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        want = " or ".join(_WANT.get(str(w), str(w)) for w in wanted)
        got = "empty" if error.instance is None else _KINDS.get(type(error.instance), "something else")
        if not path:
            return [(path, f"the top level must be a mapping that starts with `tool: NAME`, but it is {got}")]
        return [(path, f"`{where}` must be {want}, but it is {got}")]
    if kind == "pattern":
        return [(path, f"`{where}` must not be blank")]
    if kind == "uniqueItems" and isinstance(error.instance, list):
        twice = next(x for i, x in enumerate(error.instance) if x in error.instance[:i])
        return [(path, f"`{where}` lists {twice!r} more than once")]
    return [(path, f"`{where}`: {error.message[:200]}")]


def _unknown_key(at: _JsonPath, known: list[str], patterns: list[str]) -> tuple[_JsonPath, str]:
    key = str(at[-1])
    if patterns:  # a mapping keyed by locale code
        first, _, rest = key.replace("_", "-").partition("-")
        hint = first.lower() + ("-" + rest if rest else "")
        guess = f" (did you mean `{hint}`?)" if re.search(patterns[0], hint) else ""
        return at, f"`{_where(at)}` is not a locale code such as `en`, `ru` or `pt-BR`{guess}"
    close = difflib.get_close_matches(key, known, n=1)
    guess = f"; did you mean `{close[0]}`?" if close else ""
    return at, f"`{_where(at)}` is not a known key{guess} (known keys: {', '.join(known)})"


def _load(path: Path) -> tuple[Any, _Reader]:
    """The file's data and its line map; raises with every problem of the file."""
    source = str(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise _fail(source, (None, f"it cannot be read ({exc.strerror or exc})")) from None
    if len(raw) > MAX_BYTES:
        raise _fail(source, (None, "it is larger than 1 MiB, the most an overlay may be"))
    try:
        text = utf8_text(raw)
    except NotUtf8 as exc:
        raise _fail(source, (exc.line, f"it is not UTF-8 text ({exc.detail}); save it as UTF-8")) from None
    try:
        loader = PlainLoader(text)  # checks the characters at once; refuses anchors and aliases
        reader = _Reader(loader, source)
        node = loader.get_single_node()
        data = None if node is None else reader.value(node, ())
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 1
        what = f"{exc.problem} {exc.context}" if exc.context else str(exc.problem)
        if exc.context_mark and exc.context_mark.line + 1 != line:
            what += f" that starts on line {exc.context_mark.line + 1}"
        raise _fail(source, (line, f"it is not valid YAML: {what}")) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        raise _fail(source, (line, f"it holds a character YAML does not allow (#x{exc.character:04x})")) from None
    except RecursionError:
        raise _fail(source, (None, "it nests too deeply")) from None
    return data, reader


def _parse(path: Path) -> Overlay:
    data, reader = _load(path)
    source, problems = str(path), set(reader.problems)
    for error in _VALIDATOR.iter_errors(data):
        found = _messages(error, tuple(error.absolute_path))
        problems.update((reader.line(at), message) for at, message in found if at not in reader.bad)
    if problems:
        raise _fail(source, *sorted(problems))
    examples = tuple(
        AuthorExample(item.get("title", f"Example {i}"), item["arguments"], item.get("result"), "result" in item)
        for i, item in enumerate(data.get("examples", []), 1)
    )
    rows = data.get("troubleshooting", [])
    by_locale = rows.items() if isinstance(rows, dict) else [("*", rows)]
    scope = data.get("scope", [])
    return Overlay(
        tool=data["tool"],
        source=source,
        examples=examples,
        troubleshooting=tuple((code, TroubleRow(**row)) for code, items in by_locale for row in items),
        notes=tuple(data.get("notes", {}).items()),
        related=tuple(data.get("related", [])),
        scopes=(scope,) if isinstance(scope, str) else tuple(scope),
        operation=data.get("operation"),
    )


def load_overlays(directory: Path | None) -> dict[str, Overlay]:
    """Every overlay in *directory*, keyed by tool name (files read in name order)."""
    if directory is None:
        return {}
    if not directory.is_dir():
        raise PortalError(f"The overlay directory {directory} does not exist. Create it or fix --overlays.")
    found: dict[str, Overlay] = {}
    paths = (p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    for path in sorted(paths, key=lambda p: p.name):
        overlay = _parse(path)
        if overlay.tool in found:
            raise PortalError(
                f"The overlays {found[overlay.tool].source} and {overlay.source} are both for tool {overlay.tool!r}. "
                f"Keep one file per tool: merge them and build again."
            )
        found[overlay.tool] = overlay
    return found


def _example_problems(name: str, tool: Mapping[str, Any], i: int, example: AuthorExample) -> list[str]:
    label = f"`examples[{i}]` ({example.title!r})"
    checks = [("arguments", "input", example.arguments, tool.get("inputSchema", {"type": "object"}))]
    if example.has_result:
        if "outputSchema" not in tool:
            return [f"{label} has a `result`, but {name!r} declares no outputSchema"]
        checks.append(("result", "output", example.result, tool["outputSchema"]))
    problems = []
    for part, side, value, schema in checks:
        errors = validate(value, schema)
        if errors:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            problems.append(f"{label}, its {part}, does not match the tool's {side} schema: {errors[0]}{more}")
    return problems


def check_overlays(overlays: Mapping[str, Overlay], tools: Iterable[Mapping[str, Any]]) -> list[str]:
    """Validate every author example; return warnings for tools the server does not list.

    Raises :class:`PortalError` naming the tool, each invalid example and the failing JSON path.
    """
    by_name = {t.get("name"): t for t in tools}
    warnings = []
    for name, overlay in sorted(overlays.items()):
        tool = by_name.get(name)
        if tool is None:
            warnings.append(f"overlay {overlay.source} is for tool {name!r}, which the server does not list")
            continue
        for other in overlay.related:
            if other not in by_name:
                warnings.append(f"overlay {overlay.source}: related tool {other!r} is not listed by the server")
        problems = [p for i, ex in enumerate(overlay.examples) for p in _example_problems(name, tool, i, ex)]
        if problems:
            what = "an invalid example" if len(problems) == 1 else "invalid examples"
            raise PortalError(
                f"The overlay {overlay.source} has {what} for tool {name!r}: {'; '.join(problems)}. "
                f"A page never shows an example that does not validate; fix the example or the tool's schema."
            )
    return warnings


def unused_locales(overlays: Mapping[str, Overlay], locales: Iterable[str]) -> list[str]:
    """Warnings for notes and troubleshooting rows in a locale the site does not build."""
    built = {_same_locale(code) for code in locales}
    warnings = []
    for _, overlay in sorted(overlays.items()):
        codes = [code for code, _ in overlay.notes] + [code for code, _ in overlay.troubleshooting if code != "*"]
        unused = sorted({code for code in codes if _same_locale(code) not in built})
        if unused:
            warnings.append(
                f"overlay {overlay.source} has text in {', '.join(unused)}, which this site does not build "
                f"(locales: {', '.join(locales)}); it is not shown"
            )
    return warnings
