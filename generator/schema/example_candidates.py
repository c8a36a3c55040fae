"""Candidate values for the example generator, one generator function per JSON type.

:class:`Candidates` yields, for a subschema, the values worth trying in order: ``const``,
``examples``/``example``/``default``, ``enum``, each union branch (non-null first), then values
typed by the schema: realistic strings by ``format``, strings generated from ``pattern``,
hints from the property name, numbers near the hint inside the bounds, arrays and objects
built from solved items and properties.  Nothing here decides: the solver in
:mod:`generator.schema.examples` validates each candidate and keeps the first that passes,
and the nested values are asked of it through :meth:`Candidates.solve`.
"""

from __future__ import annotations

import base64
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from generator.jsonutil import is_number, json_equal
from generator.schema.constraints import declared_types, own_types
from generator.schema.ecma_syntax import PatternError
from generator.schema.example_views import FAIL, Ctx, SchemaViews
from generator.schema.patterns import search as search_pattern
from generator.schema.prose_requirements import exclusive_pairs, stated_requirements
from generator.schema.regexgen import generate as regex_strings
from generator.schema.thing_values import singular
from generator.schema.validation import Checker
from generator.schema.values import FORMAT_VALUES, fit_length, number_hint, string_hints

_SETTINGS = re.compile(r"retr(y|ies)|timeout|tenant|auth|proxy|verbose|debug|log.?level|tls|insecure|cache", re.I)
"""Names of connection and client settings: optional arguments a first call leaves to their defaults."""
_POINT = re.compile(r"(?i)q|query|search|keywords?|text|prompt|question|url|uri|id|\w*[_-]?id|path|name")
"""Names of what is usually the point of a tool (what to look for, which thing): chosen first."""


def _int_or(value: object, default: int) -> int:
    """A count keyword (``minLength``, ``maxItems``...) as an int, or ``default`` when absent or invalid."""
    return int(value) if is_number(value) and math.isfinite(value) and value >= 0 else default


