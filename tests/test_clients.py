"""Client configuration snippets: exact structure per client, secrets withheld, hostile input inert."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.model.clients import (
    CLIENTS,
    EndpointFacts,
    Snippet,
    auth_pattern,
    env_placeholder,
    server_key,
    snippets,
)

SECRET = "sk-live-0123456789abcdef"
STDIO = EndpointFacts(
    name="stdio",
    transport="stdio",
    command=("python", "-m", "generator.demo"),
    env=("TEAMSPACE_TOKEN",),
)
HTTP = EndpointFacts(
    name="full",
    transport="streamable-http",
    url="https://teamspace.example/mcp",
    headers=(("Authorization", "Bearer ${TEAMSPACE_TOKEN}"), ("X-Api-Key", SECRET)),
)
KEY = "teamspace-demo-full"


def by_client(facts: EndpointFacts, key: str = KEY) -> dict[str, Snippet]:
    return {snippet.client: snippet for snippet in snippets(facts, key)}


def parsed(facts: EndpointFacts, client: str, key: str = KEY) -> Any:
    return json.loads(by_client(facts, key)[client].text)


def argv(facts: EndpointFacts, key: str = KEY) -> list[str]:
    return shlex.split(by_client(facts, key)["claude-code-cli"].text)


# --- order, files, languages -------------------------------------------------------------------


def test_stdio_order_and_files() -> None:
    assert [(s.client, s.file, s.language) for s in snippets(STDIO, KEY)] == [
        ("claude-desktop", "claude_desktop_config.json", "json"),
        ("claude-code", ".mcp.json", "json"),
        ("claude-code-cli", None, "shell"),
        ("vscode", ".vscode/mcp.json", "json"),
        ("cursor", ".cursor/mcp.json", "json"),
    ]


def test_http_has_no_claude_desktop_snippet() -> None:
    assert [s.client for s in snippets(HTTP, KEY)] == ["claude-code", "claude-code-cli", "vscode", "cursor"]


@pytest.mark.parametrize("facts", [STDIO, HTTP])
def test_text_is_pretty_json_without_trailing_newline(facts: EndpointFacts) -> None:
    shown = snippets(facts, KEY)
    assert any(snippet.language == "json" for snippet in shown)
    for snippet in shown:
        assert not snippet.text.endswith("\n")
        if snippet.language == "json":
            assert snippet.text == json.dumps(json.loads(snippet.text), indent=2, ensure_ascii=False)


# --- stdio -------------------------------------------------------------------------------------


def test_stdio_claude_desktop() -> None:
    assert parsed(STDIO, "claude-desktop") == {
        "mcpServers": {
            KEY: {
                "command": "python",
                "args": ["-m", "generator.demo"],
                "env": {"TEAMSPACE_TOKEN": "<your TEAMSPACE_TOKEN>"},
            }
        }
    }


def test_stdio_claude_code() -> None:
    assert parsed(STDIO, "claude-code") == {
        "mcpServers": {
            KEY: {
                "command": "python",
                "args": ["-m", "generator.demo"],
                "env": {"TEAMSPACE_TOKEN": "${TEAMSPACE_TOKEN}"},
            }
        }
    }


def test_stdio_claude_code_cli() -> None:
    assert argv(STDIO) == [
        "claude", "mcp", "add", "--transport", "stdio", KEY,
        "--env", "TEAMSPACE_TOKEN=<your TEAMSPACE_TOKEN>",
        "--", "python", "-m", "generator.demo",
    ]  # fmt: skip


def test_stdio_vscode() -> None:
    assert parsed(STDIO, "vscode") == {
        "inputs": [
            {"type": "promptString", "id": "teamspace-token", "description": "TEAMSPACE_TOKEN", "password": True}
        ],
        "servers": {
            KEY: {
                "type": "stdio",
                "command": "python",
                "args": ["-m", "generator.demo"],
                "env": {"TEAMSPACE_TOKEN": "${input:teamspace-token}"},
            }
        },
    }


def test_stdio_cursor() -> None:
    assert parsed(STDIO, "cursor") == {
        "mcpServers": {
            KEY: {
                "command": "python",
                "args": ["-m", "generator.demo"],
                "env": {"TEAMSPACE_TOKEN": "${env:TEAMSPACE_TOKEN}"},
            }
        }
    }


def test_stdio_without_env_or_args() -> None:
    bare = EndpointFacts(name="stdio", transport="stdio", command=("teamspace-mcp",))
    assert parsed(bare, "claude-code") == {"mcpServers": {KEY: {"command": "teamspace-mcp", "args": []}}}
    assert parsed(bare, "vscode") == {"servers": {KEY: {"type": "stdio", "command": "teamspace-mcp", "args": []}}}
    assert argv(bare) == ["claude", "mcp", "add", "--transport", "stdio", KEY, "--", "teamspace-mcp"]


# --- streamable HTTP ---------------------------------------------------------------------------


def test_http_claude_code() -> None:
    assert parsed(HTTP, "claude-code") == {
        "mcpServers": {
            KEY: {
                "type": "http",
                "url": "https://teamspace.example/mcp",
                "headers": {"Authorization": "Bearer ${TEAMSPACE_TOKEN}", "X-Api-Key": "<X-Api-Key value>"},
            }
        }
    }


def test_http_claude_code_cli() -> None:
    assert argv(HTTP) == [
        "claude", "mcp", "add", "--transport", "http", KEY, "https://teamspace.example/mcp",
        "--header", "Authorization: Bearer <your TEAMSPACE_TOKEN>",
        "--header", "X-Api-Key: <X-Api-Key value>",
    ]  # fmt: skip


def test_http_vscode() -> None:
    assert parsed(HTTP, "vscode") == {
        "inputs": [
            {"type": "promptString", "id": "teamspace-token", "description": "TEAMSPACE_TOKEN", "password": True}
        ],
        "servers": {
            KEY: {
                "type": "http",
                "url": "https://teamspace.example/mcp",
                "headers": {"Authorization": "Bearer ${input:teamspace-token}", "X-Api-Key": "<X-Api-Key value>"},
            }
        },
    }


def test_http_cursor() -> None:
    assert parsed(HTTP, "cursor") == {
        "mcpServers": {
            KEY: {
                "url": "https://teamspace.example/mcp",
                "headers": {"Authorization": "Bearer ${env:TEAMSPACE_TOKEN}", "X-Api-Key": "<X-Api-Key value>"},
            }
        }
    }


def test_http_without_headers() -> None:
    open_ = EndpointFacts(name="readonly", transport="streamable-http", url="http://127.0.0.1:8000/mcp")
    assert parsed(open_, "claude-code") == {"mcpServers": {KEY: {"type": "http", "url": "http://127.0.0.1:8000/mcp"}}}
    assert parsed(open_, "vscode") == {"servers": {KEY: {"type": "http", "url": "http://127.0.0.1:8000/mcp"}}}
    assert parsed(open_, "cursor") == {"mcpServers": {KEY: {"url": "http://127.0.0.1:8000/mcp"}}}
    assert argv(open_) == ["claude", "mcp", "add", "--transport", "http", KEY, "http://127.0.0.1:8000/mcp"]


def test_one_vscode_input_per_variable() -> None:
    facts = EndpointFacts(
        name="full",
        transport="streamable-http",
        url="https://x.example/mcp",
        headers=(("Authorization", "Basic ${USER}:${PASS}"), ("X-User", "${USER}")),
    )
    doc = parsed(facts, "vscode")
    assert [entry["id"] for entry in doc["inputs"]] == ["user", "pass"]
    assert doc["servers"][KEY]["headers"] == {
        "Authorization": "Basic ${input:user}:${input:pass}",
        "X-User": "${input:user}",
    }


# --- secrets -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [SECRET, "Bearer " + SECRET, "${not a var} " + SECRET, "$TOKEN" + SECRET])
def test_literal_header_values_never_appear(value: str) -> None:
    facts = EndpointFacts(
        name="full", transport="streamable-http", url="https://x.example/", headers=(("X-Key", value),)
    )
    for snippet in snippets(facts, KEY):
        assert SECRET not in snippet.text
    assert auth_pattern(facts) == (("X-Key", "<X-Key value>"),)


def test_auth_pattern() -> None:
    assert auth_pattern(HTTP) == (("Authorization", "Bearer ${TEAMSPACE_TOKEN}"), ("X-Api-Key", "<X-Api-Key value>"))
    assert auth_pattern(STDIO) == ()


# --- hostile input -----------------------------------------------------------------------------

EVIL = "a'b\"c\n$(rm -rf /)`id`;${HOME}\\ é\u202e"


def test_hostile_facts_stay_inert() -> None:
    facts = EndpointFacts(
        name=EVIL,
        transport="stdio",
        command=(EVIL, "--flag=" + EVIL, "$(rm -rf /)"),
        env=(EVIL, "OK_VAR"),
    )
    for snippet in snippets(facts, EVIL):
        if snippet.language == "json":
            json.loads(snippet.text)
    assert parsed(facts, "cursor", EVIL)["mcpServers"]["a-b-c-rm-rf-id-home-e"]["env"] == {
        EVIL: f"<your {EVIL}>",
        "OK_VAR": "${env:OK_VAR}",
    }
    assert argv(facts, EVIL) == [
        "claude", "mcp", "add", "--transport", "stdio", "a-b-c-rm-rf-id-home-e",
        "--env", f"{EVIL}=<your {EVIL}>", "--env", "OK_VAR=<your OK_VAR>",
        "--", EVIL, "--flag=" + EVIL, "$(rm -rf /)",
    ]  # fmt: skip


def test_hostile_http_stays_inert() -> None:
    url = "https://x.example/mcp?q=$(rm -rf /)&r='\"\n"
    facts = EndpointFacts(name="h", transport="streamable-http", url=url, headers=((EVIL, "t ${TOK} " + EVIL),))
    assert parsed(facts, "claude-code")["mcpServers"][KEY]["headers"] == {EVIL: "t ${TOK} " + EVIL}
    assert parsed(facts, "vscode")["servers"][KEY]["url"] == url
    value = f"t <your TOK> {EVIL}".replace("${HOME}", "<your HOME>")  # every ${VAR} is a variable
    assert argv(facts)[6:] == [url, "--header", f"{EVIL}: {value}"]


@given(
    name=st.text(),
    args=st.lists(st.text(), max_size=4),
    env=st.lists(st.text(min_size=1), max_size=3),
    header=st.tuples(st.text(min_size=1), st.text()),
)
def test_any_text_round_trips(name: str, args: list[str], env: list[str], header: tuple[str, str]) -> None:
    stdio = EndpointFacts(name=name, transport="stdio", command=("cmd", *args), env=tuple(env))
    http = EndpointFacts(name=name, transport="streamable-http", url="https://x.example/" + name, headers=(header,))
    for facts in (stdio, http):
        for snippet in snippets(facts, name):
            if snippet.language == "json":
                json.loads(snippet.text)
            else:
                assert shlex.split(snippet.text)[:4] == ["claude", "mcp", "add", "--transport"]
    assert shlex.split(by_client(stdio, name)["claude-code-cli"].text)[-len(args) - 1 :] == ["cmd", *args]


# --- keys, placeholders, validation, determinism -----------------------------------------------


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("teamspace-demo full", "teamspace-demo-full"),
        ("TeamSpace Demo / ReadOnly", "teamspace-demo-readonly"),
        ("  --weird__name--  ", "weird-name"),
        ("Café Ünïcode", "cafe-unicode"),
        ("日本語", "mcp-server"),
        ("", "mcp-server"),
        ("$(rm -rf /)", "rm-rf"),
        ("a" * 70, "a" * 64),
        ("a" * 63 + "-b", "a" * 63),
        ("already-safe-123", "already-safe-123"),
    ],
)
def test_server_key(name: str, key: str) -> None:
    assert server_key(name) == key
    assert server_key(key) == key


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        ("claude-desktop", "<your TEAMSPACE_TOKEN>"),
        ("claude-code", "${TEAMSPACE_TOKEN}"),
        ("claude-code-cli", "<your TEAMSPACE_TOKEN>"),
        ("vscode", "${input:teamspace-token}"),
        ("cursor", "${env:TEAMSPACE_TOKEN}"),
    ],
)
def test_env_placeholder(client: str, expected: str) -> None:
    assert env_placeholder("TEAMSPACE_TOKEN", client) == expected


def test_env_placeholder_defaults_and_odd_names() -> None:
    assert env_placeholder("TOKEN") == "<your TOKEN>"
    assert env_placeholder("not ok", "claude-code") == "<your not ok>"
    assert env_placeholder("not ok", "cursor") == "<your not ok>"
    # VS Code ids stay distinct even for names that differ only in case or punctuation.
    ids = {env_placeholder(name, "vscode") for name in ("TOKEN", "token", "Token", "TO-KEN", "to_ken", "")}
    assert len(ids) == 6
    with pytest.raises(ValueError, match="unknown client"):
        env_placeholder("TOKEN", "emacs")


@pytest.mark.parametrize(
    "facts",
    [
        EndpointFacts(name="s", transport="stdio"),
        EndpointFacts(name="h", transport="streamable-http"),
        EndpointFacts(name="h", transport="streamable-http", url="--help"),
        EndpointFacts(name="x", transport="sse", url="https://x.example/"),
    ],
)
def test_unusable_facts_are_refused(facts: EndpointFacts) -> None:
    with pytest.raises(ValueError):
        snippets(facts, KEY)


def test_key_is_normalised() -> None:
    assert parsed(STDIO, "cursor", "Teamspace Demo")["mcpServers"].keys() == {"teamspace-demo"}


@pytest.mark.parametrize("facts", [STDIO, HTTP])
def test_deterministic(facts: EndpointFacts) -> None:
    twin = EndpointFacts(**{field: getattr(facts, field) for field in facts.__dataclass_fields__})
    assert snippets(facts, KEY) == snippets(twin, KEY)
    assert [s.client for s in snippets(STDIO, KEY)] == list(CLIENTS)
