"""What the server answered to a page's example (``--prove``), as pages show it.

Read from the snapshot's ``proofs`` (:mod:`generator.snapshot.proofs`), never from a server: a build
from a proven snapshot shows the same answers, byte for byte, every time. A :class:`Proof` says
which requests were sent (the page's example first, then the next candidates when the server
refused one), whether one was accepted, and what the server said, formatted for reading: each text
block (JSON text pretty-printed), the ``structuredContent``, the output schema's verdict. Everything
the server said stays untrusted text: the templates escape it for their output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from generator.jsonutil import clip
from generator.text import json_block, one_line

SHOWN_CHARS = 6000
"""Characters of one text block or JSON value a page shows; ``snapshot.json`` keeps the whole answer."""

REFUSAL_FORMS = ("isError", "-32602", "-32603", "other")
"""The probe's answers that say how the server refuses an argument (see :data:`generator.snapshot.proofs.FORMS`)."""


def _cut(text: str) -> tuple[str, bool]:
    """*text* cut to :data:`SHOWN_CHARS`, and whether it was."""
    return (text, False) if len(text) <= SHOWN_CHARS else (text[:SHOWN_CHARS] + "\n…", True)


@dataclass(frozen=True)
class Block:
    """One piece of an answer as a page shows it.

    *kind*: ``text`` (a server's text, shown as is), ``json`` (JSON, pretty-printed), ``echo`` (a text
    block that holds the same JSON as the ``structuredContent`` after it, as the specification asks a
    tool to send: not shown twice) or ``other`` (a content block that is no text: an image, a resource
    link; *body* names its type). *source*: where it
    came from: ``text`` (a tool's content), ``structured`` (its ``structuredContent``), ``message`` (a
    prompt's message, *label* its role) or ``contents`` (a resource's, *label* its URI).
    """

    kind: str
    body: str
    source: str
    label: str = ""
    cut: bool = False


