"""``--prove``: each page's example sent to the server, and what it answered recorded in the snapshot.

The wiring of four stages, in order:

1. the model (:func:`generator.model.site.build_model`) says what each page's example is, and the
   next candidates (:meth:`ToolDoc.example_candidates`, from :func:`generator.schema.examples.examples_for`);
2. :mod:`generator.connect.proving` sends them, one session per endpoint, the next candidate only
   when the server refused the one before;
3. :func:`generator.schema.validation.validate` judges each accepted ``structuredContent`` against
   the tool's output schema;
4. the snapshot records it all under ``proofs`` (:mod:`generator.snapshot.proofs`), redacted of every
   secret the session sent, with no clock time anywhere.

What is called: each tool that declares ``readOnlyHint: true``, each tool named in ``prove_tools``
(never one that declares ``destructiveHint: true``: naming one is a usage error), ``prompts/get``
of each prompt, ``resources/read`` of each resource and of each template filled with its example
values. Each is sent on the endpoint whose listing its page documents. Plus one probe per endpoint:
a read-only tool called with an argument that breaks its schema, to see how the server refuses.

``check --prove`` (:func:`reprove`) sends every accepted request again and reports the ones the
server no longer accepts, or whose answer changed shape (:mod:`generator.compare.answers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from generator.compare.answers import shape_changes
from generator.config.portal import PortalConfig, ServerSpec
from generator.connect.proving import Answer, Ask, EndpointAnswers, prove_all, refused
from generator.connect.secrets import Redactor
from generator.errors import UsageError
from generator.jsonutil import clip
from generator.model.product import Doc, EndpointDoc, ItemDoc
from generator.model.proofs import Attempt
from generator.model.site import SiteModel, build_model
from generator.model.tool import ToolDoc
from generator.schema.validation import validate
from generator.snapshot.jsonread import load_json_plain
from generator.snapshot.jsontext import compact
from generator.snapshot.proofs import RECORDED_ANSWER_BYTES
from generator.snapshot.shape import plain_problem
from generator.snapshot.snapshot import Snapshot, frozen
from generator.text import one_line

CANDIDATES = 5
"""Requests tried per item at most: the page's own example and four more."""

ANSWER_DEPTH = 7
"""How deep an answer sits in a snapshot file (``proofs.tools.NAME.attempts[i].answer.result``)."""

_WRONG: dict[str, Any] = {"string": 12345, "integer": "12345", "number": "12345", "boolean": "yes"}
_WRONG |= {"array": "not an array", "object": "not an object", "null": "not null"}
"""A value of another type for each JSON type: what the probe sends to break a schema rule."""

BOOKKEEPING = frozenset({"_meta", "resultType", "ttlMs", "cacheScope"})
"""Keys of a result that are the protocol's bookkeeping (the 2026-era ``serverInfo`` stamp, cache hints),
not the answer: a proof leaves them out."""

_NOUNS = {"tools": "tool", "prompts": "prompt", "resources": "resource", "resource_templates": "resource template"}
_METHODS = {"tools": "tools/call", "prompts": "prompts/get", "resources": "resources/read"}
_METHODS["resource_templates"] = "resources/read"


def declares(tool: ToolDoc, hint: str) -> bool:
    """Whether *tool* declares *hint* true itself (not the specification's default)."""
    return tool.annotations.get(hint) is True


def provable(tool: ToolDoc, named: Sequence[str]) -> bool:
    """Whether ``--prove`` calls *tool*: declared read-only, or named, and never declared destructive."""
    if declares(tool, "destructiveHint"):
        return False
    return declares(tool, "readOnlyHint") or tool.name in named


def check_named(site: SiteModel, named: Sequence[str]) -> list[str]:
    """Refuse (a :class:`UsageError`) a ``prove_tools`` entry that names a tool declared destructive; the
    warnings for names the server does not list."""
    destructive = [n for n in named if (t := site.tool_named(n)) is not None and declares(t, "destructiveHint")]
    if destructive:
        raise UsageError(
            f"--prove-tools (prove_tools in portal.yaml) names {', '.join(map(one_line, destructive))}, which the "
            f"server declares destructive (destructiveHint: true). mcp-portal never calls such a tool, even when "
            f"asked: remove it from --prove-tools, and keep its page's example unproven."
        )
    unknown = [n for n in named if site.tool_named(n) is None]
    return (
        [f"prove_tools names tools the server does not list: {', '.join(map(one_line, unknown[:5]))}"]
        if unknown
        else []
    )


