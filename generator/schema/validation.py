"""Validate an instance against an untrusted JSON Schema, without ever fetching anything.

* :func:`validate` checks an instance with the validator class of the schema's
  declared dialect (default 2020-12), format checking on, remote ``$ref``
  refused (the standard meta-schemas are bundled), and returns messages
  (``"$.a.b[0]: ..."``) instead of raising; ``["schema: ..."]`` for a schema
  that is itself invalid.  Format checkers come from jsonschema, with the
  packages behind date-time, time, duration, hostname, json-pointer, uri, ...
  listed as dependencies; ``iri`` and ``iri-reference`` are decided by
  :mod:`generator.schema.iri`.
* :class:`Checker` is the compiled validator behind it, cached by schema
  content (:func:`clear_cache` empties the cache); :mod:`generator.schema.examples`
  uses the same checker to test every candidate, so ``validate`` after
  ``example_for`` on an equal schema does not check the schema against its
  meta-schema again.

What it knows: which jsonschema validator class and meta-schema belong to each
dialect, how to make the 2019-09/2020-12 meta-schemas cheap to check, and how
to turn jsonschema errors into short messages.  What it does not know: what
keywords mean (that is jsonschema's job; :mod:`generator.schema.constraints` reads them
for display) or how to build an instance (:mod:`generator.schema.examples`).  Remote
references are never resolved: the registry refuses every retrieval.

Regular expressions from the schema (``pattern``, ``patternProperties`` keys, and
``format: regex`` values) are never given to :mod:`re`: the validator classes are
extended so that those keywords, ``additionalProperties`` and ``unevaluatedProperties``
(which consult ``patternProperties``) match through :mod:`generator.schema.patterns`
(ECMA-262 meaning, bounded time; :mod:`generator.schema.unevaluated` for the last).
A pattern that cannot be decided raises :class:`~generator.schema.patterns.PatternUndecided`
out of :meth:`Checker.ok`, so a candidate is never called valid (or invalid) on a guess.
"""

from __future__ import annotations

import itertools
import json
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]
from jsonschema import FormatChecker
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped]
from jsonschema_specifications import REGISTRY as _SPECS  # type: ignore[import-untyped]
from referencing import Registry
from referencing.exceptions import NoSuchResource, Unresolvable

from generator.schema import iri, patterns, unevaluated
from generator.schema.ecma_syntax import PatternError
from generator.schema.patterns import PatternUndecided
from generator.schema.plain import plainly_valid
from generator.schema.refs import detect_dialect

_MAX_ERRORS = 50  # messages returned per validate call: enough to fix a schema, bounded work
_MAX_MESSAGE = 300  # characters per message (an instance or pattern may be huge)


def _matches(pattern: object, text: str) -> bool:
    """The schema's pattern against a string: ECMA-262, bounded; an invalid pattern matches nothing."""
    try:
        return patterns.search(str(pattern), text)
    except PatternError:
        return False  # the meta-schema check reports the schema itself as invalid


def _pattern(validator: Any, pattern: object, instance: Any, schema: object) -> Iterator[Any]:
    if validator.is_type(instance, "string") and isinstance(pattern, str) and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, rules: object, instance: Any, schema: object) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(rules, dict):
        return
    for pattern, subschema in rules.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, extra: object, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's check, with the patterns matched one by one here (it joins them with ``|``)."""
    if not validator.is_type(instance, "object"):
        return
    props = schema.get("properties", {})
    rules = schema.get("patternProperties", {})
    props = props if isinstance(props, dict) else {}
    rules = rules if isinstance(rules, dict) else {}
    extras = [k for k in instance if k not in props and not any(_matches(p, k) for p in rules)]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        listed = ", ".join(repr(k) for k in sorted(extras, key=str))
        if rules:
            verb = "does" if len(extras) == 1 else "do"
            regexes = ", ".join(repr(p) for p in sorted(rules))
            yield ValidationError(f"{listed} {verb} not match any of the regexes: {regexes}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


def _bounded(cls: Any) -> Any:
    """The dialect's validator class with every regex keyword matched through generator.schema.patterns."""
    overrides: dict[str, Callable[..., Iterator[Any]]] = {"pattern": _pattern, "patternProperties": _pattern_properties}
    if "additionalProperties" in cls.VALIDATORS:
        overrides["additionalProperties"] = _additional_properties
    if "unevaluatedProperties" in cls.VALIDATORS:
        legacy = cls is jsonschema.Draft201909Validator
        overrides["unevaluatedProperties"] = unevaluated.keyword(_matches, legacy=legacy)
    return jsonschema.validators.extend(cls, overrides)  # type: ignore[no-untyped-call]


_VALIDATORS: dict[str | None, Any] = {
    "draft-03": _bounded(jsonschema.Draft3Validator),
    "draft-04": _bounded(jsonschema.Draft4Validator),
    "draft-06": _bounded(jsonschema.Draft6Validator),
    "draft-07": _bounded(jsonschema.Draft7Validator),
    "2019-09": _bounded(jsonschema.Draft201909Validator),
    "2020-12": _bounded(jsonschema.Draft202012Validator),
}
_VALIDATORS[None] = _VALIDATORS["2020-12"]


def _refuse(uri: str) -> Any:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # never fetch an untrusted $ref


_REGISTRY: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]

