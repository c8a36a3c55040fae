"""What ``--prove`` recorded: the snapshot's ``proofs``, apart from what the server listed.

A proof is what the server answered when its page's example was sent to it: the requests tried
(the page's example first, then the next candidates when the server refused one) and each answer
as it came, the JSON-RPC ``result`` or ``error``. They are recorded so that a build from the
snapshot file shows them without a server, byte for byte the same every time, and so that
``check --prove`` can send the same requests again. They are not part of the snapshot's
fingerprint: the fingerprint says what the server offers, and a proof is what it answered once.

The JSON form (keys sorted; the server's own JSON kept as it came)::

    "proofs": {
      "endpoints": {"stdio": {"protocol_version": "2026-07-28", "server": {"name": ..., "version": ...},
                              "probe": {"tool": ..., "request": {...}, "answer": {...}, "form": "isError"}}},
      "tools": {"search_chat": {"endpoint": "stdio", "accepted": true, "output": "valid", "attempts": [
                  {"request": {"name": ..., "arguments": {...}}, "answer": {"result": {...}}}]}},
      "prompts": {...}, "resources": {...}, "resource_templates": {...}
    }

An answer is one of ``{"result": ...}``, ``{"error": {"code", "message"[, "data"]}}`` (the server's
JSON-RPC error), ``{"unanswered": "why"}`` (no answer: a timeout, a closed connection) or
``{"too_large": BYTES}`` (an answer larger than :data:`RECORDED_ANSWER_BYTES`, not kept).
"""

from __future__ import annotations

from generator.snapshot.jsonread import ShapeProblem
from generator.snapshot.wording import quote, where

JSON = object

SECTIONS = ("tools", "prompts", "resources", "resource_templates")
"""The kinds of thing proved, as the snapshot's lists name them."""

RECORDED_ANSWER_BYTES = 65536
"""The largest answer a proof keeps (its compact JSON, in bytes); a larger one is recorded by its size."""

FORMS = ("isError", "-32602", "-32603", "other", "accepted", "unanswered")
"""How a server answered the probe's invalid argument: a result with ``isError: true``, the JSON-RPC
error -32602 or -32603, another JSON-RPC error, a result that is no error, or no answer."""

OUTPUT_VERDICTS = ("valid", "invalid", "none")
"""A tool's accepted answer against its output schema: valid, invalid, or nothing to check (no output
schema, or no ``structuredContent``)."""

_TEXT: dict[str, JSON] = {"type": "string"}
_OBJECT: dict[str, JSON] = {"type": "object"}

PROOF_DEFS: dict[str, JSON] = {
    "proofs": {
        "type": "object",
        "additionalProperties": False,
        "required": ["endpoints"],
        "properties": {
            "endpoints": {"type": "object", "additionalProperties": {"$ref": "#/$defs/proved_endpoint"}},
            **{section: {"type": "object", "additionalProperties": {"$ref": "#/$defs/proof"}} for section in SECTIONS},
        },
    },
    "proved_endpoint": {
        "type": "object",
        "additionalProperties": False,
        "required": ["protocol_version"],
        "properties": {
            "protocol_version": _TEXT,
            "server": {"type": "object", "additionalProperties": _TEXT},
            "probe": {"$ref": "#/$defs/probe"},
            "problem": _TEXT,
        },
    },
    "proof": {
        "type": "object",
        "additionalProperties": False,
        "required": ["endpoint", "attempts", "accepted"],
        "properties": {
            "endpoint": _TEXT,
            "accepted": {"type": "boolean"},
            "attempts": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/attempt"}},
            "output": {"enum": list(OUTPUT_VERDICTS)},
            "output_problem": _TEXT,
        },
    },
    "attempt": {
        "type": "object",
        "additionalProperties": False,
        "required": ["request", "answer"],
        "properties": {"request": _OBJECT, "answer": {"$ref": "#/$defs/answer"}},
    },
    "answer": {
        "type": "object",
        "additionalProperties": False,
        "minProperties": 1,
        "maxProperties": 1,
        "properties": {
            "result": _OBJECT,
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {"code": {"type": "integer"}, "message": _TEXT},
            },
            "unanswered": _TEXT,
            "too_large": {"type": "integer", "minimum": 0},
        },
    },
    "probe": {
        "type": "object",
        "additionalProperties": False,
        "required": ["tool", "request", "answer", "form"],
        "properties": {
            "tool": _TEXT,
            "request": _OBJECT,
            "answer": {"$ref": "#/$defs/answer"},
            "form": {"enum": list(FORMS)},
        },
    },
}
"""The shape of ``proofs`` (``$defs`` of :data:`generator.snapshot.shape.SNAPSHOT_SCHEMA`)."""


def check_proofs(proofs: dict[str, JSON] | None) -> None:
    """What the shape cannot say: every proof names an endpoint the proofs describe.

    Raises :class:`ShapeProblem` naming the path. Proofs of things the snapshot does not list are
    not an error: the model shows only what is listed.
    """
    if proofs is None:
        return
    endpoints = proofs["endpoints"]
    assert isinstance(endpoints, dict)
    for section in SECTIONS:
        found = proofs.get(section, {})
        assert isinstance(found, dict)
        for key, proof in found.items():
            assert isinstance(proof, dict)
            if proof["endpoint"] not in endpoints:
                at = where(["proofs", section, key, "endpoint"])
                raise ShapeProblem(
                    f"{at} names the endpoint {quote(proof['endpoint'])}, which `proofs.endpoints` lacks"
                )
