"""mcp-portal: turn a running MCP server into a localized documentation portal.

The pipeline runs one way: ``introspect`` (speaks MCP) -> ``snapshot`` (frozen JSON)
-> ``model`` (pages, rows, examples) -> ``render`` (Jinja2) -> ``publish`` (files).

Importing the package does one thing besides: it defers three of the packages behind jsonschema's
format checkers until a value is first checked against one of their formats
(:class:`_DeferFormatPackages`).  jsonschema's ``_format`` module imports them when it is
imported itself: ``rfc3987_syntax`` (the ``iri`` and ``iri-reference`` formats) compiles some
twenty Lark grammars, about 0.9 s, two thirds of ``mcp-portal build --from``'s start-up once;
``rfc3986_validator`` (``uri`` and ``uri-reference``) compiles one large regular expression,
about 34 ms, and ``isoduration`` (``duration``) imports ``arrow`` and ``dateutil``, about 28 ms:
each a fortieth of a one-tool rebuild at 1,000 tools.  Every jsonschema import in the process
still gets the same format checkers, with the same function behind each of those five formats
(the package's own, called as jsonschema calls it), the same drafts and the same ``raises``
(for ``duration``, the base class of the one jsonschema names, which cannot be named without the
import); only the moment the package is imported moves.  ``tests/test_startup.py`` holds both
halves: no such package is imported by ``build``, ``check`` or ``introspect`` until a value of
its formats is checked, and the checkers are the ones a plain ``import jsonschema`` registers,
with the same verdicts.
This lives here, not in a stage, because it must be in place before any stage (or the
MCP SDK) imports jsonschema, and this module is the one every entry point imports first.
"""

from __future__ import annotations

import importlib
import sys
from functools import cache
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

__version__ = "0.1.0"

_GRAMMAR = "rfc3987_syntax"
_URI = "rfc3986_validator"
_DURATION = "isoduration"
_FORMATS = "jsonschema._format"


@cache
def _deferred(package: str, name: str) -> Any:
    """*package*'s *name*, imported on the first check of a value against one of its formats (the IRI
    grammar builds some twenty Lark grammars then, the URI validator compiles its expression). None when
    the import fails: then every value passes, as it would had jsonschema found no checker for the format.
    """
    try:
        return getattr(importlib.import_module(package), name)
    except ImportError:
        return None


def _iri_syntax(term: str, value: str) -> bool:
    check = _deferred(_GRAMMAR, "is_valid_syntax")
    return True if check is None else bool(check(term, value))


def _uri_syntax(value: str, rule: str) -> Any:
    check = _deferred(_URI, "validate_rfc3986")
    return True if check is None else check(value, rule=rule)


def _is_iri(instance: object) -> bool:
    """jsonschema's ``iri`` checker, word for word, with the grammar imported on first use."""
    if not isinstance(instance, str):
        return True
    return _iri_syntax("iri", instance)


def _is_iri_reference(instance: object) -> bool:
    """jsonschema's ``iri-reference`` checker, word for word, with the grammar imported on first use."""
    if not isinstance(instance, str):
        return True
    return _iri_syntax("iri_reference", instance)


def _is_uri(instance: object) -> Any:
    """jsonschema's ``uri`` checker, word for word, with ``rfc3986_validator`` imported on first use."""
    if not isinstance(instance, str):
        return True
    return _uri_syntax(instance, "URI")


def _is_uri_reference(instance: object) -> Any:
    """jsonschema's ``uri-reference`` checker, word for word, with ``rfc3986_validator`` imported on first use."""
    if not isinstance(instance, str):
        return True
    return _uri_syntax(instance, "URI_reference")


def _is_duration(instance: object) -> bool:
    """jsonschema's ``duration`` checker, word for word, with ``isoduration`` imported on first use."""
    if not isinstance(instance, str):
        return True
    parse = _deferred(_DURATION, "parse_duration")
    if parse is None:
        return True
    parse(instance)
    # FIXME (jsonschema's): See bolsote/isoduration#25 and bolsote/isoduration#21
    return instance.endswith(tuple("DMYWHMS"))


def _register_duration(formats: ModuleType) -> None:
    """Register the ``duration`` checker as ``jsonschema._format`` registers its own.

    jsonschema's ``raises`` is ``isoduration.DurationParsingException``, which cannot be named without
    importing the package; its base class, ``ValueError``, is named instead. Every value is decided
    the same, and the cause of a failure is the same exception.
    """
    formats._checks_drafts(draft201909="duration", draft202012="duration", raises=ValueError)(_is_duration)


def _register_iri(formats: ModuleType) -> None:
    """Register the IRI checkers as ``jsonschema._format`` registers its own, unless it found another."""
    if "iri" in formats.draft7_format_checker.checkers:  # e.g. the rfc3987 package
        return
    drafts = formats._checks_drafts
    drafts(draft7="iri", draft201909="iri", draft202012="iri", raises=ValueError)(_is_iri)
    reference = "iri-reference"
    drafts(draft7=reference, draft201909=reference, draft202012=reference, raises=ValueError)(_is_iri_reference)


def _register_uri(formats: ModuleType) -> None:
    """Register the URI checkers as ``jsonschema._format`` registers its own, unless it found another."""
    if "uri" in formats.draft7_format_checker.checkers:  # e.g. the rfc3987 package
        return
    drafts = formats._checks_drafts
    drafts(name="uri")(_is_uri)
    reference = "uri-reference"
    drafts(draft6=reference, draft7=reference, draft201909=reference, draft202012=reference, raises=ValueError)(
        _is_uri_reference
    )


_DEFERRED = {_URI: _register_uri, _DURATION: _register_duration, _GRAMMAR: _register_iri}
"""The packages deferred, each with what registers its checkers (in the order jsonschema registers them)."""


class _DeferFormatPackages:
    """A one-shot import hook for ``jsonschema._format``: runs it with the packages of :data:`_DEFERRED`
    hidden, then registers the checkers that import them on first use exactly where jsonschema would.

    Hidden means ``sys.modules[name] = None`` for the duration, which makes the import raise
    ImportError; jsonschema then skips those checkers, as it does when a package is not installed.
    The entries are removed right after, so a later import gets the real package. A package is not
    deferred when it is already imported or not installed, and none is when jsonschema would find
    another URI and IRI implementation (the ``rfc3987`` package), whose checkers it then registers.
    """

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name != _FORMATS:
            return None
        sys.meta_path[:] = [finder for finder in sys.meta_path if finder is not self]
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or PathFinder.find_spec("rfc3987") is not None:
            return spec
        hidden = [p for p in _DEFERRED if p not in sys.modules and PathFinder.find_spec(p) is not None]
        if not hidden:
            return spec
        inner = spec.loader
        exec_module = inner.exec_module

        def deferred(module: ModuleType) -> None:
            for package in hidden:
                sys.modules[package] = None  # type: ignore[assignment]  # import of it raises ImportError
            try:
                exec_module(module)
            finally:
                for package in hidden:
                    if sys.modules.get(package, ...) is None:
                        del sys.modules[package]
            try:
                for package in hidden:
                    _DEFERRED[package](module)
            except AttributeError:  # a jsonschema laid out otherwise: run it again, packages and all
                exec_module(module)

        inner.exec_module = deferred  # type: ignore[method-assign]
        return spec


if _FORMATS not in sys.modules:
    sys.meta_path.insert(0, _DeferFormatPackages())  # type: ignore[arg-type]
