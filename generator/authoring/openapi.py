"""OpenAPI cross-links: which HTTP API operation each MCP tool stands for.

The product's authors may publish an OpenAPI 3.x document (JSON or YAML) beside the server.
:func:`load_openapi` reads and checks it once, keeping the exact bytes so the portal can
publish the file as-is; :func:`map_tools` then pairs every tool with its operations, so the
tool's page can show the method, the path and the OAuth scopes with a link.

A tool finds its operations three ways, strongest first:

1. an author overlay names one operation (``operationId`` or ``"METHOD /path"``);
2. else the tool's ``_meta`` carries a ref (or a list of refs) under a configured key;
3. the document marks operations with ``x-mcp-tool: name`` (or a list of names).

The document is author input, but it is still only data: YAML is read with PyYAML's safe
loader, without anchors or aliases (:mod:`generator.config.files`), ``$ref`` is never followed and
nothing in it is executed. Entries that are
not objects (a path item that is a string, an operation that is a list) are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from generator.config.files import load_yaml, yaml_problem
from generator.errors import PortalError
from generator.jsonutil import RepeatedKey, json_type, loads_unique
from generator.slugs import assign_slugs
from generator.text import NotUtf8, utf8_text

MAX_BYTES = 10 * 1024 * 1024
"""Largest document :func:`load_openapi` reads; a bigger one is refused, not truncated."""

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
"""HTTP methods of an OpenAPI path item, in the order operations are listed."""

_TOOL_EXTENSION = "x-mcp-tool"


@dataclass(frozen=True)
class Operation:
    """One HTTP API operation, reduced to what a tool page shows."""

    method: str
    path: str
    operation_id: str | None
    summary: str | None
    scopes: tuple[str, ...]
    tools: tuple[str, ...]
    deprecated: bool = False

    @property
    def label(self) -> str:
        """The operation as people write it: ``"POST /research-api/conversations/query"``."""
        return f"{self.method} {self.path}"


@dataclass(frozen=True)
class ApiDocument:
    """A checked OpenAPI document: its published bytes and its operations in document order."""

    source: str
    published_name: str
    content: bytes
    title: str | None
    version: str | None
    openapi_version: str
    operations: tuple[Operation, ...]

    @cached_property
    def _by_id(self) -> dict[str, Operation]:
        # operationId must be unique; if the authors repeat one, the first in document order wins.
        found: dict[str, Operation] = {}
        for op in self.operations:
            if op.operation_id is not None:
                found.setdefault(op.operation_id, op)
        return found

    @cached_property
    def _by_label(self) -> dict[tuple[str, str], Operation]:
        found: dict[tuple[str, str], Operation] = {}
        for op in self.operations:
            found.setdefault((op.method, op.path), op)
        return found

    @cached_property
    def _anchors(self) -> dict[tuple[str, str], str]:
        # An operationId is the readable anchor; a missing or repeated one falls back to
        # "METHOD /path", which slugs.assign_slugs turns into a safe stem plus a short hash.
        ids = [op.operation_id for op in self.operations if op.operation_id]
        names = [
            op.operation_id if op.operation_id and ids.count(op.operation_id) == 1 else op.label
            for op in self.operations
        ]
        slugs = assign_slugs(names)
        return {(op.method, op.path): f"op-{slugs[name]}" for op, name in zip(self.operations, names, strict=True)}

    def anchor(self, op: Operation) -> str:
        """The HTML id of *op* on the API operations page: unique, safe, stable between builds."""
        return self._anchors[(op.method, op.path)]

    def find(self, ref: str) -> Operation | None:
        """The operation *ref* names: an ``operationId``, else ``"METHOD /path"`` (any case of METHOD).

        ``None`` when the document has no such operation.
        """
        if ref in self._by_id:
            return self._by_id[ref]
        method, space, path = ref.partition(" ")
        if not space:
            return None
        return self._by_label.get((method.upper(), path))


@dataclass(frozen=True)
class ToolOperations:
    """The result of :func:`map_tools`: each mapped tool's operations, and what looked wrong."""

    operations: dict[str, tuple[Operation, ...]]
    warnings: tuple[str, ...]


