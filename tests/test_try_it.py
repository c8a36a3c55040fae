"""The Try it panel as the build writes it: which pages get one, what they are told, what else changes.

The panel's behaviour in a browser, against the demo's real HTTP server, is ``tests/test_try_it_browser.py``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.commands.build import site_files
from generator.commands.serve import site_policy
from generator.config.portal import PortalConfig, load_config
from generator.errors import ConfigError
from generator.model.try_it import panel_origin
from generator.render.extras import CONTENT_SECURITY_POLICY, content_security_policy
from generator.snapshot.snapshot import Snapshot, fingerprint, load_snapshot
from tests.conftest import TEMPLATES
from tests.golden_tool import SNAPSHOT, demo_config, http_endpoints_changed

READ_ONLY = ("my_capabilities", "query_research_conversations", "search_chat")
"""The demo's tools that declare ``readOnlyHint: true``."""
DATA = re.compile(r'<script type="application/json" id="try-it-data">(.*?)</script>', re.S)


def _files(snapshot: Snapshot, **settings: Any) -> dict[str, bytes]:
    files, _ = site_files(snapshot, dataclasses.replace(demo_config(), **settings), renderer=TEMPLATES)
    return files


def _panel(files: dict[str, bytes], tool: str, locale: str = "en") -> dict[str, Any] | None:
    found = DATA.search(files[f"{locale}/tools/{tool}/index.html"].decode("utf-8"))
    return json.loads(found.group(1)) if found else None


@pytest.fixture(scope="module")
def plain() -> dict[str, bytes]:
    return _files(load_snapshot(SNAPSHOT))


@pytest.fixture(scope="module")
def tried() -> dict[str, bytes]:
    return _files(load_snapshot(SNAPSHOT), try_it=True, try_it_tools=("delete_document",))


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://mcp.example.com/mcp/", "https://mcp.example.com"),
        ("https://MCP.example.com:8443/mcp", "https://mcp.example.com:8443"),
        ("http://127.0.0.1:8765/mcp/", "http://127.0.0.1:8765"),
        ("http://localhost/mcp", "http://localhost"),
        ("http://[::1]:9000/mcp", "http://[::1]:9000"),
        ("http://127.0.0.2:9/mcp", "http://127.0.0.2:9"),
        ("http://mcp.example.com/mcp/", None),  # plain http to another machine: readable by anyone between
        ("http://10.0.0.5/mcp/", None),
        ("https://${HOST}/mcp/", None),  # the page must send where it shows
        ("https://user:secret@mcp.example.com/mcp/", None),
        ("ftp://mcp.example.com/", None),
        ("https://[::1/mcp", None),
    ],
)
def test_a_panel_sends_only_to_https_or_this_machine(url: str, origin: str | None) -> None:
    assert panel_origin(url) == origin


def test_read_only_tools_get_the_panel_and_listed_ones_a_confirmation(tried: dict[str, bytes]) -> None:
    for tool in READ_ONLY:
        panel = _panel(tried, tool)
        assert panel is not None, tool
        assert panel["confirm"] == [] and panel["url"] == "http://127.0.0.1:8765/mcp/"
    deleting = _panel(tried, "delete_document")
    assert deleting is not None and deleting["confirm"] == ["destructive"]
    assert _panel(tried, "file_defect") is None  # writes, and not listed
    page = tried["en/tools/delete_document/index.html"].decode()
    assert 'id="try-confirm"' in page and "Destructive: may delete" in page


def test_the_panel_is_told_the_era_the_example_and_the_locale_s_words(tmp_path: Path, tried: dict[str, bytes]) -> None:
    panel = _panel(tried, "search_chat", "ar")
    assert panel is not None
    assert panel["sessionless"] is True and panel["protocolVersion"] == "2026-07-28"
    assert panel["arguments"] == {"query": "search timeout", "limit": 20}
    assert panel["text"]["answered"] == "أجاب الخادم خلال {ms} مللي ثانية."
    legacy = _files(
        http_endpoints_changed(tmp_path, protocol_version="2025-11-25", supported_versions=["2025-11-25"]), try_it=True
    )
    old = _panel(legacy, "search_chat")
    assert old is not None and old["sessionless"] is False and old["protocolVersion"] == "2025-11-25"


def test_only_pages_with_a_panel_change(plain: dict[str, bytes], tried: dict[str, bytes]) -> None:
    changed = {path for path in plain.keys() | tried.keys() if plain.get(path) != tried.get(path)}
    panels = {
        f"{locale}/tools/{tool}/index.html" for locale in ("en", "ru", "ar") for tool in (*READ_ONLY, "delete_document")
    }
    # manifest.json lists every file with its hash: it changes with them.
    assert changed == panels | {"_headers", "assets/try-it.css", "assets/try-it.js", "manifest.json"}
    assert "assets/try-it.js" not in plain


def test_a_panel_page_may_connect_to_its_endpoint_only(plain: dict[str, bytes], tried: dict[str, bytes]) -> None:
    page = tried["en/tools/search_chat/index.html"].decode()
    assert "connect-src &#39;self&#39; http://127.0.0.1:8765; " in page
    assert 'src="../../../assets/try-it.js" defer' in page
    headers = tried["_headers"].decode()
    assert f"Content-Security-Policy: {content_security_policy(('http://127.0.0.1:8765',))}" in headers
    assert f"Content-Security-Policy: {CONTENT_SECURITY_POLICY}" in plain["_headers"].decode()


