"""The example auditor: questionable example values over the whole corpus, by explicit rules.

It builds the documentation model of every server in tests/corpus/ the way a build does
(:func:`generator.model.site.build_model` over a snapshot of the server's tools, prompts and
resource templates) and reads the values the pages show: each tool's example call, each prompt's
example arguments, each resource template's filled variables. Every string it meets is judged
against the text the server wrote next to it, by the rules of :data:`RULES`, in that order; a value
gets at most one finding, under the first rule it breaks.

The rules read the server's text on their own (small regular expressions of their own here), not
through the generator's readers, so a generator that misreads a description is caught rather than
agreed with. Deterministic: the corpus is read in file order and the model is deterministic.

``python -m tests.example_audit`` prints the count per rule and every finding.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.config.portal import PortalConfig
from generator.model.site import SiteModel, build_model
from generator.schema.validation import validate
from generator.snapshot.snapshot import new_snapshot

CORPUS = Path(__file__).resolve().parent / "corpus"

RULES: dict[str, str] = {
    "rejected": "a value the description names as rejected, forbidden or not allowed",
    "exclusive": "both of two arguments the descriptions call mutually exclusive (or 'not both')",
    "number": "a template variable or prompt argument named or described as a number (count, limit, page, "
    "size, replicas, an IID, an integer schema) filled with something that is not a number",
    "path": "a directory given a file's path, or a file path whose extension is not the one the description names",
    "person": "a person's name ('Alex Example') in a field that names no person",
    "ignored": "a value other than the one the description gives after 'Example:', 'e.g.', 'for example' or "
    "'such as' (when that value fits the schema and the schema offers none of its own)",
    "placeholder": "a placeholder word: 'example', 'string', 'value', 'foo', 'test'... always; 'abc123' where the "
    "name or description says what the id looks like (a number, a slug, a key, a path, a SHA, an ARN...)",
}
"""Each rule's name and what it flags, in the order a value is judged."""

_TEXT = 2_000  # characters of one description read, as the generator bounds its own reading
_PLACEHOLDERS = frozenset(
    ["example", "string", "text", "value", "foo", "bar", "baz", "test", "sample", "placeholder", "xxx", "todo",
     "lorem ipsum", "my-value", "some value", "my-item"]
)  # fmt: skip
_PERSON_VALUES = frozenset(["Alex Example", "Jane Doe", "John Doe"])
_PERSON_WORDS = re.compile(
    r"\b(?:author|assignee|user|users|username|person|people|owner|reviewer|member|contact|customer|sender|"
    r"recipient|first|last|full|display|given|family|human|employee|attendee|speaker|signer|creator)\b",
    re.I,
)
_REJECTING = re.compile(
    r"\b(?:rejected|forbidden|not allowed|disallowed|not permitted|refused|must not be|may not be|blocked)\b", re.I
)
_NEGATIVE = re.compile(r"\b(?:do not|don't|never|avoid)\b", re.I)
_QUOTED = re.compile(
    r"\"([^\"\n]{1,160}(?:\n[^\"\n]{1,80})?)\"|'([^'\n]{1,160}(?:\n[^'\n]{1,80})?)'|`([^`\n]{1,160}(?:\n[^`\n]{1,80})?)`"
)
_EXCLUSIVE = re.compile(
    r"mutually exclusive|\bnot both\b|cannot be (?:used|combined) (?:together )?with|\bif both\b[^.]{0,80}\bignored\b",
    re.I,
)
_GIVEN_MARK = re.compile(r"\b(?:examples?(?: of [\w ]{1,20})?\s*:|e\.g\.|for example\b|for instance\b|such as\b)", re.I)
_BARE = re.compile(r"\s*[:,]?\s*(?:[-*]\s+)?([A-Za-z0-9_./@~#+][^\s,;()\[\]]{0,79})")
_NUMBER_NAME = re.compile(
    r"(?:^|_)(?:count|limit|page|size|per_page|page_size|offset|number|num|n|max|min|replicas|iid|port|"
    r"timeout|days|hours|minutes|seconds|depth|top_k|k|threshold)(?:$|_)"
)
_NUMERIC = re.compile(r"-?\d+(?:\.\d+)?")
_INTEGER_SCHEMA = re.compile(r"\{\s*\"type\"\s*:\s*\"(?:integer|number)\"\s*\}")
_DIRECTORY_NAME = re.compile(r"(?:dir|directory|folder)$")
_EXTENSION = re.compile(r"\.([a-z0-9]{1,5})$", re.I)
_NAMED_EXTENSION = re.compile(
    r"(?<![\w/])\.(xlsx|xls|csv|json|ya?ml|md|txt|pdf|docx?|pptx|png|jpe?g|py|js|ts|html|xml|zip|parquet|ipynb|"
    r"sql|log|toml|tf)\b",
    re.I,
)
_ID_KINDS = re.compile(
    r"\b(?:numeric|number|integer|iid|slug|sha|hash|uuid|guid|arn|url|path|key|email|e\.g\.|example|format)\b"
    r"|\bid\s*\(integer\)",
    re.I,
)


