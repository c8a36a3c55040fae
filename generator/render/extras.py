"""Site-wide files for hosts and crawlers: sitemap.xml, robots.txt, _headers.

Pure functions of the model: they return text and never touch the file system.
"""

from __future__ import annotations

from urllib.parse import urlsplit
from xml.sax.saxutils import escape, quoteattr

from generator.model.pages import absolute, pages_for
from generator.model.site import SiteModel

# What the pages need and nothing more: no other hosts, no inline script, no plugins.
# 'wasm-unsafe-eval' lets Pagefind's WebAssembly search run; nothing else is evaluated.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


# A <meta> policy cannot carry frame-ancestors (browsers ignore it there and warn).
CSP_META = CONTENT_SECURITY_POLICY.replace("; frame-ancestors 'none'", "")


def site_root_path(site: SiteModel) -> str:
    """The URL path the site is served under (``/`` or e.g. ``/developers/``)."""
    base = site.config.base_url
    return urlsplit(base).path if base else "/"


def sitemap(site: SiteModel) -> str | None:
    """sitemap.xml with hreflang alternates (and x-default); needs the base URL to be absolute."""
    if not site.config.base_url:
        return None
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


def headers(site: SiteModel) -> str:
    """A ``_headers`` file (Cloudflare Pages, Netlify): content types and security headers."""
    root = site_root_path(site)
    return "\n".join(
        [
            f"{root}*",
            f"  Content-Security-Policy: {CONTENT_SECURITY_POLICY}",
            "  X-Content-Type-Options: nosniff",
            "  Referrer-Policy: strict-origin-when-cross-origin",
            "  Permissions-Policy: camera=(), microphone=(), geolocation=()",
            "  Cross-Origin-Opener-Policy: same-origin",
            f"{root}*.md",
            "  Content-Type: text/markdown; charset=utf-8",
            f"{root}*.txt",
            "  Content-Type: text/plain; charset=utf-8",
            f"{root}snapshot.json",
            "  Content-Type: application/json; charset=utf-8",
            "",
        ]
    )
