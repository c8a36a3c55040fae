"""Regular expressions from servers, matched in bounded time with ECMA-262 meaning.

JSON Schema says a ``pattern`` (and a ``patternProperties`` key, and a ``format:
regex`` value) is an ECMA-262 regular expression, matched anywhere in the string
(not anchored).  Every such regex in this project goes through
:func:`compile_pattern` / :func:`search` here, never through :mod:`re`.

The ECMA-262 dialect and how it is translated for the two engines is described in
:mod:`generator.schema.ecma_translate`; invalid syntax raises
:class:`~generator.schema.ecma_syntax.PatternError` (the schema that holds it is invalid), and
a pattern outside what we support is valid but never decided.

Bounds: a pattern without lookarounds or backreferences runs on RE2 (the
``google-re2`` package), whose time is linear in the text.  The others run on
the ``regex`` package with a :data:`SEARCH_TIMEOUT` per call; a pattern that
times out once is *undecided* from then on, for every text, so a hostile
pattern costs one timeout per build, not one per candidate.  A search on an
undecided pattern raises :class:`PatternUndecided`; callers treat that as
"cannot show an example", never as a match or a non-match, and :func:`watch`
collects which patterns were undecided so the build can warn about them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import re2  # type: ignore[import-untyped]
import regex  # type: ignore[import-untyped]

from generator.schema.ecma_syntax import PatternError
from generator.schema.ecma_translate import Translator
from generator.text import visible

SEARCH_TIMEOUT = 0.1
"""Seconds one backtracking search may take.  Real patterns take microseconds on real values,
so only a pathological pattern reaches it; it is large so that a loaded machine does not turn
an honest pattern into an undecided one (the result would differ from build to build)."""
MAX_PATTERN = 10_000
"""Characters of a pattern we are willing to compile."""
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would print every rejected pattern on stderr


class PatternUndecided(Exception):
    """The pattern cannot be matched within the bounds; nothing can be said about the text."""

    def __init__(self, source: str, why: str) -> None:
        super().__init__(f"pattern {describe(source)} could not be decided: {why}")


def describe(source: str, limit: int = 60) -> str:
    """A pattern quoted for a message: cut to ``limit`` characters, hidden characters made visible."""
    cut = source if len(source) <= limit else source[: limit - 1] + "…"
    return "`" + visible(cut).replace("`", "'") + "`"


# ---------------------------------------------------------------------------- compiled patterns


_WATCHING: ContextVar[tuple[list[str], ...]] = ContextVar("watching", default=())
"""The lists of the :func:`watch` blocks the code runs in: set on entering a block and reset on leaving it,
so nothing of it outlives the block (nor crosses into another thread or task)."""


_TIMED_OUT: ContextVar[set[str] | None] = ContextVar("timed_out", default=None)
"""The patterns that ran out of time inside the outermost :func:`watch` block under way: each stays undecided
until the block ends (one tool's example search), rather than costing the bound again for every candidate.
The verdict depends on the moment's load, so it is never kept beyond the block (a pattern compiled once per
process is asked again in the next build)."""


@contextmanager
def watch() -> Iterator[list[str]]:
    """Collect (once each, in order) the sources of the patterns found undecided inside the block."""
    seen: list[str] = []
    token = _WATCHING.set((*_WATCHING.get(), seen))
    timed = _TIMED_OUT.set(set()) if _TIMED_OUT.get() is None else None
    try:
        yield seen
    finally:
        if timed is not None:
            _TIMED_OUT.reset(timed)
        _WATCHING.reset(token)


def _undecided(source: str, why: str) -> PatternUndecided:
    for seen in _WATCHING.get():
        if source not in seen:
            seen.append(source)
    return PatternUndecided(source, why)


_TOO_SLOW = f"matching took longer than {SEARCH_TIMEOUT:g} s (catastrophic backtracking)"


class Pattern:
    """A compiled server pattern; :meth:`search` answers in bounded time or raises PatternUndecided."""

    def __init__(self, source: str, linear: object | None, backtracking: object | None, why: str | None) -> None:
        self.source = source
        self.engine = "re2" if linear is not None else "regex" if backtracking is not None else "none"
        self._linear = linear
        self._backtracking = backtracking
        self._why = why  # set: undecided, for every text

    def search(self, text: str) -> bool:
        """Does the pattern match somewhere in ``text`` (ECMA-262 ``RegExp.prototype.test``)?"""
        timed_out = _TIMED_OUT.get()
        if self._why is not None:
            raise _undecided(self.source, self._why)
        if timed_out is not None and self.source in timed_out:
            raise _undecided(self.source, _TOO_SLOW)
        if self._linear is not None:
            try:
                return self._linear.search(text) is not None  # type: ignore[attr-defined, no-any-return]
            except UnicodeEncodeError:
                pass  # a lone surrogate in the text: RE2 reads UTF-8; the other engine can
        if self._backtracking is None:
            self._backtracking = _compile_backtracking(self.source)
            if self._backtracking is None:
                raise _undecided(self.source, "the text holds a lone surrogate the pattern engine cannot read")
        try:
            found = self._backtracking.search(text, timeout=SEARCH_TIMEOUT)  # type: ignore[attr-defined]
        except TimeoutError:  # a verdict on this moment's load: kept for the watch block only
            if timed_out is not None:
                timed_out.add(self.source)
            raise _undecided(self.source, _TOO_SLOW) from None
        return found is not None


def _compile_backtracking(source: str) -> object | None:
    try:
        translation = Translator(source).run()
        if translation.unsupported is not None:
            return None
        compiled: object = regex.compile(translation.rx, flags=regex.V0)
        return compiled
    except (PatternError, regex.error, RecursionError, OverflowError, ValueError):
        return None


@functools.lru_cache(maxsize=2048)  # schemas repeat patterns across properties, tools and candidates
def _compile(source: str) -> Pattern | PatternError:
    if len(source) > MAX_PATTERN:
        return Pattern(source, None, None, f"it is longer than {MAX_PATTERN} characters")
    try:
        translation = Translator(source).run()
    except PatternError as exc:
        return exc
    if translation.unsupported is not None:
        return Pattern(source, None, None, translation.unsupported)
    if translation.re2 is not None:
        try:
            return Pattern(source, re2.compile(translation.re2, _RE2_OPTIONS), None, None)
        except re2.error:
            pass  # too large for RE2 (it caps repetitions at 1000 and its memory): the other engine
    try:
        return Pattern(source, None, regex.compile(translation.rx, flags=regex.V0), None)
    except (regex.error, OverflowError, ValueError) as exc:
        return PatternError(f"not a valid regular expression ({exc})")
    except RecursionError:
        return Pattern(source, None, None, "it is nested too deeply")


def compile_pattern(source: str) -> Pattern:
    """The compiled pattern; :class:`PatternError` when ``source`` is not valid ECMA-262 syntax."""
    result = _compile(source)
    if isinstance(result, PatternError):
        raise result
    return result


def is_valid(source: str) -> bool:
    """Is this valid ECMA-262 syntax (what ``format: regex`` asks)?  Undecided patterns are valid."""
    return not isinstance(_compile(source), PatternError)


def search(source: str, text: str) -> bool:
    """ECMA-262 ``new RegExp(source, "u").test(text)`` in bounded time.

    Raises :class:`PatternError` for invalid syntax and :class:`PatternUndecided` when it
    cannot be answered within the bounds.
    """
    return compile_pattern(source).search(text)