_CHECKERS: dict[Any, FormatChecker] = {}


def _format_checker(cls: Any) -> FormatChecker:
    """The dialect's FormatChecker, with ``regex`` decided by ECMA-262 and checker crashes counted as failures."""
    if cls in _CHECKERS:
        return _CHECKERS[cls]
    checker = FormatChecker(formats=())
    funcs: dict[str, Callable[[object], bool]] = {n: fn for n, (fn, _) in cls.FORMAT_CHECKER.checkers.items()}
    if "regex" in funcs:  # jsonschema's would ask Python's re, a dialect of its own
        funcs["regex"] = lambda value: not isinstance(value, str) or patterns.is_valid(value)
    if cls in (_VALIDATORS["draft-07"], _VALIDATORS["2019-09"], _VALIDATORS["2020-12"]):
        # The IRI formats arrived with draft-07; decided by generator.schema.iri, whether or not a
        # grammar package of jsonschema's is installed.
        funcs["iri"], funcs["iri-reference"] = iri.is_iri, iri.is_iri_reference
    for name, func in funcs.items():
        checker.checkers[name] = (_safe(func), ())
    _CHECKERS[cls] = checker
    return checker


def _format_test(cls: Any) -> Callable[[str, str], bool]:
    """``(value, format)``: whether a string passes the dialect's format check (as the meta-schema asks)."""
    checker = _format_checker(cls)
    return lambda text, name: bool(checker.conforms(text, name))


def _safe(func: Callable[[object], bool]) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        try:
            return bool(func(value))
        except Exception:  # a checker that crashes on odd input has rejected it
            return False

    return check


def _at(path: Iterator[Any] | Any) -> str:
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += "[" + repr(str(part)) + "]"
    return out


def clip_message(text: str) -> str:
    """Cut a validation message to the length a reader can take in."""
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


class GiveUp(Exception):
    """Stop searching: the budget is spent or the schema cannot be checked; the message says why."""


