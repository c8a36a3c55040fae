"""Server text in Markdown, llms.txt, terminal and CI output: always shown, never structure.

Two snapshots of the same shape are built: one where every string a server controls (version,
names, titles, descriptions, enum values, defaults, prompt and resource fields, the previous
snapshot's version) carries :data:`PAYLOAD` (a forged heading, a table, raw HTML, a
``javascript:`` link, an image, backticks, a GitHub Actions command, ANSI escapes, @everyone),
and one with plain words.  Every Markdown twin and llms*.txt of the hostile build must parse
(markdown-it, CommonMark with tables) into the same block and inline structure as the benign
build: the payload may add text and code spans, nothing else.  Front matter must read back as
the exact values.  The command line (build, check, diff in every format) must print no line a
CI runner would take for a workflow command and no control character.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import cmarkgfm  # type: ignore[import-untyped]
import pytest
import yaml
from llms_txt import parse_llms_file
from markdown_it import MarkdownIt

from generator.commands.build import site_files
from generator.config.portal import PortalConfig
from generator.render.filters import md_cell, md_code, md_link, md_text, md_url, yaml_str
from generator.snapshot.snapshot import Snapshot, new_snapshot
from generator.text import code_span, encodable, for_terminal, json_report, visible
from tests.conftest import PYTHON, ROOT, TEMPLATES
from tests.test_install_links import INSTALL_LINK

PAYLOAD = (
    "1.0\n\n## Injected\n| a | b |\n| --- | --- |\n<img src=x onerror=alert(1)>\n<script>alert(1)</script>"
    " [x](javascript:alert(1)) ![i](https://t.example/p.png) <https://auto.example> `tick` ``x`` ```\n"
    "::error::pwned\n  ::add-mask::x ##[error]old \x1b[31mred\x1b[0m \x9b2J @everyone #1 owner/repo#2"
    " https://bare.example/p www.bare.example mail@bare.example"
    " &#60;b&#62; *em* _em_ ~~del~~ \u202egnp\r\n1. item\n> quote\n---\n===\n- [ ] task\n[ref]: https://x.example\n"
)
SAFE_SCHEMES = {"", "http", "https", "mailto"}
LOCALES = ("en", "ru", "ar")
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _snapshot(s: Callable[[str], str], *, previous: bool = False) -> Snapshot:
    """A snapshot in which every server string is ``s(label)``; *previous* is an older release."""
    tools = []
    for i in range(2 if previous else 3):
        tools.append(
            {
                "name": s(f"t{i}"),
                "title": s("Title"),
                "description": s("Old description." if previous and i == 0 else "Description."),
                "annotations": {"title": s("Annotation"), "readOnlyHint": i == 0, "x-extra": s("extra")},
                "_meta": {s("key"): s("value")},
                "inputSchema": {
                    "type": "object",
                    "title": s("Schema"),
                    "description": s("Schema description"),
                    "properties": {
                        s("p"): {
                            "type": "string",
                            "title": s("P"),
                            "description": s("P description"),
                            "enum": [s("one"), s("two")],
                            "default": s("one"),
                            "examples": [s("one")],
                        },
                        "q": {"type": "string", "format": s("fmt"), "const": s("c"), "description": s("Q")},
                    },
                    "required": [s("p")],
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {s("o"): {"type": "integer", "description": s("O"), "default": 1}},
                },
            }
        )
    return new_snapshot(
        protocol_version="2025-11-25",
        server={
            "name": s("server"),
            "title": s("Server"),
            "version": s("0.9" if previous else "1.0"),
            "description": s("About"),
            "instructions": s("Instructions"),
            "websiteUrl": s("https://example.com/"),
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
        },
        tools=tuple(tools),
        capability_version=s("0.9" if previous else "1.0"),
        transport="streamable-http",
        endpoint="https://example.invalid/mcp/",
        prompts=(
            {
                "name": s("prompt"),
                "title": s("Prompt title"),
                "description": s("Prompt description"),
                "arguments": [{"name": s("arg"), "title": s("Arg"), "description": s("Arg d"), "required": True}],
            },
        ),
        resources=(
            {
                "uri": "file:///r/" + s("r"),
                "name": s("resource"),
                "title": s("Resource title"),
                "description": s("Resource description"),
                "mimeType": s("text/plain"),
            },
        ),
        resource_templates=(
            {"uriTemplate": "file:///t/{x}", "name": s("template"), "description": s("Template description")},
        ),
        skipped_tools=({"name": s("skipped"), "reason": s("reason")},),
    )


def hostile(label: str) -> str:
    return label + PAYLOAD


def benign(label: str) -> str:
    return label


def _files(s: Callable[[str], str], tmp: Path) -> dict[str, str]:
    """The Markdown and llms files of a build with a previous snapshot, in the order they are rendered."""
    previous = tmp / f"previous-{s.__name__}.json"
    previous.write_text(_snapshot(s, previous=True).to_json(), encoding="utf-8")
    files, _ = site_files(
        _snapshot(s), PortalConfig(locales=LOCALES, search=False, previous=str(previous)), renderer=TEMPLATES
    )
    return {p: data.decode("utf-8") for p, data in files.items() if p.endswith((".md", ".txt")) and "robots" not in p}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, str, str]]:
    """(hostile path, hostile text, benign path, benign text) for every twin and llms file."""
    tmp = tmp_path_factory.mktemp("md")
    bad, good = _files(hostile, tmp), _files(benign, tmp)
    assert len(bad) == len(good)
    pairs = list(zip(bad.items(), good.items(), strict=True))
    for (bad_path, _), (good_path, _) in pairs:
        # Slugs differ (hostile names get a hashed one), but the kind of page at each position does not.
        assert bad_path.rsplit("/", 1)[0] == good_path.rsplit("/", 1)[0], (bad_path, good_path)
    return [(bp, bt, gp, gt) for (bp, bt), (gp, gt) in pairs]


def _shape(text: str) -> list[tuple[str, ...]]:
    """The structure markdown-it finds: every block token, and each inline's tokens but text and code."""
    shape: list[tuple[str, ...]] = []
    for token in MD.parse(text):
        if token.type == "inline":
            kids = tuple(c.type for c in token.children or [] if c.type not in ("text", "code_inline"))
            shape.append(("inline", *kids))
        else:
            shape.append((token.type, token.tag))
    return shape


