"""The calibration figures of docs/lint.md, computed: agreement with the hand labels, and the distribution
of scores over the corpus and the test servers.

``python -m tests.calibration.report docs/lint.md --write`` rewrites each block between
``<!-- calibration:NAME -->`` and ``<!-- /calibration:NAME -->``; tests/test_lint_calibration.py fails
when the page is stale. The labels (labels.yaml, holdout-purpose.yaml) were written before the linter
ran on their tools; nothing here reads them back into a rule.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.quality.lint import lint_tools, select
from generator.quality.report import Report
from generator.quality.rules import DIMENSIONS, RULES

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"
GOLDEN = HERE.parent / "golden" / "demo.snapshot.json"

SAMPLED_FILES = (
    "npm-amap-amap-maps-mcp-server.json", "npm-antv-mcp-server-chart.json", "npm-brave-brave-search-mcp-server.json",
    "npm-browserbasehq-mcp-server-browserbase.json", "npm-exa-mcp-server.json", "npm-firecrawl-mcp.json",
    "npm-mcp-server-kubernetes.json", "npm-modelcontextprotocol-server-aws-kb-retrieval.json",
    "npm-modelcontextprotocol-server-brave-search.json", "npm-modelcontextprotocol-server-everart.json",
    "npm-modelcontextprotocol-server-everything.json", "npm-modelcontextprotocol-server-filesystem.json",
    "npm-modelcontextprotocol-server-gdrive.json", "npm-modelcontextprotocol-server-github.json",
    "npm-modelcontextprotocol-server-google-maps.json", "npm-modelcontextprotocol-server-memory.json",
    "npm-modelcontextprotocol-server-postgres.json", "npm-modelcontextprotocol-server-puppeteer.json",
    "npm-modelcontextprotocol-server-sequential-thinking.json", "npm-modelcontextprotocol-server-slack.json",
    "npm-notionhq-notion-mcp-server.json", "npm-playwright-mcp.json", "npm-sentry-mcp-server.json",
    "npm-tavily-mcp.json", "npm-upstash-context7-mcp.json", "pypi-arxiv-mcp-server.json",
    "pypi-awslabs-aws-documentation-mcp-server.json", "pypi-awslabs-aws-pricing-mcp-server.json",
    "pypi-awslabs-cloudwatch-mcp-server.json", "pypi-awslabs-dynamodb-mcp-server.json",
    "pypi-awslabs-ecs-mcp-server.json", "pypi-awslabs-eks-mcp-server.json", "pypi-awslabs-iam-mcp-server.json",
    "pypi-duckduckgo-mcp-server.json", "pypi-excel-mcp-server.json", "pypi-mcp-atlassian.json",
    "pypi-mcp-clickhouse.json", "pypi-mcp-grafana.json", "pypi-mcp-neo4j-cypher.json", "pypi-mcp-pandoc.json",
    "pypi-mcp-server-calculator.json", "pypi-mcp-server-fetch.json", "pypi-mcp-server-git.json",
    "pypi-mcp-server-motherduck.json", "pypi-mcp-server-sqlite.json", "pypi-mcp-server-time.json",
    "pypi-mcp-server-tree-sitter.json", "pypi-office-word-mcp-server.json", "pypi-yfinance-mcp.json",
    "pypi-zotero-mcp.json",
)  # fmt: skip
"""The corpus when the samples were drawn (50 files, 748 tools): the samples' numbering counts over these,
whatever files are added to tests/corpus/ later."""


def package(source: str) -> str:
    """The package name of a corpus file's ``source`` ("npm @scope/x@1.2", "PyPI x==1.2"): the server's name
    as far as the corpus records one (its files keep no serverInfo)."""
    name = source.split()[1].split("==")[0]
    return name[: name.rindex("@")] if name.rfind("@") > 0 else name


def corpus_reports(files: tuple[str, ...] = SAMPLED_FILES) -> dict[str, Report]:
    """The default report on each corpus file, by file name."""
    reports = {}
    for name in files:
        data = json.loads((CORPUS / name).read_text(encoding="utf-8"))
        reports[name] = lint_tools(data["tools"], server=package(data["source"]), rules=select())
    return reports


def sampled(every: int, offset: int) -> list[tuple[int, str, str]]:
    """(number, file, tool) of the corpus tools whose number leaves *offset* when divided by *every*."""
    found, number = [], 0
    for name in SAMPLED_FILES:
        for tool in json.loads((CORPUS / name).read_text(encoding="utf-8"))["tools"]:
            if number % every == offset:
                found.append((number, name, tool["name"]))
            number += 1
    return found


@dataclass(frozen=True)
class Agreement:
    """The confusion counts of one dimension: "poor" is the positive class."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def agreement(labels: list[dict[str, Any]], reports: dict[str, Report], dimension: str, key: str) -> Agreement:
    """How the linter's verdicts on *dimension* agree with the labels (``labels[i][key][dimension]``)."""
    counts: Counter[str] = Counter()
    for row in labels:
        tool = next(t for t in reports[row["file"]].tools if t.name == row["tool"])
        said = (row[key][dimension] if key else row[dimension])[0]
        got = tool.verdict(dimension)
        counts[("t" if said == got else "f") + ("p" if got == "poor" else "n")] += 1
    return Agreement(counts["tp"], counts["fp"], counts["fn"], counts["tn"])


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def agreement_table() -> str:
    labels = yaml.safe_load((HERE / "labels.yaml").read_text(encoding="utf-8"))
    reports = corpus_reports()
    rows = [
        "| dimension | labelled poor | flagged | agree poor | flagged, labelled good | missed | precision | recall |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for dimension in DIMENSIONS:
        a = agreement(labels, reports, dimension, "labels")
        rows.append(
            f"| {dimension} | {a.tp + a.fn} | {a.tp + a.fp} | {a.tp} | {a.fp} | {a.fn} | "
            f"{_figure(a.precision)} | {_figure(a.recall)} |"
        )
    return "\n".join(rows)


def holdout_table() -> str:
    labels = yaml.safe_load((HERE / "holdout-purpose.yaml").read_text(encoding="utf-8"))
    rows = ["| purpose rules | flagged | agree poor | flagged, labelled good | missed | precision | recall |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for label, enable in (("the defaults", ()), ("the defaults and purpose-restates-name", ("purpose-restates-name",))):
        reports = {}
        for name in SAMPLED_FILES:
            data = json.loads((CORPUS / name).read_text(encoding="utf-8"))
            reports[name] = lint_tools(data["tools"], server=package(data["source"]), rules=select(enable))
        a = agreement(labels, reports, "purpose", "")
        rows.append(
            f"| {label} | {a.tp + a.fp} | {a.tp} | {a.fp} | {a.fn} | {_figure(a.precision)} | {_figure(a.recall)} |"
        )
    return "\n".join(rows)


def test_servers() -> dict[str, list[dict[str, Any]]]:
    """The tools of the demo and of the test servers in tests/servers/, as ``tools/list`` gives them."""
    from tests.servers import fixture_server, smelly_server, vendor_server

    def dumped(tools: list[Any]) -> list[dict[str, Any]]:
        return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]

    demo = json.loads(GOLDEN.read_text(encoding="utf-8"))["tools"]
    return {
        "the bundled demo (teamspace-demo)": demo,
        "tests/servers/fixture_server.py (paged)": dumped(
            [fixture_server.make_tool(n) for n in fixture_server.PAGED_TOOLS]
        ),
        "tests/servers/vendor_server.py": vendor_server.TOOLS,
        "tests/servers/smelly_server.py": smelly_server.TOOLS,
    }


def distribution_table() -> str:
    reports = {f"`{name.removesuffix('.json')}`": r for name, r in corpus_reports().items()}
    tests = {name: lint_tools(tools, server=name, rules=select()) for name, tools in test_servers().items()}
    rows = [
        "| server | tools | score | tool quality | coherence | errors | warnings |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, report in sorted({**reports, **tests}.items(), key=lambda kv: (-kv[1].score, kv[0])):
        counts = report.counts()
        rows.append(
            f"| {name} | {len(report.tools)} | {report.score} | {round(report.tool_quality)} | "
            f"{round(report.coherence)} | {counts['error']} | {counts['warning']} |"
        )
    return "\n".join(rows)


def summary_table() -> str:
    reports = list(corpus_reports().values())
    servers = sorted(r.score for r in reports)
    tools = [t.score for r in reports for t in r.tools]
    quartiles = statistics.quantiles(servers, n=4)
    lines = [
        "| figure | corpus (50 servers, 748 tools) |",
        "| --- | --- |",
        f"| server score: min, quartiles, max | {servers[0]}, "
        f"{quartiles[0]:.0f} / {quartiles[1]:.0f} / {quartiles[2]:.0f}, {servers[-1]} |",
        f"| tool score: median | {statistics.median(tools):.0f} |",
    ]
    for low, high in ((90, 100), (75, 89), (50, 74), (0, 49)):
        share = sum(1 for s in tools if low <= s <= high) / len(tools)
        lines.append(f"| tools scoring {low}–{high} | {share:.0%} |")
    found = Counter(f.rule for r in reports for t in r.tools for f in {f.rule: f for f in t.findings}.values())
    for rule in RULES:
        if rule.dimension != "server" and found[rule.id]:
            lines.append(f"| tools with `{rule.id}` | {found[rule.id] / len(tools):.0%} |")
    return "\n".join(lines)


TABLES = {
    "agreement": agreement_table,
    "holdout": holdout_table,
    "distribution": distribution_table,
    "summary": summary_table,
}


def refresh(page: str) -> str:
    """*page* with every calibration block regenerated."""
    for name, make in TABLES.items():
        pattern = re.compile(rf"(<!-- calibration:{name} -->\n).*?(<!-- /calibration:{name} -->)", re.S)
        if not pattern.search(page):
            raise ValueError(f"docs/lint.md has no <!-- calibration:{name} --> block")
        match = pattern.search(page)
        assert match is not None
        page = page[: match.start()] + match.group(1) + make() + "\n" + match.group(2) + page[match.end() :]
    return page


def main(argv: list[str]) -> int:
    """``python -m tests.calibration.report docs/lint.md [--write]``: check the page (exit 1 when stale), or
    rewrite it."""
    path = Path(argv[0])
    page = path.read_text(encoding="utf-8")
    fresh = refresh(page)
    if "--write" in argv:
        path.write_text(fresh, encoding="utf-8")
        return 0
    return 0 if fresh == page else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