_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose value maps names to schemas: its keys are names (``"$id"`` is the rule for the ``$id``
keyword), never keywords to drop or rewrite."""


def _one_document(node: Any, names: bool = False) -> Any:
    """A vocabulary meta-schema with its dynamic self-references turned into plain ``#`` refs
    (*names*: *node* maps names to schemas, and only its values are schemas)."""
    if isinstance(node, list):
        return [_one_document(v) for v in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {key: _one_document(value) for key, value in node.items()}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$id", "$schema", "$vocabulary", "$dynamicAnchor", "$recursiveAnchor", "$comment"):
            continue
        if key in ("$dynamicRef", "$recursiveRef") and value in ("#meta", "#"):
            out["$ref"] = "#"
        elif key == "$ref" and isinstance(value, str) and value.startswith("meta/") and "#/$defs/" in value:
            # "meta/validation#/$defs/stringArray" (the deprecated `dependencies`): every vocabulary's
            # $defs are merged into the one document, where the relative document name no longer resolves.
            out["$ref"] = "#" + value.partition("#")[2]
        else:
            out[key] = _one_document(value, key in _NAME_MAPS)
    return out


def _meta_validator(cls: Any) -> Any:
    """A validator for the dialect's meta-schema.

    The 2019-09/2020-12 meta-schemas spread over vocabulary documents linked by
    $dynamicRef/$recursiveRef, which jsonschema checks several times slower than a
    single document; for a schema written in that dialect the dynamic scope always
    ends at the same meta-schema, so it is flattened into one document (same verdicts).
    """
    if cls in _META:
        return _META[cls]
    meta = cls.META_SCHEMA
    if cls in (_VALIDATORS["2019-09"], _VALIDATORS["2020-12"]):
        try:
            base = str(meta["$id"]).rsplit("/", 1)[0] + "/"
            parts, defs = [], {}
            for part in meta["allOf"]:
                doc = _one_document(_SPECS.contents(base + part["$ref"]))
                defs.update(doc.pop("$defs", {}))
                parts.append(doc)
            top = _one_document({k: v for k, v in meta.items() if k != "allOf"})
            defs.update(top.pop("$defs", {}))
            meta = {**top, "allOf": parts, "$defs": defs}
        except Exception:  # an unexpected meta-schema layout: use it as it is
            meta = cls.META_SCHEMA
    _META[cls] = cls(meta, registry=_REGISTRY, format_checker=_format_checker(cls))
    return _META[cls]


_META: dict[Any, Any] = {}
_CACHE: dict[tuple[str | None, str], Checker] = {}
_CACHE_SIZE = 64


def too_deep(exc: BaseException) -> bool:
    """A stack exhausted by a deep or looping schema.

    Near the recursion limit, the Rust code under ``referencing`` panics instead of raising
    RecursionError; its PanicException derives from BaseException, so it is matched by name.
    """
    return isinstance(exc, RecursionError) or type(exc).__name__ == "PanicException"


class Checker:
    """One compiled validator for a root schema; checks the root or any of its subschemas."""

    def __init__(self, schema: object) -> None:
        self.error: str | None = None
        self.validator: Any = None
        self.overflows = 0
        dialect, _ = detect_dialect(schema)
        cls = _VALIDATORS.get(dialect, _VALIDATORS[None])
        try:
            with warnings.catch_warnings():  # e.g. FutureWarning from re for an odd pattern
                warnings.simplefilter("ignore")
                if cls is _VALIDATORS["2020-12"] and plainly_valid(schema, _format_test(cls)):
                    problem = None  # the quick walk proves what the meta-schema would (generator.schema.plain)
                else:
                    problem = best_match(_meta_validator(cls).iter_errors(schema))
            if problem is not None:
                where = _at(problem.absolute_path).replace("$", "#", 1)
                self.error = clip_message(f"{problem.message} (at {where})")
                return
            self.validator = cls(schema, registry=_REGISTRY, format_checker=_format_checker(cls))
        except BaseException as exc:
            if not (too_deep(exc) or isinstance(exc, Exception)):
                raise
            self.error = "schema nested too deeply" if too_deep(exc) else clip_message(f"{type(exc).__name__}: {exc}")

    @classmethod
    def cached(cls, schema: object) -> Checker:
        """A checker shared by calls on equal schemas (example_for, then validate of its result)."""
        try:
            text = json.dumps(schema, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError, RecursionError):  # not plain JSON: no sharing
            return cls(schema)
        key = (detect_dialect(schema)[0], text)
        if key not in _CACHE:
            if len(_CACHE) >= _CACHE_SIZE:
                del _CACHE[next(iter(_CACHE))]
            # Built from a copy, so a caller mutating its schema later cannot change the cached verdict.
            _CACHE[key] = cls(json.loads(text))
        return _CACHE[key]

    def ok(self, instance: object, sub: object) -> bool:
        try:
            if sub is self.validator.schema:
                validator = self.validator
            else:
                # evolve() would pick jsonschema's own class for a schema naming its dialect, without
                # our ECMA-262 keywords; the dialect is the root's, decided when the checker was built.
                if isinstance(sub, dict) and "$schema" in sub:
                    sub = {key: value for key, value in sub.items() if key != "$schema"}
                validator = self.validator.evolve(schema=sub)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return bool(validator.is_valid(instance))
        except PatternUndecided:
            raise  # neither valid nor invalid: the caller shows no example rather than guess
        except BaseException as exc:
            if not too_deep(exc):
                if isinstance(exc, Exception):
                    return False  # unresolvable $ref, a crashing regex...: not valid
                raise
            # A $ref loop that consumes no data: every check would burn the whole stack again.
            self.overflows += 1
            if self.overflows >= 3:
                raise GiveUp("validation recurses without end (a $ref loop that never reaches data)") from None
            return False

    def errors(self, instance: object) -> list[str]:
        if self.error is not None:
            return [f"schema: {self.error}"]
        found: list[str] = []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                errors = list(itertools.islice(self.validator.iter_errors(instance), _MAX_ERRORS))
            for error in errors:
                found.append(clip_message(f"{_at(error.absolute_path)}: {error.message}"))
        except Unresolvable as exc:
            ref = str(getattr(exc, "ref", "?"))
            remote = "" if ref.startswith(("#", "/")) else " (remote references are never fetched)"
            found.append(clip_message(f"schema: unresolvable $ref {ref!r}{remote}"))
        except PatternUndecided as exc:
            found.append(clip_message(f"schema: {exc}"))
        except BaseException as exc:
            if too_deep(exc):
                found.append("schema: nested too deeply to validate")
            elif isinstance(exc, Exception):
                found.append(clip_message(f"schema: {type(exc).__name__}: {exc}"))
            else:
                raise
        return found


def clear_cache() -> None:
    """Forget compiled validators (for benchmarks, or to free memory after a build)."""
    _CACHE.clear()


def validate(instance: object, schema: object) -> list[str]:
    """Error messages (``"$.a[0]: ..."``), empty when valid; ``["schema: ..."]`` for a bad schema."""
    return Checker.cached(schema).errors(instance)
