"""``unevaluatedProperties`` with ``patternProperties`` matched the ECMA-262 way, in bounded time.

jsonschema finds the properties a schema has already evaluated with a helper that matches
``patternProperties`` through Python's :mod:`re`: another regex dialect, with no bound on its time.
This module is the keyword as the validator classes are extended with it
(``jsonschema.validators.extend``): the same walk (``$ref``, ``$dynamicRef``, ``$recursiveRef``,
the applicators, ``if``/``then``/``else``), with every pattern matched by *matches*.

:func:`_referenced` is the one place in mcp-portal that touches a name jsonschema does not publish
(``tests/test_structure.py`` allows it there and nowhere else).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]

Matches = Callable[[object, str], bool]


def _valid(validator: Any, instance: object, subschema: object) -> bool:
    return next(validator.descend(instance, subschema), None) is None


def _referenced(validator: Any, ref: str) -> tuple[Any, object]:
    """The schema *ref* points to, resolved where *validator* stands, and a validator standing there.

    The adapter for the public API jsonschema lacks: a keyword function is given the validator, whose
    ``referencing`` resolver (which knows the base URI and the dynamic scope at this point of the walk)
    is private, ``validator._resolver``; and ``evolve`` takes a resolver only as ``_resolver``.
    ``Validator.descend(resolver=...)`` accepts one, but nothing public hands it out. jsonschema's own
    ``unevaluatedProperties`` does exactly this. Written for jsonschema 4.23-4.26 with referencing 0.35-0.37
    (pyproject.toml bounds both); ``tests/test_schema_adapter.py`` checks both names on the installed
    version and pins the behaviour against jsonschema's keyword, so a release that changes them fails there.
    """
    resolved = validator._resolver.lookup(ref)
    return validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), resolved.contents


def _follow(validator: Any, ref: str, instance: dict[str, Any], matches: Matches, legacy: bool) -> list[str]:
    """The keys evaluated by the schema *ref* points to (resolved where *validator* stands)."""
    inner, contents = _referenced(validator, ref)
    return evaluated_keys(inner, instance, contents, matches, legacy)


def _own_keys(validator: Any, instance: dict[str, Any], schema: dict[str, Any], legacy: bool) -> list[str]:
    """Keys evaluated by the schema's own ``properties``, ``additionalProperties`` and ``unevaluatedProperties``."""
    found: list[str] = []
    if legacy:  # 2019-09: a boolean true evaluates every key, an object its named keys
        for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
            value = schema.get(keyword)
            if value is True:
                found += instance.keys()
            elif isinstance(value, dict):
                found += [key for key in value if key in instance]
        return found
    properties = schema.get("properties")
    if isinstance(properties, dict):
        found += properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        subschema = schema.get(keyword)
        if subschema is not None:
            found += [key for key, value in instance.items() if _valid(validator, value, subschema)]
    return found


def evaluated_keys(
    validator: Any, instance: dict[str, Any], schema: object, matches: Matches, legacy: bool = False
) -> list[str]:
    """The keys of *instance* that *schema* evaluates (JSON Schema 2019-09 when *legacy*, else 2020-12)."""
    if not isinstance(schema, dict):
        return []
    found: list[str] = []
    for keyword in ("$ref", "$recursiveRef" if legacy else "$dynamicRef"):
        ref = schema.get(keyword)
        if isinstance(ref, str):
            found += _follow(validator, ref, instance, matches, legacy)
    found += _own_keys(validator, instance, schema, legacy)
    rules = schema.get("patternProperties")
    if isinstance(rules, dict):
        found += [key for key in instance for pattern in rules if matches(pattern, key)]
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict):
        for key, subschema in dependent.items():
            if key in instance:
                found += evaluated_keys(validator, instance, subschema, matches, legacy)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []) or []:
            if _valid(validator, instance, subschema):
                found += evaluated_keys(validator, instance, subschema, matches, legacy)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            found += evaluated_keys(validator, instance, schema["if"], matches, legacy)
            found += evaluated_keys(validator, instance, schema.get("then"), matches, legacy)
        else:
            found += evaluated_keys(validator, instance, schema.get("else"), matches, legacy)
    return found


def keyword(matches: Matches, legacy: bool) -> Callable[[Any, Any, Any, Any], Iterator[Any]]:
    """The ``unevaluatedProperties`` keyword function for ``validators.extend``."""

    def unevaluated_properties(validator: Any, rule: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        seen = set(evaluated_keys(validator, instance, schema, matches, legacy))
        failing = [
            key
            for key in instance
            if key not in seen and next(validator.descend(instance[key], rule, path=key, schema_path=key), None)
        ]
        if not failing:
            return
        verb = "was" if len(failing) == 1 else "were"
        if rule is False:
            listed = ", ".join(repr(key) for key in sorted(failing, key=str))
            yield ValidationError(f"Unevaluated properties are not allowed ({listed} {verb} unexpected)")
        else:
            listed = ", ".join(repr(key) for key in failing)
            yield ValidationError(
                f"Unevaluated properties are not valid under the given schema ({listed} {verb} unevaluated and invalid)"
            )

    return unevaluated_properties
