"""Tests that cannot pass by accident (issue 53): no test asserts only inside a loop that may run zero
times, and no test waits by sleeping.

A loop over an empty list runs its asserts zero times, so a test whose every assert sits in such a loop
passes when the product returns nothing at all. A test may loop freely as long as it also checks, outside
any loop, what the loop ran over (``assert pages``, ``assert len(rows) == 3``), or loops over a literal that
cannot be empty (``for jobs in (2, 3)``, a module constant such as ``HOSTILE_NAMES``, ``range(4)``).
A sleep guesses how long something takes; a test waits instead for the event itself, with a deadline
(:func:`tests.conftest.wait_until` is the one place that polls).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.conftest import ROOT

TESTS = sorted((ROOT / "tests").glob("test_*.py"))
LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _nonempty_literal(node: ast.expr, constants: dict[str, ast.expr]) -> bool:
    """Whether iterating *node* surely yields at least one item: a non-empty display, a name bound to one
    (in the module or the test), ``range(k)`` with k > 0, or enumerate/zip/sorted/reversed of such (a strict
    zip needs one), or a sum with one."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(not isinstance(e, ast.Starred) for e in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and None not in node.keys
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | bytes) and bool(node.value)
    if isinstance(node, ast.Name) and node.id in constants:
        return _nonempty_literal(constants[node.id], {})
    if isinstance(node, ast.Attribute) and node.attr in ("items", "keys", "values") and not isinstance(node, ast.Call):
        return False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "values"):
        return _nonempty_literal(node.func.value, constants)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name, args = node.func.id, node.args
        if name == "range" and args and all(isinstance(a, ast.Constant) for a in args):
            values = [a.value for a in args if isinstance(a, ast.Constant)]
            return len(range(*values)) > 0  # type: ignore[arg-type]
        if name in ("enumerate", "sorted", "reversed", "list", "tuple") and args:
            return _nonempty_literal(args[0], constants)
        if name == "zip" and args:
            strict = any(k.arg == "strict" and isinstance(k.value, ast.Constant) and k.value.value
                         for k in node.keywords)  # fmt: skip
            return (any if strict else all)(_nonempty_literal(a, constants) for a in args)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _nonempty_literal(node.left, constants) or _nonempty_literal(node.right, constants)
    return False


def _runs_at_least_once(loop: ast.For | ast.AsyncFor | ast.While, constants: dict[str, ast.expr]) -> bool:
    if isinstance(loop, ast.While):
        return isinstance(loop.test, ast.Constant) and bool(loop.test.value)
    return _nonempty_literal(loop.iter, constants)


def _checks(node: ast.AST, helpers: frozenset[str]) -> bool:
    """An assert, a ``pytest.raises``/``pytest.fail``/``pytest.warns`` call, or a call of one of the test
    module's own functions that asserts (*helpers*)."""
    if isinstance(node, ast.Assert):
        return True
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return node.func.id in helpers
    return (
        isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "pytest"
        and node.func.attr in ("raises", "fail", "warns")
    )


def _walk(node: ast.AST, guarded: bool, constants: dict[str, ast.expr]) -> Iterator[tuple[ast.AST, bool]]:
    """Every node under *node* with whether it sits inside a loop that may run zero times (nested
    functions and classes are left out: they run only when called)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        yield child, guarded
        if isinstance(child, LOOPS):
            inner = guarded or not _runs_at_least_once(child, constants)
            for part in child.body:
                yield from _walk(ast.Module(body=[part], type_ignores=[]), inner, constants)
            for part in child.orelse:
                yield from _walk(ast.Module(body=[part], type_ignores=[]), guarded, constants)
            header = child.test if isinstance(child, ast.While) else child.iter
            yield header, guarded
            yield from _walk(header, guarded, constants)
        else:
            yield from _walk(child, guarded, constants)


def _constants(nodes: list[ast.stmt] | list[ast.AST]) -> dict[str, ast.expr]:
    """The names bound by the plain assignments among *nodes* (a module's lines, or all of a test's)."""
    found: dict[str, ast.expr] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found[node.target.id] = node.value
    return found


def loop_only_asserts(source: str) -> list[str]:
    """The test functions of *source* whose every check sits in a loop that may run zero times."""
    tree = ast.parse(source)
    constants = _constants(tree.body)
    helpers = frozenset(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and not node.name.startswith("test")
        and any(_checks(inner, frozenset()) for inner in ast.walk(node))
    )
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")):
            continue
        known = constants | _constants(list(ast.walk(node)))
        checks = [guarded for child, guarded in _walk(node, False, known) if _checks(child, helpers)]
        if checks and all(checks):
            found.append(f"{node.name}:{node.lineno}")
    return found


def test_the_checker_finds_a_loop_that_may_run_zero_times_and_passes_a_checked_one() -> None:
    bad = "def test_a(pages):\n    for p in pages:\n        assert p.ok\n"
    bad_while = "def test_b(q):\n    while q:\n        assert q.pop()\n"
    good_checked = "def test_c(pages):\n    assert pages\n    for p in pages:\n        assert p.ok\n"
    good_literal = "def test_d():\n    for n in (1, 2):\n        assert n\n"
    good_constant = "NAMES = ['a']\ndef test_e():\n    for n in NAMES:\n        assert n\n"
    good_raises = "import pytest\ndef test_f(xs):\n    with pytest.raises(ValueError):\n        f()\n"
    good_helper = (
        "def pages(s):\n    assert s\n    return s\ndef test_h(s):\n    for p in pages(s):\n        assert p\n"
    )
    nested = "def test_g(xs):\n    for x in (1,):\n        for y in xs:\n            assert y\n"
    assert loop_only_asserts(bad) == ["test_a:1"]
    assert loop_only_asserts(bad_while) == ["test_b:1"]
    assert loop_only_asserts(nested) == ["test_g:1"]
    for source in (good_checked, good_literal, good_constant, good_raises, good_helper):
        assert loop_only_asserts(source) == [], source


def test_no_test_asserts_only_inside_a_loop_that_may_run_zero_times() -> None:
    assert TESTS
    found = [f"{path.name}:{name}" for path in TESTS for name in loop_only_asserts(path.read_text(encoding="utf-8"))]
    assert found == []


def _sleeps(source: str) -> list[str]:
    """Where *source* sleeps: ``time.sleep``, ``asyncio.sleep``/``anyio.sleep`` or Playwright's
    ``wait_for_timeout``, by the function that does it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            called = inner.func if isinstance(inner, ast.Call) else None
            if isinstance(called, ast.Attribute) and called.attr in ("sleep", "wait_for_timeout"):
                found.append(f"{node.name}:{called.lineno}")
    return found


def test_no_test_sleeps_except_the_one_poll_with_a_deadline() -> None:
    assert _sleeps("import time\ndef test_x():\n    time.sleep(1)\n") == ["test_x:3"]
    assert _sleeps("def test_y(page):\n    page.wait_for_timeout(50)\n") == ["test_y:2"]
    found = [f"{path.name}:{where}" for path in TESTS for where in _sleeps(path.read_text(encoding="utf-8"))]
    assert found == []
    conftest = _sleeps((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8"))
    assert [where.split(":")[0] for where in conftest] == ["wait_until"]
