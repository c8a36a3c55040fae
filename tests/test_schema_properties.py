"""Property tests: random (often nonsensical) schemas never break flatten/example_for/placeholder_for."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.schema.constraints import KINDS
from generator.schema.examples import example_for
from generator.schema.flatten import flatten
from generator.schema.placeholders import placeholder_for
from generator.schema.validation import validate

# Deterministic in CI: the same examples on every run, no example database.
settings.register_profile(
    "schema-properties",
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = settings.get_profile("schema-properties")

DEFS = ("A", "B", "C")
TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")
PATTERNS = ("^[a-z]+$", "^\\d{3}-\\d{4}$", "x", "^(a|bc)+$", "^$", "[A-Z]{2,3}")
FORMATS = ("uuid", "date-time", "date", "email", "uri", "ipv4", "hostname", "duration", "unknown-format")
DIALECTS = (
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-04/schema#",
    "https://example.com/custom",
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.floats(-1e6, 1e6, allow_nan=False, width=32)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=4,
)
small = st.integers(0, 6)
number = st.integers(-5, 20) | st.sampled_from([0.5, 2.5, -1.5, 1e300])

constraints = st.fixed_dictionaries(
    {},
    optional={
        "minLength": small,
        "maxLength": small,
        "pattern": st.sampled_from(PATTERNS),
        "format": st.sampled_from(FORMATS),
        "minimum": number,
        "maximum": number,
        "exclusiveMinimum": number,
        "exclusiveMaximum": number,
        "multipleOf": st.sampled_from([1, 2, 3, 0.5, 0.1]),
        "minItems": small,
        "maxItems": small,
        "uniqueItems": st.booleans(),
        "minProperties": small,
        "maxProperties": small,
        "nullable": st.booleans(),
        "description": st.text(max_size=10),
        "default": json_values,
        "examples": st.lists(json_values, max_size=2),
        "deprecated": st.booleans(),
    },
)


@st.composite
def leaf(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.booleans())
    if kind == 1:
        return {
            "$ref": draw(st.sampled_from([f"#/$defs/{d}" for d in DEFS] + ["#", "#/$defs/Missing", "https://x.test/s"]))
        }
    if kind == 2:
        return {"const": draw(json_values)}
    if kind == 3:
        return {"enum": draw(st.lists(json_values, max_size=4))}
    schema: dict[str, Any] = dict(draw(constraints))
    types = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True))
    schema["type"] = types[0] if len(types) == 1 else types
    return schema


def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["a", "b", "query", "limit", "id", "x.y", ""])
    obj = st.builds(
        lambda props, req, extra: {"type": "object", "properties": props, "required": req, **extra},
        st.dictionaries(names, children, max_size=4),
        st.lists(names, max_size=3, unique=True),
        st.fixed_dictionaries(
            {},
            optional={
                "additionalProperties": children,
                "patternProperties": st.dictionaries(st.sampled_from(["^x-", "[0-9]"]), children, max_size=2),
                "dependentRequired": st.dictionaries(names, st.lists(names, max_size=2), max_size=2),
                "minProperties": small,
            },
        ),
    )
    arr = st.builds(
        lambda items, extra: {"type": "array", **items, **extra},
        st.one_of(
            st.builds(lambda c: {"items": c}, children),
            st.builds(
                lambda p, c: {"prefixItems": p, "items": c}, st.lists(children, min_size=1, max_size=3), children
            ),
            st.builds(lambda p: {"prefixItems": p, "items": False}, st.lists(children, min_size=1, max_size=2)),
            st.builds(lambda p: {"items": p}, st.lists(children, max_size=2)),  # draft-07 tuples
        ),
        st.fixed_dictionaries(
            {}, optional={"minItems": small, "maxItems": small, "uniqueItems": st.booleans(), "contains": children}
        ),
    )
    combinator = st.builds(
        lambda key, branches: {key: branches},
        st.sampled_from(["anyOf", "oneOf", "allOf"]),
        st.lists(children, min_size=1, max_size=3),
    )
    both = st.builds(
        lambda a, b, base: {**base, "anyOf": a, "oneOf": b},
        st.lists(children, min_size=1, max_size=2),
        st.lists(children, min_size=1, max_size=2),
        constraints,
    )
    negation = st.builds(lambda c, base: {**base, "not": c}, children, constraints)
    conditional = st.builds(
        lambda i, t, e: {"type": "object", "if": i, "then": t, "else": e}, children, children, children
    )
    with_ref = st.builds(lambda d, c: {"$ref": f"#/$defs/{d}", **c}, st.sampled_from(DEFS), constraints)
    return obj | arr | combinator | both | negation | conditional | with_ref


schema_strategy = st.recursive(leaf(), extend, max_leaves=8)


@st.composite
def documents(draw: st.DrawFn) -> Any:
    root = draw(schema_strategy)
    if not isinstance(root, dict) or draw(st.booleans()):
        return root
    root = dict(root)
    root["$defs"] = {name: draw(schema_strategy) for name in DEFS}
    if draw(st.integers(0, 3)) == 0:
        root["$schema"] = draw(st.sampled_from(DIALECTS))
    return root


@PROFILE
@given(documents())
def test_flatten_never_raises_and_is_deterministic(schema: Any) -> None:
    before = copy.deepcopy(schema)
    first = flatten(schema)
    assert schema == before  # the input is never modified
    assert first == flatten(copy.deepcopy(schema))
    assert not any("internal error" in w for w in first.warnings)
    for row in first.rows:
        assert all(c.kind in KINDS for c in row.constraints)
        assert len(set(row.types)) == len(row.types)
        assert "null" not in row.types[:-1]
        assert row.type_label


@PROFILE
@given(documents())
def test_example_for_never_lies(schema: Any) -> None:
    result = example_for(schema)
    if result.ok:
        assert validate(result.value, schema) == [], result.value
    else:
        assert result.value is None and result.reason
    assert result == example_for(copy.deepcopy(schema))


@PROFILE
@given(documents())
def test_placeholder_for_never_raises(schema: Any) -> None:
    placeholder_for(schema)


@PROFILE
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=4),
        lambda c: (
            st.lists(c, max_size=3)
            | st.dictionaries(st.sampled_from(["type", "properties", "items", "$ref", "anyOf", "x"]), c, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_arbitrary_json_is_survived(value: Any) -> None:
    flatten(value)
    placeholder_for(value)
    result = example_for(value)
    if result.ok:
        assert validate(result.value, value) == []
