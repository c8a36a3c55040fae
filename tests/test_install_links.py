"""One-click install links: each decodes, the way its client decodes it, to exactly the entry its snippet shows.

VS Code's URL handler reads ``JSON.parse(decodeURIComponent(query))`` as ``{name, inputs, ...config}``;
Cursor's reads ``name`` and the base64 ``config`` of the query. The tests decode each link that way and
compare it with the configuration file the same tab shows; the page-level check (the links of the built
connecting page against the code beside them) is in test_discovery_site.py.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.model.clients import EndpointFacts, Snippet, snippets

SECRET = "sk-live-0123456789abcdef"
STDIO = EndpointFacts(name="stdio", transport="stdio", command=("uvx", "acme-mcp", "--profile", "full"), env=("TOKEN",))
HTTP = EndpointFacts(
    name="full",
    transport="streamable-http",
    url="https://mcp.example.com/mcp?tenant=a&b=(c)",
    headers=(("Authorization", "Bearer ${ACME_TOKEN}"), ("X-Api-Key", SECRET)),
)
SAFE = re.compile(r"[A-Za-z0-9%._~:/?&=-]*")
"""What a link may hold: nothing an HTML attribute or a Markdown link target would need escaped."""
INSTALL_LINK = re.compile(
    r"(?:vscode|vscode-insiders):mcp/install\?[A-Za-z0-9%._~-]*|cursor://anysphere\.cursor-deeplink/mcp/install\?name=[A-Za-z0-9%._~-]*&config=[A-Za-z0-9%._~-]*"
)
"""An install link of the connecting page, the one kind of link to another scheme the pages may hold:
an editor's scheme, and everything it carries percent-encoded."""


def vscode_decoded(url: str, scheme: str = "vscode") -> dict[str, Any]:
    assert url.startswith(f"{scheme}:mcp/install?")
    decoded = json.loads(unquote(url.partition("?")[2]))
    assert isinstance(decoded, dict)
    return decoded


def cursor_decoded(url: str) -> tuple[str, dict[str, Any]]:
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("cursor", "anysphere.cursor-deeplink", "/mcp/install")
    query = parse_qs(parts.query, strict_parsing=True)
    decoded = json.loads(base64.b64decode(query["config"][0], validate=True))
    assert isinstance(decoded, dict)
    return query["name"][0], decoded


def by_client(facts: EndpointFacts, key: str) -> dict[str, Snippet]:
    return {snippet.client: snippet for snippet in snippets(facts, key)}


@pytest.mark.parametrize("facts", [STDIO, HTTP], ids=["stdio", "http"])
def test_links_decode_to_the_entry_the_snippet_shows(facts: EndpointFacts) -> None:
    key = "acme-full"
    shown = by_client(facts, key)
    workspace = json.loads(shown["vscode"].text)
    expected = {"name": key, **workspace["servers"][key], "inputs": workspace["inputs"]}
    links = shown["vscode"].links
    assert [link.client for link in links] == ["vscode", "vscode-insiders"]
    for link in links:
        assert vscode_decoded(link.url, link.client) == expected == link.config
        assert SAFE.fullmatch(link.url) and INSTALL_LINK.fullmatch(link.url), link.url
    (cursor,) = shown["cursor"].links
    assert cursor_decoded(cursor.url) == (key, json.loads(shown["cursor"].text)["mcpServers"][key])
    assert SAFE.fullmatch(cursor.url) and INSTALL_LINK.fullmatch(cursor.url), cursor.url
    for snippet in shown.values():
        assert SECRET not in snippet.text and all(SECRET not in link.url for link in snippet.links)
    assert not any(snippet.links for client, snippet in shown.items() if client not in ("vscode", "cursor"))


def test_vscode_inputs_ride_along_and_are_left_out_when_there_are_none() -> None:
    plain = EndpointFacts(name="x", transport="streamable-http", url="https://mcp.example.com/mcp")
    (link, _) = by_client(plain, "x")["vscode"].links
    assert vscode_decoded(link.url) == {"name": "x", "type": "http", "url": "https://mcp.example.com/mcp"}
    (link, _) = by_client(STDIO, "x")["vscode"].links
    assert vscode_decoded(link.url)["inputs"] == [
        {"type": "promptString", "id": "token", "description": "TOKEN", "password": True}
    ]
    assert vscode_decoded(link.url)["env"] == {"TOKEN": "${input:token}"}


@given(
    st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=4),
    st.sampled_from(['"><script>alert(1)</script>', "a b)](javascript:x)", "\u202e", "日本語", "&amp;"]),
)
def test_hostile_values_are_carried_exactly_and_stay_encoded(args: list[str], hostile: str) -> None:
    facts = EndpointFacts(name="s", transport="stdio", command=(hostile, *args), env=("API_KEY",))
    shown = by_client(facts, hostile)
    key = next(iter(json.loads(shown["cursor"].text)["mcpServers"]))
    for link in (*shown["vscode"].links, *shown["cursor"].links):
        assert SAFE.fullmatch(link.url) and INSTALL_LINK.fullmatch(link.url), link.url
    assert vscode_decoded(shown["vscode"].links[0].url)["args"] == args
    assert cursor_decoded(shown["cursor"].links[0].url) == (key, json.loads(shown["cursor"].text)["mcpServers"][key])
