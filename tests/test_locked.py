"""Reproducible output (issue 53): the libraries that shape the pages are bounded above in pyproject.toml,
requirements.lock pins every runtime dependency inside those bounds, and a library installed outside
the tested range fails here by name, before the golden pages fail with a diff that does not say why."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

OUTPUT_SHAPING = {
    "jinja2": "the page templates",
    "markupsafe": "HTML escaping in the templates",
    "markdown-it-py": "server text rendered as Markdown (CommonMark)",
    "mdurl": "link targets normalised by markdown-it-py",
    "pygments": "the highlighted code blocks (each lexer)",
    "babel": "localized numbers, dates and plural forms (CLDR data)",
    "pagefind": "the search index",
    "pyyaml": "front matter and translation files",
    "snowballstemmer": "the search stems of `mcp-portal mcp`",
    "rich": "the terminal report",
    "jsonschema": "validation verdicts and the examples they choose",
    "referencing": "$ref resolution (and the adapter in generator/schema/unevaluated.py)",
}
"""The runtime libraries whose release can change what a build writes or prints, and what of it."""


def _requirements() -> dict[str, Requirement]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = [Requirement(text) for text in data["project"]["dependencies"]]
    return {canonicalize_name(r.name): r for r in found}


def _locked() -> dict[str, str]:
    pinned: dict[str, str] = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, exact = line.partition("==")
            assert exact and re.fullmatch(r"[\w.+!-]+", exact), f"requirements.lock: {line!r} is not name==version"
            pinned[canonicalize_name(name)] = exact
    return pinned


def test_every_output_shaping_library_has_an_upper_bound() -> None:
    required = _requirements()
    assert set(OUTPUT_SHAPING) <= set(required), set(OUTPUT_SHAPING) - set(required)
    unbounded = [name for name in OUTPUT_SHAPING if not any(s.operator in ("<", "<=", "==", "~=")
                                                            for s in required[name].specifier)]  # fmt: skip
    assert unbounded == []


def test_the_lock_pins_every_dependency_inside_the_bounds() -> None:
    required, pinned = _requirements(), _locked()
    assert set(required) <= set(pinned), f"not in requirements.lock: {sorted(set(required) - set(pinned))}"
    outside = [f"{name}=={pinned[name]} ({r.specifier})" for name, r in required.items()
               if not r.specifier.contains(pinned[name], prereleases=True)]  # fmt: skip
    assert outside == [], "run scripts/update-lock"


def test_the_installed_libraries_are_the_ones_the_golden_pages_were_built_with() -> None:
    """A library outside the tested range would change a golden page: say which, and what it shapes."""
    required, pinned = _requirements(), _locked()
    wrong = []
    for name, shapes in OUTPUT_SHAPING.items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            wrong.append(f"{name} is not installed")
            continue
        if not required[name].specifier.contains(installed, prereleases=True):
            wrong.append(f"{name} {installed} is outside {required[name].specifier} ({shapes})")
        elif installed != pinned[name]:
            wrong.append(f"{name} {installed} is not the locked {pinned[name]} ({shapes})")
    assert wrong == [], "install with -c requirements.lock (scripts/test does), or update the lock and goldens"
