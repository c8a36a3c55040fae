"""The built demo portal: its discovery files, the links to them, ``check`` on them, and the install links.

The demo names itself for registries (``generator/demo/settings.py``), so its portal carries server.json and
the Server Card; every page links both from its ``<head>``, llms.txt lists them, ``_headers`` serves them
with their media types and CORS, and ``check`` fails (exit 3) on one that no longer validates. The
connecting page's install links, decoded as VS Code and Cursor decode them, are exactly the configuration
shown beside them, in the HTML and in the twin.
"""

from __future__ import annotations

import json
import posixpath
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from generator.commands.cli import main
from generator.model.discovery import SERVER_CARD, SERVER_JSON
from tests.conftest import tree_bytes
from tests.golden_tool import http_endpoints_changed
from tests.test_discovery import official
from tests.test_install_links import cursor_decoded, vscode_decoded

LINKS = {SERVER_JSON: "application/json", SERVER_CARD: "application/mcp-server-card+json"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("discovery")
    http_endpoints_changed(
        tmp,
        address=lambda e: e["address"].replace("http://127.0.0.1:8765", "https://api.teamspace.example"),
        auth=[["Authorization", "Bearer ${TEAMSPACE_TOKEN}"]],
    )
    (snapshot,) = tmp.glob("snapshot-*.json")
    out = tmp / "site"
    argv = ["build", "--from", str(snapshot), "--no-search", "--out", str(out)]
    assert main(argv) == 0
    return out


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "link" and found.get("rel") == "service-desc":
            self.links.append((str(found.get("type")), str(found.get("href"))))


def test_the_discovery_files_are_written_valid_and_linked_from_every_page(site: Path) -> None:
    files = tree_bytes(site)
    for path in LINKS:
        assert official(path, json.loads(files[path])) == [], path
    card = json.loads(files[SERVER_CARD])
    assert card["remotes"][0]["url"] == "https://api.teamspace.example/mcp/"
    pages = [p for p in files if p.endswith(".html") and not p.endswith("404.html")]  # a 404 page is no entry
    assert len(pages) > 30
    for page in pages:
        head = _Head()
        head.feed(files[page].decode("utf-8"))
        targets = {
            media: posixpath.normpath(posixpath.join(posixpath.dirname(page), href)) for media, href in head.links
        }
        assert targets == {media: path for path, media in LINKS.items()}, page
    for llms in ("llms.txt", "en/llms.txt", "ru/llms.txt", "ar/llms.txt"):
        text = files[llms].decode("utf-8")
        for path in LINKS:
            assert re.search(rf"^- \[{re.escape(path)}\]\((\.\./)?{re.escape(path)}\): ", text, re.M), (llms, path)
    headers = files["_headers"].decode("utf-8")
    assert "/server-card.json\n  Content-Type: application/mcp-server-card+json; charset=utf-8\n" in headers
    assert headers.count("  Access-Control-Allow-Origin: *\n") == 2


def test_check_validates_the_discovery_files(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "--from", str(_snapshot_of(site)), "--no-search", "--out", str(site)]
    assert main(argv) == 0
    card = site / SERVER_CARD
    original = card.read_bytes()
    try:
        broken = json.loads(original)
        broken["name"] = "not a registry name"
        card.write_text(json.dumps(broken), encoding="utf-8")
        capsys.readouterr()
        assert main(argv) == 3
        out = capsys.readouterr().out
        assert "server-card.json (edited by hand)" in out
        assert (
            "Invalid (against the vendored schemas):\n  server-card.json: name: 'not a registry name' does not match"
            in out
        )
    finally:
        card.write_bytes(original)


def _snapshot_of(site: Path) -> Path:
    return site / "snapshot.json"


class _Panels(HTMLParser):
    """Each tab panel of the connecting page: the text of its code block (``<pre>``) and its install links."""

    def __init__(self) -> None:
        super().__init__()
        self.panels: list[dict[str, Any]] = []
        self._depth = 0
        self._in_code = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "div" and found.get("class") == "panel":
            self.panels.append({"code": "", "links": []})
            self._depth = 1
        elif tag == "div" and self._depth:
            self._depth += 1
        elif tag == "pre" and self._depth:
            self._in_code = True
        elif tag == "a" and self._depth and found.get("class") == "install-link":
            self.panels[-1]["links"].append(str(found.get("href")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._depth:
            self._depth -= 1
        elif tag == "pre":
            self._in_code = False

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self.panels[-1]["code"] += data


def _decoded(url: str) -> tuple[str, dict[str, Any]]:
    """(the server's key, the entry) an install link carries, as its client reads it."""
    if url.startswith("cursor:"):
        return cursor_decoded(url)
    carried = vscode_decoded(url, url.partition(":")[0])
    return carried.pop("name"), carried


def _shown_entry(config: dict[str, Any], key: str) -> dict[str, Any]:
    """The entry a configuration file shows for *key*, with VS Code's inputs as its link carries them."""
    if "servers" in config:
        return {**config["servers"][key], **({"inputs": config["inputs"]} if "inputs" in config else {})}
    entry: dict[str, Any] = config["mcpServers"][key]
    return entry


@pytest.mark.parametrize("locale", ["en", "ru", "ar"])
def test_the_install_links_decode_to_the_configuration_the_page_shows(site: Path, locale: str) -> None:
    page = _Panels()
    page.feed((site / locale / "connecting" / "index.html").read_text(encoding="utf-8"))
    with_links = [panel for panel in page.panels if panel["links"]]
    assert len(with_links) == 2 * 3  # VS Code and Cursor, for each of the demo's three endpoints
    for panel in with_links:
        shown = json.loads(unescape(panel["code"]))
        for url in panel["links"]:
            key, carried = _decoded(url)
            assert carried == _shown_entry(shown, key), url
    assert any("${input:teamspace-token}" in json.dumps(_decoded(u)[1]) for p in with_links for u in p["links"])

    twin = (site / locale / "connecting.md").read_text(encoding="utf-8")
    linked = []
    for chunk in twin.split("```json\n")[1:]:
        code, _, after = chunk.partition("\n```\n")
        line = after.lstrip("\n").split("\n", 1)[0]  # the paragraph right after the block
        linked.append((json.loads(code), re.findall(r"\]\(((?:vscode|vscode-insiders|cursor):[^)]*)\)", line)))
    linked = [(code, urls) for code, urls in linked if urls]
    assert len(linked) == 6
    for shown, urls in linked:
        for url in urls:
            key, carried = _decoded(url)
            assert carried == _shown_entry(shown, key), url
