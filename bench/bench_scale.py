"""Scale benchmark: ``mcp-portal`` against Hugo (and MkDocs) on a server with many realistic tools.

    python bench/bench_scale.py                                 # 1,000 tools, 3 runs of each build
    python bench/bench_scale.py --tools 100,1000,5000 --search --rebuild --json before.json
    python bench/bench_scale.py --tools 100,1000 --rebuild --watch   # the one-tool rebuild, also in watch mode
    python bench/bench_scale.py --introspect-only --tools 1000  # introspect vs. the SDK's bare list loop
    python bench/bench_scale.py --mkdocs --mkdocs-bin /tmp/mkdocs-venv/bin/mkdocs

For every N in ``--tools`` it starts ``bench/scale_server.py`` (a real MCP server on the SDK's
low-level ``Server``, listing N tools in pages of ``--page-size``) and takes one snapshot of it
with ``mcp-portal introspect``. Then, ``--runs`` times and interleaved (variant 1 run 1,
variant 2 run 1, ..., variant 1 run 2, ...) so that the noise of a shared machine hits every
variant alike, it runs as child processes, each after an ``os.sync`` (so that no run pays for
writing back the files the run before it wrote):

- ``introspect``: ``mcp-portal introspect --stdio <server> -o FILE``;
- ``sdk list loop``: ``bench/sdk_list_tools.py``, the SDK's ``Client.list_tools`` cursor loop
  against the same server, the floor for ``introspect``;
- ``build --no-search`` (and ``build`` with search, with ``--search``):
  ``mcp-portal build --from SNAPSHOT --out DIR`` for en, ru and ar into a fresh empty DIR;
- ``rebuild``, with ``--rebuild``: one tool's description changed in the snapshot, built into the
  DIR the ``--no-search`` build just wrote (the ratio second/first is printed);
- with ``--rebuild --watch`` also ``rebuild (--watch, ...)``: a ``build --watch`` process started on
  the edited snapshot (unmeasured: its start-up and first build), then the file replaced by the
  original; measured from the replacement to the line that says the rebuild is done (the poll's
  delay included), with the CPU of the process and its workers over that span;
- with ``--search --rebuild`` also two rebuilds into the DIR the search build just wrote: the same
  snapshot again (no indexed page changed, so the previous search index is reused), then the one
  with a changed description (Pagefind runs);
- ``build --jobs J`` for each J of ``--jobs 1,2``, only when ``mcp-portal build --help``
  offers ``--jobs``;
- ``hugo``: ``hugo --quiet -s SRC -d OUT`` over the same pages written as Markdown (title,
  description, parameter table, output fields, annotations) in a multilingual site (en, ru, ar;
  ar right to left) with a minimal ``single.html`` and ``list.html``, when ``hugo`` is on PATH;
- ``hugo (same pages)``, with ``--same-pages``: Hugo over the portal's own tool pages, each
  locale's Markdown twins from one (unmeasured) ``--no-search`` build as its content, written out
  as HTML and again as Markdown (a custom output format), as the portal writes each page and its
  twin; its fenced JSON blocks are highlighted by Hugo's Chroma;
- ``mkdocs``, with ``--mkdocs``: ``mkdocs build`` of the same pages with mkdocs-material and
  mkdocs-static-i18n (folder structure, en/ru/ar), when the ``mkdocs`` command is found.
  It is not a dependency of this project; to try it::

      python3 -m venv /tmp/mkdocs-venv && /tmp/mkdocs-venv/bin/pip install mkdocs-material mkdocs-static-i18n
      python bench/bench_scale.py --mkdocs --mkdocs-bin /tmp/mkdocs-venv/bin/mkdocs

Each child runs under ``bench/rusage.py``, which reaps it with ``os.wait4`` for its wall time,
CPU time (user + system) and peak resident set size. CPU and RSS include the child's own
children that it waited for (the stdio server, Pagefind): CPU is their sum, peak RSS the
largest single process; about 10 MB (the wrapper's own size) is the floor of any RSS figure. The script prints a
Markdown table of medians, the ratio of each build's wall time to Hugo's, the introspection
and rebuild ratios, Pagefind's share of the build with search (the median of the build's own
``index:`` stage line, in seconds and as a share of its wall time), and with ``--json FILE``
writes every sample. It never installs anything: a missing
``hugo`` or ``mkdocs`` is skipped with a note. Nothing is written outside a temporary
directory (or ``--workdir``, which is kept).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))

from bench.scale_server import DEFAULT_PAGE_SIZE, DEFAULT_SEED, workload  # noqa: E402

LOCALES = ("en", "ru", "ar")
JSON = dict[str, Any]


class BenchError(Exception):
    """A step of the benchmark failed; the message says which and how."""


# --- measuring a child process -----------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One run of one variant: wall seconds, CPU seconds (user + sys) and peak RSS in KiB."""

    wall: float
    cpu: float
    rss_kb: int
    index: float | None = None
    """Seconds of the build's ``index`` stage (Pagefind), from its summary line, when it ran one."""