def _fail(source: str, what: str, action: str = "Fix the file and build again.") -> PortalError:
    return PortalError(f"The OpenAPI document {source} {what}. {action}")


def _one_line(exc: BaseException) -> str:
    # YAML errors span several lines (with a caret under the column); a message is one paragraph.
    return " ".join(str(exc).split())


def _read(path: Path, source: str) -> bytes:
    try:
        with path.open("rb") as handle:
            content = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise _fail(
            source,
            f"cannot be read ({exc.strerror or exc})",
            "Check the path and that the file is readable, then build again.",
        ) from None
    if len(content) > MAX_BYTES:
        raise _fail(
            source,
            "is larger than 10 MiB, the most mcp-portal reads",
            "Publish a smaller document (for example without bundled examples) and build again.",
        )
    return content


def _parse(content: bytes, suffix: str, source: str) -> tuple[Any, str]:
    """The parsed document and the name it is published under."""
    try:
        text = utf8_text(content)
    except NotUtf8 as exc:
        raise _fail(source, str(exc).removeprefix("it "), "Save it as UTF-8 and build again.") from None
    if suffix not in (".yaml", ".yml"):
        try:
            return loads_unique(text), "openapi.json"
        except RepeatedKey as exc:
            raise _fail(
                source,
                f"names the key {json.dumps(exc.key)[:80]} twice in one object, and JSON leaves which of the two "
                f"values counts to each reader",
                "Keep one of them and build again.",
            ) from None
        except (ValueError, RecursionError) as exc:
            if suffix == ".json":
                raise _fail(source, f"is not valid JSON ({_one_line(exc)})") from None
            # Any other name: YAML is a superset of JSON, so its error is the useful one.
    try:
        # No anchors or aliases (generator.config.files): a few lines of them can stand for billions of values.
        return load_yaml(text), "openapi.yaml"
    except yaml.YAMLError as exc:
        raise _fail(source, f"is not valid YAML ({yaml_problem(exc)})") from None
    except (ValueError, RecursionError) as exc:
        raise _fail(source, f"is not valid YAML ({_one_line(exc)})") from None