def prove(snapshot: Snapshot, config: PortalConfig, specs: Sequence[ServerSpec], warnings: list[str]) -> Snapshot:
    """*snapshot* with ``proofs``: every example the rules allow sent to its endpoint in *specs*, and the
    answers. What a server does never raises: an endpoint that cannot be reached or a refused example
    is recorded, and the model warns of it (``--strict`` turns that into a failure). *warnings* gets
    the warnings about ``prove_tools``."""
    site = build_model(snapshot, config)
    warnings += check_named(site, config.prove_tools)
    by_name = {spec.name: spec for spec in specs}
    work = [(by_name[name], asks, probe) for name, (asks, probe) in _plan(site, config).items() if name in by_name]
    answered = prove_all(work, config.limits)
    proofs = _record(site, answered)
    return frozen(replace(snapshot, proofs=proofs))


def _home(doc: Doc) -> EndpointDoc | None:
    """The endpoint whose listing *doc*'s page documents: its example is sent there."""
    if isinstance(doc, ToolDoc):
        return doc.main_endpoint
    assert isinstance(doc, ItemDoc)
    differs = {id(endpoint) for endpoint, _ in doc.variants}
    return next((e for e in doc.endpoints if id(e) not in differs), None)


def _asks(site: SiteModel, config: PortalConfig) -> list[tuple[EndpointDoc, Ask]]:
    """Every example to send, with the endpoint it goes to: the pages' own first, then the next candidates."""
    found: list[tuple[Doc, Ask]] = []
    for tool in site.tools:
        if provable(tool, config.prove_tools) and tool.task_support != "required":
            calls = tuple({"name": tool.name, "arguments": args} for args in tool.example_candidates(CANDIDATES))
            found.append((tool, Ask("tools", tool.name, "tools/call", calls)))
    for prompt in site.prompts:
        gets = tuple(
            {"name": prompt.name, **({"arguments": a} if a else {})} for a in prompt.example_candidates(CANDIDATES)
        )
        found.append((prompt, Ask("prompts", prompt.name, "prompts/get", gets)))
    for section in ("resources", "resource_templates"):
        for resource in getattr(site, section):
            reads = tuple({"uri": uri} for uri in resource.candidate_uris(CANDIDATES))
            found.append((resource, Ask(section, resource.uri, "resources/read", reads)))
    return [(home, ask) for doc, ask in found if ask.requests and (home := _home(doc)) is not None]


def _plan(site: SiteModel, config: PortalConfig) -> dict[str, tuple[list[Ask], list[dict[str, Any]]]]:
    """Endpoint name -> the asks it gets and its probes (read-only tools' calls with a broken argument,
    of which the first whose tool works is sent)."""
    plan: dict[str, tuple[list[Ask], list[dict[str, Any]]]] = {}
    for home, ask in _asks(site, config):
        plan.setdefault(home.name, ([], []))[0].append(ask)
    for tool in site.tools:
        at = _home(tool)
        if at is not None and at.name in plan and (probe := _probe(tool)) is not None:
            plan[at.name][1].append(probe)
    return plan


def _probe(tool: ToolDoc) -> dict[str, Any] | None:
    """A value that breaks *tool*'s input schema by the type of one top-level parameter, as
    :func:`generator.connect.proving.prove_all` takes a probe; None when *tool* is not declared read-only,
    has no such parameter, or no example to start from."""
    if not declares(tool, "readOnlyHint") or declares(tool, "destructiveHint") or not tool.example_args.ok:
        return None
    arguments = tool.example_args.value
    if not isinstance(arguments, dict):
        return None
    for row in tool.params.rows:
        kind = next((t for t in row.types if t != "null"), "") if row.depth == 0 and not row.variant else ""
        if kind in _WRONG and validate({**arguments, row.path: _WRONG[kind]}, tool.input_schema):
            return {"name": tool.name, "argument": row.path, "value": _WRONG[kind]}
    return None


def _record(site: SiteModel, answered: list[EndpointAnswers]) -> dict[str, Any]:
    """The snapshot's ``proofs`` from what each endpoint answered (what went wrong is in them: the model
    warns of it, :func:`generator.model.proofs.proof_warnings`)."""
    proofs: dict[str, Any] = {"endpoints": {}}
    for found in answered:
        name = found.spec.name
        endpoint: dict[str, Any] = {"protocol_version": found.protocol_version, "server": found.server}
        if found.probe is not None:
            request, answer = found.probe
            form = _form(answer)
            endpoint["probe"] = {"tool": request["name"], "request": _kept(request, found.redactor),
                                 "answer": _kept(_answer(answer), found.redactor), "form": form}  # fmt: skip
        if found.problem is not None:
            endpoint["problem"] = found.problem
        proofs["endpoints"][name] = endpoint
        for item in found.answered:
            entry = _entry(site, item.ask, item.attempts, found.redactor)
            entry["endpoint"] = name
            proofs.setdefault(item.ask.section, {})[item.ask.key] = entry
    return proofs


