"""A list reply exactly as the server sent it, after the SDK has checked it.

The SDK's result models keep only the fields they know, in their own order, and coerce some
values; a snapshot must keep what the server said (``x-*`` keys, unknown annotations, a prompt
argument's ``default``, the server's key order). So each page is requested through the SDK's
session with a permissive result model (:class:`RawResult`): the SDK still validates the reply
against the negotiated protocol version, and the raw JSON is what is kept, checked field by
field against the SDK's reading of it (:func:`faithful`).
"""

from __future__ import annotations

import functools
from typing import Any

import mcp_types
from mcp import Client
from pydantic import BaseModel, RootModel

from generator.jsonutil import json_type


class RawResult(RootModel[dict[str, Any]]):
    """The result type handed to the SDK's session: the reply as a dict, every key in the server's order."""


LISTS: dict[str, tuple[type[Any], type[BaseModel], str, str]] = {
    # method: (the SDK's request, its result model, the reply's field holding the items, the model's)
    "tools/list": (mcp_types.ListToolsRequest, mcp_types.ListToolsResult, "tools", "tools"),
    "prompts/list": (mcp_types.ListPromptsRequest, mcp_types.ListPromptsResult, "prompts", "prompts"),
    "resources/list": (mcp_types.ListResourcesRequest, mcp_types.ListResourcesResult, "resources", "resources"),
    "resources/templates/list": (
        mcp_types.ListResourceTemplatesRequest,
        mcp_types.ListResourceTemplatesResult,
        "resourceTemplates",
        "resource_templates",
    ),
}

_FAITHFUL_DEPTH = 32
"""How deep :func:`faithful` follows the SDK's models; below that every value is a plain JSON value."""


async def raw_page(client: Client, method: str, cursor: str | None) -> tuple[dict[str, Any], Any]:
    """One page of *method*: the reply as sent (after the SDK's protocol check), and the SDK's reading of it.

    Raises what the SDK raises: :class:`MCPError` for an error reply, :class:`ValidationError`
    when the reply breaks the negotiated protocol version's types.
    """
    request, result, _, _ = LISTS[method]
    params = mcp_types.PaginatedRequestParams(cursor=cursor)
    raw = (await client.session.send_request(request(params=params), RawResult)).root
    return raw, result.model_validate(raw, by_name=False)


@functools.cache
def _aliases(model: type[BaseModel]) -> dict[str, str]:
    """The wire names of a model's fields, mapped to their Python names."""
    return {(info.alias or name): name for name, info in model.model_fields.items()}


def faithful(raw: Any, read: Any, depth: int = 0) -> Any:
    """*raw* (what the server sent), checked against *read* (the SDK's model of it).

    Kept as sent: every key in the server's order, keys the SDK does not know, and every value
    of the type the specification gives it.  Two things follow the SDK's reading instead: a
    field the SDK knows that the server sent as ``null`` (the specification's "absent"), and a
    value the SDK coerced to another JSON type (``"yes"`` or ``1`` for a boolean hint), so the
    snapshot's types are the specification's.
    """
    if isinstance(read, BaseModel) and isinstance(raw, dict) and depth < _FAITHFUL_DEPTH:
        known = _aliases(type(read))
        kept: dict[str, Any] = {}
        for key, value in raw.items():
            name = known.get(key)
            if name is None:
                kept[key] = value  # a field the SDK does not model: exactly as sent
                continue
            field = getattr(read, name)
            if value is None and field is None:
                continue
            kept[key] = faithful(value, field, depth + 1)
        return kept
    if isinstance(read, list) and isinstance(raw, list) and len(read) == len(raw) and depth < _FAITHFUL_DEPTH:
        return [faithful(r, m, depth + 1) for r, m in zip(raw, read, strict=True)]
    sent, understood = json_type(raw), json_type(read)
    if sent == understood or {sent, understood} <= {"integer", "number"} or isinstance(read, dict | list):
        return raw
    if isinstance(read, BaseModel):
        return read.model_dump(by_alias=True, mode="json", exclude_none=True)
    return read


def faithful_items(raw: dict[str, Any], result: Any, method: str) -> list[dict[str, Any]]:
    """The items of one page as sent, each checked against the SDK's model of it (see :func:`faithful`)."""
    _, _, key, attr = LISTS[method]
    models = getattr(result, attr)
    items = raw.get(key)
    if not isinstance(items, list) or len(items) != len(models):  # pragma: no cover - the SDK's check ensures both
        return [m.model_dump(by_alias=True, mode="json", exclude_none=True) for m in models]
    return [faithful(item, model) for item, model in zip(items, models, strict=True)]
