"""The top level of a versioned site: the page that lists every version, the root ``llms.txt``, the Atom
feed of the release history, and the ``latest/`` pages that lead to the newest version.

Every version lives in a directory of its own (``OUT/<version>/``) that is never rendered again once
published; these files are the only ones a versioned build rewrites besides the version it publishes,
so they are made from :class:`generator.history.timeline.Release` records and the newest version's
file list, never from an earlier version's pages. Pure functions: text in, text out.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from generator.history.labels import LATEST
from generator.history.timeline import Release
from generator.model.discovery import MEDIA_TYPES
from generator.model.pages import absolute, relative
from generator.model.site import SiteModel
from generator.render.extras import headers
from generator.render.i18n import Catalog
from generator.render.renderer import Renderer
from generator.text import visible

FEED = "changes.xml"


@dataclass(frozen=True)
class Top:
    """What the top-level files are made from."""

    site: SiteModel
    """The model of the version being published: the title, the locales, the server's name."""
    catalogs: Mapping[str, Catalog]
    releases: tuple[Release, ...]
    """Every version, newest first."""
    base_url: str | None
    """The public URL of the whole versioned site (each version's is this plus its label)."""
    discovery: tuple[str, ...] = ()
    """The discovery files at the top (the newest version's ``server.json`` and Server Card, copied)."""
    typed: tuple[str, ...] = ()
    """The files whose media type the top ``_headers`` sets: the copies, and each version's own."""

    @property
    def discovery_links(self) -> tuple[tuple[str, str], ...]:
        """(path, media type) of each discovery file at the top, for ``<link rel="service-desc">``."""
        return tuple((path, MEDIA_TYPES[path]) for path in self.discovery)

    @property
    def newest(self) -> Release:
        return self.releases[0]

    def link(self, path: str) -> str:
        """A site path as the top-level files link it: absolute with a base URL, else relative to the top."""
        return absolute(self.base_url, path) or path

    @property
    def feed_id(self) -> str:
        """The feed's permanent id: from the base URL when there is one, else from the server's name."""
        return uuid.uuid5(uuid.NAMESPACE_URL, self.base_url or f"mcp-portal:{self.site.server_name}").urn

    def entry_id(self, label: str) -> str:
        return uuid.uuid5(uuid.UUID(self.feed_id.removeprefix("urn:uuid:")), label).urn


def top_files(top: Top, renderer: Renderer) -> dict[str, str]:
    """``index.html``, ``llms.txt``, ``changes.xml``, ``robots.txt`` and ``_headers`` of the top level (its
    ``_headers`` is the one static hosts read: it types every version's snapshot and discovery files)."""
    code = top.site.locales[0]
    context = {"top": top, "releases": top.releases, "newest": top.newest, "latest": LATEST}
    files = {
        "index.html": renderer.top_file("html/versions.html.j2", top.site, top.catalogs, code, "index.html", context),
        "llms.txt": renderer.top_file("llms/versions.txt.j2", top.site, top.catalogs, code, "llms.txt", context),
        FEED: renderer.top_file("xml/changes.xml.j2", top.site, top.catalogs, code, FEED, context),
    }
    whole = replace(top.site, config=replace(top.site.config, base_url=top.base_url), history=None)  # the site's root
    files["_headers"] = headers(whole, top.typed)
    files["robots.txt"] = "User-agent: *\nAllow: /\n" + "".join(
        f"Sitemap: {top.link(f'{r.label}/sitemap.xml')}\n" for r in top.releases if top.base_url
    )
    return files


def latest_files(top: Top, renderer: Renderer, pages: Sequence[str]) -> dict[str, str]:
    """``latest/<path>`` for each HTML page *path* of the newest version: a page that sends the reader
    to the same page there (a refresh, a link, and its canonical address), so ``latest/`` always leads
    to the newest version on any static host, one that follows no symbolic link included."""
    label = top.newest.label
    files = {}
    for path in pages:
        if not path.endswith(".html") or path.rpartition("/")[2] == "404.html":
            continue
        here, there = f"{LATEST}/{path}", f"{label}/{path}"
        locale = path.split("/")[0] if path.split("/")[0] in top.catalogs else top.site.locales[0]
        context = {"target": relative(here, there), "canonical": absolute(top.base_url, there), "label": label}
        files[here] = renderer.top_file("html/latest.html.j2", top.site, top.catalogs, locale, here, context)
    return files


def llms_full_pointer(site: SiteModel, catalogs: Mapping[str, Catalog], label: str, path: str) -> bytes:
    """What stands for an older version's ``L/llms-full*.txt`` (*path*, within the version) once a slimmed
    site no longer keeps it: a short text in the locale's language that sends the reader to ``L/llms.txt``."""
    code = path.split("/")[0]
    catalog = catalogs.get(code) or catalogs[site.locales[0]]
    text = (
        f"# {site.title} {label}\n\n> {catalog.t('versions.slimmed')}\n\n"
        f"- [llms.txt](llms.txt): {catalog.t('llms.locale_summary', language=catalog.native_name)}\n"
    )
    return visible(text).encode("utf-8")