def _json_type(value: Any) -> str:
    """How a message names the JSON type of *value* ("a string", "an array"...)."""
    name = json_type(value)
    if name is None:
        return type(value).__name__
    if name == "null":
        return name
    if name == "integer":
        name = "number"
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _scopes(security: list[Any]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for requirement in security:
        if isinstance(requirement, dict):
            for scopes in requirement.values():
                if isinstance(scopes, list):
                    seen.update((scope, None) for scope in scopes if isinstance(scope, str))
    return tuple(seen)


def _tool_names(value: Any) -> tuple[str, ...]:
    names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return tuple(dict.fromkeys(name for name in names if isinstance(name, str)))


def _operations(paths: dict[Any, Any], top_security: Any) -> tuple[Operation, ...]:
    default = _scopes(top_security) if isinstance(top_security, list) else ()
    found = []
    for path, item in paths.items():
        if not isinstance(path, str) or not isinstance(item, dict):
            continue
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            security = op.get("security")
            found.append(
                Operation(
                    method=method.upper(),
                    path=path,
                    operation_id=_text(op.get("operationId")),
                    summary=_text(op.get("summary")),
                    scopes=_scopes(security) if isinstance(security, list) else default,
                    tools=_tool_names(op.get(_TOOL_EXTENSION)),
                    deprecated=op.get("deprecated") is True,
                )
            )
    return tuple(found)


def load_openapi(path: Path) -> ApiDocument:
    """Read and check the OpenAPI 3.x document at *path* (JSON, or YAML when named .yaml/.yml).

    Raises :class:`PortalError` naming the file, what is wrong and what to do when it cannot be
    read, is over 10 MiB, does not parse, is not an object, is not OpenAPI 3.x or has no
    ``paths`` object.
    """
    source = str(path)
    content = _read(path, source)
    data, published_name = _parse(content, path.suffix.lower(), source)
    if not isinstance(data, dict):
        raise _fail(source, f"must be an object at the top level, but it is {_json_type(data)}")
    version = data.get("openapi")
    if "swagger" in data and version is None:
        raise _fail(
            source,
            "is a Swagger (OpenAPI 2) document, and only OpenAPI 3.x is supported",
            "Convert it to OpenAPI 3 (its `openapi` field must read 3.0.x or 3.1.x) and build again.",
        )
    if not isinstance(version, str) or not version.startswith("3."):
        if version is None:
            found = "has no `openapi` field"
        elif isinstance(version, str):
            found = f"declares `openapi: {version}`"
        else:  # typically YAML's `openapi: 3.0`, read as a number
            found = f"has an `openapi` field that is {_json_type(version)}, not a string"
        raise _fail(
            source,
            f"{found}, but only OpenAPI 3.x documents are supported",
            'Set `openapi` to a quoted version string such as "3.1.0" and build again.',
        )
    if not isinstance(data.get("paths"), dict):
        raise _fail(
            source,
            "has no `paths` object",
            "Add `paths`, an object from each URL path to its operations, and build again.",
        )
    info: dict[str, Any] = data["info"] if isinstance(data.get("info"), dict) else {}
    raw_version = info.get("version")
    if isinstance(raw_version, int | float | date) and not isinstance(raw_version, bool):
        # YAML reads `version: 2.4` as a number and `version: 2024-05-01` as a date.
        raw_version = str(raw_version)
    return ApiDocument(
        source=source,
        published_name=published_name,
        content=content,
        title=_text(info.get("title")),
        version=_text(raw_version),
        openapi_version=version,
        operations=_operations(data["paths"], data.get("security")),
    )


def _meta_refs(name: str, tool: Mapping[str, Any], meta_key: str | None, warnings: list[str]) -> list[tuple[str, str]]:
    """The (ref, where) pairs in the tool's ``_meta``; a value of the wrong type is a warning."""
    meta = tool.get("_meta")
    if meta_key is None or not isinstance(meta, Mapping) or meta_key not in meta:
        return []
    where = f"its _meta key {meta_key!r}"
    value = meta[meta_key]
    if isinstance(value, str):
        return [(value, where)]
    if isinstance(value, list) and all(isinstance(ref, str) for ref in value):
        return [(ref, where) for ref in value]
    warnings.append(
        f"tool {name!r}: {where} must be an API operation ref (an operationId or 'METHOD /path') "
        f"or a list of them, but it is {_json_type(value)}"
    )
    return []


def map_tools(
    doc: ApiDocument,
    tools: Sequence[Mapping[str, Any]],
    *,
    meta_key: str | None,
    overlay_refs: Mapping[str, str],
) -> ToolOperations:
    """Pair each tool with its API operations, strongest first, and say what does not match.

    For each tool: the overlay's ref (else the refs under ``_meta[meta_key]``), then every
    operation whose ``x-mcp-tool`` names the tool, in document order, without duplicates.
    Warnings cover refs that name no operation, a ``_meta`` value of the wrong type,
    ``x-mcp-tool`` names the server does not list and tools mapped to nothing; they come in
    tool order, then in document order.
    """
    by_name: dict[str, Mapping[str, Any]] = {}
    for tool in tools:
        if isinstance(tool.get("name"), str):
            by_name.setdefault(tool["name"], tool)
    warnings: list[str] = []
    mapped: dict[str, tuple[Operation, ...]] = {}
    for name, tool in by_name.items():
        if name in overlay_refs:
            refs = [(overlay_refs[name], "its overlay")]
        else:
            refs = _meta_refs(name, tool, meta_key, warnings)
        chosen: dict[Operation, None] = {}
        for ref, where in refs:
            op = doc.find(ref)
            if op is None:
                warnings.append(
                    f"tool {name!r}: {where} names the API operation {ref!r}, which {doc.source} does not have"
                )
            else:
                chosen[op] = None
        chosen.update((op, None) for op in doc.operations if name in op.tools)
        if chosen:
            mapped[name] = tuple(chosen)
        else:
            warnings.append(f"tool {name!r} is mapped to no API operation in {doc.source}")
    for op in doc.operations:
        for unknown in op.tools:
            if unknown not in by_name:
                warnings.append(
                    f"API operation {op.label} in {doc.source} names the tool {unknown!r} in {_TOOL_EXTENSION}, "
                    "but the server does not list it"
                )
    return ToolOperations(mapped, tuple(warnings))