def measure(cmd: Sequence[str], log: Path, cwd: Path | None = None) -> Sample:
    """Run *cmd* to the end, its output into *log*; its wall time, CPU time and peak RSS.

    It runs under ``bench/rusage.py``, a bare interpreter that reaps it with ``os.wait4``: that
    counts in the children *cmd* reaped (a build's Pagefind run, an introspection's server), and
    keeps this process's own size out of the child's peak RSS (see that file).

    The disk is synced first (``os.sync``): a build leaves up to a few hundred megabytes to be
    written back for seconds after it exits, and that writeback would be charged to whatever runs
    next (most of all the rebuild, which runs right after its build).
    """
    os.sync()
    result = log.with_suffix(".rusage.json")
    wrapped = [sys.executable, "-I", "-S", str(BENCH / "rusage.py"), str(result), *cmd]
    with log.open("wb") as out:
        done = subprocess.run(wrapped, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, stdin=subprocess.DEVNULL)
    if done.returncode != 0 or not result.is_file():
        tail = "\n".join(log.read_text("utf-8", "replace").splitlines()[-15:])
        raise BenchError(f"`{shlex.join(cmd)}` exited with {done.returncode}; the end of its output:\n{tail}")
    usage = json.loads(result.read_text("utf-8"))
    # ru_maxrss is in KiB on Linux (bytes on macOS; this benchmark is meant for Linux).
    index = INDEX_STAGE.search(log.read_text("utf-8", "replace"))
    return Sample(
        wall=float(usage["wall"]),
        cpu=float(usage["cpu"]),
        rss_kb=int(usage["rss_kb"]),
        index=float(index.group(1)) if index else None,
    )


WATCH_CHANGES = 5
"""Changes one ``build --watch`` process is timed on: the first rebuild of a process also pays for
what its first build did not need (templates of pages it found unchanged, say), so the sample is the
median of the others, as a session of edits sees them."""


def measure_watch(cmd: Sequence[str], first: Path, then: Path, log: Path, cwd: Path | None = None) -> Sample:
    """``build --watch`` (*cmd*, whose ``--from`` file is ``watched.json`` beside *first*): start it on a copy
    of *first*, wait until it watches, then put *then* in its place, then *first* again, and so on
    (:data:`WATCH_CHANGES` changes, ending on *then*). Each change is timed from the replacement to the line
    that says the site is built (the watcher then tidies its heap before it looks again: not timed),
    with the CPU time the process and its workers spent meanwhile; the
    sample is the median of all but the first change, and the process's peak RSS. Its start-up and first
    build are not measured: that is the point of it."""
    watched = first.with_name("watched.json")
    shutil.copyfile(first, watched)
    replacement = first.with_name("watched.next.json")
    walls: list[float] = []
    cpus: list[float] = []
    os.sync()
    with log.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen([*cmd, "--watch"], stdout=out, stderr=subprocess.STDOUT, cwd=cwd, text=True)
        try:
            _wait_for_line(log, "Watching", 1, proc)
            for change in range(WATCH_CHANGES):
                shutil.copyfile(then if change % 2 == 0 else first, replacement)  # odd: it ends on *then*
                os.sync()
                before = _cpu_seconds(proc.pid)
                started = time.perf_counter()
                os.replace(replacement, watched)
                _wait_for_line(log, "Built ", change + 2, proc)  # the site is published
                walls.append(time.perf_counter() - started)
                cpus.append(_cpu_seconds(proc.pid) - before)
                _wait_for_line(log, "Watching", change + 2, proc)  # and the process idle again
            rss_kb = _peak_rss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    watched.unlink()
    return Sample(wall=statistics.median(walls[1:]), cpu=statistics.median(cpus[1:]), rss_kb=rss_kb)


def _wait_for_line(log: Path, start: str, count: int, proc: subprocess.Popen[str]) -> None:
    """Until *log* has *count* lines starting with *start* (polled every 10 ms; the poll's own delay is
    part of what a user waits for too, as is the watcher's)."""
    while sum(line.startswith(start) for line in log.read_text("utf-8", "replace").splitlines()) < count:
        if proc.poll() is not None:
            tail = "\n".join(log.read_text("utf-8", "replace").splitlines()[-15:])
            raise BenchError(f"`build --watch` exited with {proc.returncode}; the end of its output:\n{tail}")
        time.sleep(0.01)


