"""Rendering: pure functions from (model, page, locale) to text.

One Jinja2 environment with autoescape renders HTML; a second, without it,
renders Markdown and llms.txt, whose templates escape through filters.  A
user's template directory is searched before the shipped one, so any template
or macro can be overridden (:mod:`generator.render.themes`).  Nothing here touches the
file system's output.

The work is bounded by a :class:`Deadline` (``--max-render-seconds``): it is
checked before each tool's examples are found (:func:`find_examples`, which
also names the patterns that could not be decided) and before each page is
rendered.  The clock only decides whether the build fails; it never changes
what a finished build writes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from jinja2 import (
    Environment,
    StrictUndefined,
    nodes,
)
from jinja2.ext import Extension
from jinja2.parser import Parser

from generator import __version__
from generator.errors import PortalError
from generator.model.kinds import PageKind
from generator.model.pages import Page, absolute, pages_for, relative
from generator.model.product import Doc
from generator.model.site import SiteModel
from generator.model.tool import ToolDoc
from generator.render.extras import (
    CONTENT_SECURITY_POLICY,
    CSP_META,
    FAVICON,
    THEME_SCRIPT,
    csp_meta,
    headers,
    nav_script,
    nav_tools,
    robots,
    site_root_path,
    sitemap,
)
from generator.render.filters import (
    FILTERS,
    GLOBALS,
    MarkdownCatalog,
    markdown_environment,
    md_finalize,
    md_url,
)
from generator.render.i18n import Catalog
from generator.render.layout import LAYOUT_FILTERS
from generator.render.names import names_script
from generator.render.rendered import RenderedPage
from generator.render.rows import row_globals
from generator.render.sentences import HTML_GLOBALS, MD_GLOBALS
from generator.render.shown import HtmlContext, finalize_html, rendered
from generator.render.themes import ThemeEnvironment, template_loader
from generator.schema.patterns import describe
from generator.text import visible


class Deadline:
    """The build's time budget for modelling and rendering, checked between units of work.

    Checked cooperatively (before a tool's examples, before a page), so one unit can run
    past it by its own bounded cost; running out raises :class:`PortalError`, before
    anything is written.
    """

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.ends = clock() + seconds

    def check(self, doing: str) -> None:
        """Fail with one paragraph when the budget is spent; ``doing`` says what was next."""
        if self.clock() <= self.ends:
            return
        raise PortalError(
            f"The build ran out of its time budget of {self.seconds:g} seconds while {doing}, so it stopped "
            f"and wrote nothing; the previous site is untouched. Finding examples for large or "
            f"pathological schemas and rendering many pages take time: raise the budget with "
            f"--max-render-seconds (or `limits: max_render_seconds` in portal.yaml), or document fewer "
            f"tools with --max-tools."
        )


def _name(text: str) -> str:
    """A server-given name for a message: cut, hidden characters made visible."""
    return visible(text if len(text) <= 80 else text[:79] + "…")


def find_examples(
    site: SiteModel, deadline: Deadline | None = None, tools: Sequence[ToolDoc] | None = None
) -> list[str]:
    """Find every tool's examples now, under the deadline; a warning per undecided pattern.

    The model finds examples lazily; doing it here, tool by tool, lets the budget name the
    tool it stopped at, and lets a pattern that could not be decided in bounded time be
    reported with the tool it belongs to (that tool shows no example).
    """
    warnings: list[str] = []
    for tool in site.tools if tools is None else tools:
        if deadline is not None:
            deadline.check(f"finding examples for tool {_name(tool.name)}")
        undecided = tool.undecided_patterns
        warnings += [
            f"tool {_name(tool.name)}: pattern {describe(source)} could not be decided in bounded time "
            f"(catastrophic backtracking or too large), so the tool shows no example; simplify the pattern"
            for source in undecided
        ]
    return warnings


def _environment(template_dir: Path | None, autoescape: bool) -> Environment:
    env = ThemeEnvironment(
        loader=template_loader(template_dir),
        autoescape=autoescape,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,  # templates do not change during a build: no stat() per get_template
        trim_blocks=True,
        lstrip_blocks=True,
        # Markdown has no autoescape: md_finalize escapes every string no md_* filter made safe.
        finalize=finalize_html if autoescape else md_finalize,
        extensions=[] if autoescape else [SectionMarks],
    )
    env.theme = template_dir
    env.filters.update(FILTERS)
    env.globals.update(row_globals(autoescape))
    if autoescape:
        env.context_class = HtmlContext
        env.filters.update(LAYOUT_FILTERS)
        env.globals.update(HTML_GLOBALS)
    env.globals.update(GLOBALS)
    if not autoescape:
        env.globals.update(MD_GLOBALS)
        markdown_environment(env)
    return env


@dataclass(frozen=True)
class Context:
    """What every template receives, besides the page itself."""

    site: SiteModel
    page: Page
    L: Catalog
    catalogs: Mapping[str, Catalog]
    in_twin: bool = False
    """True while rendering the Markdown twin: links start from the twin's location."""
    from_path: str | None = None
    """Where the text will live when that is not the page itself (a twin inside llms-full.txt)."""
    marks: list[int] | None = None
    """When given, links are written as site paths between markers and counted here, so one
    rendering of a twin can be given the links of both places it lives (see :func:`render_page`)."""

    def url(self, target: Page | str, *, twin: bool = False) -> str:
        """Relative link from this page to another page (or to a site path)."""
        if isinstance(target, Page):
            path = target.md_path if twin else target.html_path
        else:
            path = target
        if self.marks is not None:
            self.marks[0] += 1
            return f"{_MARK_START}{path}{_MARK_END}"
        return relative(self.here(), path)

    def absolute_or_relative(self, target: Page) -> str:
        """hreflang alternates: absolute when the base URL is known (as search engines want)."""
        return absolute(self.site.config.base_url, target.html_path) or self.url(target)

    def llms_link(self, path: str, *, root: bool) -> str:
        """A link in an llms.txt: absolute with a base URL, else relative to that llms.txt."""
        public = absolute(self.site.config.base_url, path)
        if public:
            return public
        return path if root else relative(f"{self.page.locale}/llms.txt", path)

    def here(self) -> str:
        if self.from_path:
            return self.from_path
        return self.page.md_path if self.in_twin else self.page.html_path

    @property
    def canonical(self) -> str | None:
        return absolute(self.site.config.base_url, self.page.html_path)

    @property
    def canonical_or_path(self) -> str:
        """The canonical URL, else the page's path from the root of the site (a versioned site's, with the version)."""
        version = f"{self.site.history.current}/" if self.site.history is not None else ""
        return self.canonical or "/" + version + self.page.directory

    def alternates(self) -> list[tuple[Catalog, Page]]:
        return [(self.catalogs[code], self.page.in_locale(code)) for code in self.site.locales]

    def tool_page(self, tool: Doc) -> Page:
        """The page of a tool, in this page's locale."""
        return Page.of(tool, self.page.locale)

    def page_of(self, kind: str) -> Page:
        """The locale's page of *kind*, named by its string in templates (``ctx.page_of("changes")``)."""
        return Page(PageKind(kind), self.page.locale)

    def item_page(self, item: Doc) -> Page:
        """The page of a prompt, resource or resource template (or a tool), in this page's locale."""
        return Page.of(item, self.page.locale)


class Renderer:
    """Renders every page, twin and llms.txt of a site."""

    def __init__(self, template_dir: Path | None = None) -> None:
        """Templates are compiled in memory, by this renderer's environments, and never kept on disk: compiled
        code read back from a file would be code that anyone able to write the file could make a build run."""
        self.html = _environment(template_dir, autoescape=True)
        self.text = _environment(template_dir, autoescape=False)

    def _globals(self, site: SiteModel, catalog: Catalog) -> dict[str, Any]:
        return {
            "site": site,
            "L": catalog,
            "t": catalog.t,
            "tn": catalog.plural,
            "generator_version": __version__,
            "csp_meta": CSP_META,
            "csp_for": csp_meta,
            "theme_script": THEME_SCRIPT,
            "favicon": FAVICON,
        }

    def _md_globals(self, site: SiteModel, catalog: Catalog) -> dict[str, Any]:
        """As :meth:`_globals`, with ``t``/``tn`` escaping their placeholders for Markdown."""
        md = MarkdownCatalog(catalog)
        return self._globals(site, catalog) | {"t": md.t, "tn": md.plural}

    def preload(self, pages: Iterable[Page]) -> None:
        """Compile the templates of *pages* now, so worker processes forked later inherit them."""
        for name in sorted({page.template for page in pages}):
            self.html.get_template(f"html/{name}.html.j2")
            self.text.get_template(f"md/{name}.md.j2")

    def page_html(self, site: SiteModel, page: Page, catalogs: Mapping[str, Catalog]) -> str:
        ctx = Context(site, page, catalogs[page.locale], catalogs)
        template = self.html.get_template(f"html/{page.template}.html.j2")
        return rendered(template, self._globals(site, ctx.L), page=page, ctx=ctx)

    def page_md(
        self,
        site: SiteModel,
        page: Page,
        catalogs: Mapping[str, Catalog],
        from_path: str | None = None,
        marks: list[int] | None = None,
    ) -> str:
        ctx = Context(site, page, catalogs[page.locale], catalogs, in_twin=True, from_path=from_path, marks=marks)
        template = self.text.get_template(f"md/{page.template}.md.j2")
        return rendered(template, self._md_globals(site, ctx.L), page=page, ctx=ctx)

    def llms(
        self,
        site: SiteModel,
        catalogs: Mapping[str, Catalog],
        locale: str | None,
        parts: Mapping[str, Sequence[Any]] | None = None,
        part_tokens: int = 0,
    ) -> str:
        """The root llms.txt (``locale=None``) or one locale's; *parts* are the files of each locale's
        ``llms-full.txt`` when it is split in parts of about *part_tokens* tokens."""
        code = locale or site.locales[0]
        page = Page(PageKind.INDEX, code)
        ctx = Context(site, page, catalogs[code], catalogs)
        name = "llms/locale.txt.j2" if locale else "llms/root.txt.j2"
        split = {} if parts is None else {"parts": parts, "part_tokens": part_tokens}
        return rendered(
            self.text.get_template(name),
            self._md_globals(site, ctx.L),
            ctx=ctx,
            pages=pages_for(site),
            root=locale is None,
            **split,
        )

    def twin_pointer(self, site: SiteModel, catalogs: Mapping[str, Catalog], locale: str) -> str:
        """What every twin of *locale* repeats after its title (``md/pointer.md.j2``), with its links as
        they read from ``L/llms-full.txt``: the same bytes in every copy there, so it can be stated once."""
        ctx = Context(site, Page(PageKind.INDEX, locale), catalogs[locale], catalogs, in_twin=True,
                      from_path=f"{locale}/llms-full.txt")  # fmt: skip
        template = self.text.get_template("md/pointer.md.j2")
        text: str = rendered(template, self._md_globals(site, ctx.L), ctx=ctx)
        return text.strip("\n")

    def not_found(self, site: SiteModel, catalogs: Mapping[str, Catalog], locale: str) -> str:
        """A 404 page: served at any URL, so its links are absolute paths from the site root."""
        ctx = Context(site, Page(PageKind.INDEX, locale), catalogs[locale], catalogs)
        return rendered(
            self.html.get_template("html/404.html.j2"),
            self._globals(site, ctx.L),
            ctx=ctx,
            root=site_root_path(site),
            csp=CONTENT_SECURITY_POLICY,
        )

    def top_file(
        self,
        template: str,
        site: SiteModel,
        catalogs: Mapping[str, Catalog],
        locale: str,
        path: str,
        context: Mapping[str, Any],
    ) -> str:
        """A file of a versioned site's top level (:mod:`generator.render.versions`), at the site path *path*:
        HTML and XML templates with autoescape, text ones (``llms/``) with the Markdown filters."""
        ctx = Context(site, Page(PageKind.INDEX, locale), catalogs[locale], catalogs, from_path=path)
        markup = not template.startswith("llms/")
        env = self.html if markup else self.text
        names = self._globals(site, ctx.L) if markup else self._md_globals(site, ctx.L)
        return rendered(env.get_template(template), names, ctx=ctx, **context)

    def root_index(self, site: SiteModel, catalogs: Mapping[str, Catalog]) -> str:
        code = site.locales[0]
        ctx = Context(site, Page(PageKind.INDEX, code), catalogs[code], catalogs, from_path="index.html")
        return rendered(self.html.get_template("html/root.html.j2"), self._globals(site, ctx.L), ctx=ctx)


_MARK_START, _MARK_END = "\x01", "\x02"
_MARKED = re.compile("%01(.*?)%02")
"""A marked link once ``md_url`` has percent-encoded it. Server text cannot produce one: every
expression shows control characters as ``[U+0001]``, and a stray match is caught by the count."""


def _relink(here: str, encoded: str) -> str:
    """The link target ``md_url(ctx.url(...))`` gives from *here* to the marked site path."""
    return md_url(relative(here, unquote(encoded)))


def render_page(site: SiteModel, page: Page, catalogs: Mapping[str, Catalog], renderer: Renderer) -> RenderedPage:
    """One page: its HTML, its Markdown twin, and the twin as ``llms-full.txt`` holds it.

    The twin lives in two places whose links differ: its own file and ``llms-full.txt``. It is
    rendered once with its links marked, and each copy gets its own relative links. If the
    markers found are not exactly the links written (which no real page does), both copies are
    rendered in full instead, so the result is always what two renderings would give. A page
    depends only on the model, so pages can be rendered in any order and in any process.
    """
    full = f"{page.locale}/llms-full.txt"
    html = renderer.page_html(site, page, catalogs)
    marks = [0]
    marked = renderer.page_md(site, page, catalogs, marks=marks)
    if len(_MARKED.findall(marked)) != marks[0]:
        twin, copy = renderer.page_md(site, page, catalogs), renderer.page_md(site, page, catalogs, from_path=full)
    else:
        twin = _MARKED.sub(lambda m: _relink(page.md_path, m.group(1)), marked)
        copy = _MARKED.sub(lambda m: _relink(full, m.group(1)), marked)
    return RenderedPage(page.html_path, html, page.md_path, for_twin(twin), for_full(copy))


TWIN_ONLY = ("\x03", "\x04")
"""Around what a twin holds and its copy in ``llms-full.txt`` leaves out (the raw schemas, the call's
shape, the sequences, front matter): the copy links to its twin for them. Control characters, which
server text cannot produce (every value a page shows passes :func:`generator.text.visible`)."""
FULL_ONLY = ("\x05", "\x06")
"""Around what only the copy in ``llms-full.txt`` holds (the link to the complete twin)."""


class SectionMarks(Extension):
    """``{% twin_only %}…{% endtwin_only %}`` and ``{% full_only %}…{% endfull_only %}`` in Markdown
    templates, each with an optional condition (``{% twin_only tool.example_request %}``): the body
    between :data:`TWIN_ONLY` (or :data:`FULL_ONLY`) markers, written as template text, so no
    ``finalize`` turns them into visible ``[U+0003]`` (server text goes through it and never can hold one)."""

    tags = {"twin_only", "full_only"}  # noqa: RUF012 (Jinja reads the class attribute as a set)

    def parse(self, parser: Parser) -> list[nodes.Node]:
        token = next(parser.stream)
        condition = None if parser.stream.current.type == "block_end" else parser.parse_expression()
        body = parser.parse_statements((f"name:end{token.value}",), drop_needle=True)
        start, end = TWIN_ONLY if token.value == "twin_only" else FULL_ONLY
        opening = nodes.Output([nodes.TemplateData(start)]).set_lineno(token.lineno)
        closing = nodes.Output([nodes.TemplateData(end)]).set_lineno(token.lineno)
        if condition is None:
            return [opening, *body, closing]
        return [
            nodes.If(condition, [opening], [], []).set_lineno(token.lineno),
            *body,
            nodes.If(condition, [closing], [], []).set_lineno(token.lineno),
        ]


_TWIN_ONLY = re.compile("\x03[^\x04]*\x04")
_FULL_ONLY = re.compile("\x05[^\x06]*\x06")


def for_twin(md: str) -> str:
    """A twin as its own file: what only ``llms-full.txt`` holds is cut, the rest unmarked."""
    if "\x05" not in md and "\x03" not in md:
        return md
    return _FULL_ONLY.sub("", md).replace(TWIN_ONLY[0], "").replace(TWIN_ONLY[1], "")


def for_full(md: str) -> str:
    """A twin's copy for ``llms-full.txt``: what only the twin holds is cut, the rest unmarked."""
    if "\x05" not in md and "\x03" not in md:
        return md
    return _TWIN_ONLY.sub("", md).replace(FULL_ONLY[0], "").replace(FULL_ONLY[1], "")


def site_wide_files(
    site: SiteModel, catalogs: Mapping[str, Catalog], renderer: Renderer, *, llms: bool = True, names: bool = True
) -> dict[str, str]:
    """The files made from the whole site rather than one page: entry page, llms.txt (unless not *llms*),
    404s, nav and the name index (unless not *names*), hosting."""
    files: dict[str, str] = {"index.html": renderer.root_index(site, catalogs)}
    if llms:
        files["llms.txt"] = renderer.llms(site, catalogs, None)
    tools = nav_tools(site)
    for code in site.locales:
        if llms:
            files[f"{code}/llms.txt"] = renderer.llms(site, catalogs, code)
        files[f"{code}/404.html"] = renderer.not_found(site, catalogs, code)
        files[f"{code}/nav.js"] = nav_script(site, catalogs[code], tools)
        if names:
            files[f"{code}/names.js"] = names_script(site, catalogs[code])
    files["404.html"] = renderer.not_found(site, catalogs, site.locales[0])
    files["robots.txt"] = robots(site)
    files["_headers"] = headers(site)
    if (xml := sitemap(site)) is not None:
        files["sitemap.xml"] = xml
    files.update({path: site.discovery.text(path) for path in site.discovery.documents})
    return files


def render_site(
    site: SiteModel,
    catalogs: Mapping[str, Catalog],
    renderer: Renderer,
    on_page: Callable[[str], None] | None = None,
    deadline: Deadline | None = None,
) -> dict[str, str]:
    """Every text file of the site, keyed by its path relative to the site root (in memory: small sites, tests)."""
    if deadline is not None:
        deadline.check("rendering the entry page")
    files = site_wide_files(site, catalogs, renderer)
    twins: dict[str, list[str]] = {code: [] for code in site.locales}
    for page in pages_for(site):
        if deadline is not None:
            deadline.check(f"rendering {_name(page.html_path)}")
        rendered = render_page(site, page, catalogs, renderer)
        files[page.html_path], files[page.md_path] = rendered.html, rendered.md
        twins[page.locale].append(rendered.full)
        if on_page:
            on_page(page.html_path)
    for code, parts in twins.items():
        # Every twin of the locale in the site's page order, for readers that want one file.
        files[f"{code}/llms-full.txt"] = "\n".join(parts)
    return files
