"""JSON files read from the user's disk are bounded in size and refused when a key repeats (issue 47).

- a snapshot file larger than ``limits.max_snapshot_bytes`` (``--max-snapshot-bytes``, 128 MiB by
  default) is refused with one paragraph naming the option, exit code 1, before it is read: for
  ``--from``, ``--previous``, each side of ``diff``, the site's ``snapshot.json`` in ``check`` and
  ``translations --from``. The files are sparse (4.5 GB that take no disk) and the command runs
  under a 2 GiB address-space limit, so a command that tried to read one fails the test instead of
  filling the machine's memory; a pipe that never ends is read only up to the bound;
- an object that names a key twice is refused, in every JSON input mcp-portal parses itself: a
  snapshot (``--from``, ``--previous``, ``diff``, a watch's reread), an OpenAPI document in JSON, and
  a Try it call to the preview's proxy (``tests/test_try_it_serve.py``). JSON leaves which of the two
  values counts to each reader, so two programs would read two documents; the message names where.
"""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from generator.authoring.openapi import load_openapi
from generator.errors import PortalError
from generator.snapshot.remembered import ToolMemory
from generator.snapshot.snapshot import fingerprint, load_snapshot
from tests.conftest import Run
from tests.golden_tool import SNAPSHOT

Cli = Callable[..., Run]

HUGE = 4_500_000_000
"""The size of the attack's snapshot: 4.5 GB, which passed 8 GB of memory."""
ADDRESS_SPACE = 2 << 30
"""What a command may map: far less than reading HUGE would take."""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _run(cwd: Path, *argv: str, stdin: int | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "generator", *argv],
        cwd=cwd,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limited,
    )


