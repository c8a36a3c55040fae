"""What a setting is: :class:`Option`, and how a list of them becomes options, checks and values.

The settings themselves are declared in :mod:`generator.config.options`; this module is the
machinery that reads that table for argparse, for ``portal.yaml`` and for the reference page.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from generator.config import checks
from generator.config.checks import Collector

Check = Callable[[Any, str, Collector], Any]
"""A value checker from :mod:`generator.config.checks`: (raw value, name shown, collector) -> value or None."""

BUILD, CHECK, INTROSPECT, TRANSLATIONS, SERVE, DIFF = "build", "check", "introspect", "translations", "serve", "diff"
VERSIONS = "versions"
"""``versions remove``, which writes a versioned site's top level again."""
SITE_COMMANDS = (BUILD, CHECK)
"""The commands that render a site; the others only read a server."""
LINT = "lint"
SERVER_COMMANDS = (BUILD, CHECK, INTROSPECT, TRANSLATIONS, LINT)
"""The commands that can connect to a server."""


@dataclass(frozen=True)
class Option:
    """One setting. ``field`` is its attribute on :class:`~generator.config.portal.PortalConfig`
    (or :class:`~generator.config.portal.Limits` for a ``limits.`` key)."""

    key: str
    """The ``portal.yaml`` key (``limits.max_pages`` for a limit); empty for a command-line-only setting."""
    field: str
    default: Any
    """The dataclass default: what a build uses when neither the file nor the command line sets it."""
    type_doc: str
    """The value's type, as the reference shows it."""
    meaning: str
    """One line for ``--help`` and the reference tables."""
    check: Check | None = None
    """How a value is checked; None for the nested settings ``portal.py`` parses itself."""
    cli: str | None = None
    """The command-line option, if any."""
    metavar: str | None = None
    commands: tuple[str, ...] = SITE_COMMANDS
    """The subcommands that take :attr:`cli`."""
    default_doc: str | None = None
    """How the reference shows the default, when ``repr`` of :attr:`default` would not read well."""
    cli_doc: str | None = None
    """How the reference shows the command line, when it is not just :attr:`cli`."""
    helps: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """A different ``--help`` line for some subcommands (``--out`` of ``check`` reads a site)."""
    relative: bool = False
    """A path: relative to ``portal.yaml`` in the file, to the current directory on the command line."""
    negated: bool = False
    """A boolean whose option turns it off (``--no-search``)."""
    example: str | None = None
    """A valid value of a path option, for the message an empty value gets (``--out ""``)."""
    reference: str = ""
    """What docs/cli.md says of the option (Markdown); empty: :attr:`meaning`."""
    references: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """A different docs/cli.md text for some subcommands, as :attr:`helps` is for ``--help``."""
    usage: str = ""
    """The option in use, for docs/cli.md's example column (``--jobs 1``)."""

    @property
    def switch(self) -> bool:
        """An option that takes no value: ``--no-search`` turns its setting off, ``--try-it`` on."""
        return self.negated or self.check is checks.flag

    @property
    def names(self) -> tuple[str, ...]:
        """The option's names on the command line (one: options of the table have no short form)."""
        return (self.cli,) if self.cli else ()

    def documented(self, command: str) -> str:
        """What docs/cli.md says of the option in *command*'s table."""
        return self.references.get(command) or self.reference or self.meaning

    @property
    def dest(self) -> str:
        """The ``argparse`` attribute the option is stored in."""
        return (self.cli or "").lstrip("-").replace("-", "_")

    @property
    def name(self) -> str:
        """The key without its ``limits.`` prefix."""
        return self.key.rpartition(".")[2]

    def shown_default(self) -> str:
        if self.default_doc is not None:
            return self.default_doc
        if self.default is None:
            return "none"
        if isinstance(self.default, bool):
            return f"`{str(self.default).lower()}`"
        if isinstance(self.default, tuple):
            return f"`[{', '.join(self.default)}]`"
        if isinstance(self.default, float) and self.default.is_integer():
            return f"`{int(self.default)}`"
        return f"`{self.default}`"

    def help(self, command: str) -> str:
        """The ``--help`` line: the meaning, and the default when there is one worth naming."""
        text = self.helps.get(command, self.meaning)
        if self.switch or "(default" in text:
            return text
        if isinstance(self.default, tuple):
            return f"{text} (default {','.join(self.default)})" if self.default else text
        if self.default is not None:
            return f"{text} (default {self.shown_default().strip('`')})"
        return f"{text} (default: {self.default_doc})" if self.default_doc else text


class Adds(Protocol):
    """What options are added to: an ``argparse`` parser or one of its argument groups."""

    def add_argument(self, *names: str, **settings: Any) -> Any: ...


@dataclass(frozen=True)
class Flag:
    """A command-line option that is no setting of ``portal.yaml`` (``--stdio``, ``--debug``, ``-o``):
    its argparse declaration and its docs/cli.md row, in one place."""

    names: tuple[str, ...]
    help: str
    """The ``--help`` line."""
    reference: str
    """What docs/cli.md says of it (Markdown)."""
    usage: str
    """The option in use, for docs/cli.md's example column."""
    metavar: str | None = None
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Further ``add_argument`` keywords: ``action``, ``default``, ``dest``, ``choices``, ``type``, ``required``."""

    def add_to(self, parser: Adds) -> None:
        """Declare the option on *parser*."""
        named = {"metavar": self.metavar} if self.metavar else {}
        parser.add_argument(*self.names, help=self.help, **named, **self.settings)

    def documented(self, command: str) -> str:
        """What docs/cli.md says of it (the same in every command that has it)."""
        return self.reference


def add_arguments(parser: Adds, command: str, options: tuple[Option, ...]) -> None:
    """Add the command-line options of *command* from *options* to *parser*.

    Every option defaults to None (or False) so that only what the user typed overrides the file.
    """
    for option in options:
        if not option.cli or command not in option.commands:
            continue
        if option.switch:
            parser.add_argument(option.cli, action="store_true", help=option.help(command))
            continue
        kind: type = {checks.count: int, checks.seconds: float}.get(option.check, str)  # type: ignore[arg-type]
        parser.add_argument(option.cli, type=kind, metavar=option.metavar, help=option.help(command))


def from_arguments(args: argparse.Namespace, collect: Collector, options: tuple[Option, ...]) -> dict[str, Any]:
    """The settings given on the command line, checked, as ``{field: value}`` (absent ones left out)."""
    values: dict[str, Any] = {}
    for option in options:
        raw = getattr(args, option.dest, None) if option.cli else None
        if raw is None or raw is False:
            continue
        if option.switch:
            values[option.field] = not option.negated
            continue
        if option.check is None:  # the nested settings have no single option (server: --stdio/--url)
            continue
        value = option.check(raw, option.cli or option.key, collect)
        if value is not None:
            values[option.field] = value
    return values


def from_file(data: Mapping[str, Any], collect: Collector, options: tuple[Option, ...]) -> dict[str, Any]:
    """The settings of a ``portal.yaml`` mapping that *options* can check, as ``{field: value}``."""
    values: dict[str, Any] = {}
    for option in options:
        if option.check is None or not option.key or option.name not in data:
            continue
        value = option.check(data[option.name], option.key, collect)
        if value is not None:
            values[option.field] = value
    return values
