"""Site-wide files for hosts and crawlers, and the sidebar's lists: sitemap.xml, robots.txt, _headers, nav.js.

Pure functions of the model: they return text and never touch the file system.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from generator.model.discovery import MEDIA_TYPES
from generator.model.pages import Page, absolute, pages_for
from generator.model.site import SiteModel
from generator.render.i18n import Catalog
from generator.text import visible

# The one inline script, run before the page is first drawn, which a deferred script cannot do: it
# marks the page as scripted (html.js), so the header is laid out as portal.js will leave it and
# nothing moves when that script runs, and it applies the reader's chosen colour theme (portal.js
# stores the choice) instead of showing the other theme first.
THEME_SCRIPT = (
    'document.documentElement.classList.add("js");try{var t=localStorage.getItem("mcp-portal-theme");'
    'if(t==="light"||t==="dark"){document.documentElement.dataset.theme=t}}catch(e){}'
)
THEME_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(THEME_SCRIPT.encode()).digest()).decode()

# The tab icon, drawn inline so it costs no request: an "M" on the portal's accent green.
FAVICON = (
    "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%20viewBox='0%200%2032%2032'%3E"
    "%3Crect%20width='32'%20height='32'%20rx='7'%20fill='%230b6e4f'/%3E"
    "%3Cpath%20d='M8%2023V9l8%208%208-8v14'%20fill='none'%20stroke='%23fff'%20stroke-width='3.2'"
    "%20stroke-linejoin='round'/%3E%3C/svg%3E"
)


# What the pages need and nothing more: no other hosts, no inline script but the theme one (allowed by
# its hash, so no other text runs), no plugins. 'wasm-unsafe-eval' lets Pagefind's WebAssembly search
# run; nothing else is evaluated. A page with a Try it panel may also connect to its endpoint's origin.
def content_security_policy(connect: tuple[str, ...] = ()) -> str:
    """The site's policy; *connect* are the origins its pages may call besides their own (Try it)."""
    sources = " ".join(("'self'", *connect))
    return (
        f"default-src 'self'; script-src 'self' '{THEME_SCRIPT_HASH}' 'wasm-unsafe-eval'; style-src 'self'; "
        f"img-src 'self' data:; font-src 'self'; connect-src {sources}; object-src 'none'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def csp_meta(connect: tuple[str, ...] = ()) -> str:
    """The policy as a page's ``<meta>`` carries it: without frame-ancestors, which browsers ignore there."""
    return content_security_policy(connect).replace("; frame-ancestors 'none'", "")


CONTENT_SECURITY_POLICY = content_security_policy()
CSP_META = csp_meta()


def site_root_path(site: SiteModel) -> str:
    """The URL path the site is served under (``/`` or e.g. ``/developers/``; a version of a versioned site
    without a base URL is under ``/<version>/``)."""
    base = site.config.base_url
    if base:
        return urlsplit(base).path
    return f"/{site.history.current}/" if site.history is not None else "/"


def sitemap(site: SiteModel) -> str | None:
    """sitemap.xml with hreflang alternates (and x-default); needs the base URL to be absolute."""
    if not site.config.base_url:
        return None
    # Imported here: xml.sax.saxutils pulls in urllib.request, http.client, ssl and email (30 ms of
    # every build's start), and only a site with a base URL has a sitemap.
    from xml.sax.saxutils import escape, quoteattr

    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    default = site.locales[0]
    for page in pages_for(site):
        lines.append("  <url>")
        lines.append(f"    <loc>{escape(absolute(site.config.base_url, page.html_path) or '')}</loc>")
        for code in site.locales:
            href = absolute(site.config.base_url, page.in_locale(code).html_path)
            lines.append(f'    <xhtml:link rel="alternate" hreflang={quoteattr(code)} href={quoteattr(href or "")}/>')
        href = absolute(site.config.base_url, page.in_locale(default).html_path)
        lines.append(f'    <xhtml:link rel="alternate" hreflang="x-default" href={quoteattr(href or "")}/>')
        lines.append("  </url>")
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


def robots(site: SiteModel) -> str:
    lines = ["User-agent: *", "Allow: /"]
    if site.config.base_url:
        lines.append(f"Sitemap: {absolute(site.config.base_url, 'sitemap.xml')}")
    return "\n".join(lines) + "\n"


def headers(site: SiteModel, typed: Sequence[str] | None = None) -> str:
    """A ``_headers`` file (Cloudflare Pages, Netlify): content types and security headers.

    *typed* are the site paths whose media type is set one by one: this portal's ``snapshot.json`` and
    discovery files by default; a versioned site's top level names every version's, and its own copies.
    """
    root = site_root_path(site)
    if typed is None:
        typed = ["snapshot.json", *(path for path, _ in site.discovery.links)]
    return "\n".join(
        [
            f"{root}*",
            f"  Content-Security-Policy: {content_security_policy(site.try_it_origins)}",
            "  X-Content-Type-Options: nosniff",
            "  Referrer-Policy: strict-origin-when-cross-origin",
            "  Permissions-Policy: camera=(), microphone=(), geolocation=()",
            "  Cross-Origin-Opener-Policy: same-origin",
            f"{root}*.md",
            "  Content-Type: text/markdown; charset=utf-8",
            f"{root}*.txt",
            "  Content-Type: text/plain; charset=utf-8",
            *(line for path in typed for line in _typed_headers(root, path)),
            "",
        ]
    )


TYPED = {"snapshot.json": "application/json", **MEDIA_TYPES}
"""The files whose media type ``_headers`` sets by name: the snapshot and the discovery files."""


def _typed_headers(root: str, path: str) -> list[str]:
    """The headers of one typed file; a discovery file is readable from any origin (the Server Card draft asks for
    CORS)."""
    name = path.rpartition("/")[2]
    lines = [f"{root}{path}", f"  Content-Type: {TYPED[name]}; charset=utf-8"]
    return lines if name == "snapshot.json" else [*lines, "  Access-Control-Allow-Origin: *"]


def _nav_groups(site: SiteModel, catalog: Catalog) -> list[dict[str, Any]]:
    """The sidebar's lists after the tools: prompts, resources and resource templates, when there are any."""
    groups = []
    for key, items in site.item_sections:
        entries = []
        for item in items:
            page = Page.of(item, catalog.code)
            href = page.html_path[len(catalog.code) + 1 :]
            entries.append({"n": visible(item.name), "t": visible(item.title or ""), "h": href})
        groups.append({"g": visible(catalog.t("index." + key)), "i": entries})
    return groups


def nav_tools(site: SiteModel) -> str:
    """The sidebar's tool list as JSON, the same in every locale's ``nav.js`` (made once per build).

    Each tool's access level is a key (``"a"``); the words for it are the locale's ``labels``. A long
    list is in groups (:attr:`SiteModel.tool_groups`): its tools come group by group, each with its
    group's word (``"g"``, ``""`` for the last group, whose name is the locale's ``labels.other``).
    """

    def entry(tool: Any, group: str | None) -> dict[str, str]:
        # The sidebar shows these through textContent: hidden and bidi characters become
        # visible [U+XXXX] markers here, exactly as every {{ expression }} on the pages does.
        item = {
            "n": visible(tool.name),
            "t": visible(tool.title or ""),
            "h": f"tools/{tool.slug}/index.html",
            "a": tool.access.level,
        }
        if group is not None:
            item["g"] = visible(group)
        return item

    if site.tool_groups:
        tools = [entry(tool, word) for word, members in site.tool_groups for tool in members]
    else:
        tools = [entry(tool, None) for tool in site.tools]
    return json.dumps(tools, ensure_ascii=True, sort_keys=True)


def nav_script(site: SiteModel, catalog: Catalog, tools: str) -> str:
    """``L/nav.js``: the sidebar's lists, one cached file per locale, so a page's size does not
    grow with the number of tools, prompts and resources. JSON is ASCII-escaped: safe inside
    JavaScript. *tools* is :func:`nav_tools`, made once for every locale."""
    levels = sorted({tool.access.level for tool in site.tools})
    labels: dict[str, str] = {str(level): visible(catalog.t("access." + level)) for level in levels}
    if site.tool_groups:
        labels["other"] = catalog.t("index.group_other")
    parts = (
        ("groups", json.dumps(_nav_groups(site, catalog), ensure_ascii=True, sort_keys=True)),
        ("labels", json.dumps(labels, ensure_ascii=True, sort_keys=True)),
        ("tools", tools),
    )  # the keys in order: one json.dumps(..., sort_keys=True) of the whole, byte for byte
    return "window.PORTAL_NAV = {" + ", ".join(f'"{key}": {value}' for key, value in parts) + "};\n"
