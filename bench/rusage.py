"""Run one command; write its wall time, CPU time and peak RSS to a JSON file (for bench_scale.py).

    python -I -S bench/rusage.py RESULT.json CMD [ARG...]

The command inherits stdin, stdout, stderr, the working directory and the environment. The
exit status is the command's (128 + N when a signal N ended it). RESULT.json gets
``{"wall": s, "cpu": s, "rss_kb": KiB, "status": code}``: ``cpu`` is user + system time and
``rss_kb`` the peak resident set, both from ``os.wait4``, so they include what the command's
own reaped children used (CPU summed, RSS the largest single process).

Why a separate process: Linux keeps a process's RSS high-water mark across ``exec``, and a
freshly forked child starts from its parent's, so every child of the benchmark itself (a
Python process holding the workload, 100 MB and more) would report at least that much. This
wrapper is a bare interpreter (``-I -S``, about 10 MB), which is then the floor of every figure.
It imports only the standard library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    """``rusage.py RESULT CMD...``: run CMD, record its usage in RESULT, exit with its status."""
    if len(argv) < 2:
        print("usage: python -I -S bench/rusage.py RESULT.json CMD [ARG...]", file=sys.stderr)
        return 2
    result, cmd = argv[0], argv[1:]
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd)
    except OSError as exc:
        print(f"rusage.py: cannot start {cmd[0]}: {exc}", file=sys.stderr)
        return 127
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code  # reaped above: keep Popen from waiting again
    with open(result, "w", encoding="utf-8") as out:
        json.dump(
            {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_kb": usage.ru_maxrss, "status": code}, out
        )
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
