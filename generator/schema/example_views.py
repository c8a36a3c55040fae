"""How the example generator sees a schema: ``$ref`` followed, ``allOf`` merged, recursion bounded.

:mod:`generator.schema.examples` builds example instances; these views are only hints for
which candidates to try (every candidate is validated against the real schema), so they may
merge loosely.  :class:`Ctx` is where the generator stands: the property name (for hints),
the depth, the ``$ref`` targets being expanded, and whether to keep the value minimal.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from generator.schema.constraints import ANNOTATIONS, merge_schemas, own_types
from generator.schema.refs import LEGACY_DIALECTS, LocalRefs, detect_dialect, ref_keyword

MAX_DEPTH = 16  # nesting of generated values


@dataclass(frozen=True)
class Ctx:
    """Where a value is being generated: name and depth, ``$ref`` stack, salt, minimal or not."""

    name: str | None = None
    depth: int = 0
    stack: tuple[int, ...] = ()  # ids of $ref targets being expanded
    salt: int = 0  # asks for a different value (unique items, second tries)
    minimal: bool = False  # inside recursion: smallest instance (required only, fewest items)
    said: str | None = None  # the description of the array whose item this is (items rarely have their own)
    owner: str | None = None  # what the value belongs to: the enclosing property's name, or the tool's

    def child(self, name: str | None, salt: int = 0, said: str | None = None) -> Ctx:
        """The context one level down, for ``name``, with its own salt (and its array's description); its
        owner is this level's name when that says something, else this level's owner."""
        owner = self.name if self.name and self.name.lower() not in _WRAPPERS else self.owner
        return replace(self, name=name, depth=self.depth + 1, salt=salt, said=said, owner=owner)


_WRAPPERS = frozenset(["data", "params", "request", "body", "input", "payload", "args", "arguments", "options"])
"""Property names that wrap a call's arguments and say nothing of what they are about."""

FAIL = object()
"""What the solver returns when no candidate validates (``None`` is a valid instance)."""


class SchemaViews:
    """The root schema's dialect and local ``$ref`` targets, and the views built on them."""

    def __init__(self, root: object) -> None:
        self.root = root
        self.dialect, _ = detect_dialect(root)
        self.refs = LocalRefs(root, self.dialect)

    # ---- schema views (generation hints only: every result is validated against the real schema)

    def types_of(self, node: object) -> tuple[str, ...]:
        """The types ``node`` declares, seen through ``$ref`` and ``allOf``."""
        view, _ = self.expand(node, Ctx())
        return own_types(view) if isinstance(view, dict) else ()

    def merge(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        """Two schemas as one (a loose union of keywords when they cannot be merged exactly)."""
        return merge_schemas(a, b, self.types_of) or {**a, **b}

    def expand(self, node: object, ctx: Ctx) -> tuple[dict[str, Any] | bool | None, Ctx]:
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
        if isinstance(branches, list) and ctx.depth <= MAX_DEPTH:
            merged = {k: v for k, v in node.items() if k != "allOf"}
            for branch in branches[:16]:
                sub, ctx = self.expand(branch, replace(ctx, depth=ctx.depth + 1))
                if sub is None or sub is False:
                    return None, ctx
                if isinstance(sub, dict):
                    merged = self.merge(merged, sub)
            node = merged
        return node, replace(ctx, depth=depth)

    def recurses(self, node: object, ctx: Ctx, level: int = 0) -> bool:
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
