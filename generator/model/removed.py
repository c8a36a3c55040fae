"""The page a versioned site keeps for a tool an earlier version had: where it went, and where its last page is.

A tool removed from the server keeps its address (``L/tools/<slug>/``) in every later version: its
page says in which version it was removed and links to its page in the last version that had it,
so a link or a bookmark to the tool, or the version switcher on its old page, finds an answer
instead of a 404. Built from :class:`generator.history.timeline.History` by :func:`removed_docs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generator.history.timeline import History, Timeline
from generator.model.kinds import PageKind
from generator.model.product import Doc
from generator.slugs import assign_slugs


@dataclass(frozen=True)
class RemovedDoc(Doc):
    """A tool the version being built no longer has (see the module docstring)."""

    removed_in: str = ""
    last_version: str = ""
    last_slug: str = ""
    """The tool's slug in :attr:`last_version`, where its last page is."""
    last_locales: tuple[str, ...] = ()
    """The locales :attr:`last_version` was built in."""
    timeline: Timeline | None = None

    @property
    def kind(self) -> PageKind:
        return PageKind.REMOVED

    @property
    def translation_key(self) -> tuple[str, str]:
        return "tools", self.name

    def last_page(self, locale: str) -> str:
        """The site path of the tool's last page from this version's root: ``../1.2.0/en/tools/x/index.html``
        (in *locale*, else in the first locale of that version)."""
        return f"../{self.last_version}/{self._locale(locale)}/tools/{self.last_slug}/index.html"

    def last_twin(self, locale: str) -> str:
        """The Markdown twin of :meth:`last_page`: ``../1.2.0/en/tools/x.md``."""
        return f"../{self.last_version}/{self._locale(locale)}/tools/{self.last_slug}.md"

    def _locale(self, locale: str) -> str:
        return locale if locale in self.last_locales or not self.last_locales else self.last_locales[0]


def removed_docs(history: History, current: Sequence[str]) -> tuple[RemovedDoc, ...]:
    """A :class:`RemovedDoc` for each tool of *history* that the version built (with the tools *current*)
    no longer has. Their slugs are given after the current tools', so no current tool's slug changes."""
    names = set(current)
    gone = [r for r in history.removed if r.name not in names]
    slugs = assign_slugs([*current, *(r.name for r in gone)])
    return tuple(
        RemovedDoc(
            name=r.name,
            slug=slugs[r.name],
            raw={"name": r.name},
            endpoints=(),
            removed_in=r.removed_in,
            last_version=r.last_version,
            last_slug=r.last_slug,
            last_locales=release.version.locales if (release := history.release(r.last_version)) else (),
            timeline=history.timeline(r.name),
        )
        for r in gone
    )