@dataclass(frozen=True)
class Finding:
    """One questionable value: where it is, what it is, and the rule it breaks."""

    source: str
    item: str
    argument: str
    value: str
    rule: str

    def __str__(self) -> str:
        return f"{self.rule:<11} {self.source}: {self.item} {self.argument} = {self.value!r}"


@dataclass(frozen=True)
class Leaf:
    """A string of an example with the name and description it stands under (array items: the array's)."""

    path: str
    name: str
    value: str
    description: str
    schema: Any


def _sentences(text: str) -> list[str]:
    """*text* cut into sentences (at '. ', newlines and semicolons), bounded."""
    return [s for s in re.split(r"(?<=[.;!?])(?<!e\.g\.)(?<!i\.e\.)\s+|\n", text[:_TEXT]) if s.strip()]


def _quoted(text: str) -> list[str]:
    values = (" ".join(next(g for g in m.groups() if g is not None).split()) for m in _QUOTED.finditer(text))
    return [v for v in values if any(c.isalnum() for c in v)]


def rejected_values(description: str) -> set[str]:
    """The quoted values of the sentences that say something is rejected, forbidden or not allowed."""
    return {q for s in _sentences(description) if _REJECTING.search(s) for q in _quoted(s)}


def given_values(description: str) -> list[str]:
    """The values a description gives after 'Example:', 'Examples of X:', 'e.g.', 'for example', 'such as':
    the quoted ones up to the end of that sentence (which may go on over a line break), else the bare word
    that follows; none from a sentence that rejects or forbids ("(e.g. "/etc") are rejected", "do not
    include ... such as API keys")."""
    text = description[:_TEXT]
    found: list[str] = []
    for mark in _GIVEN_MARK.finditer(text):
        before = re.split(r"[.;!?]\s|\n\s*\n", text[max(0, mark.start() - 200) : mark.start()])[-1]
        tail = re.split(r"(?<!e\.g)(?<!i\.e)\.\s|\n\s*\n", text[mark.end() : mark.end() + 160])[0]
        if _REJECTING.search(before + tail) or _NEGATIVE.search(before):
            continue
        quoted = _quoted(tail)
        braced = re.match(r"\s*(\{[^{}]{1,120}\})", tail)
        if braced:
            found.append(braced.group(1))
        elif quoted:
            found += quoted
        elif (bare := _BARE.match(tail)) is not None:
            found.append(bare.group(1).rstrip(".:"))
    return found


def _resolve(schema: Any, root: Any) -> Any:
    """A local ``$ref`` followed (a few steps), else the schema itself."""
    for _ in range(8):
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#"):
            return schema
        node = root
        for part in ref[1:].split("/")[1:]:
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        schema = node
    return schema


