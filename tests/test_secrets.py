"""Secrets never leave the process: not in snapshots, sites, manifests, output or error messages.

A unique token is planted as an ``--env`` value for a stdio server (one that works and one that
crashes and prints the value on stderr, so the error path quotes it) and as a ``${VAR}`` header
value for the HTTP fixture in ``auth`` mode (accepted, and refused).  ``introspect``, ``build``
and ``check`` run as real subprocesses; then every byte they wrote or printed is searched.
(The fixture's ``env-echo`` mode, which puts its secret in a tool description on purpose, is
not used: what a server chooses to publish is the server's business.)
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from tests.conftest import PYTHON, ROOT, free_port, http_server

TOKEN = f"tok-{uuid.uuid4().hex}"
FIXTURE = f"{PYTHON} -m tests.servers.fixture_server"
QUICK = ("--request-timeout", "10", "--total-timeout", "30")
SITE = ("--locales", "en", "--no-search")


@pytest.fixture(scope="module")
def env() -> dict[str, str]:
    return {**os.environ, "FIXTURE_SECRET": TOKEN, "FIXTURE_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def auth_url() -> Iterator[str]:
    port = free_port()
    argv = [PYTHON, "-m", "tests.servers.fixture_server", "--http", "--port", str(port), "--mode", "auth"]
    with http_server(argv, port, {"FIXTURE_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}):
        yield f"http://127.0.0.1:{port}/mcp"


class Outputs:
    """Every stdout and stderr of the runs, to be searched with the files at the end."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.texts: list[tuple[str, bytes]] = []

    def run(self, *argv: str) -> subprocess.CompletedProcess[bytes]:
        done = subprocess.run(
            [PYTHON, "-m", "generator", *argv], cwd=ROOT, env=self.env, capture_output=True, timeout=120, check=False
        )
        label = " ".join(argv[:3])
        self.texts += [(f"stdout of {label}", done.stdout), (f"stderr of {label}", done.stderr)]
        return done


def assert_nowhere(outputs: Outputs, root: Path) -> int:
    needle = TOKEN.encode()
    searched = 0
    for label, data in outputs.texts:
        assert needle not in data, f"the token leaked into the {label}"
        searched += 1
    for path in sorted(root.rglob("*")):
        if path.is_file():
            assert needle not in path.read_bytes(), f"the token leaked into {path}"
            searched += 1
    return searched


