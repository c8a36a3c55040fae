"""Golden files for the demo portal and server-everything: build them, compare them, regenerate them.

``python -m tests.golden_tool --update`` (or ``scripts/update-golden``) re-introspects
the bundled demo server, rewrites ``tests/golden/demo.snapshot.json``, its model dump and a few
representative files of its site (:data:`PAGES`: one tool page in English and in Arabic, its
Markdown twin, and the root ``llms.txt``) under ``tests/golden/demo/``. Review the diff like code.

It also introspects the pinned ``@modelcontextprotocol/server-everything`` (tests/package.json)
over stdio into ``tests/golden/everything.snapshot.json`` and writes its model dump
(``tests/golden/everything.model.txt``): a third-party server whose zod-generated schemas
(defaults, enums, draft-07 ``$schema``, tools without parameters) the demo does not exercise.

The model dumps let a reviewer tell a model regression (rows, examples, access) from a template
regression (markup), as pdoc's snapshot tests do; the pages are few, so that a change of one
string in a template touches at most a handful of golden files. What every other page says is
checked by tests of behaviour (escaping, validity, accessibility, links), which build the site
in memory with :func:`golden_files`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from generator.cache.reuse import ThemeRenderer
from generator.commands.build import site_files
from generator.commands.demo_portal import demo_config as with_demo_settings
from generator.commands.demo_portal import demo_endpoints
from generator.commands.prove import prove
from generator.config.portal import PortalConfig, ServerSpec
from generator.connect.introspect import introspect, introspect_all
from generator.demo.launch import running_http_demo
from generator.model.gather import gather
from generator.model.product import Doc
from generator.model.site import SiteModel
from generator.snapshot.snapshot import Snapshot, fingerprint, frozen, load_snapshot

GOLDEN = Path(__file__).resolve().parent / "golden"
SNAPSHOT = GOLDEN / "demo.snapshot.json"
SITE = GOLDEN / "demo"
MODEL = GOLDEN / "demo.model.txt"
PAGES = ("en/tools/search_chat/index.html", "ar/tools/search_chat/index.html", "en/tools/search_chat.md", "llms.txt")
"""The site's files kept as golden files: a tool page (the richest template) in a left-to-right and a
right-to-left locale, its twin, and the entry point of agents."""
EVERYTHING_SNAPSHOT = GOLDEN / "everything.snapshot.json"
EVERYTHING_MODEL = GOLDEN / "everything.model.txt"
EVERYTHING_BIN = Path(__file__).resolve().parent / "node_modules" / ".bin" / "mcp-server-everything"
# The manifest names the generator version; keep it out so a release bump is not a golden diff.
SKIP = {"manifest.json"}


def demo_config() -> PortalConfig:
    # Search is left out: its bundle is Pagefind's binary output, checked for determinism elsewhere.
    return with_demo_settings(PortalConfig(base_url="https://teamspace.example/developers/", search=False))


def live_snapshot() -> Snapshot:
    """The demo's three endpoints (stdio, and the full and readonly HTTP profiles), as `build` sees them:
    listed, then its examples proven (``build`` proves the bundled demo's examples by default)."""
    with running_http_demo() as base:
        specs = demo_endpoints(base)
        config = with_demo_settings(PortalConfig())
        return prove(frozen(introspect_all(specs, config.limits)), config, specs, [])


def http_endpoints_changed(tmp: Path, **changes: Any) -> Snapshot:
    """The demo's snapshot with each HTTP endpoint's record changed: a value, or a function of the record
    (``address=lambda e: ...``). The fingerprint is recomputed, as an introspection would record it."""
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for endpoint in data["endpoints"]:
        if endpoint["transport"] == "streamable-http":
            endpoint.update({k: (v(endpoint) if callable(v) else v) for k, v in changes.items()})
    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    path = tmp / f"snapshot-{len(list(tmp.glob('snapshot-*.json')))}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_snapshot(path)


def golden_files(snapshot: Snapshot, renderer: ThemeRenderer | None = None) -> dict[str, bytes]:
    """The demo portal's files that the golden tests compare (*renderer*: compiled templates to reuse)."""
    files, _ = site_files(snapshot, demo_config(), renderer=renderer)
    return {path: data for path, data in files.items() if path not in SKIP}


def everything_server() -> ServerSpec:
    # The label keeps this machine's path to node_modules out of the snapshot's `endpoint`.
    return ServerSpec(command=(str(EVERYTHING_BIN), "stdio"), label="mcp-server-everything stdio")


def everything_config() -> PortalConfig:
    # Default locales (en, ru, ar), no base URL (relative links), no search bundle.
    return PortalConfig(search=False)


def everything_snapshot() -> Snapshot:
    """The pinned server-everything, introspected live over stdio (as the snapshot file will read back)."""
    if not EVERYTHING_BIN.exists():
        raise SystemExit(f"{EVERYTHING_BIN} is missing: run scripts/test, which installs tests/package.json")
    return frozen(introspect(everything_server(), PortalConfig().limits))


def dump_model(model: SiteModel) -> str:
    """A plain-text dump of what each tool page says, independent of any template."""
    lines = [f"site {model.title!r} version={model.version} locales={','.join(model.locales)}"]
    for tool in model.tools:
        lines.append(
            f"\ntool {tool.name} slug={tool.slug} access={tool.access.level} traits={','.join(tool.access.traits)}"
        )
        lines.append(
            "  hints " + " ".join(f"{h.name}={h.value}{'' if h.declared else '(default)'}" for h in tool.access.hints)
        )
        lines.append(f"  endpoints {[e.name for e in tool.endpoints]} scopes={list(tool.scopes)}")
        lines.extend(f"  operation {op.label} scopes={list(op.scopes)}" for op in tool.operations)
        for endpoint, changes in tool.differences:
            lines.extend(f"  differs on {endpoint.name}: {c.kind} {c.path} {c.old!r} -> {c.new!r}" for c in changes)
        for label, flat in (("param", tool.params), ("return", tool.returns)):
            if flat is None:
                continue
            for row in flat.rows:
                cons = "; ".join(f"{c.kind}={json.dumps(c.value, ensure_ascii=False)}" for c in row.constraints)
                lines.append(
                    f"  {label} {row.path or '(root)'} : {row.type_label} req={row.required}"
                    f"{' variant=' + row.variant if row.variant else ''} [{cons}]"
                )
        lines.append(
            f"  example_args ok={tool.example_args.ok} {json.dumps(tool.example_args.value, ensure_ascii=False)}"
        )
        if tool.example_result is not None:
            lines.append(
                f"  example_result ok={tool.example_result.ok} "
                f"{json.dumps(tool.example_result.value, ensure_ascii=False)}"
            )
        lines += _proof_lines(tool)
    for prompt in model.prompts:
        args = ", ".join(f"{a.name}{'' if a.required else '?'}" for a in prompt.arguments)
        lines.append(
            f"\nprompt {prompt.name} slug={prompt.slug} args=({args}) endpoints={[e.name for e in prompt.endpoints]}"
        )
        lines += _proof_lines(prompt)
    for res in model.resources + model.resource_templates:
        variables = [v.name for v in res.parsed.variables] if res.parsed else []
        lines.append(f"\n{res.kind} {res.name} slug={res.slug} uri={res.uri} mime={res.mime_type} vars={variables}")
        lines += _proof_lines(res)
    refusal = f"\nrefusal {model.refusal}" if model.refusal else ""
    return "\n".join(lines) + refusal + "\n"


def _proof_lines(doc: Doc) -> list[str]:
    """What the server answered to *doc*'s example (``--prove``): each request sent, refused or not, and the verdict."""
    proof = doc.proof
    if proof is None:
        return []
    head = f"  proof accepted={proof.accepted} on {proof.endpoint} ({proof.protocol_version}) output={proof.output}"
    tried = [
        f"    {'refused' if a.refused or a.unanswered else 'answered'} {json.dumps(a.request, ensure_ascii=False)}"
        for a in proof.attempts
    ]
    return [head, *tried]


def update_everything() -> None:
    EVERYTHING_SNAPSHOT.write_text(everything_snapshot().to_json(), encoding="utf-8")
    snapshot = load_snapshot(EVERYTHING_SNAPSHOT)
    EVERYTHING_MODEL.write_text(dump_model(gather(snapshot, everything_config()).model), encoding="utf-8")


def update() -> None:
    update_everything()
    snapshot = live_snapshot()
    SNAPSHOT.write_text(snapshot.to_json(), encoding="utf-8")
    snapshot = load_snapshot(SNAPSHOT)
    shutil.rmtree(SITE, ignore_errors=True)
    files = golden_files(snapshot)
    for path in PAGES:
        data = files[path]
        target = SITE / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    MODEL.write_text(dump_model(gather(snapshot, demo_config()).model), encoding="utf-8")
    print(f"Golden files rewritten under {GOLDEN}. Review them with `git diff tests/golden`.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help="regenerate every golden file")
    args = parser.parse_args(argv)
    if not args.update:
        parser.print_help()
        return 2
    update()
    return 0


if __name__ == "__main__":
    sys.exit(main())
