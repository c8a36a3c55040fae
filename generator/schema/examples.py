"""Example instances for untrusted JSON Schemas (and, re-exported, a validator that never fetches).

* :func:`validate` checks an instance against the schema with format checking
  on and remote ``$ref`` refused, and returns messages instead of raising; it
  lives in :mod:`generator.schema.validation` and is re-exported here, with
  :func:`clear_cache`.
* :func:`example_for` builds a realistic instance.  Every candidate is checked
  with the same validator, at each level and once more as a whole, so an
  :class:`Example` with ``ok=True`` always validates; otherwise ``ok`` is false
  and ``reason`` says why.
* :func:`placeholder_for` builds the typed stub that shows a call's shape
  (``"<name>"``, ``1``, ``1.0``, ``true``, one array item, every declared
  property); it is not validated.  It lives in :mod:`generator.schema.values`, with
  the realistic-value tables, and is re-exported here.

Value sources, in order: ``const``; ``examples`` (the first that validates),
``default``, ``enum``; then fixed realistic values by ``format``, strings
generated from ``pattern``, hints from the property name, numbers near the
hint inside the bounds.  Union branches are tried in order (non-null first).

Which properties an example includes: the required ones plus the optional ones
that declare ``examples``/``example`` or a non-null ``default`` (the knobs a
server documents); when that leaves nothing to show, every declared property;
``prefer_optional=True`` includes every declared property.  Optional properties
that lead back into a recursive ``$ref`` are left out, and inside recursion
arrays and objects are minimal.  Alternatives (other branches, required-only
objects, minimal arrays, other values) are tried when a candidate fails.

Everything is deterministic (fixed values, no randomness; the one clock, the pattern
timeout, can only withhold an example, never change one) and bounded
(nesting depth, ``$ref`` recursion, number of validation attempts).  Patterns are
matched through :mod:`generator.schema.patterns`; one that cannot be decided in bounded
time (catastrophic backtracking) means no example, with a reason that names it.  Compiled
validators are cached by schema content, so ``validate`` after ``example_for``
on the same schema does not check the schema against its meta-schema again.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from generator.jsonutil import is_number, json_equal
from generator.schema.constraints import ANNOTATIONS, declared_types, merge_schemas, own_types
from generator.schema.patterns import PatternError, PatternUndecided
from generator.schema.patterns import search as search_pattern
from generator.schema.refs import LEGACY_DIALECTS, LocalRefs, detect_dialect, ref_keyword
from generator.schema.regexgen import generate as regex_strings
from generator.schema.validation import Checker, GiveUp, clip_message, too_deep
from generator.schema.values import FORMAT_VALUES, NUMBER_HINTS, fit_length, hint_key, string_hint

_MAX_ATTEMPTS = 4000  # validations per example_for call
_MAX_DEPTH = 16  # nesting of generated values


@dataclass(frozen=True)
class Example:
    """A generated instance; ``value`` is only meaningful when ``ok``."""

    value: Any
    ok: bool
    reason: str | None


def _int_or(value: object, default: int) -> int:
    return int(value) if is_number(value) and math.isfinite(value) and value >= 0 else default


@dataclass(frozen=True)
class _Ctx:
    name: str | None = None
    depth: int = 0
    stack: tuple[int, ...] = ()  # ids of $ref targets being expanded
    salt: int = 0  # asks for a different value (unique items, second tries)
    minimal: bool = False  # inside recursion: smallest instance (required only, fewest items)

    def child(self, name: str | None, salt: int = 0) -> _Ctx:
        return replace(self, name=name, depth=self.depth + 1, salt=salt)


_FAIL = object()


class _Generator:
    def __init__(self, root: object, checker: Checker, prefer_optional: bool) -> None:
        self.root = root
        self.checker = checker
        self.prefer_optional = prefer_optional
        self.dialect, _ = detect_dialect(root)
        self.refs = LocalRefs(root, self.dialect)
        self.attempts = 0
        self.first_failure: tuple[object, list[str]] | None = None

    # ---- schema views (generation hints only: every result is validated against the real schema)

    def types_of(self, node: object) -> tuple[str, ...]:
        view, _ = self.expand(node, _Ctx())
        return own_types(view) if isinstance(view, dict) else ()

    def merge(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        return merge_schemas(a, b, self.types_of) or {**a, **b}

    def expand(self, node: object, ctx: _Ctx) -> tuple[dict[str, Any] | bool | None, _Ctx]:
        """Follow $ref (bounded recursion) and merge allOf; None means "cannot generate here"."""
        depth = ctx.depth
        for _ in range(32):
            if isinstance(node, bool):
                return node, ctx
            if not isinstance(node, dict):
                return None, ctx
            keyword = ref_keyword(node)
            if keyword is None:
                break
            target, problem = self.refs.lookup(node[keyword], keyword)
            if problem is not None:
                return None, ctx
            if isinstance(target, dict):
                seen = ctx.stack.count(id(target))
                if seen >= 2:
                    return None, ctx
                ctx = replace(ctx, stack=(*ctx.stack, id(target)), minimal=ctx.minimal or seen > 0)
            siblings = {k: v for k, v in node.items() if k != keyword}
            if self.dialect in LEGACY_DIALECTS:
                siblings = {k: v for k, v in siblings.items() if k in ANNOTATIONS}
            if target is False or not siblings:
                node = target
            else:
                node = self.merge(target if isinstance(target, dict) else {}, siblings)
        else:
            return None, ctx
        branches = node.get("allOf")
        if isinstance(branches, list) and ctx.depth <= _MAX_DEPTH:
            merged = {k: v for k, v in node.items() if k != "allOf"}
            for branch in branches[:16]:
                sub, ctx = self.expand(branch, replace(ctx, depth=ctx.depth + 1))
                if sub is None or sub is False:
                    return None, ctx
                if isinstance(sub, dict):
                    merged = self.merge(merged, sub)
            node = merged
        return node, replace(ctx, depth=depth)

    def recurses(self, node: object, ctx: _Ctx, level: int = 0) -> bool:
        """Does this subschema lead straight back into a $ref being expanded (directly or via a union)?"""
        if not isinstance(node, dict) or level > 3:
            return False
        keyword = ref_keyword(node)
        if keyword is not None:
            target, _ = self.refs.lookup(node[keyword], keyword)
            return id(target) in ctx.stack
        for key in ("anyOf", "oneOf", "allOf", "items"):
            sub = node.get(key)
            if isinstance(sub, list) and any(self.recurses(b, ctx, level + 1) for b in sub[:16]):
                return True
            if isinstance(sub, dict) and self.recurses(sub, ctx, level + 1):
                return True
        return False

    # ---- search

    def solve(self, node: object, ctx: _Ctx) -> object:
        """The first candidate that validates against ``node`` itself, or ``_FAIL``."""
        if ctx.depth > _MAX_DEPTH:
            return _FAIL
        salts = (ctx.salt, ctx.salt + 7, ctx.salt + 13)
        for i, salt in enumerate(salts):
            tried = False
            for value in self.candidates(node, replace(ctx, salt=salt)):
                tried = True
                self.attempts += 1
                if self.attempts > _MAX_ATTEMPTS:
                    raise GiveUp(f"no valid instance found within {_MAX_ATTEMPTS} attempts")
                if self.checker.ok(value, node):
                    return value
                if ctx.depth == 0 and self.first_failure is None:
                    self.first_failure = (value, self.checker.errors(value) if node is self.root else [])
            # Other salts only help where a value must avoid something (not, uniqueness, if).
            retry = isinstance(node, dict) and bool({"not", "if", "uniqueItems"} & node.keys())
            if not tried or (i == 0 and not retry):
                break
        return _FAIL

    def candidates(self, node: object, ctx: _Ctx) -> Iterator[object]:
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
        inferred = list(own_types(view))
        if inferred:
            return inferred
        keys = view.keys()
        if keys & {"properties", "required", "minProperties", "maxProperties", "patternProperties"}:
            return ["object"]
        if keys & {"items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"}:
            return ["array"]
        if keys & {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}:
            return ["number"]
        if keys & {"minLength", "maxLength", "pattern", "format"}:
            return ["string"]
        # Anything goes (up to `not`/`if`): try every type, most readable first.
        return ["string", "integer", "boolean", "object", "array", "null"]

    def typed(self, t: str, view: dict[str, Any], ctx: _Ctx) -> Iterator[object]:
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

    def strings(self, view: dict[str, Any], ctx: _Ctx) -> Iterator[object]:
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
        hint = string_hint(ctx.name)
        if ctx.salt:
            hint = f"{hint} {ctx.salt + 1}"
        if view.get("contentEncoding") == "base64":
            yield base64.b64encode(hint.encode()).decode()
        if view.get("contentMediaType") == "application/json":
            yield "{}"
        yield fit_length(hint, lo, top)
        yield fit_length("example", lo, top)

    def numbers(self, view: dict[str, Any], ctx: _Ctx, *, integer: bool) -> Iterator[object]:
        def bound(key: str) -> Fraction | None:
            value = view.get(key)
            if is_number(value) and math.isfinite(value):
                return Fraction(value)
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
        key = hint_key(ctx.name)
        preferred = Fraction(NUMBER_HINTS.get(key, 1 if integer else 1.5)).limit_denominator(1000)
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
        # In range first, nearest to the hint first; a salt (unique items, retries) rotates the choice.
        fitting = sorted(dict.fromkeys(x for x in snapped if inside(x)), key=lambda x: abs(x - preferred))
        fitting += [x for x in dict.fromkeys(snapped) if x not in fitting]
        start = ctx.salt % len(fitting)
        seen: list[object] = []
        for value in fitting[start:] + fitting[:start]:
            for out in self.number_forms(value, integer):
                if not any(type(out) is type(s) and out == s for s in seen):
                    seen.append(out)
                    yield out

    @staticmethod
    def number_forms(value: Fraction, integer: bool) -> list[object]:
        if value.denominator == 1:
            as_int = int(value)
            if integer or as_int.bit_length() > 1000:
                return [as_int]
            try:
                return [float(as_int), as_int]
            except OverflowError:
                return [as_int]
        if integer:
            return []
        try:
            return [float(value)]
        except OverflowError:
            return []

    def arrays(self, view: dict[str, Any], ctx: _Ctx) -> Iterator[object]:
        prefix = view.get("prefixItems")
        rest = view.get("items")
        if not isinstance(prefix, list):
            prefix, rest = (rest, view.get("additionalItems")) if isinstance(rest, list) else ([], rest)
        lo = _int_or(view.get("minItems"), 0)
        hi = _int_or(view.get("maxItems"), -1)
        contains = view.get("contains")
        need = _int_or(view.get("minContains"), 1) if contains is not None else 0
        realistic = max(lo, len(prefix), need, 1)
        if rest is False:
            realistic = min(realistic, len(prefix))
        minimal = ctx.minimal or self.recurses(rest, ctx)  # a recursive tree: stop at the smallest
        sizes = [realistic, max(lo, need)] if not minimal else [max(lo, need), realistic]
        unique = view.get("uniqueItems") is True
        for size in dict.fromkeys(min(s, hi) if hi >= 0 else s for s in sizes):
            items: list[object] = []
            for i in range(min(size, 256)):
                schema: object = prefix[i] if i < len(prefix) else (True if rest is None else rest)
                if contains is not None and i >= len(prefix) and i - len(prefix) < need:
                    schema = {"allOf": [schema, contains]}
                name = ctx.name
                if name and name.endswith("s") and len(name) > 3:
                    name = name[:-1]  # "tags" -> "tag" for the hint of one item
                value = self.solve(schema, ctx.child(name, salt=i if unique else ctx.salt))
                for retry in range(1, 8 if unique else 1):
                    if not any(json_equal(value, item) for item in items):
                        break
                    value = self.solve(schema, ctx.child(name, salt=i + retry * size))
                if value is _FAIL:
                    break
                items.append(value)
            else:
                yield items

    def objects(self, view: dict[str, Any], ctx: _Ctx) -> Iterator[object]:
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
        if ctx.minimal:
            plans = [plans[1]]
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
        self, view: dict[str, Any], props: dict[str, Any], plan: list[str], required: list[str], ctx: _Ctx
    ) -> dict[str, object] | None:
        obj: dict[str, object] = {}

        def put(name: str, schema: object) -> bool:
            value = self.solve(schema, ctx.child(name))
            if value is _FAIL:
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

    def apply(
        self,
        view: dict[str, Any],
        props: dict[str, Any],
        obj: dict[str, object],
        extra: object,
        ctx: _Ctx,
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
            if value is not _FAIL and obj.get(name, _FAIL) != value:
                obj[name] = value
                changed = True
        return changed


def example_for(schema: object, *, prefer_optional: bool = False) -> Example:
    """A realistic instance that validates (``ok``), or ``ok=False`` with the reason."""
    try:
        checker = Checker.cached(schema)
        checker.overflows = 0
        if checker.error is not None:
            return Example(None, False, f"invalid schema: {checker.error}")
        if schema is False:
            return Example(None, False, "the schema is false: no value is allowed")
        generator = _Generator(schema, checker, prefer_optional)
        try:
            value = generator.solve(schema, _Ctx())
        except (GiveUp, PatternUndecided) as exc:
            return Example(None, False, str(exc))
        if value is _FAIL:
            reason = "no valid instance found"
            if generator.first_failure is not None:
                candidate, errors = generator.first_failure
                if errors:
                    reason += f"; e.g. {clip_message(repr(candidate))[:80]} fails: {errors[0]}"
            unresolved = _unresolved_ref(schema, generator.refs)
            if unresolved:
                remote = unresolved.startswith("remote")
                reason += f"; {unresolved}" + (" (remote references are never fetched)" if remote else "")
            elif generator.first_failure is None:
                reason += " (the schema may be unsatisfiable)"
            return Example(None, False, reason)
        errors = checker.errors(value)  # the last word: never hand out an invalid (or undecided) instance
        if errors:
            return Example(None, False, f"generated instance failed validation: {errors[0]}")
        return Example(value, True, None)
    except BaseException as exc:  # untrusted input must never crash a build
        if too_deep(exc):
            return Example(None, False, "schema nested too deeply")
        if not isinstance(exc, Exception):
            raise  # KeyboardInterrupt, SystemExit: not ours to swallow
        return Example(None, False, f"internal error: {type(exc).__name__}")


def _unresolved_ref(schema: object, refs: LocalRefs) -> str | None:
    """The first $ref that cannot be resolved locally, described (bounded scan)."""
    stack, budget = [schema], 20_000
    while stack and budget > 0:
        node = stack.pop()
        budget -= 1
        if isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, dict):
            keyword = ref_keyword(node)
            if keyword is not None:
                _, problem = refs.lookup(node[keyword], keyword)
                if problem is not None:
                    return problem.replace(" was not fetched", "")
            stack.extend(v for k, v in reversed(node.items()) if k not in ("enum", "const", "default", "examples"))
    return None