_FRONT = re.compile(r"^---\ntitle: .*?\n---\n", re.MULTILINE | re.DOTALL)


def _body(text: str) -> str:
    """A twin (or llms-full.txt, every twin in a row) without front matter, which is YAML, checked on its own."""
    for front in _FRONT.findall(text):
        # A reader that does not know front matter shows it as Markdown: it must hold no HTML or link either.
        assert not {t.type for t in _walk(front)} & {"html_inline", "html_block", "link_open", "image"}, front
    return _FRONT.sub("", text)


def _walk(text: str) -> list[Any]:
    tokens = []
    for token in MD.parse(text):
        tokens.append(token)
        tokens.extend(token.children or [])
    return tokens


def test_payload_adds_no_markdown_structure(builds: list[tuple[str, str, str, str]]) -> None:
    """Same headings, tables, lists, quotes, links and emphasis as the benign build; no HTML, no image."""
    assert len(builds) > 10
    for bad_path, bad_file, good_path, good_file in builds:
        bad, good = _body(bad_file), _body(good_file)
        bad_shape, good_shape = _shape(bad), _shape(good)
        if bad_shape != good_shape:
            first = next(i for i, (a, b) in enumerate(zip(bad_shape, good_shape, strict=False)) if a != b)
            pytest.fail(
                f"{bad_path} (vs {good_path}) differs at token {first}: {bad_shape[first]} != {good_shape[first]}"
            )
        for token in _walk(bad):
            assert token.type not in ("html_block", "html_inline", "image"), f"{bad_path}: {token.type}"
            if token.type == "link_open":
                href = str(token.attrs.get("href", ""))
                safe = urlsplit(href).scheme.lower() in SAFE_SCHEMES or INSTALL_LINK.fullmatch(href)
                assert safe, f"{bad_path}: {href}"
        assert "\x1b" not in bad and "\x9b" not in bad and "\u202e" not in bad and "\r" not in bad