def _entry(
    site: SiteModel, ask: Ask, attempts: list[tuple[dict[str, Any], Answer]], redactor: Redactor
) -> dict[str, Any]:
    """One item's proof: its attempts as recorded, whether the last was accepted, the output verdict."""
    last = attempts[-1][1]
    accepted = "unanswered" not in last and not refused(last)
    entry: dict[str, Any] = {
        "attempts": [{"request": _kept(r, redactor), "answer": _kept(_answer(a), redactor)} for r, a in attempts],
        "accepted": accepted,
    }
    tool = site.tool_named(ask.key) if ask.section == "tools" else None
    if tool is not None and accepted:
        entry.update(_verdict(tool, last.get("result", {})))
    return entry


def _verdict(tool: ToolDoc, result: dict[str, Any]) -> dict[str, Any]:
    """The accepted result against the tool's output schema: ``valid``, ``invalid`` (with the first
    problem) or ``none`` (no output schema)."""
    if tool.output_schema is None:
        return {"output": "none"}
    if "structuredContent" not in result:
        return {"output": "invalid", "output_problem": "the result has no structuredContent"}
    problems = validate(result["structuredContent"], tool.output_schema)
    return {"output": "invalid", "output_problem": problems[0]} if problems else {"output": "valid"}


def _answer(answer: Answer) -> Answer:
    """*answer* without the result's :data:`BOOKKEEPING` keys."""
    result = answer.get("result")
    if not isinstance(result, dict):
        return answer
    return {"result": {key: value for key, value in result.items() if key not in BOOKKEEPING}}


def _kept(value: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """*value* (a request or an answer) as a proof records it: redacted of the session's secrets, and
    replaced by its size when it is larger than :data:`RECORDED_ANSWER_BYTES` or by why when a snapshot
    cannot hold it (a number too long to show, a nesting too deep)."""
    masked = redactor.redact_json(value)
    assert isinstance(masked, dict)
    text = compact(masked)
    size = len(text.encode("utf-8"))
    if size > RECORDED_ANSWER_BYTES:
        return {"too_large": size}
    reread, _ = load_json_plain(text)
    problem = plain_problem(reread, ANSWER_DEPTH)
    if problem is not None:
        return {"unanswered": f"the answer cannot be recorded: {problem}"}
    return masked


def _form(answer: Answer) -> str:
    """How the server answered the probe (:data:`generator.snapshot.proofs.FORMS`)."""
    if "unanswered" in answer:
        return "unanswered"
    if "error" in answer:
        code = answer["error"].get("code")
        return str(code) if code in (-32602, -32603) else "other"
    return "isError" if refused(answer) else "accepted"


# --- check --prove ---------------------------------------------------------------------------------


def reprove(snapshot: Snapshot, config: PortalConfig, specs: Sequence[ServerSpec]) -> tuple[int, list[str]]:
    """Send every accepted request of *snapshot*'s proofs again, on the endpoint that answered it; how many
    were sent, and one line per item the server no longer accepts or whose answer changed shape."""
    proofs = snapshot.proofs or {}
    by_name = {spec.name: spec for spec in specs}
    asks: dict[str, list[Ask]] = {}
    recorded: dict[tuple[str, str], dict[str, Any]] = {}
    for section in _NOUNS:
        for key, entry in sorted(proofs.get(section, {}).items()):
            if entry["accepted"] and entry["endpoint"] in by_name:
                request, answer = entry["attempts"][-1]["request"], entry["attempts"][-1]["answer"]
                asks.setdefault(entry["endpoint"], []).append(Ask(section, key, _METHODS[section], (request,)))
                recorded[(section, key)] = answer
    work: list[tuple[ServerSpec, list[Ask], list[dict[str, Any]]]] = [
        (by_name[name], found, []) for name, found in asks.items()
    ]
    lines: list[str] = []
    sent = 0
    for found in prove_all(work, config.limits):
        if found.problem is not None:
            lines.append(f"endpoint {found.spec.name}: the examples could not all be sent again: {found.problem}")
        for item in found.answered:
            sent += 1
            _, answer = item.attempts[-1]
            line = _drift(recorded[(item.ask.section, item.ask.key)], answer, found.redactor)
            if line:
                lines.append(f"{_NOUNS[item.ask.section]} {one_line(item.ask.key)}: {line}")
    return sent, sorted(lines)


def _drift(before: dict[str, Any], now: Answer, redactor: Redactor) -> str | None:
    """What changed between the recorded answer and the one now, or None: no longer accepted, or a new shape."""
    if "unanswered" in now or refused(now):
        said = now.get("unanswered") or Attempt({}, now).message
        return f"the proven example is no longer accepted: {clip(one_line(redactor.redact(str(said))), 300)}"
    if "too_large" in before or "unanswered" in before:
        return None
    changes = shape_changes(before, _kept(_answer(now), redactor))
    if not changes:
        return None
    shown = "; ".join(changes[:5]) + (f" (and {len(changes) - 5} more)" if len(changes) > 5 else "")
    return f"the answer changed shape: {one_line(shown)}"
