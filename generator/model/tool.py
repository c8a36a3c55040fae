"""One tool's page facts: :class:`ToolDoc`, everything a tool page and its Markdown twin show.

Built by :func:`generator.model.site.build_model` from the tool as the server listed it, the
overlay the authors wrote and the configured limits.  Derived values (rows, examples, the
JSON-RPC requests a reader can copy) are computed lazily, once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, ClassVar

from generator.authoring.openapi import Operation
from generator.authoring.overlays import Overlay
from generator.compare.changes import Change
from generator.compare.diff import diff_tool
from generator.config.portal import Limits
from generator.model.access import HINTS, Access, Annotation
from generator.model.kinds import PageKind
from generator.model.product import Doc, EndpointDoc
from generator.schema.examples import Example, example_for, examples_for
from generator.schema.flatten import flatten
from generator.schema.patterns import watch
from generator.schema.placeholders import placeholder_for
from generator.schema.rows import Flattened, Row
from generator.schema.validation import validate
from generator.snapshot.snapshot import canonical_json
from generator.text import json_block

SUMMARY_LIMIT = 160


@dataclass(frozen=True)
class Found:
    """An example, and the patterns its search could not decide in bounded time (the build warns of them)."""

    example: Example
    undecided: tuple[str, ...] = ()


def _watched(schema: Any, max_optional: int | None = None, prose: str = "", subject: str = "") -> Found:
    """:func:`example_for`, with the patterns it could not decide in bounded time."""
    with watch() as undecided:
        example = example_for(schema, max_optional=max_optional, prose=prose, subject=subject)
    return Found(example, tuple(undecided))


@dataclass(frozen=True)
class ToolDoc(Doc):
    """Everything a tool page shows."""

    limits: Limits = field(default_factory=Limits)
    overlay: Overlay | None = None
    scope_meta_key: str | None = None
    operations: tuple[Operation, ...] = ()
    """The HTTP API operations this tool maps to (see :mod:`generator.authoring.openapi`)."""
    refusal: str | None = None
    """How the server refuses an invalid argument, when ``--prove``'s probe saw it: ``isError`` or a
    JSON-RPC error code (:func:`generator.model.proofs.refusal_of`); the troubleshooting rows say it."""

    extra_keys: ClassVar[tuple[str, ...]] = ("execution", "icons", "_meta")
    common_troubles: ClassVar[tuple[str, ...]] = ("auth", "capability", "invalid", "unknown", "tool_error")
    """The troubleshooting rows every tool page shows before the authors' (catalog keys ``trouble.<key>.*``)."""

    @property
    def kind(self) -> PageKind:
        return PageKind.TOOL

    @property
    def translation_key(self) -> tuple[str, str]:
        """Where a translation file keeps this tool's text: (section, name)."""
        return ("tools", self.name)

    @cached_property
    def scopes(self) -> tuple[str, ...]:
        """The capability or scope the tool requires: the overlay's, else the server's ``_meta`` key."""
        if self.overlay is not None and self.overlay.scopes:
            return self.overlay.scopes
        meta = self.raw.get("_meta")
        if not self.scope_meta_key or not isinstance(meta, dict):
            return ()
        value = meta.get(self.scope_meta_key)
        if isinstance(value, str) and value.strip():
            return (value,)
        if isinstance(value, list):
            return tuple(v for v in value if isinstance(v, str) and v.strip())
        return ()

    @cached_property
    def profiles(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.profile for e in self.endpoints))

    @cached_property
    def transports(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.transport for e in self.endpoints))

    @cached_property
    def differences(self) -> tuple[tuple[EndpointDoc, tuple[Change, ...]], ...]:
        """Endpoints that list this tool differently from the main listing, and how (old: main, new: theirs)."""
        found = []
        for endpoint in self.endpoints:
            variant = endpoint.variant(self.name)
            if variant is not None:
                found.append((endpoint, tuple(diff_tool(self.raw, variant))))
        return tuple(found)

    @cached_property
    def listings(self) -> tuple[tuple[EndpointDoc, bool], ...]:
        """Each endpoint that offers the tool, and whether its listing differs from the one documented."""
        return tuple((e, e.variant(self.name) is not None) for e in self.endpoints)

    @cached_property
    def callers(self) -> tuple[EndpointDoc, ...]:
        """For each transport, the first endpoint that lists the tool as the page documents it (with no
        variant): the one whose calls the page shows. A transport whose every endpoint lists a variant
        has none."""
        found: dict[str, EndpointDoc] = {}
        for endpoint in self.endpoints:
            if endpoint.transport not in found and endpoint.variant(self.name) is None:
                found[endpoint.transport] = endpoint
        return tuple(found[transport] for transport in self.transports if transport in found)

    @property
    def main_endpoint(self) -> EndpointDoc | None:
        """The endpoint whose listing the page documents (the first that offers the tool without a variant)."""
        return next((e for e in self.endpoints if e.variant(self.name) is None), None)

    def note(self, locale: str) -> tuple[str, str] | None:
        """The authors' note for *locale* (or its fallback), as (locale used, CommonMark)."""
        return self.overlay.note_for(locale) if self.overlay else None

    def troubleshooting(self, locale: str) -> tuple[Any, ...]:
        return self.overlay.troubleshooting_for(locale) if self.overlay else ()

    def trouble_rows(self, missing: tuple[EndpointDoc, ...] = ()) -> tuple[Trouble, ...]:
        """The troubleshooting rows this tool's own declarations call for, after the overlay's rows.

        From what the server declares: the scope it needs, required and constrained top-level
        parameters, a destructive hint, ``error`` fields in its output, task support, and the
        endpoints that do not offer it (*missing*) or list it differently.  A tool that declares
        nothing special gets none: the errors every tool can return (:attr:`common_troubles`) are
        stated once, on the connecting page.
        """
        rows: list[Trouble] = [Trouble("scope", names=self.scopes)] if self.scopes else []
        top = [r for r in self.params.rows if r.depth == 0 and not r.variant]
        required = tuple(r.path for r in top if r.required)
        if required:
            rows.append(Trouble("required", names=required, seen=self.refusal))
        # One row for every constrained parameter: the symptom and the fix are the same for each.
        limited = tuple(
            replace(r, constraints=rules)
            for r in top
            if (rules := tuple(c for c in r.constraints if c.kind in TROUBLE_CONSTRAINTS))
        )[:MAX_CONSTRAINT_ROWS]
        if limited:
            rows.append(Trouble("constraint", names=tuple(r.path for r in limited), rows=limited, seen=self.refusal))
        destructive = self.access.hint("destructiveHint")
        if self.access.level == "destructive" and destructive.declared:  # the server's own words only
            rows.append(Trouble("destructive"))
        if self.returns is not None:
            errors = [r for r in self.returns.rows if r.path.rsplit(".", 1)[-1] in ("error", "errors")]
            rows += [Trouble("error_field", names=(r.path,), row=r) for r in errors[:1]]
        if self.task_support != "forbidden":
            rows.append(Trouble("task_" + self.task_support))
        if missing:
            rows.append(Trouble("not_offered", names=tuple(e.short for e in missing)))
        rows += [Trouble("differs", names=(e.short,)) for e, _ in self.differences]
        return tuple(rows)

    @property
    def related(self) -> tuple[str, ...]:
        return self.overlay.related if self.overlay else ()

    @property
    def title(self) -> str | None:
        title = self.raw.get("title") or (self.raw.get("annotations") or {}).get("title")
        return title if isinstance(title, str) and title.strip() else None

    @property
    def full_description(self) -> str:
        text = self.raw.get("description")
        return text if isinstance(text, str) else ""

    @property
    def description_cut(self) -> bool:
        """True when the description is longer than ``--max-description`` and is shown cut."""
        return len(self.full_description) > self.limits.max_description

    @property
    def description(self) -> str:
        return self.full_description[: self.limits.max_description]

    @cached_property
    def summary(self) -> str:
        """The first sentence or line of the description, for lists and llms.txt."""
        text = re.sub(r"\s+", " ", self.description[:2000]).strip()
        match = re.match(r"(.+?[.!?])(\s|$)", text)
        first = match.group(1) if match else text
        if len(first) > SUMMARY_LIMIT:
            first = first[: SUMMARY_LIMIT - 1].rstrip() + "…"
        return first

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.raw.get("annotations")
        return value if isinstance(value, dict) else {}

    @cached_property
    def access(self) -> Access:
        return Access.from_annotations(self.annotations)

    @property
    def input_schema(self) -> Any:
        return self.raw.get("inputSchema", {"type": "object"})

    @property
    def output_schema(self) -> Any:
        return self.raw.get("outputSchema")

    def _size(self, schema: Any) -> int:
        return len(canonical_json(schema).encode("utf-8"))

    @cached_property
    def input_too_large(self) -> bool:
        """A schema over ``--max-schema-bytes`` is shown cut, with no rows and no examples."""
        return self._size(self.input_schema) > self.limits.max_schema_bytes

    @cached_property
    def output_too_large(self) -> bool:
        return self.output_schema is not None and self._size(self.output_schema) > self.limits.max_schema_bytes

    def _flatten(self, schema: Any, too_large: bool) -> Flattened:
        if too_large:
            note = f"schema larger than {self.limits.max_schema_bytes} bytes: not expanded (see --max-schema-bytes)"
            return Flattened(rows=(), dialect=None, warnings=(note,), truncated=True)
        return flatten(schema, max_depth=self.limits.max_schema_depth)

    @cached_property
    def params(self) -> Flattened:
        return self._flatten(self.input_schema, self.input_too_large)

    @cached_property
    def returns(self) -> Flattened | None:
        return None if self.output_schema is None else self._flatten(self.output_schema, self.output_too_large)

    @cached_property
    def _args_found(self) -> Found:
        """The example call's arguments: generated from the input schema, or the ones the server accepted
        when ``--prove`` found the generated ones refused (still checked against the schema)."""
        if self.input_too_large:
            return Found(Example(None, False, "the input schema is larger than the size limit"))
        proof = self.proof
        if proof is not None and proof.accepted:
            proven = proof.kept.arguments
            if proven is not None and not validate(proven, self.input_schema):
                return Found(Example(proven, True, None))
        return _watched(
            self.input_schema, max_optional=MAX_OPTIONAL_ARGUMENTS, prose=self.full_description, subject=self.name
        )

    @property
    def example_args(self) -> Example:
        return self._args_found.example

    def example_candidates(self, count: int) -> tuple[Any, ...]:
        """Up to *count* distinct argument sets that validate, the generated example first: what
        ``--prove`` sends, the next only when the server refused the one before."""
        if self.input_too_large:
            return ()
        with watch():
            return examples_for(
                self.input_schema,
                count,
                max_optional=MAX_OPTIONAL_ARGUMENTS,
                prose=self.full_description,
                subject=self.name,
            )

    @property
    def undecided_patterns(self) -> tuple[str, ...]:
        """The patterns finding this tool's examples could not decide in bounded time (arguments, then result)."""
        found = [self._args_found, self._result_found]
        return tuple(dict.fromkeys(p for f in found if f is not None for p in f.undecided))

    @cached_property
    def placeholder_args(self) -> Any:
        return {} if self.input_too_large else placeholder_for(self.input_schema)

    @cached_property
    def _result_found(self) -> Found | None:
        if self.output_schema is None:
            return None
        if self.output_too_large:
            return Found(Example(None, False, "the output schema is larger than the size limit"))
        return _watched(self.output_schema)

    @property
    def example_result(self) -> Example | None:
        found = self._result_found
        return found.example if found is not None else None

    @cached_property
    def example_request(self) -> str | None:
        """A JSON-RPC ``tools/call`` whose arguments validate (None when none can)."""
        if not self.example_args.ok:
            return None
        # Re-check here, at the last moment before it is shown: a page must never lie, so an
        # example the schema rejects (a bug in the example search) is left out, not shown.
        if validate(self.example_args.value, self.input_schema):
            return None
        return json_block(_call(self.name, self.example_args.value, task=self.task_support == "required"))

    @cached_property
    def placeholder_request(self) -> str:
        return json_block(_call(self.name, self.placeholder_args, task=self.task_support == "required"))

    @cached_property
    def example_response(self) -> str | None:
        result = self.example_result
        if result is None or not result.ok:
            return None
        if validate(result.value, self.output_schema):  # never show a response the schema rejects
            return None
        payload = {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "content": [{"type": "text", "text": json.dumps(result.value, ensure_ascii=False)}],
                "structuredContent": result.value,
                "isError": False,
            },
        }
        return json_block(payload)

    @cached_property
    def example_structured(self) -> str | None:
        """The ``structuredContent`` of :attr:`example_response` alone, for reading: the full response
        repeats it as an escaped string in its text content, as the specification asks servers to."""
        if self.example_response is None or self.example_result is None:
            return None
        return json_block(self.example_result.value)

    def _raw(self, schema: Any) -> str:
        text = json_block(schema)
        # Cut by characters of the pretty form: a reader sees where it stops and why.
        if len(text) > self.limits.max_schema_bytes:
            return text[: self.limits.max_schema_bytes] + "\n…"
        return text

    @cached_property
    def raw_input(self) -> str:
        return self._raw(self.input_schema)

    @cached_property
    def raw_output(self) -> str | None:
        return None if self.output_schema is None else self._raw(self.output_schema)

    @cached_property
    def other_annotations(self) -> tuple[tuple[str, Any], ...]:
        """Annotations besides the four hints (``title``, vendor keys), sorted by name."""
        hint_names = {name for name, _ in HINTS}
        return tuple((k, self.annotations[k]) for k in sorted(self.annotations) if k not in hint_names)

    @cached_property
    def annotation_rows(self) -> tuple[Annotation, ...]:
        """The annotations table: the four hints (with the spec's default when undeclared), then the others.

        For a read-only tool, ``destructiveHint`` and ``idempotentHint`` mean nothing (the specification
        gives them meaning only when ``readOnlyHint`` is false), so their defaults are left out; a value
        the server declared is still shown, as it said it.
        """
        read_only = self.access.hint("readOnlyHint").value
        moot = ("destructiveHint", "idempotentHint") if read_only else ()
        hints = tuple(
            Annotation(h.name, h.value, h.declared) for h in self.access.hints if h.declared or h.name not in moot
        )
        return hints + tuple(Annotation(k, v, True) for k, v in self.other_annotations)

    @cached_property
    def author_examples(self) -> tuple[tuple[str, str, str | None], ...]:
        """Overlay examples as (title, tools/call JSON, result JSON or None); validated at build time."""
        if self.overlay is None:
            return ()
        return tuple(
            (
                ex.title,
                json_block(_call(self.name, ex.arguments, task=self.task_support == "required")),
                json_block({"jsonrpc": "2.0", "id": 1, "result": {"structuredContent": ex.result}})
                if ex.has_result
                else None,
            )
            for ex in self.overlay.examples
        )

    @property
    def task_support(self) -> str:
        """``forbidden`` (the spec's default), ``optional`` or ``required``: may or must it run as a task."""
        execution = self.raw.get("execution")
        value = execution.get("taskSupport") if isinstance(execution, dict) else None
        return value if value in ("optional", "required") else "forbidden"