def _cpu_seconds(pid: int) -> float:
    """User and system CPU of *pid* and of the children it has reaped (its render workers), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


INDEX_STAGE = re.compile(r"^index: .* in ([0-9.]+) s$", re.MULTILINE)
"""The summary line a build without a terminal prints for its Pagefind stage (``index: 3,006 pages in 9.62 s``)."""


def tree_size(path: Path) -> tuple[int, int]:
    """(files, bytes) under *path*."""
    files = size = 0
    for base, _, names in os.walk(path):
        for name in names:
            files += 1
            size += os.lstat(os.path.join(base, name)).st_size
    return files, size


def capture(cmd: Sequence[str], cwd: Path | None = None) -> str:
    """stdout + stderr of a short command, or "" when it cannot run or fails."""
    try:
        done = subprocess.run(list(cmd), capture_output=True, text=True, cwd=cwd, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr if done.returncode == 0 else ""


# --- the same pages as Markdown, for Hugo and MkDocs ----------------------------------------------

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "tools": "Tools",
        "parameters": "Parameters",
        "name": "Name",
        "type": "Type",
        "required": "Required",
        "description": "Description",
        "output": "Output",
        "field": "Field",
        "annotations": "Annotations",
        "hint": "Hint",
        "value": "Value",
        "readOnlyHint": "Read-only",
        "destructiveHint": "Destructive",
        "idempotentHint": "Idempotent",
        "openWorldHint": "Open world",
        "yes": "yes",
        "no": "no",
        "default": "default",
        "one of": "one of",
    },
    "ru": {
        "tools": "Инструменты",
        "parameters": "Параметры",
        "name": "Имя",
        "type": "Тип",
        "required": "Обязательный",
        "description": "Описание",
        "output": "Результат",
        "field": "Поле",
        "annotations": "Аннотации",
        "hint": "Подсказка",
        "value": "Значение",
        "readOnlyHint": "Только чтение",
        "destructiveHint": "Разрушающий",
        "idempotentHint": "Идемпотентный",
        "openWorldHint": "Открытый мир",
        "yes": "да",
        "no": "нет",
        "default": "по умолчанию",
        "one of": "одно из",
    },
    "ar": {
        "tools": "الأدوات",
        "parameters": "المعاملات",
        "name": "الاسم",
        "type": "النوع",
        "required": "مطلوب",
        "description": "الوصف",
        "output": "المخرجات",
        "field": "الحقل",
        "annotations": "التعليقات التوضيحية",
        "hint": "التلميح",
        "value": "القيمة",
        "readOnlyHint": "للقراءة فقط",
        "destructiveHint": "مدمِّر",
        "idempotentHint": "متساوي القوى",
        "openWorldHint": "عالم مفتوح",
        "yes": "نعم",
        "no": "لا",
        "default": "الافتراضي",
        "one of": "واحد من",
    },
}


def cell(text: str) -> str:
    """*text* safe inside a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def type_text(schema: JSON, labels: dict[str, str]) -> str:
    """A short type description: ``string | null``, ``integer, 1–100``, ``one of `a`, `b```..."""
    if "anyOf" in schema:
        kinds = [str(s.get("type", "any")) for s in schema["anyOf"]]
    elif isinstance(schema.get("type"), list):
        kinds = [str(t) for t in schema["type"]]
    else:
        kinds = [str(schema.get("type", "any"))]
    text = " | ".join(kinds)
    if kinds == ["array"] and isinstance(schema.get("items"), dict):
        text = f"array of {schema['items'].get('type', 'any')}"
    if "format" in schema:
        text += f" ({schema['format']})"
    if "minimum" in schema and "maximum" in schema:
        text += f", {schema['minimum']}–{schema['maximum']}"
    elif "minimum" in schema or "maximum" in schema:
        text += f", ≥ {schema['minimum']}" if "minimum" in schema else f", ≤ {schema['maximum']}"
    if "enum" in schema:
        text += f", {labels['one of']} " + ", ".join(f"`{v}`" for v in schema["enum"])
    if "default" in schema:
        text += f", {labels['default']} `{json.dumps(schema['default'])}`"
    return text


def schema_rows(properties: JSON, required: Sequence[str], labels: dict[str, str], prefix: str = "") -> list[str]:
    """One table row per property, nested object properties as ``parent.child`` rows."""
    rows = []
    for name, schema in properties.items():
        needed = labels["yes"] if name in required else labels["no"]
        rows.append(
            f"| `{prefix}{name}` | {cell(type_text(schema, labels))} | {needed} | "
            f"{cell(str(schema.get('description', '')))} |"
        )
        if schema.get("type") == "object" and isinstance(schema.get("properties"), dict):
            rows += schema_rows(schema["properties"], schema.get("required", []), labels, f"{prefix}{name}.")
    return rows


def tool_markdown(tool: JSON, locale: str) -> str:
    """The body of one tool's page: what the portal's tool page says, as plain Markdown."""
    labels = LABELS[locale]
    head = f"| {labels['name']} | {labels['type']} | {labels['required']} | {labels['description']} |"
    inputs = tool["inputSchema"]
    items = tool["outputSchema"]["properties"]["items"]
    lines = [
        f"`{tool['name']}`",
        "",
        tool["description"],
        "",
        f"## {labels['parameters']}",
        "",
        head,
        "| --- | --- | --- | --- |",
        *schema_rows(inputs["properties"], inputs.get("required", []), labels),
        "",
        f"## {labels['output']}",
        "",
        head.replace(labels["name"], labels["field"], 1),
        "| --- | --- | --- | --- |",
        *schema_rows(tool["outputSchema"]["properties"], tool["outputSchema"].get("required", []), labels),
        *schema_rows(items["items"]["properties"], items["items"].get("required", []), labels, "items[]."),
        "",
        f"## {labels['annotations']}",
        "",
        f"| {labels['hint']} | {labels['value']} |",
        "| --- | --- |",
        *(
            f"| {labels[hint]} (`{hint}`) | {labels['yes'] if value else labels['no']} |"
            for hint, value in tool["annotations"].items()
        ),
        "",
    ]
    return "\n".join(lines)


def summary(tool: JSON) -> str:
    """The first sentence of the description (what the tool list shows)."""
    return str(tool["description"]).split(". ", 1)[0].rstrip(".") + "."