class Candidates(SchemaViews, ABC):
    """Candidate values for a subschema; nested values come from :meth:`solve`, which a solver provides."""

    def __init__(
        self, root: object, checker: Checker, prefer_optional: bool, max_optional: int | None = None, prose: str = ""
    ) -> None:
        super().__init__(root)
        self.checker = checker
        self.prefer_optional = prefer_optional
        self.max_optional = max_optional
        self.prose = prose
        """What is said about the root object besides its schema (a tool's description): read for the
        requirements it states (:func:`~generator.schema.prose_requirements.stated_requirements`)."""

    @abstractmethod
    def solve(self, node: object, ctx: Ctx) -> object:
        """The first candidate that validates against ``node`` itself, or ``FAIL``."""

    def candidates(self, node: object, ctx: Ctx) -> Iterator[object]:
        view, ctx = self.expand(node, ctx)
        if view is None or view is False:
            return
        if view is True:
            view = {}
        if "const" in view:
            yield view["const"]
            return
        for key in ("examples", "example", "default"):
            if key in view:
                values = view[key] if key == "examples" and isinstance(view[key], list) else [view[key]]
                yield from values[:8]
        enum = view.get("enum")
        if isinstance(enum, list) and enum:
            start = ctx.salt % len(enum)
            yield from (enum[start:] + enum[:start])[:32]
            return
        unions = [k for k in ("oneOf", "anyOf") if isinstance(view.get(k), list) and view[k]]
        if unions:
            rest = {k: v for k, v in view.items() if k != unions[0]}
            branches = view[unions[0]]
            # Non-null branches first: "string | null" should show a string.
            order = sorted(range(len(branches[:16])), key=lambda i: self.types_of(branches[i]) == ("null",))
            for i in order:
                sub, sub_ctx = self.expand(branches[i], ctx)
                if isinstance(sub, dict):
                    yield from self.candidates(self.merge(rest, sub), sub_ctx)
                elif sub is True:
                    yield from self.candidates(rest, sub_ctx)
            return
        types = list(declared_types(view) or self.infer(view))
        types.sort(key=lambda t: t == "null")  # prefer the first non-null type
        for t in types:
            yield from self.typed(t, view, ctx)

    def infer(self, view: dict[str, Any]) -> list[str]:
        """The types to try: those :func:`own_types` reads, else those the keywords are about. A view gets
        here with no ``type`` or with one that names none (draft-03's ``any``); a ``required`` list or
        ``prefixItems`` already made :func:`own_types` answer, and draft-03 has neither."""
        inferred = list(own_types(view))
        if inferred:
            return inferred
        keys = view.keys()
        if keys & {"properties", "minProperties", "maxProperties", "patternProperties"}:
            return ["object"]
        if keys & {"items", "minItems", "maxItems", "contains", "uniqueItems"}:
            return ["array"]
        if keys & {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}:
            return ["number"]
        if keys & {"minLength", "maxLength", "pattern", "format"}:
            return ["string"]
        # Anything goes (up to `not`/`if`): try every type, most readable first.
        return ["string", "integer", "boolean", "object", "array", "null"]

    def typed(self, t: str, view: dict[str, Any], ctx: Ctx) -> Iterator[object]:
        if t == "string":
            yield from self.strings(view, ctx)
        elif t in ("integer", "number"):
            yield from self.numbers(view, ctx, integer=t == "integer")
        elif t == "boolean":
            yield from (True, False) if ctx.salt % 2 == 0 else (False, True)
        elif t == "null":
            yield None
        elif t == "array":
            yield from self.arrays(view, ctx)
        elif t == "object":
            yield from self.objects(view, ctx)

    def strings(self, view: dict[str, Any], ctx: Ctx) -> Iterator[object]:
        lo = _int_or(view.get("minLength"), 0)
        hi = _int_or(view.get("maxLength"), -1)
        top = None if hi < 0 else hi
        fmt = view.get("format")
        if isinstance(fmt, str) and fmt in FORMAT_VALUES:
            values = FORMAT_VALUES[fmt]
            yield values[ctx.salt % len(values)]
        pattern = view.get("pattern")
        if isinstance(pattern, str):
            found = regex_strings(pattern, min_len=lo, max_len=top, limit=max(3, ctx.salt % 16 + 1))
            yield from found[ctx.salt % len(found) :] + found[: ctx.salt % len(found)] if found else ()
        description = view.get("description") if isinstance(view.get("description"), str) else ctx.said
        hints = string_hints(ctx.name, description, ctx.owner)
        if ctx.salt and len(hints) > 1:  # another of the values the server named (unique items)
            hints = hints[ctx.salt % len(hints) :] + hints[: ctx.salt % len(hints)]
        elif ctx.salt:
            hints = [f"{hints[0]} {ctx.salt + 1}"]
        if view.get("contentEncoding") == "base64":
            yield base64.b64encode(hints[0].encode()).decode()
        if view.get("contentMediaType") == "application/json":
            yield "{}"
        yield from (fit_length(hint, lo, top) for hint in hints[:8])
        yield fit_length("example", lo, top)

    def numbers(self, view: dict[str, Any], ctx: Ctx, *, integer: bool) -> Iterator[object]:
        def bound(key: str) -> Fraction | None:
            """The keyword's number as the decimal the server wrote: ``0.4`` is 2/5, not the binary float near it."""
            value = view.get(key)
            if is_number(value) and math.isfinite(value):
                return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
            return None

        lo, hi = bound("minimum"), bound("maximum")
        lo_x, hi_x = bound("exclusiveMinimum"), bound("exclusiveMaximum")
        if view.get("exclusiveMinimum") is True:  # draft-04
            lo, lo_x = None, lo
        if view.get("exclusiveMaximum") is True:
            hi, hi_x = None, hi
        step = bound("multipleOf")
        if step is not None and step <= 0:
            step = None
        if integer:
            # integer multiples of p/q are the multiples of p (q divides the factor)
            step = Fraction(step.numerator) if step is not None else Fraction(1)
        hinted = number_hint(ctx.name, view.get("description"))
        preferred = Fraction(hinted if hinted is not None else 1 if integer else 1.5).limit_denominator(1000)
        # An id or a count reads as a whole number (``pageId: 42``) even where the schema says ``number``.
        whole = integer or (hinted is not None and preferred.denominator == 1)
        unit = step or Fraction(1)
        low = max([x for x in (lo, lo_x) if x is not None], default=None)
        high = min([x for x in (hi, hi_x) if x is not None], default=None)

        def inside(x: Fraction) -> bool:
            return (
                (lo is None or x >= lo)
                and (lo_x is None or x > lo_x)
                and (hi is None or x <= hi)
                and (hi_x is None or x < hi_x)
            )

        raw = [preferred + k * unit for k in (0, 1, 2, -1, -2)] + [Fraction(0), Fraction(1)]
        for edge, sign in ((low, 1), (high, -1)):
            if edge is not None:
                raw += [edge + sign * k * unit for k in (0, 1, 2)]
        if low is not None and high is not None:
            raw.append((low + high) / 2)
        snapped = [math.ceil(x / step) * step if step is not None else x for x in raw]
        seen: list[object] = []
        for value in _in_turn(snapped, inside, preferred, unit, ctx.salt):
            for out in self.number_forms(value, integer, whole=whole):
                if not any(type(out) is type(s) and out == s for s in seen):
                    seen.append(out)
                    yield out

    @staticmethod
    def number_forms(value: Fraction, integer: bool, *, whole: bool = False) -> list[object]:
        """The JSON forms of *value* to try: ``42`` for an integer or a whole-number hint, else ``42.0`` first."""
        if value.denominator == 1:
            as_int = int(value)
            if integer or as_int.bit_length() > 1000:
                return [as_int]
            try:
                return [as_int, float(as_int)] if whole else [float(as_int), as_int]
            except OverflowError:
                return [as_int]
        if integer:
            return []
        try:
            return [float(value)]
        except OverflowError:
            return []

    def arrays(self, view: dict[str, Any], ctx: Ctx) -> Iterator[object]:
        prefix = view.get("prefixItems")
        rest = view.get("items")
        if not isinstance(prefix, list):
            prefix, rest = (rest, view.get("additionalItems")) if isinstance(rest, list) else ([], rest)
        lo = _int_or(view.get("minItems"), 0)
        hi = _int_or(view.get("maxItems"), -1)
        contains = view.get("contains")
        need = _int_or(view.get("minContains"), 1) if contains is not None else 0
        least = max(lo, len(prefix) + need if need else 0)  # the contained items follow the prefix's
        realistic = max(least, len(prefix), 1)
        if rest is False:
            realistic = min(realistic, len(prefix))
        minimal = ctx.minimal or self.recurses(rest, ctx)  # a recursive tree: stop at the smallest
        sizes = [realistic, least] if not minimal else [least, realistic]
        unique = view.get("uniqueItems") is True
        for size in dict.fromkeys(min(s, hi) if hi >= 0 else s for s in sizes):
            items: list[object] = []
            for i in range(min(size, 256)):
                schema: object = prefix[i] if i < len(prefix) else (True if rest is None else rest)
                if contains is not None and i >= len(prefix) and i - len(prefix) < need:
                    schema = {"allOf": [schema, contains]}
                name = singular(ctx.name) if ctx.name else None  # "tags" -> "tag" for the hint of one item
                said = view.get("description") if isinstance(view.get("description"), str) else ctx.said
                value = self.solve(schema, ctx.child(name, salt=i if unique else ctx.salt, said=said))
                for retry in range(1, 8 if unique else 1):
                    if not any(json_equal(value, item) for item in items):
                        break
                    value = self.solve(schema, ctx.child(name, salt=i + retry * size, said=said))
                if value is FAIL:
                    break
                items.append(value)
            else:
                yield items

    def objects(self, view: dict[str, Any], ctx: Ctx) -> Iterator[object]:
        raw_props = view.get("properties")
        props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
        raw_required = view.get("required")
        required = [r for r in raw_required if isinstance(r, str)] if isinstance(raw_required, list) else []
        required += [k for k, v in props.items() if isinstance(v, dict) and v.get("required") is True]
        # Optional properties that recurse would only repeat the structure: leave them out.
        names = [
            n for n in dict.fromkeys([*map(str, props), *required]) if n in required or not self.recurses(props[n], ctx)
        ]

        def documented(name: str) -> bool:
            sub, _ = self.expand(props.get(name), ctx)
            if not isinstance(sub, dict):
                return False
            return "examples" in sub or "example" in sub or sub.get("default") is not None

        plans = [
            [n for n in names if n in required or documented(n)],
            [n for n in names if n in required],
            names,
        ]
        if self.prefer_optional or not plans[0]:
            # An empty example shows nothing: with no required or documented property, show them all.
            plans = [plans[2], plans[0], plans[1]]
        if not required and plans[0] and ctx.depth == 0 and not self.prefer_optional and not ctx.minimal:
            plans[0] = self.with_the_point(plans[0], names, props, ctx)
        if ctx.minimal:
            plans = [plans[1]]
        own = view.get("description") if isinstance(view.get("description"), str) else ""
        exclusive = exclusive_pairs(props, f"{self.prose if ctx.depth == 0 else ''}\n{own}")
        plans = [self.one_of_each(plan, required, exclusive) for plan in plans]
        if self.max_optional is not None and not self.prefer_optional:
            plans = [self.fewest(plan, required, props, ctx) for plan in plans]
        max_props = _int_or(view.get("maxProperties"), -1)
        done: list[list[str]] = []
        for plan in plans:
            if max_props >= 0:
                while len(plan) > max_props and any(n not in required for n in plan):
                    plan.remove(next(n for n in reversed(plan) if n not in required))
            if plan in done:
                continue
            done.append(plan)
            obj = self.fill(view, props, plan, required, ctx)
            if obj is not None:
                yield obj

    @staticmethod
    def one_of_each(plan: list[str], required: list[str], exclusive: list[tuple[str, str]]) -> list[str]:
        """*plan* without the second of each pair the descriptions call mutually exclusive (the first when
        only the second is required): GitLab's ``assignee_id`` and ``assignee_username`` are never sent together."""
        dropped: set[str] = set()
        for first, second in exclusive:
            if first in plan and second in plan and first not in dropped and second not in dropped:
                if second not in required:
                    dropped.add(second)
                elif first not in required:
                    dropped.add(first)
        return [n for n in plan if n not in dropped]

    def with_the_point(self, plan: list[str], names: list[str], props: dict[str, Any], ctx: Ctx) -> list[str]:
        """*plan*, for a call that requires nothing and whose plan holds only knobs with defaults, with
        the argument that is the point of the tool added: the first the caller chooses (no default)
        when it is named like one (a query, an id, a name: :data:`_POINT`). arXiv's ``semantic_search``
        sent only ``max_results: 10``."""
        if any(self.rank(n, props, ctx) != 2 for n in plan):
            return plan  # the plan already holds something the caller chooses or a declared example
        chosen = [n for n in names if n not in plan and self.rank(n, props, ctx) == 1]
        point = next((n for n in chosen if _POINT.fullmatch(n[:100])), None)
        return [n for n in names if n in plan or n == point]

    def rank(self, name: str, props: dict[str, Any], ctx: Ctx) -> int:
        """How likely an optional property matters to a first call: 0 with ``examples``, 1 what the caller
        chooses (no default), 2 a knob with a default, 3 a connection setting (retries, timeouts, auth)."""
        sub, _ = self.expand(props.get(name), ctx)
        declared = sub if isinstance(sub, dict) else {}
        if "examples" in declared or "example" in declared:
            return 0
        if _SETTINGS.search(name[:100]):
            return 3
        return 2 if "default" in declared else 1

    def fewest(self, plan: list[str], required: list[str], props: dict[str, Any], ctx: Ctx) -> list[str]:
        """*plan* with every required property and at most :attr:`max_optional` optional ones, the
        likeliest to matter first: those with ``examples``, then those the caller chooses (no default),
        then those with a default, then connection settings (retries, timeouts, tenant, auth)."""
        optional = [n for n in plan if n not in required]
        if self.max_optional is None or len(optional) <= self.max_optional:
            return plan

        kept = set(sorted(optional, key=lambda n: self.rank(n, props, ctx))[: self.max_optional])  # stable sort
        return [n for n in plan if n in required or n in kept]

    def value_schema(self, view: dict[str, Any], props: dict[str, Any], name: str) -> object:
        if name in props:
            return props[name]
        patterns = view.get("patternProperties")
        if isinstance(patterns, dict):
            for pattern, sub in patterns.items():
                try:
                    if search_pattern(str(pattern), name):
                        return sub
                except PatternError:
                    continue  # an undecided pattern raises on: no example rather than a guess
        extra = view.get("additionalProperties")
        return extra if isinstance(extra, dict | bool) else True

    def fill(
        self, view: dict[str, Any], props: dict[str, Any], plan: list[str], required: list[str], ctx: Ctx
    ) -> dict[str, object] | None:
        obj: dict[str, object] = {}

        def put(name: str, schema: object) -> bool:
            value = self.solve(schema, ctx.child(name))
            if value is FAIL:
                return name not in required
            obj[name] = value
            return True

        for name in plan:
            if not put(name, self.value_schema(view, props, name)):
                return None
        # Conditional requirements: dependencies and if/then/else, re-applied until stable.
        for _ in range(3):
            changed = False
            for key in ("dependentRequired", "dependencies", "dependentSchemas"):
                deps = view.get(key)
                if not isinstance(deps, dict):
                    continue
                for trigger, dep in deps.items():
                    if trigger not in obj:
                        continue
                    extra = {"required": dep} if isinstance(dep, list) else dep
                    changed |= self.apply(view, props, obj, extra, ctx)
            if "if" in view:
                branch = view.get("then") if self.checker.ok(obj, view["if"]) else view.get("else")
                if branch is not None:
                    changed |= self.apply(view, props, obj, branch, ctx)
            if not ctx.minimal:  # what the descriptions say a call needs, beyond the schema
                changed |= self.stated(view, props, obj, put, ctx)
            if not changed:
                break
        min_props = _int_or(view.get("minProperties"), 0)
        for name in props:
            if len(obj) >= min_props:
                break
            if name not in obj:
                put(name, props[name])
        if len(obj) < min_props:
            extra = view.get("additionalProperties")
            patterns = view.get("patternProperties")
            keys = [f"key{i}" for i in range(1, min_props + 1)]
            if isinstance(patterns, dict):
                keys = [k for p in patterns for k in regex_strings(str(p), limit=min_props)] + keys
            names_rule = view.get("propertyNames")
            if names_rule is not None:
                named = (self.solve({"allOf": [{"type": "string"}, names_rule]}, ctx.child("key", i)) for i in range(8))
                keys = [k for k in named if isinstance(k, str)] + keys
            for key in keys:
                if len(obj) >= min_props:
                    break
                if key in obj or (names_rule is not None and not self.checker.ok(key, names_rule)):
                    continue
                if extra is not False or isinstance(patterns, dict):
                    put(key, self.value_schema(view, props, key))
        return obj

    def stated(
        self,
        view: dict[str, Any],
        props: dict[str, Any],
        obj: dict[str, object],
        put: Callable[[str, object], bool],
        ctx: Ctx,
    ) -> bool:
        """Add to ``obj`` what the descriptions say it needs (:func:`stated_requirements`), each with a
        value rather than null where the schema allows one; True if changed."""
        own = view.get("description")
        prose = f"{self.prose if ctx.depth == 0 else ''}\n{own if isinstance(own, str) else ''}"
        changed = False
        for name in stated_requirements(props, obj, prose):
            schema = self.value_schema(view, props, name)
            put(name, {"allOf": [schema, {"not": {"type": "null"}}]})
            if name not in obj:
                put(name, schema)  # null is all there is
            changed |= name in obj
        return changed

    def apply(
        self,
        view: dict[str, Any],
        props: dict[str, Any],
        obj: dict[str, object],
        extra: object,
        ctx: Ctx,
    ) -> bool:
        """Make ``obj`` satisfy a conditional subschema's required/properties; True if changed."""
        sub, _ = self.expand(extra, ctx)
        if not isinstance(sub, dict) or self.checker.ok(obj, extra):
            return False
        changed = False
        raw_props = sub.get("properties")
        sub_props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
        wanted = (
            [r for r in sub.get("required", []) if isinstance(r, str)] if isinstance(sub.get("required"), list) else []
        )
        for name in dict.fromkeys([*wanted, *(n for n in sub_props if n in obj)]):
            schema = self.value_schema(view, props, name)
            if name in sub_props:
                schema = {"allOf": [schema, sub_props[name]]}
            value = self.solve(schema, ctx.child(name))
            if value is not FAIL and obj.get(name, FAIL) != value:
                obj[name] = value
                changed = True
        return changed


def _in_turn(
    values: list[Fraction], inside: Callable[[Fraction], bool], preferred: Fraction, unit: Fraction, salt: int
) -> list[Fraction]:
    """*values* in the order to try: in range first, nearest to *preferred* first, then the rest; a salt
    (unique items, retries) rotates the choice."""
    fitting = sorted(dict.fromkeys(x for x in values if inside(x)), key=lambda x: abs(x - preferred))
    count = len(fitting)
    fitting += [x for x in dict.fromkeys(values) if x not in fitting]
    if 0 < count <= salt:
        # A salt at or past the number of values in range (the 8th item of a unique array when 7 are)
        # steps on beyond them, one unit per salt: up where the range allows, else down; so each salt
        # has a value of its own.
        beyond = (salt - count + 1) * unit
        past = [x for x in (max(fitting[:count]) + beyond, min(fitting[:count]) - beyond) if inside(x)]
        return past[:1] + fitting
    start = salt % len(fitting)
    return fitting[start:] + fitting[:start]
