"""mcp-portal: turn a running MCP server into a localized documentation portal.

The pipeline runs one way: ``introspect`` (speaks MCP) -> ``snapshot`` (frozen JSON)
-> ``model`` (pages, rows, examples) -> ``render`` (Jinja2) -> ``publish`` (files).

Importing the package does one thing besides: it defers the IRI grammar of jsonschema's
``iri`` and ``iri-reference`` format checkers until a value is first checked against one
(:class:`_DeferIriGrammar`).  jsonschema's ``_format`` module imports ``rfc3987_syntax``
when it is imported itself, and that package compiles some twenty Lark grammars at import:
about 0.9 s, two thirds of ``mcp-portal build --from``'s start-up, for two formats few
servers use.  Every jsonschema import in the process still gets the same format checkers,
with the same function behind ``iri`` and ``iri-reference`` (``rfc3987_syntax``'s
``is_valid_syntax``), the same drafts (7, 2019-09, 2020-12) and the same ``raises``;
only the moment the grammar is built moves.  ``tests/test_startup.py`` holds both halves:
the grammar is not imported by ``build``, ``check`` or ``introspect``, and the checkers
are the ones a plain ``import jsonschema`` registers, with the same verdicts.
This lives here, not in a stage, because it must be in place before any stage (or the
MCP SDK) imports jsonschema, and this module is the one every entry point imports first.
"""

from __future__ import annotations

import sys
from functools import cache
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

__version__ = "0.1.0"

_GRAMMAR = "rfc3987_syntax"
_FORMATS = "jsonschema._format"


@cache
def _iri_syntax() -> Any:
    """``rfc3987_syntax.is_valid_syntax``, imported (and its grammars built) on the first IRI check.

    Should the import fail, every value passes, as it would had jsonschema found no IRI checker.
    """
    try:
        from rfc3987_syntax import is_valid_syntax  # type: ignore[import-untyped]
    except ImportError:
        return lambda term, value: True
    return is_valid_syntax


def _is_iri(instance: object) -> bool:
    """jsonschema's ``iri`` checker, word for word, with the grammar imported on first use."""
    if not isinstance(instance, str):
        return True
    return bool(_iri_syntax()("iri", instance))


def _is_iri_reference(instance: object) -> bool:
    """jsonschema's ``iri-reference`` checker, word for word, with the grammar imported on first use."""
    if not isinstance(instance, str):
        return True
    return bool(_iri_syntax()("iri_reference", instance))


def _register(formats: ModuleType) -> None:
    """Register the two checkers as ``jsonschema._format`` registers its own, unless it found another."""
    if "iri" in formats.draft7_format_checker.checkers:  # e.g. the rfc3987 package
        return
    drafts = formats._checks_drafts
    drafts(draft7="iri", draft201909="iri", draft202012="iri", raises=ValueError)(_is_iri)
    reference = "iri-reference"
    drafts(draft7=reference, draft201909=reference, draft202012=reference, raises=ValueError)(_is_iri_reference)


class _DeferIriGrammar:
    """A one-shot import hook for ``jsonschema._format``: runs it with ``rfc3987_syntax`` hidden,
    then registers :func:`_is_iri` and :func:`_is_iri_reference` exactly where jsonschema would.

    Hidden means ``sys.modules["rfc3987_syntax"] = None`` for the duration, which makes the
    import raise ImportError; jsonschema then skips the two checkers, as it does when the package
    is not installed.  The entry is removed right after, so a later import gets the real package.
    Nothing is deferred when the grammar is already imported, when it is not installed, or when
    jsonschema found another IRI implementation (the ``rfc3987`` package).
    """

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name != _FORMATS:
            return None
        sys.meta_path[:] = [finder for finder in sys.meta_path if finder is not self]
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or _GRAMMAR in sys.modules or PathFinder.find_spec(_GRAMMAR) is None:
            return spec
        inner = spec.loader
        exec_module = inner.exec_module

        def deferred(module: ModuleType) -> None:
            sys.modules[_GRAMMAR] = None  # type: ignore[assignment]  # import of it raises ImportError
            try:
                exec_module(module)
            finally:
                if sys.modules.get(_GRAMMAR, ...) is None:
                    del sys.modules[_GRAMMAR]
            try:
                _register(module)
            except AttributeError:  # a jsonschema laid out otherwise: run it again, grammar and all
                exec_module(module)

        inner.exec_module = deferred  # type: ignore[method-assign]
        return spec


if _FORMATS not in sys.modules:
    sys.meta_path.insert(0, _DeferIriGrammar())  # type: ignore[arg-type]