HUGO_CONFIG = """\
baseURL = "https://bench.example/"
title = "scale-bench"
defaultContentLanguage = "en"
defaultContentLanguageInSubdir = true
# One list page per language (the home page), as the portal has: no section or taxonomy pages.
disableKinds = ["taxonomy", "term", "section"]

[languages.en]
languageName = "English"
contentDir = "content/en"
weight = 1

[languages.ru]
languageName = "Русский"
contentDir = "content/ru"
weight = 2

[languages.ar]
languageName = "العربية"
contentDir = "content/ar"
languageDirection = "rtl"
weight = 3
"""

HUGO_HEAD = """<!DOCTYPE html>
<html lang="{{ .Language.Lang }}" dir="{{ .Language.LanguageDirection | default "ltr" }}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} · {{ .Site.Title }}</title></head>
<body><nav><a href="{{ .Site.Home.RelPermalink }}">{{ .Site.Title }}</a></nav>
<main><h1>{{ .Title }}</h1>
"""
HUGO_SINGLE = HUGO_HEAD + "{{ .Content }}\n</main></body></html>\n"
HUGO_LIST = (
    HUGO_HEAD
    + "{{ .Content }}\n<ul>\n{{ range .Site.RegularPages }}"
    + '<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ .Params.summary }}</li>\n{{ end }}</ul>\n'
    + "</main></body></html>\n"
)


def hugo_skeleton(src: Path, config: str, layouts: dict[str, str]) -> dict[str, Path]:
    """A multilingual Hugo site under *src*: *config*, the ``_default`` *layouts* (file name -> text)
    and each locale's list page; returns each locale's empty ``tools`` content directory."""
    (src / "layouts" / "_default").mkdir(parents=True)
    (src / "config.toml").write_text(config, "utf-8")
    for name, text in layouts.items():
        (src / "layouts" / "_default" / name).write_text(text, "utf-8")
    pages = {}
    for locale in LOCALES:
        pages[locale] = src / "content" / locale / "tools"
        pages[locale].mkdir(parents=True)
        front = f"---\ntitle: {json.dumps(LABELS[locale]['tools'], ensure_ascii=False)}\n---\n"
        (src / "content" / locale / "_index.md").write_text(front, "utf-8")
    return pages


def write_hugo_site(src: Path, tools: Sequence[JSON]) -> None:
    """A multilingual Hugo site with one page per tool and locale, under *src*."""
    layouts = {"single.html": HUGO_SINGLE, "list.html": HUGO_LIST}
    for locale, pages in hugo_skeleton(src, HUGO_CONFIG, layouts).items():
        for tool in tools:
            front = (
                f"---\ntitle: {json.dumps(tool['title'], ensure_ascii=False)}\n"
                f"summary: {json.dumps(summary(tool), ensure_ascii=False)}\n---\n\n"
            )
            (pages / f"{tool['name']}.md").write_text(front + tool_markdown(tool, locale), "utf-8")


HUGO_TWINS_CONFIG = (
    HUGO_CONFIG
    + """
# Every page also as Markdown (index.md beside index.html), as the portal writes a twin of each.
[mediaTypes."text/markdown"]
suffixes = ["md"]

[outputFormats.markdown]
mediaType = "text/markdown"
baseName = "index"
isPlainText = true

[outputs]
page = ["HTML", "markdown"]
home = ["HTML"]
"""
)
HUGO_TWIN = "{{ .RawContent }}\n"


def write_hugo_twins_site(src: Path, built: Path) -> None:
    """The Hugo site of *built*'s own tool pages: each tool's Markdown twin (in every locale) as the
    content of a Hugo page, rendered to HTML and written out again as Markdown.

    The twins hold what the portal's tool pages hold (the examples, the raw schemas as JSON code
    blocks, the troubleshooting table...), so Hugo gets the same pages to render, highlighting
    included, where :func:`write_hugo_site` gives it the shorter pages of issue 13's workload.
    """
    layouts = {
        "single.html": HUGO_SINGLE,
        "list.html": HUGO_LIST.replace(".Params.summary", ".Description"),  # the twins' front matter
        "single.markdown.md": HUGO_TWIN,
    }
    for locale, pages in hugo_skeleton(src, HUGO_TWINS_CONFIG, layouts).items():
        for twin in sorted((built / locale / "tools").glob("*.md")):
            shutil.copyfile(twin, pages / twin.name)


MKDOCS_CONFIG = """\
site_name: scale-bench
site_url: https://bench.example/
theme:
  name: material
plugins:
  - i18n:
      docs_structure: folder
      languages:
        - locale: en
          default: true
          name: English
          build: true
        - locale: ru
          name: Русский
          build: true
        - locale: ar
          name: العربية
          build: true
"""


def write_mkdocs_site(src: Path, tools: Sequence[JSON]) -> None:
    """The same pages as an mkdocs-material site with mkdocs-static-i18n (one folder per locale)."""
    src.mkdir(parents=True)
    (src / "mkdocs.yml").write_text(MKDOCS_CONFIG, "utf-8")
    for locale in LOCALES:
        pages = src / "docs" / locale / "tools"
        pages.mkdir(parents=True)
        index = [f"# {LABELS[locale]['tools']}", ""]
        index += [f"- [{tool['title']}](tools/{tool['name']}.md) {summary(tool)}" for tool in tools]
        (src / "docs" / locale / "index.md").write_text("\n".join(index) + "\n", "utf-8")
        for tool in tools:
            (pages / f"{tool['name']}.md").write_text(f"# {tool['title']}\n\n" + tool_markdown(tool, locale), "utf-8")