def test_an_endpoint_with_auth_gets_a_secret_field_never_a_value(tmp_path: Path) -> None:
    snapshot = http_endpoints_changed(tmp_path, auth=[["Authorization", "Bearer ${DEMO_TOKEN}"]])
    files = _files(snapshot, try_it=True)
    panel = _panel(files, "search_chat")
    assert panel is not None and panel["auth"] == [["Authorization", "Bearer ${DEMO_TOKEN}"]]
    page = files["en/tools/search_chat/index.html"].decode()
    assert re.search(r'<input id="try-secret-1" class="try-secret" type="password" data-variable="DEMO_TOKEN"', page)


def test_server_text_cannot_leave_the_data_block(tmp_path: Path) -> None:
    hostile = "</script><script>alert(1)</script><!--"

    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for tool in data["tools"]:
        if tool["name"] == "search_chat":
            tool["inputSchema"]["properties"]["query"]["description"] = hostile
            tool["inputSchema"]["properties"]["query"]["default"] = hostile
    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    page = _files(load_snapshot(path), try_it=True)["en/tools/search_chat/index.html"].decode()
    block = DATA.search(page)
    assert block is not None and "<" not in block.group(1)
    panel = json.loads(block.group(1))
    assert panel["inputSchema"]["properties"]["query"]["description"] == hostile
    assert page.count("<script") == 6  # the theme, nav.js, portal.js, call.js, try-it.js and the data block: no other


def test_no_panel_for_a_plain_http_address_and_a_warning_says_why(tmp_path: Path) -> None:
    snapshot = http_endpoints_changed(
        tmp_path, address=lambda e: e["address"].replace("127.0.0.1:8765", "mcp.example.com")
    )
    files, warnings = site_files(
        snapshot, dataclasses.replace(demo_config(), try_it=True, try_it_tools=("nope",)), renderer=TEMPLATES
    )
    assert _panel(files, "search_chat") is None and "assets/try-it.js" not in files
    assert any("no page gets the Try it panel" in w for w in warnings)
    assert any("try_it_tools names tools the server does not list: nope" in w for w in warnings)
    https = http_endpoints_changed(
        tmp_path, address=lambda e: e["address"].replace("http://127.0.0.1:8765", "https://mcp.example.com")
    )
    panel = _panel(_files(https, try_it=True), "search_chat")
    assert panel is not None and panel["url"] == "https://mcp.example.com/mcp/"


def test_try_it_tools_without_try_it_is_a_warning(tmp_path: Path) -> None:
    _, warnings = site_files(
        load_snapshot(SNAPSHOT), dataclasses.replace(demo_config(), try_it_tools=("file_defect",)), renderer=TEMPLATES
    )
    assert "try_it_tools has no effect without try_it: add `try_it: true` (or --try-it)" in warnings


def test_the_settings_are_checked_in_portal_yaml(tmp_path: Path) -> None:
    good = tmp_path / "portal.yaml"
    good.write_text("try_it: true\ntry_it_tools: [file_defect, file_defect, delete_document]\n", encoding="utf-8")
    config = load_config(good)
    assert config.try_it is True and config.try_it_tools == ("file_defect", "delete_document")
    bad = tmp_path / "bad.yaml"
    bad.write_text("try_it: yes please\ntry_it_tools: 5\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(bad)
    text = str(caught.value)
    assert "try_it" in text and "must be true or false" in text and "must be a list of tool names" in text
    assert PortalConfig().try_it is False


def test_the_preview_sends_the_site_s_own_policy_and_only_that(tmp_path: Path, tried: dict[str, bytes]) -> None:
    (tmp_path / "_headers").write_bytes(tried["_headers"])
    assert site_policy(tmp_path) == content_security_policy(("http://127.0.0.1:8765",))
    loosened = tried["_headers"].decode().replace("http://127.0.0.1:8765", "http://evil.example")
    (tmp_path / "_headers").write_text(loosened, encoding="utf-8")
    assert site_policy(tmp_path) == CONTENT_SECURITY_POLICY
    (tmp_path / "_headers").write_text("/*\n  Content-Security-Policy: default-src *\n", encoding="utf-8")
    assert site_policy(tmp_path) == CONTENT_SECURITY_POLICY
    (tmp_path / "_headers").unlink()
    assert site_policy(tmp_path) == CONTENT_SECURITY_POLICY


def test_through_serve_s_proxy_every_endpoint_qualifies_and_the_page_connects_to_itself(tmp_path: Path) -> None:
    snapshot = http_endpoints_changed(tmp_path, auth=[["Authorization", "Bearer ${DEMO_TOKEN}"]])
    files = _files(snapshot, try_it=True, try_it_proxy=True)
    panel = _panel(files, "search_chat")
    assert panel is not None and panel["proxy"] is True
    assert panel["url"] == "/.mcp-portal/try-it/stdio" and panel["auth"] == []  # the first endpoint: stdio
    page = files["en/tools/search_chat/index.html"].decode()
    assert "try-secret" not in page and "python -m generator.demo" in page
    assert "connect-src &#39;self&#39;; " in page
    assert f"Content-Security-Policy: {CONTENT_SECURITY_POLICY}" in files["_headers"].decode()
