"""Example instances for untrusted JSON Schemas: the solver behind :func:`example_for`.

* :func:`example_for` builds a realistic instance.  Every candidate is checked
  with the validator of :mod:`generator.schema.validation`, at each level and once
  more as a whole, so an :class:`Example` with ``ok=True`` always validates;
  otherwise ``ok`` is false and ``reason`` says why.
* The candidates come from :mod:`generator.schema.example_candidates`, the schema
  views they are built on (``$ref``, ``allOf``, recursion) from
  :mod:`generator.schema.example_views`.  The typed stub that shows a call's shape
  is :func:`generator.schema.placeholders.placeholder_for`, and :func:`validate` lives in
  :mod:`generator.schema.validation`.

Value sources, in order: ``const``; ``examples`` (the first that validates),
``default``, ``enum``; then fixed realistic values by ``format``, strings
generated from ``pattern``, hints from the property name, numbers near the
hint inside the bounds.  Union branches are tried in order (non-null first).

Which properties an example includes: the required ones plus the optional ones
that declare ``examples``/``example`` or a non-null ``default`` (the knobs a
server documents); when that leaves nothing to show, every declared property;
``prefer_optional=True`` includes every declared property; ``max_optional`` caps the optional
ones of each object (a call's arguments: three).  Optional properties
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

from dataclasses import dataclass, replace
from typing import Any

from generator.jsonutil import json_equal
from generator.schema.example_candidates import Candidates
from generator.schema.example_views import FAIL, MAX_DEPTH, Ctx
from generator.schema.patterns import PatternUndecided
from generator.schema.refs import LocalRefs, ref_keyword
from generator.schema.validation import Checker, GiveUp, clip_message, too_deep

_MAX_ATTEMPTS = 4000  # validations per example_for call


@dataclass(frozen=True)
class Example:
    """A generated instance; ``value`` is only meaningful when ``ok``."""

    value: Any
    ok: bool
    reason: str | None


class _Generator(Candidates):
    """The solver: tries each candidate against the real schema, within a budget of attempts."""

    def __init__(
        self, root: object, checker: Checker, prefer_optional: bool, max_optional: int | None, prose: str
    ) -> None:
        super().__init__(root, checker, prefer_optional, max_optional, prose)
        self.attempts = 0
        self.first_failure: tuple[object, list[str]] | None = None

    def solve(self, node: object, ctx: Ctx) -> object:
        """The first candidate that validates against ``node`` itself, or ``FAIL``."""
        if ctx.depth > MAX_DEPTH:
            return FAIL
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
        return FAIL


def example_for(
    schema: object,
    *,
    prefer_optional: bool = False,
    max_optional: int | None = None,
    prose: str = "",
    subject: str = "",
) -> Example:
    """A realistic instance that validates (``ok``), or ``ok=False`` with the reason; with *max_optional*,
    no object in it carries more optional properties than that (:meth:`Candidates.fewest`) besides those
    the descriptions say it needs. *prose* is what is said of the instance outside its schema (a tool's
    description), read for the requirements it states (:mod:`generator.schema.prose_requirements`); *subject*
    names what the instance is about (a tool's name: ``delete_chart``'s ``name`` is ``my-chart``)."""
    try:
        checker = Checker.cached(schema)
        checker.overflows = 0
        if checker.error is not None:
            return Example(None, False, f"invalid schema: {checker.error}")
        if schema is False:
            return Example(None, False, "the schema is false: no value is allowed")
        generator = _Generator(schema, checker, prefer_optional, max_optional, prose)
        try:
            value = generator.solve(schema, Ctx(owner=subject or None))
        except (GiveUp, PatternUndecided) as exc:
            return Example(None, False, str(exc))
        if value is FAIL:
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


MAX_VARIATIONS = 64
"""Solver runs :func:`examples_for` spends at most on varying one property at a time."""


class _Varied(_Generator):
    """The solver with one property of the root object given its next valid value: the ``skip``-th
    distinct valid candidate (0 is the first, which :func:`example_for` keeps) instead of the first."""

    def __init__(self, root: object, checker: Checker, options: dict[str, Any], name: str, skip: int) -> None:
        super().__init__(root, checker, **options)
        self.name, self.skip = name, skip

    def solve(self, node: object, ctx: Ctx) -> object:
        if ctx.depth != 1 or ctx.name != self.name:
            return super().solve(node, ctx)
        found: list[object] = []
        for salt in (ctx.salt, ctx.salt + 7, ctx.salt + 13):
            for value in self.candidates(node, replace(ctx, salt=salt)):
                self.attempts += 1
                if self.attempts > _MAX_ATTEMPTS:
                    raise GiveUp(f"no valid instance found within {_MAX_ATTEMPTS} attempts")
                if self.checker.ok(value, node) and not any(json_equal(value, seen) for seen in found):
                    found.append(value)
                    if len(found) > self.skip:
                        return value
        return FAIL


def examples_for(
    schema: object,
    count: int,
    *,
    prefer_optional: bool = False,
    max_optional: int | None = None,
    prose: str = "",
    subject: str = "",
) -> tuple[Any, ...]:
    """Up to *count* distinct instances that validate, in the order worth trying them: the value of
    :func:`example_for` (same options) first, then the root's other candidates (for an object: its
    required properties only, then every property), then the first value with one top-level property
    given its next valid value, property by property. Empty when :func:`example_for` finds none.

    For a caller that sends the example to a server which refuses it (a value the schema allows but the
    server does not know): the next one may work. Deterministic and bounded like :func:`example_for`.
    """
    first = example_for(
        schema, prefer_optional=prefer_optional, max_optional=max_optional, prose=prose, subject=subject
    )
    if not first.ok or count < 1:
        return ()
    found = [first.value]
    checker = Checker.cached(schema)
    options: dict[str, Any] = {"prefer_optional": prefer_optional, "max_optional": max_optional, "prose": prose}

    def add(value: object) -> None:
        new = value is not FAIL and not any(json_equal(value, seen) for seen in found)
        if len(found) < count and new and not checker.errors(value):
            found.append(value)

    try:
        ctx = Ctx(owner=subject or None)
        for value in _Generator(schema, checker, **options).candidates(schema, ctx):
            add(value)
            if len(found) >= count:
                return tuple(found)
        names = list(first.value) if isinstance(first.value, dict) else []
        runs = [(name, skip) for skip in range(1, count) for name in names][:MAX_VARIATIONS]
        for name, skip in runs:
            if len(found) >= count:
                break
            add(_Varied(schema, checker, options, name, skip).solve(schema, ctx))
    except (GiveUp, PatternUndecided):
        pass
    except BaseException as exc:  # untrusted input must never crash a build: keep what was found
        if not (too_deep(exc) or isinstance(exc, Exception)):
            raise
    return tuple(found)


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