def _property(schema: Any, name: str, root: Any) -> Any:
    """The subschema of property *name* in *schema*, looking through allOf/anyOf/oneOf branches."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties")
    if isinstance(props, dict) and name in props:
        return _resolve(props[name], root)
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []) if isinstance(schema.get(key), list) else []:
            found = _property(branch, name, root)
            if found is not None:
                return found
    return None


def _items(schema: Any, root: Any) -> Any:
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return None
    if "items" in schema:
        return _resolve(schema["items"], root)
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, []) if isinstance(schema.get(key), list) else []:
            found = _items(branch, root)
            if found is not None:
                return found
    return None


def _description(schema: Any) -> str:
    text = schema.get("description") if isinstance(schema, dict) else None
    return text[:_TEXT] if isinstance(text, str) else ""


def leaves(value: Any, schema: Any, root: Any, path: str = "", name: str = "", description: str = "") -> Iterator[Leaf]:
    """Every string in *value*, with the property name and description it stands under (bounded depth)."""
    if path.count(".") + path.count("[") > 8:
        return
    if isinstance(value, str):
        yield Leaf(path, name, value, description, schema)
    elif isinstance(value, dict):
        for key, item in value.items():
            sub = _property(schema, key, root)
            yield from leaves(item, sub, root, f"{path}.{key}" if path else key, key, _description(sub))
    elif isinstance(value, list):
        sub = _items(schema, root)
        for i, item in enumerate(value[:16]):
            yield from leaves(item, sub, root, f"{path}[{i}]", name, _description(sub) or description)


def _offers_own(schema: Any) -> bool:
    """Does the schema give values of its own (enum, const, examples, default, pattern, format)?"""
    return isinstance(schema, dict) and bool(
        {"enum", "const", "examples", "example", "default", "pattern", "format"} & schema.keys()
    )


def _is_person(name: str, description: str) -> bool:
    words = re.sub(r"(?<=[a-z])(?=[A-Z])|_|-", " ", name)
    return bool(_PERSON_WORDS.search(words) or _PERSON_WORDS.search(description[:300]))


def judge(leaf: Leaf, *, template: bool = False) -> str | None:
    """The first rule of :data:`RULES` that *leaf* breaks (``exclusive`` is judged per call), or None.
    *template*: the value fills a URI template variable or a prompt argument (always strings)."""
    value, text = leaf.value, leaf.description
    if value in rejected_values(text) or any(value.startswith(r.rstrip("/") + "/") for r in rejected_values(text)):
        return "rejected"
    key = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", leaf.name).lower()
    if template and (_NUMBER_NAME.search(key) or _INTEGER_SCHEMA.search(text)) and not _NUMERIC.fullmatch(value):
        return "number"
    if rule := _path_rule(key, value, text):
        return rule
    if value in _PERSON_VALUES and not _is_person(leaf.name, text):
        return "person"
    given = given_values(text)
    if given and value not in given and not _offers_own(leaf.schema) and _fits_any(given, leaf.schema):
        return "ignored"
    bare = re.sub(r" \d+$", "", value)
    if _offers_own(leaf.schema):
        return None  # the schema's own value (an enum, a const, a default): the server's word
    if bare.lower() in _PLACEHOLDERS:
        return "placeholder"
    if bare == "abc123" and (_ID_KINDS.search(text) or re.search(r"(?:^|_)(?:iid|slug|sha|key|arn|uuid)$", key)):
        return "placeholder"
    return None


def _path_rule(key: str, value: str, text: str) -> str | None:
    extension = _EXTENSION.search(value)
    directory = _DIRECTORY_NAME.search(key) or re.match(r"(?:the\s+)?(?:\w+\s+)?(?:directory|folder)\b", text, re.I)
    if directory and extension and "file" not in key:
        return "path"
    is_file = key.endswith(("path", "file", "filename")) or re.search(r"\b(?:file|path)\b", text[:200], re.I)
    named = {m.group(1).lower() for m in _NAMED_EXTENSION.finditer(text)}
    if is_file and extension and named and extension.group(1).lower() not in named:
        return "path"
    return None


def _fits_any(given: list[str], schema: Any) -> bool:
    if not isinstance(schema, dict) or schema.get("type") not in ("string", None):
        return False
    return any(not validate(g, schema) for g in given[:8])


def exclusive_pairs(props: Mapping[str, Any], prose: str = "") -> list[tuple[str, str]]:
    """Pairs of properties that a property's description (or the tool's) calls mutually exclusive."""
    pairs: list[tuple[str, str]] = []
    names = [n for n in props if isinstance(n, str)]
    texts = [(n, _description(s)) for n, s in props.items()] + [("", prose[:_TEXT])]
    for own, text in texts:
        for sentence in _sentences(text):
            if not _EXCLUSIVE.search(sentence):
                continue
            words = set(re.findall(r"[A-Za-z_][\w]*", sentence))
            named = [n for n in names if n in words and n != own]
            group = ([own] if own else []) + named
            pairs += [(a, b) for i, a in enumerate(group) for b in group[i + 1 :] if (b, a) not in pairs]
    return list(dict.fromkeys(pairs))


def _snapshot_of(path: Path) -> Any:
    data = json.loads(path.read_text(encoding="utf-8"))
    return new_snapshot(
        protocol_version="2025-11-25",
        server={"name": path.stem, "version": "1.0.0", "capabilities": {"tools": {}}},
        tools=tuple(data["tools"]),
        capability_version="1.0.0",
        transport="stdio",
        endpoint=f"npx {path.stem}",
        prompts=tuple(data.get("prompts", ())),
        resources=tuple(data.get("resources", ())),
        resource_templates=tuple(data.get("resourceTemplates", ())),
    )


def model_of(path: Path) -> SiteModel:
    """The documentation model a build makes of one corpus file."""
    return build_model(_snapshot_of(path), PortalConfig())


def audit_model(source: str, model: SiteModel) -> list[Finding]:
    """The findings in one server's model: its tools' calls, prompts' arguments and templates' variables."""
    found: list[Finding] = []
    for tool in model.tools:
        example = tool.example_args
        if not example.ok or not isinstance(example.value, dict):
            continue
        schema = tool.input_schema
        for leaf in leaves(example.value, schema, schema):
            if rule := judge(leaf):
                found.append(Finding(source, tool.name, leaf.path, leaf.value, rule))
        props = schema.get("properties") if isinstance(schema, dict) else None
        for a, b in exclusive_pairs(props if isinstance(props, dict) else {}, tool.full_description):
            if a in example.value and b in example.value:
                found.append(Finding(source, tool.name, f"{a} + {b}", "both sent", "exclusive"))
    for prompt in model.prompts:
        described = {a.name: a.description or "" for a in prompt.arguments}
        for name, value in (prompt.example_arguments or {}).items():
            leaf = Leaf(name, name, str(value), described.get(name, ""), {"type": "string"})
            if rule := judge(leaf, template=True):
                found.append(Finding(source, f"prompt {prompt.name}", name, str(value), rule))
    for resource in model.resource_templates:
        for name, value in (resource.example_variables or {}).items():
            leaf = Leaf(name, name, value, "", {"type": "string"})
            if rule := judge(leaf, template=True):
                found.append(Finding(source, f"template {resource.uri}", name, value, rule))
    return found


def audit_corpus(corpus: Path = CORPUS) -> tuple[int, list[Finding]]:
    """(the number of tool pages, every finding) over every server of *corpus*."""
    pages, found = 0, []
    for path in sorted(corpus.glob("*.json")):
        model = model_of(path)
        pages += len(model.tools)
        found += audit_model(path.stem, model)
    return pages, found


def report(pages: int, found: list[Finding]) -> str:
    """The counts per rule, the budget, and every finding, one a line."""
    counts = Counter(f.rule for f in found)
    lines = [f"{pages} tool pages; {len(found)} questionable values (budget {pages // 50})"]
    lines += [f"  {rule:<11} {counts.get(rule, 0):>4}  {meaning}" for rule, meaning in RULES.items()]
    lines += [str(f) for f in found]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(*audit_corpus()))
    sys.exit(0)