def test_headings_from_server_text_hold_it_escaped(builds: list[tuple[str, str, str, str]]) -> None:
    """The H1 of a tool page is the tool's name, the whole of it, on one line."""
    tool_pages = [bad for bad_path, bad, _, _ in builds if "/tools/" in bad_path]
    assert tool_pages
    for bad in tool_pages:
        h1 = next(line for line in bad.splitlines() if line.startswith("# "))
        rendered = MD.render(h1)
        assert rendered.startswith("<h1>t") and "## Injected" in rendered and "<img" not in rendered


def _front(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    block = text[4 : text.index("\n---\n", 4)]
    data = yaml.safe_load(block)
    assert isinstance(data, dict)
    return data


def test_front_matter_reads_back_as_the_exact_values(builds: list[tuple[str, str, str, str]]) -> None:
    new, old = _snapshot(hostile), _snapshot(hostile, previous=True)
    names = {visible(str(t["name"])) for t in new.tools}
    twins = [(bad_path, bad) for bad_path, bad, _, _ in builds if bad_path.endswith(".md")]
    assert any("/tools/" in bad_path for bad_path, _ in twins)
    for bad_path, bad in twins:
        front = _front(bad)
        keys = {"title", "description", "locale", "verbatim_language", "version", "canonical", "generated"}
        keys.add("server_text")
        if any(f"/{kind}/" in bad_path for kind in ("tools", "prompts", "resources", "resource-templates")):
            keys.add("proven")  # the server accepted the page's example (--prove): false, none was sent
            assert front["proven"] is False, bad_path
        assert set(front) == keys, bad_path
        assert front["verbatim_language"] == "en"
        assert front["version"] == visible(new.capability_version)
        assert front["locale"] == bad_path.split("/")[0]
        if "/tools/" in bad_path:
            assert front["title"] in names, bad_path
        if bad_path.endswith("changes.md"):
            assert visible(old.capability_version) in front["title"]


def test_llms_txt_parses_with_the_benign_sections(builds: list[tuple[str, str, str, str]]) -> None:
    llms = [(bad_path, bad, good) for bad_path, bad, _, good in builds if bad_path.endswith("llms.txt")]
    assert llms
    for bad_path, bad, good in llms:
        parsed, expected = parse_llms_file(bad), parse_llms_file(good)
        assert parsed["title"].startswith("Server") and "\n" not in parsed["title"], bad_path
        assert list(parsed["sections"]) == list(expected["sections"]), bad_path
        for name, links in expected["sections"].items():
            assert len(parsed["sections"][name]) == len(links), (bad_path, name)
            for link in parsed["sections"][name]:
                assert urlsplit(link["url"]).scheme in SAFE_SCHEMES and " " not in link["url"], link


# --- the filters, one context at a time -----------------------------------------------------


def test_md_text_keeps_code_spans_and_escapes_the_rest() -> None:
    assert md_text("use `a|b` or *b*") == "use `a|b` or \\*b\\*"
    assert md_cell("use `a|b`") == "use `a\\|b`"
    assert md_text("[x](javascript:alert(1))") == "\\[x\\](javascript:alert(1))"
    assert md_text("1.0") == "1.0" and md_text("1. x") == "1\\. x" and md_text("# h") == "\\# h"
    assert md_text("&#60;b&#62; Q&A") == "\\&#60;b\\&#62; Q&A"
    assert md_text("search_chat") == "search_chat"


def test_pr_text_turns_mentions_and_references_into_code() -> None:
    assert md_text("ping @everyone about #12 and org/repo#3", pr=True) == (
        "ping `@everyone` about `#12` and `org/repo#3`"
    )
    # What GitHub's Markdown links by itself: a URL, a www. address, an e-mail address.
    assert md_text("mail a@b.example, see https://x.example/a?b=1|c or WWW.x.example", pr=True) == (
        "mail `a@b.example`, see `https://x.example/a?b=1`\\|c or `WWW.x.example`"
    )
    assert md_text("@x", pr=False) == "@x"


def test_md_code_fence_outgrows_the_backticks() -> None:
    assert md_code("a``b") == "```a``b```"
    assert MD.render(md_code("x` <img src=x>")).count("<code>") == 1


def test_md_url_encodes_and_refuses() -> None:
    assert md_url("../a b (c)<d>.md") == "../a%20b%20%28c%29%3Cd%3E.md"
    assert md_url("javascript:alert(1)") == "" and md_url(" JaVa\tscript:x") == ""
    assert md_url("https://x.example/p?q=1#f") == "https://x.example/p?q=1#f"
    assert md_link("a]b", "x y.md") == "[a&#93;b](x%20y.md)"


def test_yaml_str_is_exact_and_one_line() -> None:
    for value in ["a\nb", 'q"uote', "back\\slash", "tab\there", "line\u2028sep", "---", "#x", "key: value"]:
        out = yaml_str(value)
        assert "\n" not in out
        assert yaml.safe_load(f"k: {out}")["k"] == value


def test_finalize_escapes_strings_no_filter_made_safe(tmp_path: Path) -> None:
    """A user template that forgets a filter shows the text; it does not forge structure."""
    (tmp_path / "md").mkdir()
    (tmp_path / "md" / "index.md.j2").write_text(
        "# {{ site.title }}\n\n{{ site.version }}\n\n{{ t('notice.generated', version=site.version) }}\n"
    )
    files, _ = site_files(
        _snapshot(hostile), PortalConfig(locales=("en",), search=False, template_dir=str(tmp_path)), renderer=TEMPLATES
    )
    text = files["en/index.md"].decode()
    assert _shape(text) == [
        ("heading_open", "h1"), ("inline",), ("heading_close", "h1"),
        *[("paragraph_open", "p"), ("inline",), ("paragraph_close", "p")] * 2,
    ]  # fmt: skip


# --- the command line -----------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "cp1252", "utf-8"])
def test_a_stream_gets_only_what_its_encoding_can_write_and_json_stays_json(encoding: str) -> None:
    text = json.dumps({"site": "сайт/é", "emoji": "😀", "path": os.fsdecode(b"bad\xffname")}, ensure_ascii=False)
    out = encodable(text, encoding)
    out.encode(encoding)  # a stream in that encoding writes it whole
    assert json.loads(out) == json.loads(text)  # the same JSON: each escape is JSON's own, a pair beyond U+FFFF
    assert ("é" in out) == (encoding != "ascii")  # what the encoding has stays as it is
    assert ("\\u0441" in out) == (encoding != "utf-8") and "\\udcff" in out  # a lone surrogate: no encoding has it
    assert encodable("plain ascii", "ascii") == "plain ascii" and encodable("é", None) == "é"
    assert encodable("сайт", "no-such-encoding") == "сайт"  # the stream itself will say what is wrong


def test_for_terminal_neutralizes_controls_and_workflow_commands() -> None:
    out = for_terminal("ok\n::error::x\n  ::warning::y\n\x1b[31m ##[error]z \x9b \u202e")
    assert "\x1b" not in out and "\x9b" not in out and "\u202e" not in out and "##[" not in out
    assert not any(line.lstrip().startswith("::") for line in out.splitlines())
    assert for_terminal("plain text: a::b\n") == "plain text: a::b\n"


def test_json_report_escapes_c1_and_bidi_but_keeps_the_value() -> None:
    value = {"v": "a\x9bb\u202ec\x1b\n::x"}
    text = json_report(value)
    assert json.loads(text) == value
    assert not re.search("[\x00-\x1f\x7f-\x9f\u202e]", text.replace("\n", ""))


def _run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "generator", *argv], cwd=cwd, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip


