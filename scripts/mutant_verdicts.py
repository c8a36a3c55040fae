"""Check mutants by hand: apply each one's diff to a copy of the source and run the tests you name.

mutmut runs, for each mutant, only the tests its clean run saw call the mutated function, and credits a
function called while a module is imported to no test or the wrong one; so a "survived" may be a
misattribution, and a new test's effect is only known once the mutant runs against it. This script gives
the verdict of the tests you choose, whatever mutmut recorded:

    scripts/mutants --verdicts survivors.txt tests/test_values.py tests/test_examples.py
    scripts/mutants --results | scripts/mutants --verdicts - tests/test_schema.py
    scripts/mutants --verdicts generator.schema.values tests/test_values.py     # every mutant of a module

It reads mutant names (one per line; other lines are skipped) from the file, or stdin for ``-``, or
takes every mutant mutmut made of a module (from its ``.meta`` file: ``scripts/mutants`` must have run
once); takes each one's diff from ``mutmut show`` (run where ``scripts/mutants`` ran), applies it to a
copy of the tracked files in ``build/mutant-verdicts/`` (the working tree is never touched; removed
after) and runs pytest on the tests named (once without any mutant first: they must pass); it prints
``NAME killed|survived|timeout|unplaceable`` as it goes, then the counts. A mutant is *unplaceable* when
its lines are no longer in the source (the code changed since mutmut made it). ``--jobs N`` (default 2)
checks N mutants at once, each in a copy of its own.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import queue
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"^(generator(?:\.\w+)+)\.x[_ǁ]\S*__mutmut_\d+")


def _copy(target: Path) -> None:
    """A fresh copy of the tracked and new, unignored files in *target*."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout  # fmt: skip
    for name in filter(None, files.decode().split("\0")):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)


def _change(name: str, work: Path) -> list[tuple[str, str]]:
    """The mutant's source lines before and after, from its diff: the whole hunk; then its changed lines with
    the code after them (the hunk's context before may hold a docstring's continuation lines, which mutmut
    shows out of their class but not re-indented); then its changed lines alone (found even where the code
    around them has changed since). None when mutmut shows no diff."""
    diff = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=work, capture_output=True,
                          text=True, check=False).stdout.splitlines()  # fmt: skip
    hunk = next((i for i, line in enumerate(diff) if line.startswith("@@")), None)
    if hunk is None:
        return []
    body = diff[hunk + 1 :]
    changed = [line for line in body if line[:1] in "+-"]
    first = next((i for i, line in enumerate(body) if line[:1] in "+-"), 0)
    return [
        (
            "\n".join(line[1:] for line in lines if line[:1] != "+"),
            "\n".join(line[1:] for line in lines if line[:1] != "-"),
        )
        for lines in (body, body[first:], changed)
    ]


def _pytest(copy: Path, tests: list[str], timeout: float) -> subprocess.CompletedProcess[bytes]:
    """pytest on *tests* in *copy*, stopping at the first failure."""
    argv = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly", "-p", "no:cacheprovider", *tests]
    return subprocess.run(argv, cwd=copy, capture_output=True, timeout=timeout, check=False)


def _verdict(name: str, copy: Path, work: Path, tests: list[str], timeout: float) -> str:
    named = NAME.match(name)
    if named is None:
        return "unplaceable"
    module = copy / (named.group(1).replace(".", "/") + ".py")
    source = module.read_text(encoding="utf-8")
    indent = re.compile(r"^(?=.)", re.M)  # a method: mutmut shows it out of its class
    tries = [pair for b, a in _change(name, work) for pair in ((b, a), (indent.sub("    ", b), indent.sub("    ", a)))]
    found = next(((b, a) for b, a in tries if source.count(b) == 1), None)
    if found is None:
        return "unplaceable"
    module.write_text(source.replace(*found), encoding="utf-8")
    try:
        return "survived" if _pytest(copy, tests, timeout).returncode == 0 else "killed"
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        module.write_text(source, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", help="a file of mutant names, one per line; - for stdin; or a module's name")
    parser.add_argument("tests", nargs="+", help="the tests to run against each mutant (pytest arguments)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants checked at once (default 2)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds the tests may take per mutant")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "mutmut", help="where scripts/mutants ran")
    args = parser.parse_args()
    meta = args.work / "mutants" / (args.names.replace(".", "/") + ".py.meta")
    if args.names == "-":
        text = sys.stdin.read()
    elif meta.is_file():  # a module's every mutant
        text = "\n".join(sorted(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]))
    else:
        text = Path(args.names).read_text(encoding="utf-8")
    names = [m.group(0) for line in text.splitlines() if (m := NAME.match(line.strip()))]
    copies: queue.Queue[Path] = queue.Queue()
    for n in range(max(1, args.jobs)):  # a run's own copies: two runs may go side by side
        _copy(copy := ROOT / "build" / "mutant-verdicts" / f"{os.getpid()}.{n}")
        copies.put(copy)

    def check(name: str) -> str:
        copy = copies.get()
        try:
            return _verdict(name, copy, args.work, args.tests, args.timeout)
        finally:
            copies.put(copy)

    clean = _pytest(copies.queue[0], args.tests, args.timeout)
    if clean.returncode != 0:  # every mutant would be "killed" by a failure that is not its own
        print(f"The tests fail without any mutant (exit {clean.returncode}); fix that first:", file=sys.stderr)
        print(clean.stdout.decode(errors="replace")[-3000:], file=sys.stderr)
        for copy in copies.queue:
            shutil.rmtree(copy)
        return 2
    counts: collections.Counter[str] = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for name, verdict in zip(names, pool.map(check, names), strict=True):
            counts[verdict] += 1
            print(name, verdict, flush=True)
    print(", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())) or "no mutant names read")
    while not copies.empty():
        shutil.rmtree(copies.get())
    return 0


if __name__ == "__main__":
    sys.exit(main())
