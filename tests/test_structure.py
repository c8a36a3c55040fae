"""The shape a newcomer can hold (issue 36): small modules and functions, no patching of other packages,
no hidden state on frozen records, and one module that starts worker processes. The import layers
themselves are import-linter's (``lint-imports``, run by ``scripts/test``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

SOURCES = sorted((ROOT / "generator").rglob("*.py"))
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
PRIVATE = re.compile(
    r"\b(?:argparse|asyncio|anyio|atexit|babel|concurrent|httpx|jinja2|jsonschema|markdown_it|mcp|multiprocessing"
    r"|pygments|referencing|starlette|uvicorn|watchfiles|yaml)(?:\.[A-Za-z]\w*)*\._[A-Za-z]\w*"
)
"""Another package's private name, written out (``jsonschema._format``, ``mcp.client._transport``)."""


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", SOURCES, ids=_relative)
def test_modules_and_functions_are_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE_LINES, f"{_relative(path)} is over {MAX_MODULE_LINES} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            assert size <= MAX_FUNCTION_LINES, f"{_relative(path)}: {node.name} is {size} lines"


def test_no_private_name_of_another_package_is_used() -> None:
    for used in ("mcp.client._transport", "jsonschema._format", "argparse._ActionsContainer", "atexit._run_exitfuncs"):
        assert PRIVATE.search(used), used  # what the search must catch
    found = [
        f"{_relative(path)}:{n}: {match.group(0)}"
        for path in SOURCES
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in PRIVATE.finditer(line)
    ]
    assert found == []


DOCUMENTED_PRIVATE = frozenset({"_exit"})
"""Underscore names that are their package's documented API: ``os._exit`` (the os module's reference)."""
ADAPTER = {("generator/schema/unevaluated.py", "_resolver")}
"""The one adapter for a public API another package lacks: jsonschema's resolver at a point of the walk
(its docstring names what is missing; tests/test_schema_adapter.py checks it on the installed version)."""


def _own_names(trees: list[ast.Module]) -> set[str]:
    """Every name mcp-portal defines: functions, classes, variables, attributes it sets, parameters, imports."""
    own: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
            elif isinstance(node, ast.arg):
                own.add(node.arg)
    return own


def private_attributes(sources: dict[str, str]) -> list[str]:
    """``obj._name`` reads and ``f(_name=...)`` arguments whose name mcp-portal does not define itself:
    another package's private attribute or parameter (dunders are Python's own)."""
    trees = {path: ast.parse(text) for path, text in sources.items()}
    own = _own_names(list(trees.values())) | DOCUMENTED_PRIVATE
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            name = node.attr if isinstance(node, ast.Attribute) else node.arg if isinstance(node, ast.keyword) else None
            private = name and name.startswith("_") and not name.startswith("__") and name not in own
            if private and (path, name) not in ADAPTER:
                found.append(f"{path}:{getattr(node, 'lineno', 0)}: {name}")
    return sorted(found)


def test_no_private_attribute_of_another_package_is_used() -> None:
    caught = private_attributes({"a.py": "import x\nx.thing._resolver.lookup(1)\nx.evolve(_resolver=2)\n"})
    assert caught == ["a.py:2: _resolver", "a.py:3: _resolver"]
    own = "class A:\n    def f(self):\n        self._n = 1\n        return self._n\n"
    assert private_attributes({"b.py": own}) == []
    sources = {_relative(path): path.read_text(encoding="utf-8") for path in SOURCES}
    assert private_attributes(sources) == []


def test_no_frozen_record_is_changed_behind_its_back() -> None:
    assert [_relative(p) for p in SOURCES if "object.__setattr__" in p.read_text(encoding="utf-8")] == []


def test_the_package_init_is_a_docstring_and_a_version() -> None:
    lines = [line for line in (ROOT / "generator" / "__init__.py").read_text(encoding="utf-8").splitlines() if line]
    assert len(lines) <= 15


def test_one_module_starts_worker_processes() -> None:
    starts = re.compile(r"ProcessPoolExecutor|multiprocessing\.(?:Process|Pool|get_context)|os\.fork\(|ForkContext")
    assert [_relative(p) for p in SOURCES if starts.search(p.read_text(encoding="utf-8"))] == ["generator/forked.py"]