BASELINE = " (baseline)"
"""The suffix of the variants that run the ``--baseline`` tree."""

# --- the variants ---------------------------------------------------------------------------------


@dataclass
class Variant:
    """One command measured ``--runs`` times at one N; *run* takes the run number and the log path."""

    name: str
    tools: int
    run: Callable[[int, Path], Sample]
    samples: list[Sample] = field(default_factory=list)
    output: tuple[int, int] | None = None  # (files, bytes) of the last run's output, when it has one

    def median(self, attr: str) -> float:
        """Median of one :class:`Sample` attribute over the runs."""
        return statistics.median(float(getattr(s, attr)) for s in self.samples)


@dataclass
class Context:
    """What every variant at one N shares."""

    n: int
    work: Path
    repo: Path
    portal: list[str]
    server: str
    snapshot: Path
    build_help: str
    introspect_help: str


def portal_build(ctx: Context, snapshot: Path, out: Path, extra: Sequence[str]) -> list[str]:
    """The ``mcp-portal build`` command line from *snapshot* into *out*."""
    cmd = [*ctx.portal, "build", "--from", str(snapshot), "--out", str(out), "--locales", ",".join(LOCALES)]
    if "--max-render-seconds" in ctx.build_help:  # the default budget is too short for the largest N
        cmd += ["--max-render-seconds", "86400"]
    if "--cache" in ctx.build_help:  # each site its own render cache, emptied with the site by fresh()
        cmd += ["--cache", str(cache_of(out))]
    return cmd + list(extra)


def cache_of(out: Path) -> Path:
    """The render cache of the site built into *out*: a full build starts without one, a rebuild reuses it."""
    return out.with_name(out.name + ".cache")


def introspect_cmd(ctx: Context, output: Path) -> list[str]:
    """The ``mcp-portal introspect`` command line for the scale server."""
    cmd = [*ctx.portal, "introspect", "--stdio", ctx.server, "-o", str(output)]
    if "--max-tools" in ctx.introspect_help:
        cmd += ["--max-tools", str(max(ctx.n, 5000)), "--total-timeout", "3600"]
    return cmd


def fresh(path: Path) -> Path:
    """*path*, removed first if it exists, and its render cache too: every build starts from an
    empty --out and, so that it is a full build, an empty cache."""
    for stale in (path, cache_of(path)):
        if stale.exists():
            shutil.rmtree(stale)
    return path


def edited_snapshot(source: Path, target: Path, repo: Path) -> None:
    """*source* with one tool's description changed (and its fingerprint recomputed), into *target*.

    The snapshot code of *repo* (the tree being measured) recomputes the fingerprint.
    """
    sys.path.insert(0, str(repo))
    from generator.snapshot.snapshot import load_snapshot, revised

    snap = load_snapshot(source)
    tools = [dict(t) for t in snap.tools]
    middle = len(tools) // 2
    tools[middle]["description"] = str(tools[middle]["description"]) + " Changed for the rebuild benchmark."
    changed = revised(snap, tools=tuple(tools))
    target.write_text(changed.to_json(), "utf-8")


