"""Text a page has already made visible, so that printing it again does not scan it again.

Every ``{{ expression }}`` passes ``finalize``, which shows hidden and control characters as
``[U+XXXX]`` markers (:func:`generator.text.visible`). A macro's output, a block's, and what the
row writers and filters return are made only of such text and of template text, and a template
prints them again: the body of a tool page was scanned three times over (by the macros, by
``self.main()`` and after ``with_toc``), a fifth of the time an HTML page took to render.
:func:`record` records such a value; ``finalize`` prints a recorded value as it is. ``visible``
changes nothing it has already changed, so the bytes are the same.

Values are recorded by identity, not marked by a type: a subclass of Markup would hand its mark
to whatever is made from it (``value + server_text`` keeps the class), while a value made from a
recorded one is a new object and is scanned like any other. The record holds each value, so
its id cannot be reused while it is recorded; :func:`forget` empties it between pages.
"""

from __future__ import annotations

from typing import Any, TypeVar

from jinja2.runtime import BlockReference, Context, Macro
from markupsafe import Markup

from generator.text import visible

T = TypeVar("T", bound=str)

_RECORD: dict[int, str] = {}


def record(value: T) -> T:
    """Record *value*, in which every character a reader must see is already visible; return it."""
    _RECORD[id(value)] = value
    return value


def is_recorded(value: object) -> bool:
    """Whether *value* itself (not an equal string) was recorded by :func:`record`."""
    return _RECORD.get(id(value)) is value


def forget() -> None:
    """Drop every record (the renderer calls this before each page, so the record stays one page's size)."""
    _RECORD.clear()


def finalize_html(value: Any) -> Any:
    """The HTML environment's ``finalize``, which every ``{{ expression }}`` passes: hidden, bidi and
    control characters become visible markers, except in a value recorded as already shown."""
    if isinstance(value, Markup):
        return value if is_recorded(value) else Markup(visible(str(value)))
    if isinstance(value, str):
        return visible(value)
    return value


class HtmlContext(Context):
    """The HTML environment's template context: a macro's or a block's output is recorded as shown,
    since each of its expressions passed :func:`finalize_html`."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        result = super().call(__obj, *args, **kwargs)
        if isinstance(__obj, Macro | BlockReference) and isinstance(result, Markup):
            return record(result)
        return result