def _text_block(text: str, source: str, label: str = "") -> Block:
    """A text the server sent: its JSON pretty-printed when it is a JSON object or array, else as it is."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")) and len(stripped) <= 1_000_000:
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict | list):
            body, cut = _cut(json_block(value))
            return Block("text" if cut else "json", body, source, label, cut)  # cut JSON is no JSON
    body, cut = _cut(text)
    return Block("text", body, source, label, cut)


def _text(item: dict[str, Any], key: str, default: str = "") -> str:
    """``item[key]`` when it is a string, else *default*."""
    value = item.get(key)
    return value if isinstance(value, str) else default


def _echo(value: Any) -> str | None:
    """*value* as canonical JSON (a JSON text parsed first), to tell a text block that repeats the
    ``structuredContent``; None when it is no JSON."""
    if isinstance(value, str):
        if len(value) > 1_000_000:
            return None
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


def _content_blocks(items: Any, source: str, label: str = "", echo: str | None = None) -> list[Block]:
    """The blocks of a ``content`` list (a tool result, a prompt message's content); a text block that
    holds the JSON whose canonical form is *echo* (the ``structuredContent``) becomes an ``echo`` block."""
    found: list[Block] = []
    for item in items if isinstance(items, list) else [items]:
        if not isinstance(item, dict):
            continue
        text = item.get("text") if item.get("type") == "text" else None
        if echo is not None and isinstance(text, str) and _echo(text) == echo:
            found.append(Block("echo", "", source, label))
        elif item.get("type") == "text" and isinstance(item.get("text"), str):
            found.append(_text_block(item["text"], source, label))
        else:
            kind = f"{_text(item, 'type', '?')} {_text(item, 'mimeType')}"
            found.append(Block("other", kind.strip()[:200], source, label))
    return found


@dataclass(frozen=True)
class Attempt:
    """One request sent and the answer it got, as recorded."""

    request: dict[str, Any]
    answer: dict[str, Any]

    @property
    def result(self) -> dict[str, Any] | None:
        value = self.answer.get("result")
        return value if isinstance(value, dict) else None

    @property
    def refused(self) -> bool:
        """A JSON-RPC error, or a result with ``isError: true``: the server did not accept the request."""
        return "error" in self.answer or (self.result is not None and self.result.get("isError") is True)

    @property
    def unanswered(self) -> str | None:
        """Why no answer came (a timeout, a closed connection), when none did."""
        value = self.answer.get("unanswered")
        return value if isinstance(value, str) else None

    @property
    def too_large(self) -> int | None:
        """The size of an answer too large to record, in bytes."""
        value = self.answer.get("too_large")
        return value if isinstance(value, int) else None

    @property
    def error_code(self) -> int | None:
        error = self.answer.get("error")
        return error.get("code") if isinstance(error, dict) and isinstance(error.get("code"), int) else None

    @property
    def message(self) -> str:
        """What the server said when it refused: the JSON-RPC error's message, or the result's text."""
        error = self.answer.get("error")
        if isinstance(error, dict):
            return str(error.get("message", ""))
        texts = [b.body for b in _content_blocks((self.result or {}).get("content"), "text") if b.kind != "other"]
        return _cut(" ".join(texts))[0]

    @property
    def arguments(self) -> dict[str, Any] | None:
        """The ``arguments`` sent (a tool call, a prompt), when the request had them."""
        value = self.request.get("arguments")
        return value if isinstance(value, dict) else None

    @property
    def uri(self) -> str | None:
        value = self.request.get("uri")
        return value if isinstance(value, str) else None

    @cached_property
    def blocks(self) -> tuple[Block, ...]:
        """The answer as a page shows it: a tool's text blocks and ``structuredContent``, a prompt's messages,
        a resource's contents."""
        result = self.result or {}
        echo = _echo(result["structuredContent"]) if "structuredContent" in result else None
        found = _content_blocks(result.get("content"), "text", echo=echo) if "content" in result else []
        if "structuredContent" in result:
            body, cut = _cut(json_block(result["structuredContent"]))
            found.append(Block("text" if cut else "json", body, "structured", "", cut))
        messages = result.get("messages")
        for message in messages if isinstance(messages, list) else []:
            if isinstance(message, dict):
                found += _content_blocks(message.get("content"), "message", _text(message, "role", "?")[:100])
        contents = result.get("contents")
        for item in contents if isinstance(contents, list) else []:
            if isinstance(item, dict):
                label = _text(item, "uri")[:500]
                if isinstance(item.get("text"), str):
                    found.append(_text_block(item["text"], "contents", label))
                else:
                    found.append(Block("other", f"blob {_text(item, 'mimeType')}".strip()[:200], "contents", label))
        return tuple(found)

    def sent(self, method: str) -> str:
        """The JSON-RPC request that was sent (``id`` 1), for *method*."""
        return json_block({"jsonrpc": "2.0", "id": 1, "method": method, "params": self.request})


@dataclass(frozen=True)
class Proof:
    """What the server answered to one page's example: the attempts, in the order they were sent."""

    attempts: tuple[Attempt, ...]
    accepted: bool
    endpoint: str
    protocol_version: str
    server_version: str | None
    output: str = "none"
    """The accepted answer's ``structuredContent`` against the output schema: ``valid``, ``invalid`` or ``none``."""
    output_problem: str | None = None

    @property
    def kept(self) -> Attempt:
        """The attempt the page shows: the accepted one, else the page's own example (the first)."""
        return self.attempts[-1] if self.accepted else self.attempts[0]

    @property
    def replaced(self) -> bool:
        """The page's first example was refused and a later candidate accepted."""
        return self.accepted and len(self.attempts) > 1

    @property
    def first(self) -> Attempt:
        return self.attempts[0]

    @property
    def others_refused(self) -> int:
        """How many candidates besides the first were tried and refused (not accepted: every one)."""
        return 0 if self.accepted else len(self.attempts) - 1


def proof_of(proofs: dict[str, Any] | None, section: str, key: str) -> Proof | None:
    """The proof of the item *key* of *section* (``tools``, ``prompts``, ``resources``,
    ``resource_templates``) in a snapshot's ``proofs``, or None."""
    if not proofs:
        return None
    entry = proofs.get(section, {}).get(key)
    if not isinstance(entry, dict):
        return None
    endpoint = proofs["endpoints"].get(entry["endpoint"], {})
    server = endpoint.get("server", {})
    return Proof(
        attempts=tuple(Attempt(a["request"], a["answer"]) for a in entry["attempts"]),
        accepted=entry["accepted"],
        endpoint=entry["endpoint"],
        protocol_version=endpoint.get("protocol_version", ""),
        server_version=server.get("version") or server.get("name"),
        output=entry.get("output", "none"),
        output_problem=entry.get("output_problem"),
    )


def refusal_of(proofs: dict[str, Any] | None) -> str | None:
    """How the server refuses an invalid argument, as the first endpoint's probe saw it: ``isError``, or a
    JSON-RPC error code (``-32602``, ``-32603``, any other); None when no probe saw a refusal."""
    if not proofs:
        return None
    for name in sorted(proofs["endpoints"]):
        probe = proofs["endpoints"][name].get("probe")
        if not isinstance(probe, dict) or probe.get("form") not in REFUSAL_FORMS:
            continue
        if probe["form"] == "isError":
            return "isError"
        code = Attempt(probe["request"], probe["answer"]).error_code
        return str(code) if code is not None else None
    return None


_NOUNS = {"tools": "tool", "prompts": "prompt", "resources": "resource", "resource_templates": "resource template"}


def proof_warnings(proofs: dict[str, Any] | None) -> list[str]:
    """What an author should know of a snapshot's proofs (``--strict`` fails on them): each endpoint the
    calls could not all be made on, and each example the server did not accept."""
    if not proofs:
        return []
    found = [f"--prove on endpoint {name}: {entry['problem']}" for name, entry in sorted(proofs["endpoints"].items())
             if "problem" in entry]  # fmt: skip
    for section, noun in _NOUNS.items():
        for key, entry in sorted(proofs.get(section, {}).items()):
            if entry["accepted"]:
                continue
            last = Attempt(entry["attempts"][-1]["request"], entry["attempts"][-1]["answer"])
            what = f"{noun} {one_line(key)} ({len(entry['attempts'])} tried)"
            found.append(
                f"--prove: the example of {what} got no answer: {last.unanswered}"
                if last.unanswered
                else f"--prove: the server did not accept the example of {what}: {clip(one_line(last.message), 200)}"
            )
    return found
