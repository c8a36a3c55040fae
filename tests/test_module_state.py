"""No module of ``generator/`` keeps state from one build to the next: what a watch reuses is in one object.

A fresh process imports every module, lists each module global that can change (a dict, list, set,
a memoized function, any object with attributes of its own), builds the demo site twice with the
render cache (as a watch does), and lists again. A global whose contents changed is state that
survives a build, unless it is named below as a pure memo: a cache of a pure function of its
arguments, which can change how fast a build is but never what it writes.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

from tests.conftest import PYTHON, ROOT

PURE_MEMOS = {
    "generator.cache.keys.code_digest": "the hash of the installed code, which a process cannot change",
    "generator.connect.raw._aliases": "the field aliases of the SDK's own types",
    "generator.model.discovery.validator": "a validator of a vendored JSON Schema, read from the package",
    "generator.model.access._BY_HINTS": "an access level per combination of hints (a pure function)",
    "generator.render.highlight._LEXERS": "a Pygments lexer per language name (stateless once made)",
    "generator.render.highlight._CLASS_OF": "a token type's CSS class (a pure function of the type)",
    "generator.render.highlight.highlight_html": "highlighted text, a pure function of the text and language",
    "generator.render.i18n._SHIPPED": "the shipped catalogs, read from the package",
    "generator.render.listings._label": "an escaper's output (a pure function of its input)",
    "generator.render.listings._text": "an escaper's output (a pure function of its input)",
    "generator.render.listings._url": "an escaper's output (a pure function of its input)",
    "generator.render.prose._inline": "sanitized HTML, a pure function of the Markdown",
    "generator.schema.patterns._compile": "a compiled pattern (what it decided alone: never a timed verdict)",
    "generator.schema.regexgen._generate": "strings a pattern matches (a pure function of its arguments)",
    "generator.schema.validation._CHECKERS": "format checkers per draft (made once, stateless)",
    "generator.schema.validation._META": "the meta-schemas' validators (made once, stateless)",
    "generator.schema.validation._CACHE": "a schema's validator (a pure function of the schema)",
    "generator.snapshot.jsontext._flat": "a C encoder per indentation (stateless)",
    "generator.text._SEEN": "text made visible (a pure function of the text)",
}
"""Module globals that fill during a build and may stay filled, each a memo of a pure function, with why."""

SCRIPT = textwrap.dedent(
    """
    import dataclasses, functools, importlib, json, pkgutil, sys, tempfile, types
    from pathlib import Path
    import generator

    def size(value):
        if hasattr(value, "cache_info"):
            return value.cache_info().currsize
        if isinstance(value, (dict, list, set, bytearray)):
            return len(value)
        return None

    def fingerprints():
        named = {}  # each object once, by its own name where it has one (an imported one is the same object)
        for name, module in sorted(sys.modules.items()):
            if not name.startswith("generator") or name.startswith("generator.demo"):
                continue
            for attr, value in vars(module).items():
                if isinstance(value, (types.ModuleType, type)) or attr.startswith("__") or size(value) is None:
                    continue
                if not getattr(value, "__module__", "generator").startswith("generator"):
                    continue  # the standard library's or a library's own memo (urllib's urlsplit)
                own = getattr(value, "__name__", attr) == attr and getattr(value, "__module__", name) == name
                if id(value) not in named or own:
                    named[id(value)] = (f"{name}.{attr}", value)
        return {label: size(value) for label, value in named.values()}

    for info in pkgutil.walk_packages(generator.__path__, "generator."):
        if not info.name.startswith(("generator.demo", "generator.__main__")):
            importlib.import_module(info.name)
    from generator.cache.reuse import Warm
    from generator.commands.build import build
    from generator.commands.demo_portal import demo_config
    from generator.config.portal import PortalConfig

    before = fingerprints()
    with tempfile.TemporaryDirectory() as tmp:
        config = dataclasses.replace(demo_config(PortalConfig(search=False)), out=str(Path(tmp) / "site"))
        warm = Warm()
        for _ in range(2):  # as a watch builds: published, the cache committed, the warm state kept
            build(config, from_file=Path(sys.argv[1]), jobs=2, warm=warm)
    after = fingerprints()
    changed = sorted(k for k in after if after[k] != before.get(k))
    print(json.dumps({"listed": sorted(before), "changed": changed}))
    """
)


def test_no_module_global_keeps_state_from_a_build_but_pure_memos() -> None:
    snapshot = Path(__file__).parent / "golden" / "demo.snapshot.json"
    done = subprocess.run(
        [PYTHON, "-c", SCRIPT, str(snapshot)], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert PURE_MEMOS.keys() <= set(result["listed"])  # each memo named is one the listing sees
    changed = set(result["changed"])
    assert changed, "a build filled no memo at all: the listing no longer sees them"
    assert sorted(changed - PURE_MEMOS.keys()) == [], sorted(changed)
