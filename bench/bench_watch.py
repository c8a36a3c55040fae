"""How soon ``build --watch`` notices a change, and what it costs while it waits.

    python bench/bench_watch.py                                   # this tree
    python bench/bench_watch.py --baseline /tmp/old --files 20000 # and another tree (e.g. a worktree), interleaved

For each workload (a snapshot file; a tree of ``--files`` source files) it starts one child per
tree running that tree's own wait for a change (``generator.commands.watch.next_change``, or in a
tree from before it, the polling ``_next_change``), and measures what the user pays: the CPU the
child uses while nothing changes (``--idle`` seconds, from ``/proc/PID/stat``), and the delay from
a file being replaced, as ``introspect -o`` writes a snapshot, to the child reporting it (the
median and the largest of ``--changes`` replacements). Nothing is written outside a temporary
directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WAIT = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator.commands import watch
watched = watch.Watched(tuple(Path(p) for p in sys.argv[2:]), ())
print("ready", flush=True)
while True:
    if hasattr(watch, "next_change"):
        watch.next_change(watched)
    else:  # a tree from before the OS's notifications: its polling loop
        watch._next_change(watched, watch.POLL_SECONDS, time.sleep)
    print(time.time(), flush=True)
"""


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of process *pid* so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run(tree: Path, paths: list[Path], target: Path, idle: float, changes: int) -> tuple[float, list[float]]:
    """CPU share while idle, and the delays of *changes* replacements of *target*, waiting as *tree* waits."""
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").is_dir() else sys.executable
    child = subprocess.Popen([python, "-c", WAIT, str(tree), *map(str, paths)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # the first look (a watch of a large tree takes a moment to set up)
        before, started = _cpu_seconds(child.pid), time.monotonic()
        time.sleep(idle)
        share = (_cpu_seconds(child.pid) - before) / (time.monotonic() - started)
        delays = []
        for n in range(changes):
            temporary = target.with_name(f".{target.name}.tmp")
            temporary.write_text(f"change {n}\n")
            written = time.time()
            os.replace(temporary, target)  # as `introspect -o` writes a snapshot
            seen = float(child.stdout.readline())
            delays.append(seen - written)
            time.sleep(0.3)
        return share, delays
    finally:
        child.kill()
        child.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=5000, help="files in the watched tree (default 5000)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measured (default 10)")
    parser.add_argument("--changes", type=int, default=15, help="replacements timed (default 15)")
    parser.add_argument("--baseline", type=Path, help="another source tree to measure the same way (e.g. a worktree)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        snapshot = work / "snapshot.json"
        snapshot.write_text("{}\n")
        tree = work / "src"
        for n in range(args.files):
            folder = tree / f"pkg{n // 100:03d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"module{n % 100:02d}.py").write_text("x = 1\n")
        workloads = [
            ("a snapshot file", [snapshot], snapshot),
            (f"{args.files:,} files", [tree], tree / "pkg000" / "module00.py"),
        ]
        trees = [("this tree", ROOT)] + ([("baseline", args.baseline)] if args.baseline else [])
        print("| workload | tree | idle CPU (share of a core) | delay, median | delay, max |")
        print("| --- | --- | --- | --- | --- |")
        for label, paths, target in workloads:
            for name, tree in trees:
                share, delays = _run(tree, paths, target, args.idle, args.changes)
                print(f"| {label} | {name} | {share:.2%} | {statistics.median(delays) * 1000:.0f} ms "
                      f"| {max(delays) * 1000:.0f} ms |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