def _assert_safe_output(result: subprocess.CompletedProcess[str], what: str) -> None:
    for stream in (result.stdout, result.stderr):
        assert "Traceback" not in stream, f"{what}: {stream[-2000:]}"
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", stream), what
        for line in stream.splitlines():
            assert not line.lstrip().startswith("::"), f"{what}: {line!r}"
            assert "##[" not in line, f"{what}: {line!r}"


def test_command_line_output_is_safe_for_terminals_and_ci_logs(tmp_path: Path) -> None:
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    new.write_text(_snapshot(hostile).to_json(), encoding="utf-8")
    old.write_text(_snapshot(hostile, previous=True).to_json(), encoding="utf-8")
    site = tmp_path / "site"
    common = ("--locales", "en", "--no-search", "--out", str(site))
    built = _run("build", "--from", str(new), "--previous", str(old), *common, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    _assert_safe_output(built, "build")
    # The version is in the one summary line, its line breaks shown as markers.
    assert built.stdout.count("\n") == 1 and "[U+000A]::error::pwned" in built.stdout, built.stdout
    drift = _run("check", "--from", str(old), *common, cwd=tmp_path)
    assert drift.returncode == 3, drift.stderr
    _assert_safe_output(drift, "check")
    assert drift.stdout.count("[U+000A]") >= 3  # each changed name stays on its own line
    as_json = _run("check", "--from", str(old), "--format", "json", *common, cwd=tmp_path)
    _assert_safe_output(as_json, "check --format json")
    assert json.loads(as_json.stdout)["tools"]["removed"] == [str(_snapshot(hostile).tools[2]["name"])]
    for fmt in ("text", "json", "markdown"):
        diffed = _run("diff", str(old), str(new), "--format", fmt, cwd=tmp_path)
        assert diffed.returncode == 0, diffed.stderr
        _assert_safe_output(diffed, f"diff --format {fmt}")
        if fmt == "json":
            names = {c["name"] for c in json.loads(diffed.stdout)["changes"]}
            assert str(_snapshot(hostile).tools[2]["name"]) in names
        if fmt == "markdown":
            _assert_pr_comment_is_inert(diffed.stdout)


def _assert_pr_comment_is_inert(text: str) -> None:
    """No link, image, HTML, heading or bold of the server's; @everyone and #1 only inside code. GitHub's own
    renderer (cmark-gfm, whose autolink extension links bare URLs, www. and e-mail addresses) links nothing."""
    html = cmarkgfm.github_flavored_markdown_to_html(text)
    assert "<a " not in html and "<img" not in html, html
    tokens = _walk(text)
    kinds = {t.type for t in tokens}
    assert not kinds & {"link_open", "image", "html_inline", "html_block", "s_open", "em_open"}, kinds
    headings = [t for t in MD.parse(text) if t.type == "heading_open"]
    assert len(headings) == 1 + sum(
        1 for line in text.splitlines() if re.match(r"## (Breaking|Non-breaking|Cosmetic) \(", line)
    )
    assert sum(1 for t in tokens if t.type == "strong_open") == 1  # the summary line
    for token in tokens:
        if token.type == "text":
            assert "@everyone" not in token.content and not re.search(r"(?<![\w&])#1\b", token.content), token.content
    # every table row keeps its six cells
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows and all(len(re.findall(r"(?<!\\) \| ", row)) == 5 for row in rows), rows


@pytest.mark.parametrize("run", ["a.", "a-", "a/", "a.b@", "www.", "a+", "a.b/", "#1", "@a", " ", "\t", " \u3000"])
def test_escaping_takes_time_linear_in_the_text(run: str) -> None:
    """Each pattern of the escapes can start only where its run of characters starts. A server name of 200,000
    characters ``a.a.a...`` once took about 30 s in a pull-request comment (each position tried
    ``owner/repo#123`` to the end of the run), and a description holding 100,000 blanks 20 s in every page
    (each blank tried a line break to the end of the run). A linear pass takes hundredths of a second."""
    text = "x" + run * (200_000 // len(run)) + "y"
    start = time.perf_counter()
    escaped = [md_cell(text, pr=True), md_text(text), md_cell(text), code_span(text + "\n")]
    assert time.perf_counter() - start < 3
    assert all(len(e) >= len(text) for e in escaped)
