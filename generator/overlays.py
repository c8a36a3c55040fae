"""Author overlays: what a tool's maintainers add to its page, checked like server data.

One YAML file per tool in an overlay directory (``--overlays DIR``), named anything
ending in ``.yaml``; the file says which tool it is for::

    tool: search_chat
    examples:
      - title: Find what was said about the release
        arguments: {query: "release 2.4", limit: 5}
        result: {found: 1, messages: [...]}     # optional: structuredContent
    troubleshooting:
      - symptom: "error: chat not found"
        cause: The chat alias is misspelled.
        action: Use one of the aliases listed by the workspace admin.

Every example is validated against the tool's input schema (and its result against the
output schema); an invalid one fails the build naming the tool, the example and the JSON
path, because a page must never show an example that does not work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.errors import PortalError
from generator.examples import validate

_KEYS = {"tool", "examples", "troubleshooting"}
_EXAMPLE_KEYS = {"title", "arguments", "result"}
_TROUBLE_KEYS = {"symptom", "cause", "action"}


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
    """What the authors add to one tool's page."""

    tool: str
    source: str
    examples: tuple[AuthorExample, ...] = ()
    troubleshooting: tuple[TroubleRow, ...] = ()


def _fail(source: str, what: str) -> PortalError:
    return PortalError(f"The overlay {source} is invalid: {what}. Fix the file and build again.")


def _text(source: str, where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, f"`{where}` must be a non-empty string")
    return value


def _parse(path: Path) -> Overlay:
    source = str(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise _fail(source, f"it cannot be read as YAML ({exc})") from None
    if not isinstance(data, dict):
        raise _fail(source, "the top level must be a mapping with `tool`")
    unknown = sorted(set(map(str, data)) - _KEYS)
    if unknown:
        raise _fail(source, f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})")
    tool = _text(source, "tool", data.get("tool"))
    examples = []
    for i, item in enumerate(data.get("examples") or [], 1):
        if not isinstance(item, dict) or not set(item) <= _EXAMPLE_KEYS or "arguments" not in item:
            raise _fail(source, f"example {i} must be a mapping with `arguments` (and optional `title`, `result`)")
        title = _text(source, f"examples[{i}].title", item.get("title", f"Example {i}"))
        examples.append(AuthorExample(title, item["arguments"], item.get("result"), "result" in item))
    rows = []
    for i, item in enumerate(data.get("troubleshooting") or [], 1):
        if not isinstance(item, dict) or set(item) != _TROUBLE_KEYS:
            raise _fail(source, f"troubleshooting row {i} needs exactly `symptom`, `cause` and `action`")
        cells = {k: _text(source, f"troubleshooting[{i}].{k}", item[k]) for k in _TROUBLE_KEYS}
        rows.append(TroubleRow(**cells))
    return Overlay(tool, source, tuple(examples), tuple(rows))


def load_overlays(directory: Path | None) -> dict[str, Overlay]:
    """Every overlay in *directory*, keyed by tool name (files read in name order)."""
    if directory is None:
        return {}
    if not directory.is_dir():
        raise PortalError(f"The overlay directory {directory} does not exist. Create it or fix --overlays.")
    found: dict[str, Overlay] = {}
    for path in sorted(directory.glob("*.yaml")):
        overlay = _parse(path)
        if overlay.tool in found:
            raise _fail(str(path), f"tool {overlay.tool!r} already has an overlay in {found[overlay.tool].source}")
        found[overlay.tool] = overlay
    return found


def check_overlays(overlays: Mapping[str, Overlay], tools: Iterable[Mapping[str, Any]]) -> list[str]:
    """Validate every author example; return warnings (overlays for tools the server lacks).

    Raises :class:`PortalError` on the first invalid example, naming the tool, the example
    and the failing JSON path.
    """
    by_name = {t.get("name"): t for t in tools}
    warnings = []
    for name, overlay in sorted(overlays.items()):
        tool = by_name.get(name)
        if tool is None:
            warnings.append(f"overlay {overlay.source} is for tool {name!r}, which the server does not list")
            continue
        for i, example in enumerate(overlay.examples, 1):
            checks = [("arguments", example.arguments, tool.get("inputSchema", {"type": "object"}))]
            if example.has_result:
                if "outputSchema" not in tool:
                    raise _fail(overlay.source, f"example {i} has a `result`, but {name!r} declares no outputSchema")
                checks.append(("result", example.result, tool["outputSchema"]))
            for part, value, schema in checks:
                errors = validate(value, schema)
                if errors:
                    raise PortalError(
                        f"The overlay {overlay.source} has an invalid example for tool {name!r}: example {i} "
                        f"({example.title!r}), its {part}: {errors[0]}. A page never shows an example that does "
                        f"not validate; fix the example or the tool's schema."
                    )
    return warnings