def variants_for(ctx: Context, args: argparse.Namespace, notes: list[str], baseline: bool = False) -> list[Variant]:
    """Every variant to run at ``ctx.n``, in the order one round runs them. For the ``--baseline``
    tree (*baseline*) only the portal's builds, named with a ``(baseline)`` suffix."""
    n, work = ctx.n, ctx.work
    first_n = n == args.tools[0] and not baseline  # notes about a missing tool are given once
    found: list[Variant] = []

    def add(name: str, run: Callable[[int, Path], Sample]) -> None:
        found.append(Variant(name + (BASELINE if baseline else ""), n, run))

    def site(name: str, out: Path, command: Callable[[Path], list[str]], keep: bool = False) -> None:
        """A variant that writes a site into a fresh *out*; its size is recorded, then it is removed."""
        variant = Variant(name + (BASELINE if baseline else ""), n, lambda r, log: Sample(0, 0, 0))

        def run(r: int, log: Path) -> Sample:
            sample = measure(command(fresh(out)), log, ctx.repo)
            variant.output = tree_size(out)
            if not keep:
                shutil.rmtree(out)
            return sample

        variant.run = run
        found.append(variant)

    def introspect(r: int, log: Path) -> Sample:
        out = work / f"introspect-{r}.json"
        sample = measure(introspect_cmd(ctx, out), log, ctx.repo)
        out.unlink()
        return sample

    if not baseline:
        add("introspect", introspect)
        sdk = [sys.executable, str(BENCH / "sdk_list_tools.py"), ctx.server]
        add("sdk list loop", lambda r, log: measure(sdk, log, ctx.repo))
    if args.introspect_only:
        return found

    plain = work / "site-no-search"
    site("build --no-search", plain, lambda out: portal_build(ctx, ctx.snapshot, out, ["--no-search"]), args.rebuild)
    if args.rebuild:
        edited = work / "snapshot-edited.json"
        edited_snapshot(ctx.snapshot, edited, ctx.repo)

        watching = args.watch and "--watch" in ctx.build_help

        def rebuild(r: int, log: Path) -> Sample:
            # Into the site the --no-search build of this round has just written, with its warm cache.
            sample = measure(portal_build(ctx, edited, plain, ["--no-search"]), log, ctx.repo)
            if not watching:
                shutil.rmtree(plain)
            return sample

        add("rebuild (1 description changed)", rebuild)
        if watching:

            def watch_rebuild(r: int, log: Path) -> Sample:
                # The same site, now built from the edited snapshot: a watching process changes it back.
                sample = measure_watch(
                    portal_build(ctx, work / "watched.json", plain, ["--no-search", "--quiet"]),
                    edited,
                    ctx.snapshot,
                    log,
                    ctx.repo,
                )
                shutil.rmtree(plain)
                return sample

            add("rebuild (--watch, 1 description changed)", watch_rebuild)
    if args.search:
        searched = work / "site-search"
        site("build (search)", searched, lambda out: portal_build(ctx, ctx.snapshot, out, []), args.rebuild)
    if args.search and args.rebuild:

        def search_rebuild(edit: Path | None) -> Callable[[int, Path], Sample]:
            def run(r: int, log: Path) -> Sample:
                # Into the site the search build of this round has just written, with its warm cache.
                sample = measure(portal_build(ctx, edit or ctx.snapshot, searched, []), log, ctx.repo)
                if edit is not None:
                    shutil.rmtree(searched)
                return sample

            return run

        add("rebuild (search, nothing changed)", search_rebuild(None))
        add("rebuild (search, 1 description changed)", search_rebuild(work / "snapshot-edited.json"))
    if args.jobs and "--jobs" in ctx.build_help:
        for jobs in args.jobs:
            extra = ["--no-search", "--jobs", str(jobs)]
            site(
                f"build --no-search --jobs {jobs}",
                work / f"site-jobs{jobs}",
                partial(portal_build, ctx, ctx.snapshot, extra=extra),
            )
    elif args.jobs and first_n:
        notes.append("`mcp-portal build --help` offers no --jobs yet: the --jobs variants were skipped.")
    if baseline:
        return found
    hugo = shutil.which("hugo")
    if hugo:
        hsrc = fresh(work / "hugo-src")  # a kept --workdir may hold the last run's
        write_hugo_site(hsrc, ctx_tools(ctx))
        site("hugo", work / "hugo-out", lambda out: [hugo, "--quiet", "-s", str(hsrc), "-d", str(out)])
        if args.same_pages:
            tsrc = fresh(work / "hugo-twins-src")
            twins = fresh(work / "twins-for-hugo")  # built once, not measured: its twins are Hugo's content
            measure(portal_build(ctx, ctx.snapshot, twins, ["--no-search"]), work / "twins-for-hugo.log", ctx.repo)
            write_hugo_twins_site(tsrc, twins)
            fresh(twins)
            site(
                "hugo (same pages)",
                work / "hugo-twins-out",
                lambda out: [hugo, "--quiet", "-s", str(tsrc), "-d", str(out)],
            )
    elif first_n:
        notes.append("`hugo` is not on PATH: the Hugo comparison was skipped (Debian: `apt-get install hugo`).")
    if args.mkdocs:
        mkdocs = args.mkdocs_bin or shutil.which("mkdocs")
        if not mkdocs:
            if first_n:
                notes.append("`mkdocs` was not found: the MkDocs comparison was skipped (see --mkdocs-bin).")
        elif n > args.mkdocs_max_tools:
            notes.append(f"MkDocs was skipped at {n:,} tools (above --mkdocs-max-tools {args.mkdocs_max_tools:,}).")
        else:
            msrc = work / "mkdocs-src"
            write_mkdocs_site(msrc, ctx_tools(ctx))
            config = str(msrc / "mkdocs.yml")
            site(
                "mkdocs-material",
                work / "mkdocs-out",
                lambda out: [mkdocs, "build", "-q", "-f", config, "-d", str(out)],
            )
    return found


def ctx_tools(ctx: Context) -> list[JSON]:
    """The tools exactly as the snapshot holds them (what the portal documents)."""
    data = json.loads(ctx.snapshot.read_text("utf-8"))
    tools: list[JSON] = data["tools"]
    return tools


# --- report -------------------------------------------------------------------------------------


def mib(kb: float) -> str:
    """KiB as MiB, one decimal."""
    return f"{kb / 1024:,.0f}"