def test_env_values_are_never_written_or_shown(env: dict[str, str], tmp_path: Path) -> None:
    out = Outputs(env)
    works = f"{FIXTURE} --mode paged"
    # The working server: introspect, build, check.
    done = out.run("introspect", "--stdio", works, "--env", "FIXTURE_SECRET", "-o", str(tmp_path / "s.json"), *QUICK)
    assert done.returncode == 0, done.stderr
    done = out.run("build", "--stdio", works, "--env", "FIXTURE_SECRET", "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stderr
    done = out.run("check", "--stdio", works, "--env", "FIXTURE_SECRET", "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stdout + done.stderr
    # The crashing server prints the value on stderr; the error quotes that stderr, redacted.
    crash = f"{FIXTURE} --mode crash"
    done = out.run("build", "--stdio", crash, "--env", "FIXTURE_SECRET", "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 1
    assert b"(secret ***)" in done.stderr
    done = out.run("introspect", "--stdio", crash, "--env", "FIXTURE_SECRET", "-o", str(tmp_path / "c.json"), "--debug")
    assert done.returncode == 1
    assert b"(secret ***)" in done.stderr
    assert not (tmp_path / "c.json").exists()
    assert assert_nowhere(out, tmp_path) > 20


def test_header_values_are_never_written_or_shown(env: dict[str, str], auth_url: str, tmp_path: Path) -> None:
    out = Outputs(env)
    bearer = "Authorization: Bearer ${FIXTURE_TOKEN}"
    done = out.run("introspect", "--url", auth_url, "--header", bearer, "-o", str(tmp_path / "s.json"), *QUICK)
    assert done.returncode == 0, done.stderr
    # Only the pattern is kept (readers need the header's form); never the value.
    snapshot = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert snapshot["endpoints"][0]["auth"] == [["Authorization", "Bearer ${FIXTURE_TOKEN}"]]
    assert (tmp_path / "s.json").read_text(encoding="utf-8").count("${FIXTURE_TOKEN}") == 1
    done = out.run("build", "--url", auth_url, "--header", bearer, "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stderr
    done = out.run("check", "--url", auth_url, "--header", bearer, "--out", str(tmp_path / "site"), *SITE, *QUICK)
    assert done.returncode == 0, done.stdout + done.stderr
    # Refused (a Basic scheme the server does not take): the 401 message must not echo the value.
    refused = "Authorization: Basic ${FIXTURE_TOKEN}"
    done = out.run("build", "--url", auth_url, "--header", refused, "--out", str(tmp_path / "site"), *SITE, "--debug")
    assert done.returncode == 1
    assert b"HTTP 401" in done.stderr
    # Credentials in the URL itself are refused (exit 2); allowed, they are sent as Basic auth, which
    # this server refuses, and are never shown.
    url = auth_url.replace("http://", f"http://user:{TOKEN}@")
    done = out.run("introspect", "--url", url, "-o", str(tmp_path / "u.json"), *QUICK)
    assert done.returncode == 2 and b"user name and password in --url" in done.stderr
    done = out.run("introspect", "--url", url, "-o", str(tmp_path / "u.json"), *QUICK, "--allow-literal-secrets")
    assert done.returncode == 1
    assert b"HTTP 401" in done.stderr
    # The command line itself holds the token here; only what we print and write is searched.
    assert assert_nowhere(out, tmp_path) > 20


# --- every form of a secret -------------------------------------------------------------------

HEX = uuid.uuid4().hex
"""The distinctive part of the tokens below: searched for in every output, in whatever form it was quoted."""
AWKWARD = f'tok\\{HEX}"q'
"""A token whose repr, JSON and URL forms differ from the raw one (a backslash and a quote)."""


def test_session_registers_every_form() -> None:
    from generator.connect.secrets import MASK, Redactor, forms

    value = AWKWARD + "\r\n"
    redactor = Redactor()
    redactor.add([value])
    stripped = value.strip()
    shown = {
        "raw": value,
        "stripped": stripped,
        "repr": repr(value),
        "bytes repr": repr(value.encode()),
        "unicode_escape": value.encode("unicode_escape").decode(),
        "json": json.dumps(value),
        "json of the stripped value": json.dumps(stripped),
        "quote": quote(value, safe=""),
        "quote_plus": quote_plus(value),
        "lower-case percent escapes": quote(value, safe="").lower().replace(HEX.lower(), HEX),
        "base64": base64.b64encode(value.encode()).decode(),
        "base64 of the stripped value": base64.b64encode(stripped.encode()).decode(),
        "json of a repr": json.dumps(repr(value)),
    }
    for label, text in shown.items():
        masked = redactor.redact(f"before {text} after")
        assert HEX not in masked and base64.b64encode(stripped.encode()).decode() not in masked, label
        assert masked.startswith("before ") and masked.endswith(" after") and MASK in masked, (label, masked)
    assert forms("abc") == set()  # too short to be a credential; it would mask ordinary words
    assert Redactor().redact("nothing to hide") == "nothing to hide"


def test_non_ascii_and_control_characters_are_masked_in_their_escaped_forms() -> None:
    from generator.connect.secrets import Redactor

    value = f"pässwörd-{HEX}\x01"
    redactor = Redactor()
    redactor.add([value])
    for text in (
        repr(value),
        repr(value.encode()),
        json.dumps(value),
        quote(value),
        value.encode("unicode_escape").decode(),
    ):
        assert HEX not in redactor.redact(text), text


def test_basic_auth_pairs_and_their_halves_are_masked() -> None:
    from generator.connect.secrets import Redactor

    pair = f"alice-{HEX[:6]}:{HEX}"
    encoded = base64.b64encode(pair.encode()).decode()
    # As a header value (Basic <base64>): the decoded pair and each half are secrets too.
    header = Redactor()
    header.add([f"Basic {encoded}"])
    # As URL userinfo (sent by httpx as Basic auth): the base64 of the pair is a secret too.
    url = Redactor()
    url.add_url(f"http://alice-{HEX[:6]}:{HEX}@127.0.0.1:1/mcp")
    for redactor in (header, url):
        for text in (encoded, pair, HEX, f"alice-{HEX[:6]}"):
            assert redactor.redact(f"[{text}]") == "[***]", text


def test_the_session_redactor_masks_debug_logs(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from generator.connect.secrets import _LOG_HANDLER, Redactor, redact_logs, start_session

    session = start_session()
    Redactor().add([AWKWARD])  # a connection's own redactor reports to the run's session
    assert session.redact(AWKWARD) == "***"
    logger = logging.getLogger("mcp.test_secrets")
    redact_logs(logging.getLogger("mcp"))
    old = logging.getLogger("mcp").level
    logging.getLogger("mcp").setLevel(logging.DEBUG)
    try:
        try:
            raise ValueError(f"header was {AWKWARD!r}")
        except ValueError:
            logger.exception("request failed with %s", AWKWARD)
    finally:
        logging.getLogger("mcp").setLevel(old)
        logging.getLogger("mcp").removeHandler(_LOG_HANDLER)
    err = capsys.readouterr().err
    assert "request failed with ***" in err and "Traceback" in err
    assert HEX not in err


# --- real HTTP: a server that quotes the Authorization header in its error --------------------

PARTIAL = f"{ROOT}/tests/servers/partial_server.py"


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    port = free_port()
    with http_server([PYTHON, PARTIAL, "--http", "--port", str(port), "--mode", "echo-auth"], port):
        yield f"http://127.0.0.1:{port}/mcp"


def assert_hex_nowhere(outputs: Outputs, *also: str) -> None:
    for label, data in outputs.texts:
        for needle in (HEX, *also):
            assert needle.encode() not in data, f"{needle!r} leaked into the {label}"


@pytest.mark.parametrize("ending", ["", "\n", "\r\n"])
def test_a_token_echoed_by_the_server_is_masked_in_every_form(
    env: dict[str, str], echo_url: str, tmp_path: Path, ending: str
) -> None:
    out = Outputs({**env, "ECHO_TOKEN": AWKWARD + ending})
    header = ("--header", "Authorization: Bearer ${ECHO_TOKEN}")
    done = out.run("introspect", "--url", echo_url, *header, "-o", str(tmp_path / "s.json"), *QUICK)
    assert done.returncode == 1
    # The server did receive the token (a trailing line break is dropped, as HTTP does) and quoted it.
    assert b"token rejected: raw=*** repr='***' json=\"***\" url=***)" in done.stderr, done.stderr
    assert b"Traceback" not in done.stderr
    done = out.run("build", "--url", echo_url, *header, "--out", str(tmp_path / "site"), *SITE, *QUICK, "--debug")
    assert done.returncode == 1
    assert b"Traceback" in done.stderr  # --debug shows it, redacted
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "site").exists()
    assert_hex_nowhere(out)


def test_a_token_with_a_line_break_inside_is_refused_without_quoting_it(
    env: dict[str, str], echo_url: str, tmp_path: Path
) -> None:
    out = Outputs({**env, "ECHO_TOKEN": f"tok-{HEX}\nsecond-line-{HEX}"})
    for debug in ((), ("--debug",)):
        done = out.run(
            "build", "--url", echo_url, "--header", "Authorization: Bearer ${ECHO_TOKEN}", "--out",
            str(tmp_path / "site"), *SITE, *QUICK, *debug,
        )  # fmt: skip
        assert done.returncode == 1
        assert b"The header Authorization contains a line break" in done.stderr
        assert b"${ECHO_TOKEN}" in done.stderr  # names the variable to fix, never its value
    assert_hex_nowhere(out)


def test_url_credentials_sent_as_basic_auth_are_masked(env: dict[str, str], echo_url: str, tmp_path: Path) -> None:
    user = f"alice{HEX[:5]}"
    encoded = base64.b64encode(f"{user}:{HEX}".encode()).decode()
    out = Outputs(env)
    url = echo_url.replace("http://", f"http://{user}:{HEX}@")
    for debug in ((), ("--debug",)):
        done = out.run(
            "introspect", "--url", url, "-o", str(tmp_path / "u.json"), *QUICK, *debug, "--allow-literal-secrets"
        )  # fmt: skip
        assert done.returncode == 1
        assert b"raw=Basic *** repr='Basic ***'" in done.stderr, done.stderr  # the server echoed the base64 pair
    assert_hex_nowhere(out, encoded, user)


def test_a_basic_header_and_its_halves_are_masked(env: dict[str, str], echo_url: str, tmp_path: Path) -> None:
    encoded = base64.b64encode(f"bob:{HEX}".encode()).decode()
    out = Outputs({**env, "ECHO_CREDS": encoded})
    done = out.run(
        "introspect", "--url", echo_url, "--header", "Authorization: Basic ${ECHO_CREDS}", "-o",
        str(tmp_path / "b.json"), *QUICK, "--debug",
    )  # fmt: skip
    assert done.returncode == 1
    assert b"raw=*** repr='***'" in done.stderr, done.stderr
    assert_hex_nowhere(out, encoded)
