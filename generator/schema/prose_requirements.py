"""Requirements stated only in prose: the optional properties a description says a call needs.

Schemas often leave a property optional and say in its description when it is needed: "Required
when resource='workspace'", "required for 'create' and 'update'", "Required if issue_key is not
given", "Required unless queries is provided"; or the tool's description says "either `query` or
`paper_id`". A call without them validates against the schema and still fails on the server.
:func:`stated_requirements` reads those sentences against the values a call already has and names
the properties to add. It only ever adds a property the schema declares, and the call is still
validated against the schema afterwards; a sentence it cannot tie to a property or a value
("required when the pod has several containers") is left alone.

The text is the server's: each description is cut to :data:`MAX_TEXT` characters and the patterns
have no nested repetition, so the cost is linear in that bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from generator.schema.prose_values import sentences

MAX_TEXT = 2_000
"""The characters of one description read: requirements are stated near the start, and it bounds the cost."""

_CLAUSE = re.compile(r"\brequired\s+(when|if|for|with|unless|except|only\s+(?:when|if|for))\b([^.;)\n]{0,160})", re.I)
"""'Required <condition>', up to the end of its sentence, clause or parenthesis."""
_CUT = re.compile(r"\b(?:ignored|optional|otherwise|defaults?)\b", re.I)
"""Where a condition's sentence goes on to say something else ("..., ignored if queryType is 'instant'")."""
_NEGATION = re.compile(r"\b(?:unless|except|not|no|without)\b|n't\b", re.I)
_EITHER = re.compile(
    r"\beither\s+(?:an?\s+|the\s+)?[`'\"]?([A-Za-z_][\w-]{0,63})[`'\"]?\s+(?:\w+\s+)?"
    r"or\s+(?:an?\s+|the\s+)?[`'\"]?([A-Za-z_][\w-]{0,63})"
)
"""'either `query` or `paper_id`', 'either a paper_id or a query' (a word may follow the first: 'query text')."""
_QUOTED = re.compile(r"[`'\"][\w-]+[`'\"]")
_EXCLUSIVE = re.compile(
    r"mutually exclusive|\bnot both\b|\bcannot be (?:used|combined|given|set) (?:together )?with\b|\bonly one of\b|"
    r"\bif both\b[^.]{0,80}\bignored\b",
    re.I,
)
"""A sentence that says two arguments are not sent together."""
_WORD = re.compile(r"[A-Za-z0-9_][\w-]*")
_ABOUT_THE_CALL = frozenset(
    ["is", "are", "using", "use", "uses", "with", "given", "provided", "specified", "set", "equals"]
)
"""Words that tie a condition naming a property to the call ("if sort_order is specified", "when using
issueId"), unlike one about the world ("when pod has multiple containers")."""


def stated_requirements(props: Mapping[str, Any], value: Mapping[str, object], prose: str = "") -> list[str]:
    """The properties of *props* missing from *value* that the descriptions require for it, in order.

    *prose* is the text about the object as a whole (the tool's description); the properties'
    own descriptions are read from *props*. Each property is decided against *value* as it grows,
    so of two that are each "required if the other is not given", only the first is added.
    """
    chosen = dict(value)
    added: list[str] = []
    exclusive = exclusive_pairs(props, prose)
    for name, schema in props.items():
        if name in chosen or not isinstance(schema, dict) or _excluded(name, chosen, exclusive):
            continue
        description = schema.get("description")
        if isinstance(description, str) and _required_by(description[:MAX_TEXT], name, props, chosen):
            chosen[name] = True
            added.append(name)
    for first, second in _EITHER.findall(prose[:MAX_TEXT]):
        if first in props and second in props and first not in chosen and second not in chosen:
            chosen[first] = True
            added.append(first)
    return added


def _excluded(name: str, chosen: Mapping[str, object], pairs: list[tuple[str, str]]) -> bool:
    """Is *name* one of a mutually exclusive pair whose other member the call already has?"""
    return any((a == name and b in chosen) or (b == name and a in chosen) for a, b in pairs)