_GRANTS = re.compile(r"capabilit|permission|scope|grant|whoami|identity|me$")
TROUBLE_CONSTRAINTS = frozenset(
    {
        "enum", "const", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
    }
)  # fmt: skip
"""Constraints a call can break (a default or an example cannot): each gets an invalid-argument row."""
MAX_OPTIONAL_ARGUMENTS = 3
"""Optional arguments an example call carries at most (in each object): a first call a reader can follow."""

MAX_CONSTRAINT_ROWS = 4
"""Constrained parameters the troubleshooting row names at most: the parameters table lists the rest."""


@dataclass(frozen=True)
class Trouble:
    """One derived troubleshooting row: catalog keys ``trouble.<key>.symptom|cause|action``.

    *names* (scopes, parameter paths, endpoints) fill ``{names}``; *row* is the schema row whose
    constraints or description the cause quotes; *rows* are the rows of a ``constraint`` row, whose
    rules the cause lists parameter by parameter.
    """

    key: str
    names: tuple[str, ...] = ()
    row: Row | None = None
    rows: tuple[Row, ...] = ()
    seen: str | None = None
    """How this server refuses a bad argument, as ``--prove``'s probe saw it (``isError``, ``-32602``...):
    the symptom then says that form instead of every form the protocol allows."""


def _call(name: str, arguments: Any, *, task: bool = False) -> dict[str, Any]:
    """The JSON-RPC ``tools/call`` request that calls tool *name* with *arguments*."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if task:
        # A tool that requires task-augmented execution rejects a plain call (2025-11-25 tasks).
        params["task"] = {"ttl": 60000}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def grants_tool(tools: tuple[ToolDoc, ...]) -> str | None:
    """A tool that reports what the caller's token may do (``my_capabilities``, ``whoami``...): read-only,
    no required argument, named for capabilities, permissions, scopes, grants or identity. The first
    such tool of the site; the troubleshooting rows of every scoped tool name it."""
    for tool in tools:
        names_it = _GRANTS.search(tool.name.lower())
        if names_it and tool.access.level == "read-only" and not any(r.required for r in tool.params.rows):
            return tool.name
    return None
