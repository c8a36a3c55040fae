"""docs/architecture.md stays true: every module under ``generator/`` is named in its package's section; and the
README's package list and CONTRIBUTING.md's test counts are what the scripts install and pytest collects.

A section starts at a line ``**`generator/<package>/`**`` and runs to the next one; a module is named
when its file name appears there in backticks (a table row or the section's prose). Modules at the
top of ``generator/`` are named in the "Shared helpers" paragraph.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import PYTHON, ROOT

DOC = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "generator"


def _sections() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    heads = list(re.finditer(r"^\*\*`generator/([a-z_]+)/`\*\*", text, re.M))
    sections = {
        m.group(1): text[m.start() : heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        for i, m in enumerate(heads)
    }
    shared = text.index("**Shared helpers**")
    sections[""] = text[shared : text.index("\n\n", shared)]
    return sections


def _modules() -> list[tuple[str, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if "__pycache__" in parts or path.name == "__init__.py" or len(parts) > 2:
            continue  # package markers; vendored files deeper down belong to their module's row
        found.append(((parts[0] if len(parts) == 2 else ""), path.name))
    return found


def test_every_module_is_named_in_its_package_s_section() -> None:
    sections = _sections()
    modules = _modules()
    assert len(modules) > 100 and len(sections) > 15  # the walk and the parse both found something
    missing = [
        f"generator/{package}/{name}".replace("//", "/")
        for package, name in modules
        if f"`{name}`" not in sections.get(package, "")
    ]
    assert not missing, f"docs/architecture.md does not name these modules in their package's section: {missing}"


def test_every_section_names_a_package_that_exists() -> None:
    stale = [package for package in _sections() if package and not (PACKAGE / package).is_dir()]
    assert not stale, f"docs/architecture.md describes packages that no longer exist: {stale}"


def test_the_readme_lists_the_debian_packages_scripts_test_installs() -> None:
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    installed = re.search(r"^for pkg in ([^;]+); do$", script, re.M)
    assert installed, "scripts/test: the `for pkg in ...; do` loop of Debian packages is gone"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    bullet = re.search(r"^- \*\*Debian packages.*?(?=^- )", readme, re.M | re.S)
    assert bullet, "README.md: the bullet on Debian packages is gone"
    named = set(re.findall(r"`([a-z][a-z0-9-]+)`", bullet.group(0))) - {"apt-get", "sudo"}
    assert named == set(installed.group(1).split()), "README.md and scripts/test disagree on the Debian packages"


@pytest.mark.slow  # collects the whole suite in a child process
def test_contributing_states_the_test_counts_pytest_collects() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    fast = re.search(r"^\| `scripts/test --fast` \|[^|]*?\(([\d,]+) tests;", text, re.M)
    full = re.search(r"^\| `scripts/test` \| everything \(([\d,]+) tests\)", text, re.M)
    assert fast and full, "CONTRIBUTING.md: the table of the test commands lost its counts"
    # One collection says both: "4445/5725 tests collected (1280 deselected)", the fast tier of the whole.
    done = subprocess.run(
        [PYTHON, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m",
         "not slow and not browser and not npm"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    counts = re.search(r"^(\d+)/(\d+) tests collected", done.stdout, re.M)
    assert counts, done.stdout[-500:]
    assert int(full.group(1).replace(",", "")) == int(counts.group(2)), "update the suite's count in CONTRIBUTING.md"
    assert int(fast.group(1).replace(",", "")) == int(counts.group(1)), (
        "update the fast tier's count in CONTRIBUTING.md"
    )