def _finished(proc: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


def _sparse(path: Path, size: int = HUGE) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def _built(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    argv = ["build", "--from", str(SNAPSHOT), "--out", str(site), "--no-search", "--locales", "en", "--jobs", "1"]
    code, err = _finished(_run(tmp_path, *argv))
    assert code == 0, err
    return site


def _argv(tmp_path: Path, where: str) -> tuple[list[str], Path]:
    """The command that reads a huge snapshot *where*, and that file."""
    huge = _sparse(tmp_path / "huge.json")
    site = ["--out", str(tmp_path / "out"), "--no-search", "--locales", "en", "--jobs", "1"]
    if where == "--from":
        return ["build", "--from", str(huge), *site], huge
    if where == "--previous":
        return ["build", "--from", str(SNAPSHOT), "--previous", str(huge), *site], huge
    if where == "diff OLD":
        return ["diff", str(huge), str(SNAPSHOT)], huge
    if where == "diff NEW":
        return ["diff", str(SNAPSHOT), str(huge)], huge
    if where == "translations --from":
        return ["translations", "--locale", "ru", "--from", str(huge), "-o", str(tmp_path / "ru.yaml")], huge
    site_dir = _built(tmp_path)  # check: the site's own snapshot.json
    inner = _sparse(site_dir / "snapshot.json")
    return ["check", "--from", str(SNAPSHOT), "--out", str(site_dir), "--locales", "en", "--no-search"], inner


@pytest.mark.parametrize("where", ["--from", "--previous", "diff OLD", "diff NEW", "check", "translations --from"])
def test_a_snapshot_past_the_bound_is_refused_before_it_is_read(tmp_path: Path, where: str) -> None:
    argv, huge = _argv(tmp_path, where)
    code, err = _finished(_run(tmp_path, *argv))
    assert code == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcp-portal: error: "), err
    assert f"The snapshot {huge} holds 4,500,000,000 bytes, more than the 134,217,728 bytes (128 MiB)" in err
    assert "--max-snapshot-bytes" in err and "max_snapshot_bytes" in err
    assert not (tmp_path / "out").exists()


@contextlib.contextmanager
def _endless(proc: subprocess.Popen[str]) -> Iterator[list[int]]:
    """Feed *proc*'s stdin with a JSON text that never ends, until it stops reading; yields the count written."""
    written = [0]

    def feed() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(OSError, ValueError):  # a broken pipe once the reader is gone
            proc.stdin.write('{"snapshot_version": 2, "tools": [')
            while True:
                proc.stdin.write('{"name": "t"},' * 4096)
                written[0] += 14 * 4096

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    try:
        yield written
    finally:
        proc.kill()
        thread.join(timeout=10)


def test_a_pipe_that_never_ends_is_read_only_up_to_the_bound(tmp_path: Path) -> None:
    proc = _run(tmp_path, "diff", "/dev/stdin", str(SNAPSHOT), "--max-snapshot-bytes", "1048576", stdin=subprocess.PIPE)
    with _endless(proc) as written:
        code = proc.wait(timeout=120)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert code == 1, err
    assert "The snapshot /dev/stdin holds more than 1,048,576 bytes, more than the 1,048,576 bytes (1 MiB)" in err
    assert written[0] < 64 * 1048576  # it stopped reading near the bound (a pipe buffers a little)


def test_the_bound_is_a_setting_of_portal_yaml_and_a_bad_value_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "portal.yaml"
    config.write_text("limits:\n  max_snapshot_bytes: 1000\n", encoding="utf-8")
    argv = ["build", "--config", str(config), "--from", str(SNAPSHOT), "--out", str(tmp_path / "out"), "--no-search"]
    code, err = _finished(_run(tmp_path, *argv))
    assert code == 1 and "more than the 1,000 bytes" in err and not (tmp_path / "out").exists(), err
    size = SNAPSHOT.stat().st_size
    code, err = _finished(_run(tmp_path, *argv, "--max-snapshot-bytes", str(size)))  # the option wins over the file
    assert code == 0, err
    code, err = _finished(_run(tmp_path, "diff", str(SNAPSHOT), str(SNAPSHOT), "--max-snapshot-bytes", "0"))
    assert code == 2 and "`--max-snapshot-bytes` must be a positive whole number" in err, err


def _repeat_a_key(text: str, place: str) -> str:
    """*text* (a snapshot) with a second ``"snapshot_version"`` at the top level, or a second ``"limit"`` in
    the properties of the first tool that has one."""
    data = json.loads(text)
    if place == "top level":
        data = {"MARK": None, **data}
        second = '"snapshot_version": 1'
    else:
        schema = next(t["inputSchema"] for t in data["tools"] if "limit" in t["inputSchema"].get("properties", {}))
        schema["properties"] = {"MARK": None, **schema["properties"]}
        second = '"limit": {"type": "string"}'
    return json.dumps(data, indent=2).replace('"MARK": null', second, 1)


@pytest.mark.parametrize("place", ["top level", "a schema's properties"])
@pytest.mark.parametrize("reader", ["--from", "--previous", "diff"])
def test_a_snapshot_that_repeats_a_key_is_refused_naming_where(
    tmp_path: Path, cli: Cli, place: str, reader: str
) -> None:
    text = _repeat_a_key(SNAPSHOT.read_text(encoding="utf-8"), place)
    twice = tmp_path / "twice.json"
    twice.write_text(text, encoding="utf-8")
    json.loads(text)  # Python's own parser takes it, keeping the last value
    site = ["--out", str(tmp_path / "site"), "--no-search", "--locales", "en", "--jobs", "1"]
    argv = {
        "--from": ["build", "--from", str(twice), *site],
        "--previous": ["build", "--from", str(SNAPSHOT), "--previous", str(twice), *site],
        "diff": ["diff", str(SNAPSHOT), str(twice)],
    }[reader]
    run = cli(*argv)
    assert run.code == 1, run.err
    assert run.err.startswith(f"mcp-portal: error: The snapshot {twice} is not usable: ") and run.err.count("\n") == 1
    key, at = ("snapshot_version", "the top level") if place == "top level" else ("limit", ".inputSchema.properties`")
    assert f'names the key "{key}" twice, and JSON leaves which of the two values counts to each reader' in run.err
    assert at in run.err and (place == "top level" or "`tools[" in run.err), run.err
    assert not (tmp_path / "site").exists()


def test_an_openapi_document_that_repeats_a_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "api.json"
    path.write_text(
        '{"openapi": "3.1.0", "info": {"title": "A", "version": "1"}, "paths": {"/a": {}, "/a": {"get": {}}}}',
        encoding="utf-8",
    )
    with pytest.raises(PortalError) as caught:
        load_openapi(path)
    assert caught.value.message == (
        f'The OpenAPI document {path} names the key "/a" twice in one object, and JSON leaves which of the two '
        f"values counts to each reader. Keep one of them and build again."
    )


def test_a_watch_rereading_a_snapshot_refuses_a_repeated_key_as_a_fresh_read_does(tmp_path: Path) -> None:
    """``build --watch`` reads a changed snapshot through its memory of the tools it has read."""
    twice = tmp_path / "twice.json"
    twice.write_text(_repeat_a_key(SNAPSHOT.read_text(encoding="utf-8"), "a schema's properties"), encoding="utf-8")
    memory = ToolMemory()
    load_snapshot(SNAPSHOT, memory)
    with pytest.raises(PortalError) as warm:
        load_snapshot(twice, memory)
    with pytest.raises(PortalError) as fresh:
        load_snapshot(twice)
    assert warm.value.message == fresh.value.message and 'the key "limit" twice' in fresh.value.message


HIDDEN = "\u202e\u2066\u200b\u200d\ufeff\u00ad\u061c\u0085\U000e0041"
"""Bidi controls, zero-width and invisible characters, and a C1 control: what docs/security.md promises
``snapshot.json`` writes as ``\\uXXXX``."""


def test_the_published_snapshot_writes_hidden_characters_as_escapes(tmp_path: Path, cli: Cli) -> None:
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    tool = data["tools"][0]
    tool["description"] = f"Safe{HIDDEN}text, and Arabic نص stays as it is."
    tool["inputSchema"].setdefault("properties", {})[f"key{HIDDEN}"] = {"type": "string", "default": HIDDEN}
    data["fingerprint"] = fingerprint(data["tools"], data.get("endpoints"))
    source = tmp_path / "hidden.json"
    source.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    site = ["--no-search", "--locales", "en", "--jobs", "1"]
    built = [cli("build", "--from", str(source), "--out", str(tmp_path / name), *site, *extra) for name, extra in
             (("site", ()), ("plain", ("--no-cache",)))]  # fmt: skip
    assert [run.code for run in built] == [0, 0], [run.err for run in built]
    published = (tmp_path / "site" / "snapshot.json").read_bytes()
    (tmp_path / "site" / "snapshot.json").unlink()  # a warm rebuild writes it again, from the cache's texts
    assert cli("build", "--from", str(source), "--out", str(tmp_path / "site"), *site).code == 0
    text = published.decode("utf-8")
    assert not any(c in text for c in HIDDEN), [c for c in HIDDEN if c in text]
    assert "\\u202e\\u2066\\u200b\\u200d\\ufeff\\u00ad\\u061c\\u0085\\udb40\\udc41" in text and "نص" in text
    assert (tmp_path / "site" / "snapshot.json").read_bytes() == published
    assert (tmp_path / "plain" / "snapshot.json").read_bytes() == published
    back = load_snapshot(tmp_path / "site" / "snapshot.json")
    assert back.tools == load_snapshot(source).tools and back.to_json() == text