def table(variants: Sequence[Variant]) -> str:
    """The Markdown table of medians, one row per variant and N."""
    lines = [
        "| variant | tools | runs | median wall | median CPU | CPU/wall | peak RSS | × Hugo (wall) | output |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    hugo = {v.tools: v.median("wall") for v in variants if v.name == "hugo" and v.samples}
    for v in variants:
        if not v.samples:
            continue
        wall, cpu = v.median("wall"), v.median("cpu")
        rss = max(s.rss_kb for s in v.samples)
        versus = f"{wall / hugo[v.tools]:.1f}×" if v.tools in hugo and not v.name.startswith(("intro", "sdk")) else ""
        output = f"{v.output[0]:,} files, {v.output[1] / 1e6:.1f} MB" if v.output else ""
        lines.append(
            f"| {v.name} | {v.tools:,} | {len(v.samples)} | {wall:.2f} s | {cpu:.2f} s | {cpu / wall:.2f} | "
            f"{mib(rss)} MiB | {versus} | {output} |"
        )
    return "\n".join(lines)


def ratios(variants: Sequence[Variant]) -> list[str]:
    """Lines for the paired ratios: introspect / SDK loop, rebuild / first build (medians of per-run ratios)."""
    by = {(v.name, v.tools): v for v in variants}
    lines = []
    for v in variants:
        pairs = {
            "introspect": ("sdk list loop", "`mcp-portal introspect` / the SDK's bare `list_tools` loop"),
            "build --no-search": ("hugo (same pages)", "build --no-search / Hugo over the same pages (the twins)"),
            "build (search)": ("hugo (same pages)", "build with search / Hugo over the same pages (no search)"),
            "rebuild (1 description changed)": ("build --no-search", "rebuild after one description changed / build"),
            "rebuild (--watch, 1 description changed)": (
                "build --no-search",
                "rebuild by `build --watch` after one description changed / build",
            ),
            "rebuild (search, nothing changed)": ("build (search)", "identical rebuild with search / that build"),
            "rebuild (search, 1 description changed)": (
                "build (search)",
                "rebuild with search after one description changed / build with search",
            ),
        }
        name = v.name.removesuffix(BASELINE)
        if name not in pairs:
            continue
        base_name, label = pairs[name]
        if name != v.name:  # a baseline build is compared with the baseline's own builds, and with Hugo
            label = f"{label} (baseline)"
            base_name += "" if base_name.startswith("hugo") else BASELINE
        base = by.get((base_name, v.tools))
        if base is None or not base.samples:
            continue
        per_run = [a.wall / b.wall for a, b in zip(v.samples, base.samples, strict=False)]
        lines.append(
            f"- {v.tools:,} tools: {label}: {statistics.median(per_run):.2f} "
            f"({v.median('wall'):.2f} s vs {base.median('wall'):.2f} s, wall)"
        )
    for v in variants:
        before = by.get((v.name + BASELINE, v.tools))
        if before is not None and before.samples and v.samples:
            lines.append(
                f"- {v.tools:,} tools: {v.name}, this tree / the baseline: "
                f"{v.median('wall') / before.median('wall'):.2f} wall "
                f"({v.median('wall'):.2f} s vs {before.median('wall'):.2f} s), peak RSS "
                f"{mib(max(x.rss_kb for x in v.samples))} vs {mib(max(x.rss_kb for x in before.samples))} MiB"
            )
    for v in variants:
        indexed = [(s.index, s.wall) for s in v.samples if s.index is not None]
        if v.name == "build (search)" and indexed:  # the build's own stage line: Pagefind alone
            seconds = statistics.median(i for i, _ in indexed)
            share = statistics.median(i / w for i, w in indexed)
            lines.append(
                f"- {v.tools:,} tools: Pagefind's share of the build with search: {seconds:.2f} s ({share:.0%})"
            )
    return lines


def environment(portal: Sequence[str], repo: Path) -> JSON:
    """What the numbers were measured on."""
    hugo = shutil.which("hugo")
    return {
        "cpus": os.cpu_count(),
        "loadavg_start": os.getloadavg(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "hugo": capture([hugo, "version"]).strip() if hugo else None,
        "portal": shlex.join(portal),
        "repo": str(repo),
        "commit": capture(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"]).strip() or None,
    }


# --- main ------------------------------------------------------------------------------------------


def int_list(text: str) -> list[int]:
    """``"100,1000"`` -> ``[100, 1000]`` (argparse type)."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected numbers of at least 1, got {text!r}")
    return values


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python bench/bench_scale.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tools", type=int_list, default=[1000], help="numbers of tools, e.g. 100,1000,5000")
    parser.add_argument("--runs", type=int, default=3, help="runs of each variant (default 3)")
    parser.add_argument("--search", action="store_true", help="also time the build with the Pagefind index")
    parser.add_argument("--rebuild", action="store_true", help="also time a rebuild after one description changed")
    parser.add_argument(
        "--watch", action="store_true", help="with --rebuild, also time that rebuild done by a running `build --watch`"
    )
    parser.add_argument("--jobs", type=int_list, default=None, help="also time build --jobs J (when it exists)")
    parser.add_argument("--introspect-only", action="store_true", help="only introspect vs. the SDK's list loop")
    parser.add_argument(
        "--same-pages",
        action="store_true",
        help="also time Hugo over the portal's own tool pages (its Markdown twins, written back as Markdown too)",
    )
    parser.add_argument("--mkdocs", action="store_true", help="also time mkdocs-material + mkdocs-static-i18n")
    parser.add_argument("--mkdocs-bin", help="the mkdocs command (default: mkdocs on PATH)")
    parser.add_argument("--mkdocs-max-tools", type=int, default=1000, help="skip MkDocs above this N (default 1000)")
    parser.add_argument("--page-size", type=int, default=DEFAULT_PAGE_SIZE, help="tools per tools/list page")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="workload seed")
    parser.add_argument("--portal", help='the mcp-portal command (default: "PYTHON -m generator", run in --repo)')
    parser.add_argument(
        "--repo",
        type=Path,
        default=ROOT,
        help="the source tree whose generator is measured (default: this one); e.g. a `git archive` export",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another source tree (e.g. a `git worktree` of the last release) whose builds run interleaved with "
        "this tree's, each named '(baseline)', for a before/after in one run",
    )
    parser.add_argument("--workdir", type=Path, help="keep the work files here instead of a temporary directory")
    parser.add_argument("--json", type=Path, help="write every sample to this file")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not (args.repo / "generator" / "__main__.py").is_file():
        parser.error(f"--repo {args.repo} is not an mcp-portal source tree (no generator/__main__.py)")
    args.repo = args.repo.resolve()
    if args.baseline is not None:
        if not (args.baseline / "generator" / "__main__.py").is_file():
            parser.error(f"--baseline {args.baseline} is not an mcp-portal source tree (no generator/__main__.py)")
        if args.portal:
            parser.error("--baseline runs `python -m generator` in each tree, so it cannot be combined with --portal")
        args.baseline = args.baseline.resolve()
    return args


def run_one_n(n: int, args: argparse.Namespace, portal: list[str], root: Path, notes: list[str]) -> list[Variant]:
    """Prepare the workload for *n* tools, then run every variant ``--runs`` times, interleaved."""
    work = root / f"n{n}"
    work.mkdir(parents=True, exist_ok=True)
    sizes = ["--tools", str(n), "--page-size", str(args.page_size), "--seed", str(args.seed)]
    server = shlex.join([sys.executable, str(BENCH / "scale_server.py"), *sizes])
    ctx = Context(
        n=n,
        work=work,
        repo=args.repo,
        portal=portal,
        server=server,
        snapshot=work / "snapshot.json",
        build_help=capture([*portal, "build", "--help"], args.repo),
        introspect_help=capture([*portal, "introspect", "--help"], args.repo),
    )
    print(f"\n{n:,} tools: taking the snapshot ...", file=sys.stderr, flush=True)
    measure(introspect_cmd(ctx, ctx.snapshot), work / "snapshot.log", args.repo)  # also warms the caches
    got = len(json.loads(ctx.snapshot.read_text("utf-8"))["tools"])
    if got != n or [t["name"] for t in ctx_tools(ctx)] != [t["name"] for t in workload(n, args.seed)]:
        raise BenchError(f"the snapshot of the {n}-tool server holds {got} tools, not the workload's {n}")
    variants = variants_for(ctx, args, notes)
    if args.baseline:
        before = dataclasses.replace(
            ctx,
            work=work / "baseline",
            repo=args.baseline,
            build_help=capture([*portal, "build", "--help"], args.baseline),
        )
        before.work.mkdir(exist_ok=True)
        variants += variants_for(before, args, notes, baseline=True)
    for r in range(args.runs):
        for v in variants:
            print(f"  run {r + 1}/{args.runs}: {v.name} ...", end="", file=sys.stderr, flush=True)
            sample = v.run(r, work / f"{v.name.replace(' ', '_').replace('/', '_')}-{r}.log")
            v.samples.append(sample)
            print(f" {sample.wall:.2f} s", file=sys.stderr, flush=True)
    return variants


def compile_sources(repo: Path) -> None:
    """Write the bytecode of *repo*'s package, as installing it does.

    ``python -m generator`` in a source tree under ``PYTHONDONTWRITEBYTECODE=1`` (set on some CI
    machines and sandboxes) compiles every module of the package in every process: half a second,
    which a tree with bytecode does not pay, so two trees compared would not be compared fairly.
    """
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(repo / "generator")], check=True, stdout=subprocess.DEVNULL
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    args = parse_args(argv)
    portal = shlex.split(args.portal) if args.portal else [sys.executable, "-m", "generator"]
    notes: list[str] = []
    if not args.portal:
        compile_sources(args.repo)
        if args.baseline:
            compile_sources(args.baseline)
    env = environment(portal, args.repo)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    results: list[Variant] = []
    try:
        for n in args.tools:
            results += run_one_n(n, args, portal, root, notes)
    except BenchError as exc:
        print(f"bench_scale: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    env["loadavg_end"] = os.getloadavg()
    print(
        f"\n{env['cpus']} CPUs, Python {env['python']}, load average {env['loadavg_start'][0]:.2f} at the start and "
        f"{env['loadavg_end'][0]:.2f} at the end; {env['repo']} (commit {env['commit']}); "
        f"{env['hugo'] or 'no hugo'}\n"
    )
    print(table(results))
    lines = ratios(results)
    if lines:
        print("\nPaired ratios (median of the per-run ratios):\n")
        print("\n".join(lines))
    for note in notes:
        print(f"\nNote: {note}")
    if args.json:
        raw = {
            "environment": env,
            "notes": notes,
            "results": [
                {
                    "variant": v.name,
                    "tools": v.tools,
                    "samples": [dataclasses.asdict(s) for s in v.samples],
                    "output_files": v.output[0] if v.output else None,
                    "output_bytes": v.output[1] if v.output else None,
                }
                for v in results
            ],
        }
        args.json.write_text(json.dumps(raw, indent=2) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
