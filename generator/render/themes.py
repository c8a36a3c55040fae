"""Themes: a ``--templates`` directory searched before the shipped templates.

``shipped/NAME`` always names the shipped template, so a theme can extend the template it
hides (as pdoc's ``default/`` does); a theme's macro library overrides macro by macro; and
a failure inside a theme's template is one paragraph naming its file and line, while a
failure only the shipped templates are part of stays a bug of ours.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PrefixLoader,
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
    nodes,
)
from jinja2.loaders import split_template_path

from generator.errors import PortalError
from generator.resources import data_dir
from generator.text import one_line

SHIPPED_PREFIX = "shipped"
"""``{% extends "shipped/html/tool.html.j2" %}`` names the shipped template even where a theme hides it."""


def _normal(name: str) -> str:
    """A template name as the loaders see it (``html/./tool.html.j2`` is ``html/tool.html.j2``)."""
    try:
        return "/".join(split_template_path(name))
    except TemplateNotFound:
        return name


class _ThemeLoader(FileSystemLoader):
    """A ``--templates`` directory, searched before the shipped templates.

    Two things happen on loading a theme's template. One naming its own name in
    ``extends``/``import`` would load itself forever (the theme hides the shipped namesake),
    so it fails with a paragraph pointing at ``shipped/``. And a macro library (a file
    named ``_*``, like ``html/_macros.html.j2``) overrides macro by macro: it receives
    every shipped macro it does not define itself, so it holds only the macros it changes.
    """

    def __init__(self, directory: Path, shipped: FileSystemLoader) -> None:
        super().__init__(str(directory))
        self.directory = directory
        self.shipped = shipped

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        try:
            source, filename, uptodate = super().get_source(environment, template)
        except UnicodeDecodeError:
            raise PortalError(
                f"The template {template} in {self.directory} is not UTF-8 text. Save it as UTF-8 and run again."
            ) from None
        tree = environment.parse(source, template, filename)
        name = _normal(template)
        for node in tree.find_all((nodes.Extends, nodes.Import, nodes.FromImport)):
            target = getattr(node, "template", None)
            if isinstance(target, nodes.Const) and _normal(str(target.value)) == name:
                if isinstance(node, nodes.Extends):
                    verb, fix = "extends", f'{{% extends "{SHIPPED_PREFIX}/{name}" %}}'
                else:
                    verb, fix = "imports", f'{{% import "{SHIPPED_PREFIX}/{name}" as base with context %}}'
                raise PortalError(
                    f'The template {filename}, line {node.lineno}, {verb} "{template}", its own name, so it would '
                    f"load itself forever: a template in the template directory hides the shipped one of the same "
                    f"name. To build on the shipped template, name it with the {SHIPPED_PREFIX}/ prefix: {fix}."
                )
        return self._inherit_macros(environment, name, tree) + source, filename, uptodate

    def _inherit_macros(self, environment: Environment, name: str, tree: nodes.Template) -> str:
        """For a macro library, one line importing the shipped macros it does not define.

        Prepended without a newline, so the theme's line numbers stay those of its file.
        """
        if not name.rsplit("/", 1)[-1].startswith("_"):
            return ""
        try:
            shipped_source, shipped_file, _ = self.shipped.get_source(environment, name)
        except TemplateNotFound:
            return ""
        own = {node.name for node in tree.body if isinstance(node, nodes.Macro)}
        shipped_tree = environment.parse(shipped_source, name, shipped_file)
        inherited = [
            node.name
            for node in shipped_tree.body
            if isinstance(node, nodes.Macro) and node.name not in own and not node.name.startswith("_")
        ]
        if not inherited:
            return ""
        # A top-level {% set %} exports the name from the module (a {% from ... import %} would not).
        module = "_shipped_macros"
        return (
            f'{{% import "{SHIPPED_PREFIX}/{name}" as {module} with context %}}'
            f"{{% set {', '.join(inherited)} = {', '.join(f'{module}.{m}' for m in inherited)} %}}"
        )


def _where(exc: BaseException, theme: Path, shipped: Path) -> tuple[str, int] | None:
    """The innermost line of a theme template in the exception's traceback, if any."""

    def in_theme(filename: str) -> bool:
        path = Path(filename).resolve()
        return path.is_relative_to(theme.resolve()) and not path.is_relative_to(shipped.resolve())

    if isinstance(exc, TemplateSyntaxError) and exc.filename and in_theme(exc.filename):
        return exc.filename, exc.lineno
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(".j2")]
    ours = [f for f in frames if in_theme(f.filename)]
    return (ours[-1].filename, ours[-1].lineno or 0) if ours else None


