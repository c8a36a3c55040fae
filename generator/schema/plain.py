"""A quick proof that a schema is valid against the 2020-12 meta-schema, for the schemas most tools send.

Checking a tool's schema against its meta-schema is the largest single cost of finding its
examples: jsonschema walks the meta-schema's vocabularies for every subschema, about 1.3 ms for
a tool with eight parameters, a tenth of a 1,000-tool build. Most schemas use a handful of
keywords with values of the right type, which a direct walk confirms in microseconds.

:func:`plainly_valid` is a *sufficient* condition: True only when every keyword is one whose
meta-schema rule it applies exactly (types, non-negative integers, non-empty schema arrays,
unique string arrays, regexes and references through the same format checker), or one the
meta-schema does not know (which it allows with any value). Anything else (``$id``, ``$anchor``,
an integral float where an integer is due, a keyword it does not follow) is False, and the caller asks
jsonschema, which also words the error. ``tests/test_plain_schemas.py`` holds it to that:
whenever it says True, jsonschema finds no error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})

_TEXT = frozenset({"title", "description", "format", "contentEncoding", "contentMediaType"})
_FLAGS = frozenset({"deprecated", "readOnly", "writeOnly", "uniqueItems"})
_ANY = frozenset({"default", "const"})
_ARRAYS = frozenset({"enum", "examples"})
_NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_COUNTS = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains", "minContains"}
)
_SCHEMA = frozenset(
    {
        "items", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema",
    }
)  # fmt: skip
_SCHEMA_ARRAYS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "dependentSchemas", "definitions"})
_KNOWN = frozenset({"pattern", "patternProperties", "multipleOf", "type", "required", "dependentRequired"})
_REFERENCES = frozenset({"$ref", "$dynamicRef"})
"""Core keywords whose value is a ``uri-reference`` string."""
_DOLLAR = _REFERENCES | {"$schema", "$comment"}
_FOLLOWED = (
    _TEXT | _FLAGS | _ANY | _ARRAYS | _NUMBERS | _COUNTS | _SCHEMA | _SCHEMA_ARRAYS | _SCHEMA_MAPS | _KNOWN | _DOLLAR
)
_DECLINED = frozenset({"dependencies"})
"""Meta-schema keywords this does not follow (besides the ``$`` keywords not in :data:`_DOLLAR`)."""

Formats = Callable[[str, str], bool]
"""``(value, format)``: whether a string passes the dialect's format checker (``regex``, ``uri-reference``...)."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)


def plainly_valid(schema: Any, formats: Formats) -> bool:
    """True only if *schema* is certainly valid against the 2020-12 meta-schema (see the module docstring)."""
    try:
        return _valid(schema, formats)
    except RecursionError:  # deeper than a walk can go: jsonschema decides (and says so)
        return False


def _valid(schema: Any, formats: Formats) -> bool:
    if isinstance(schema, bool):
        return True
    if type(schema) is not dict:
        return False
    for key, value in schema.items():
        if key in _FOLLOWED:
            if not _keyword(key, value, formats):
                return False
        elif key.startswith("$") or key in _DECLINED:
            return False
        # Any other key is no keyword of the dialect: the meta-schema allows it with any value.
    return True


def _keyword(key: str, value: Any, formats: Formats) -> bool:
    if key in _TEXT:
        return isinstance(value, str)
    if key in _FLAGS:
        return isinstance(value, bool)
    if key in _ANY:
        return True
    if key in _ARRAYS:
        return isinstance(value, list)
    if key in _NUMBERS:
        return _number(value)
    if key in _COUNTS:
        return _count(value)
    if key in _SCHEMA:
        return _valid(value, formats)
    if key in _SCHEMA_ARRAYS:
        return isinstance(value, list) and len(value) > 0 and all(_valid(v, formats) for v in value)
    if key in _SCHEMA_MAPS:
        return type(value) is dict and all(_valid(v, formats) for v in value.values())
    if key == "type":
        if isinstance(value, str):
            return value in SIMPLE_TYPES
        return _strings(value) and len(value) > 0 and all(v in SIMPLE_TYPES for v in value)
    if key == "required":
        return _strings(value)
    if key == "dependentRequired":
        return type(value) is dict and all(_strings(v) for v in value.values())
    if key == "multipleOf":
        return _number(value) and value > 0
    if key == "pattern":
        return isinstance(value, str) and formats(value, "regex")
    if key == "patternProperties":
        return type(value) is dict and all(formats(k, "regex") and _valid(v, formats) for k, v in value.items())
    if key in _REFERENCES:
        return isinstance(value, str) and formats(value, "uri-reference")
    if key == "$schema":  # stricter than the meta-schema needs: a string that is a URI
        return isinstance(value, str) and formats(value, "uri")
    if key == "$comment":
        return isinstance(value, str)
    return False