def _required_by(description: str, own: str, props: Mapping[str, Any], chosen: Mapping[str, object]) -> bool:
    """Whether a 'required when...' sentence of *own*'s description holds for the *chosen* values."""
    for match in _CLAUSE.finditer(description):
        condition = _CUT.split(match.group(2), maxsplit=1)[0]
        connector = match.group(1).lower().removeprefix("only").strip()
        negative = connector in ("unless", "except") or bool(_NEGATION.search(condition))
        verdict = _holds(connector, condition, own, props, chosen, negative)
        if verdict is not None:
            return verdict
    return False


def _holds(
    connector: str, condition: str, own: str, props: Mapping[str, Any], chosen: Mapping[str, object], negative: bool
) -> bool | None:
    """Whether *condition* holds for *chosen* (None: it cannot be tied to a property or a value of the call).

    A property it names in words about the call ("is", "using", "=") counts as met when the call has
    it, unless the condition also names one of that property's choices (an enum or const) and the
    call's value is not that one. With no property named, a choice the call made (an enum value)
    named in the condition meets it, where the condition is one of choices ("for 'create' and
    'update'", "except create": after "for" or "except", or quoted). A negative condition
    ("unless", "is not given", "except") holds where the positive would not.
    """
    words = {w.lower() for w in _WORD.findall(condition)}
    named = [n for n in props if n != own and n.lower() in words]
    if named and not (words & _ABOUT_THE_CALL or "=" in condition):
        return None
    if named:
        met = any(_met(name, props[name], chosen, words) for name in named)
        return met != negative
    if connector not in ("for", "except") and not _QUOTED.search(condition):
        return None  # "when pod has multiple containers": about the world, even if "pod" is a choice
    picked = [v.lower() for n, v in chosen.items() if n in props and _choices(props[n]) and isinstance(v, str)]
    if any(p in words for p in picked):
        return not negative
    offered = any(str(c).lower() in words for n in chosen if n in props for c in _choices(props[n]))
    return negative if offered else None


def _met(name: str, schema: object, chosen: Mapping[str, object], words: set[str]) -> bool:
    """Whether the call meets a condition naming property *name* (see :func:`_holds`)."""
    if name not in chosen:
        return False
    named_choices = [c for c in _choices(schema) if str(c).lower() in words]
    return not named_choices or str(chosen[name]).lower() in {str(c).lower() for c in named_choices}


def _choices(schema: object) -> Iterable[object]:
    """The values a property offers as choices: its ``enum``, its ``const``, or true and false for a boolean."""
    if not isinstance(schema, dict):
        return ()
    if isinstance(schema.get("enum"), list):
        return [c for c in schema["enum"] if isinstance(c, str | bool)]
    if "const" in schema:
        return [schema["const"]]
    if schema.get("type") == "boolean":
        return [True, False]
    return ()


def exclusive_pairs(props: Mapping[str, Any], prose: str = "") -> list[tuple[str, str]]:
    """The pairs of properties a call must not send together, in the order of *props*: those a sentence of
    a property's description calls mutually exclusive with it ("Mutually exclusive with assignee_username",
    "Use this OR hostname, not both"), those a sentence of *prose* names together that way, and the two of
    "either `text` or `regex`" in *prose* (the tool's description), of which one is sent."""
    names = {n.lower(): n for n in props}
    order = {n: i for i, n in enumerate(props)}
    found: list[tuple[str, str]] = []

    def add(group: list[str]) -> None:
        ranked = sorted(dict.fromkeys(group), key=order.__getitem__)
        found.extend((a, b) for i, a in enumerate(ranked) for b in ranked[i + 1 :] if (a, b) not in found)

    texts = [(own, schema.get("description")) for own, schema in props.items() if isinstance(schema, dict)]
    for own, text in [*texts, ("", prose)]:
        for sentence in sentences(text):
            if _EXCLUSIVE.search(sentence):
                named = [names[w.lower()] for w in _WORD.findall(sentence) if w.lower() in names]
                add(([own] if own else []) + named)
    for first, second in _EITHER.findall(prose[:MAX_TEXT]):
        if first in props and second in props and first != second:
            add([first, second])
    return found
