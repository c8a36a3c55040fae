"""Text a page has already made visible, so that printing it again does not scan it again.

Every ``{{ expression }}`` passes ``finalize``, which shows hidden and control characters as
``[U+XXXX]`` markers (:func:`generator.text.visible`). A macro's output, a block's, and what the
row writers and filters return are made only of such text and of template text, and a template
prints them again: the body of a tool page was scanned three times over (by the macros, by
``self.main()`` and after ``with_toc``), a fifth of the time an HTML page took to render.
:func:`record` records such a value; ``finalize`` prints a recorded value as it is. ``visible``
changes nothing it has already changed, so the bytes are the same.

Values are recorded as objects, not marked by a type: a subclass of Markup would hand its mark
to whatever is made from it (``value + server_text`` keeps the class), while a value made from a
recorded one is a new object and is scanned like any other. The record maps a text to the one
object recorded with it, and only that very object counts as recorded (an equal text made
elsewhere is scanned; scanning again only costs time). The record lives for one render
(:func:`rendered` empties it before and after), so nothing of it outlives a page.
"""

from __future__ import annotations

from types import BuiltinFunctionType, FunctionType, MethodType
from typing import Any, TypeVar

from jinja2 import Template
from jinja2.runtime import BlockReference, Context, Macro
from markupsafe import Markup

from generator.text import visible

T = TypeVar("T", bound=str)

_RECORD: dict[str, str] = {}


def record(value: T) -> T:
    """Record *value*, in which every character a reader must see is already visible; return it."""
    _RECORD[value] = value
    return value


def is_recorded(value: object) -> bool:
    """Whether *value* itself (not an equal string) was recorded by :func:`record`."""
    return isinstance(value, str) and _RECORD.get(value) is value


def forget() -> None:
    """Drop every record (the renderer calls this before each page, so the record stays one page's size)."""
    _RECORD.clear()


def rendered(template: Template, *args: Any, **kwargs: Any) -> str:
    """*template* rendered with a record of its own, emptied before and after: what one render recorded
    never outlives it (a process that builds again and again, ``build --watch``, kept every ``llms.txt``
    it rendered otherwise)."""
    forget()
    try:
        return template.render(*args, **kwargs)
    finally:
        forget()


def finalize_html(value: Any) -> Any:
    """The HTML environment's ``finalize``, which every ``{{ expression }}`` passes: hidden, bidi and
    control characters become visible markers, except in a value recorded as already shown."""
    if isinstance(value, Markup):
        return value if is_recorded(value) else Markup(visible(str(value)))
    if isinstance(value, str):
        return visible(value)
    return value


_DIRECT = frozenset({FunctionType, MethodType, BuiltinFunctionType, Macro, BlockReference})
"""Callables a template may call straight away: Jinja's own ``Context.call`` looks for a
``jinja_pass_arg`` mark three times per call (on the object, on its ``__call__``) before it
calls, and a 1,000-tool build makes over 700,000 calls (7 % of its instructions went to those checks)."""


class DirectContext(Context):
    """A template context that calls plain functions, methods, macros and blocks directly.

    Whatever carries a ``jinja_pass_arg`` mark (``pass_context`` and its kin), and any other kind
    of callable, still goes through :meth:`jinja2.runtime.Context.call`, so the result is the same.
    :meth:`produced` sees what a macro or a block returned.
    """

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        kind = type(__obj)
        if kind not in _DIRECT or hasattr(__obj, "jinja_pass_arg"):
            result = Context.call(__self, __obj, *args, **kwargs)
        else:
            if kwargs:  # in a loop or a block, Jinja passes its variables for pass_context callables
                kwargs.pop("_loop_vars", None)
                kwargs.pop("_block_vars", None)
            try:
                result = __obj(*args, **kwargs)
            except StopIteration:
                return __self.environment.undefined(
                    "value was undefined because a callable raised a StopIteration exception"
                )
        if kind is Macro or kind is BlockReference:
            return __self.produced(result)
        return result

    def produced(self, result: Any) -> Any:
        """What a macro's or a block's *result* becomes when a template prints it."""
        return result


class HtmlContext(DirectContext):
    """The HTML environment's template context: a macro's or a block's output is recorded as shown,
    since each of its expressions passed :func:`finalize_html`."""

    def produced(self, result: Any) -> Any:
        return record(result) if isinstance(result, Markup) else result