def theme_failure(exc: BaseException, theme: Path, shipped: Path) -> str | None:
    """One paragraph for a failure inside a theme's template, or None when no theme template is involved.

    A failure only the shipped templates are part of is a bug of ours and stays one.
    """
    where = _where(exc, theme, shipped)
    if where is None:
        return None
    filename, line = where
    at = f"The template {filename}, line {line},"
    if isinstance(exc, TemplateSyntaxError):
        return f"{at} is not valid Jinja: {one_line(exc.message or '')}. Fix it and run again."
    if isinstance(exc, RecursionError):
        return (
            f"{at} is part of a cycle: templates of {theme} extend, import or include each other without end. "
            f"Break the cycle; to build on a shipped template, name it with {SHIPPED_PREFIX}/, as in "
            f'{{% extends "{SHIPPED_PREFIX}/html/tool.html.j2" %}}.'
        )
    if isinstance(exc, TemplateNotFound):
        return (
            f"{at} names the template {one_line(exc.name)!r}, which neither {theme} nor mcp-portal has. Shipped "
            f"templates are named like html/tool.html.j2 (or {SHIPPED_PREFIX}/html/tool.html.j2 for the shipped "
            f"one itself, even where the theme hides it)."
        )
    if isinstance(exc, TemplateError):
        return (
            f"{at} failed: {one_line(exc.message or type(exc).__name__)}. Check the names it uses against the "
            f"shipped template it replaces (run with --debug for the full traceback)."
        )
    if isinstance(exc, KeyError) and str(exc.args[0] if exc.args else "").startswith("no UI string"):
        # Catalog.t() on a key no catalog has: the key came from the template, so it is safe to show.
        return (
            f"{at} asks for a UI string no catalog has: {one_line(exc.args[0])}. Add it to the theme's "
            f"locales/en.yaml under `theme:` (and to the other locales), or fix its spelling."
        )
    return (
        f"{at} failed with {type(exc).__name__} while rendering. Check what it passes to filters, macros and "
        f"t() against the shipped template it replaces (run with --debug for the full traceback)."
    )


class ThemeEnvironment(Environment):
    """An environment whose failures inside a theme's templates become one :class:`PortalError` paragraph."""

    theme: Path | None = None

    def handle_exception(self, source: str | None = None) -> NoReturn:
        # Jinja calls this for every failure in compiling or rendering, with the exception being handled.
        try:
            super().handle_exception(source)
        except PortalError:
            raise
        except Exception as exc:  # anything a theme's template did; re-raised unless it is theirs
            message = theme_failure(exc, self.theme, data_dir("templates")) if self.theme else None
            if message is None:
                raise
            raise PortalError(message) from exc


def template_loader(template_dir: Path | None) -> BaseLoader:
    """The theme (if any), then the shipped templates; ``shipped/NAME`` is always the shipped NAME.

    The prefix is looked up first, so that a theme cannot hide it (pdoc's ``default/`` works the same).
    """
    shipped = FileSystemLoader(str(data_dir("templates")))
    theme = [_ThemeLoader(template_dir, shipped)] if template_dir else []
    return ChoiceLoader([PrefixLoader({SHIPPED_PREFIX: shipped}), *theme, shipped])
