"""Benchmark generator.schema.flatten.flatten and generator.schema.examples.example_for on large schemas.

Not a test: prints timings (flatten; example_for cold, i.e. including the meta-schema
check of the schema, and warm, with the compiled validator cached).  Run from the
repository root::

    python bench/bench_schema.py            # 20 repetitions of each
    python bench/bench_schema.py -n 5 --only flat
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.schema.examples import example_for
from generator.schema.flatten import flatten
from generator.schema.validation import clear_cache, validate

_LEAVES: list[dict[str, Any]] = [
    {"type": "string", "minLength": 1, "maxLength": 64},
    {"type": "integer", "minimum": 0, "maximum": 1000},
    {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.25},
    {"type": "boolean", "default": False},
    {"type": ["string", "null"], "format": "date-time"},
    {"type": "string", "enum": ["low", "medium", "high"]},
    {"type": "array", "items": {"type": "string", "format": "uuid"}, "uniqueItems": True, "maxItems": 5},
    {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
    {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]},
    {"type": "object", "additionalProperties": {"type": "integer"}},
]


def flat_object(count: int = 250) -> dict[str, Any]:
    """One object with ``count`` properties of assorted types; every third one required."""
    props = {f"field_{i:03d}": dict(_LEAVES[i % len(_LEAVES)], description=f"Field {i}") for i in range(count)}
    return {"type": "object", "properties": props, "required": [f"field_{i:03d}" for i in range(0, count, 3)]}


def nested(depth: int = 10, fan_out: int = 2) -> dict[str, Any]:
    """Objects nested ``depth`` levels deep, each with ``fan_out`` object children and one leaf."""

    def level(d: int) -> dict[str, Any]:
        props: dict[str, Any] = {"name": {"type": "string"}}
        if d < depth:
            props.update({f"child_{i}": level(d + 1) for i in range(fan_out)})
        return {"type": "object", "properties": props, "required": list(props)}

    return level(1)


def defs_heavy(count: int = 40) -> dict[str, Any]:
    """``count`` $defs that reference each other in rings (cycles), plus arrays and unions of them."""
    defs: dict[str, Any] = {}
    for i in range(count):
        nxt, skip = (i + 1) % count, (i + 7) % count
        defs[f"Node{i}"] = {
            "type": "object",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "next": {"anyOf": [{"$ref": f"#/$defs/Node{nxt}"}, {"type": "null"}]},
                "children": {"type": "array", "items": {"$ref": f"#/$defs/Node{skip}"}},
                "kind": {"oneOf": [{"$ref": f"#/$defs/Leaf{i % 5}"}, {"type": "string", "enum": ["x", "y"]}]},
            },
            "required": ["id", "kind"],
        }
    for i in range(5):
        defs[f"Leaf{i}"] = {"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]}
    return {
        "$defs": defs,
        "type": "object",
        "properties": {f"root_{i}": {"$ref": f"#/$defs/Node{i}"} for i in range(0, count, 4)},
    }


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "flat": flat_object,
    "nested": nested,
    "defs": defs_heavy,
}


def measure(func: Callable[[], Any], repeat: int, *, cold: bool = False) -> tuple[float, float, Any]:
    """(median ms, min ms, last result) over ``repeat`` runs; ``cold`` drops cached validators first."""
    times, result = [], None
    for _ in range(repeat):
        if cold:
            clear_cache()
        start = time.perf_counter()
        result = func()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--repeat", type=int, default=20, help="repetitions per measurement (default 20)")
    parser.add_argument("--only", choices=sorted(SCHEMAS), action="append", help="benchmark only these schemas")
    parser.add_argument("--depth", type=int, default=10, help="nesting depth of the 'nested' schema")
    parser.add_argument("--fan-out", type=int, default=2, help="object children per level of 'nested'")
    args = parser.parse_args(argv)
    repeat = max(1, args.repeat)
    builders: dict[str, Callable[[], dict[str, Any]]] = {
        **SCHEMAS,
        "nested": lambda: nested(args.depth, args.fan_out),
    }
    head = f"{'schema':<8} {'rows':>5} {'trunc':>5}"
    print(f"{head} {'flatten med/min ms':>19} {'example cold med/min':>21} {'example warm med/min':>21} ok")
    for name in args.only or list(SCHEMAS):
        schema = builders[name]()
        f_med, f_min, flat = measure(functools.partial(flatten, schema), repeat)
        c_med, c_min, _ = measure(functools.partial(example_for, schema), repeat, cold=True)
        w_med, w_min, example = measure(functools.partial(example_for, schema), repeat)
        if example.ok:
            assert validate(example.value, schema) == []
        print(
            f"{name:<8} {len(flat.rows):>5} {flat.truncated!s:>5} {f_med:>9.2f}/{f_min:<9.2f}"
            f" {c_med:>10.2f}/{c_min:<10.2f} {w_med:>10.2f}/{w_min:<10.2f} {example.ok}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
