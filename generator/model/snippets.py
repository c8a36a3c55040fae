"""A call in the reader's language: Python with the official ``mcp`` SDK, TypeScript with its
TypeScript SDK (``@modelcontextprotocol/client``, the SDK's 2.x line), made from the same facts as the
curl and JSON-RPC sequences of :mod:`generator.model.calls`.

Each snippet is a whole program: it connects to the endpoint (its URL, or its published command over
stdio), in the endpoint's protocol era (``mode="auto"`` for 2026-07-28, which probes
``server/discover``; ``mode="legacy"`` for the ``initialize`` handshake), sends the one request
(``tools/call``, ``prompts/get`` or ``resources/read``) and prints the result as JSON.
``tests/test_snippets.py`` takes every snippet from the built pages of the demo and runs it, in both
eras, over stdio and Streamable HTTP.

Everything the server or the author said is untrusted text. It reaches a snippet only inside a
string literal, written by :func:`py_str` or :func:`ts_str`: ASCII only, every quote, backslash,
control, bidi or other non-ASCII character escaped, so no name, argument or command can end the
string, start a new statement or reorder the line on screen. An object key ``__proto__`` is written
as a computed key in TypeScript (a plain one would set the object's prototype, not a property). An
auth header keeps its ``${VAR}`` references as reads of the environment (``os.environ["VAR"]``,
``process.env["VAR"]``); a literal value never reaches a snippet (it is ``<Name value>`` already).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from typing import Any

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
WIDTH = 72
"""Where a literal stops fitting on one line and is laid out one entry per line."""
PYTHON_CALLS = {
    "tools/call": ("call_tool", True),
    "prompts/get": ("get_prompt", True),
    "resources/read": ("read_resource", False),
}
"""The SDK method for each request, and whether it takes the name and arguments (else a URI)."""
TS_CALLS = {"tools/call": "callTool", "prompts/get": "getPrompt", "resources/read": "readResource"}
TS_PACKAGE = "@modelcontextprotocol/client"
"""The TypeScript SDK's client package (its 2.x line: ``@modelcontextprotocol/sdk`` is the 1.x one,
which speaks only the handshake era)."""


def py_str(text: str) -> str:
    """*text* as a Python string literal of printable ASCII: nothing in it can end the literal."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def ts_str(text: str) -> str:
    """*text* as a TypeScript string literal of printable ASCII (JSON's escapes, which JavaScript shares)."""
    return json.dumps(text, ensure_ascii=True)


def _number(value: Any) -> str:
    return json.dumps(value)


def _literal(value: Any, indent: int, python: bool) -> str:
    """*value* (JSON data) as a Python or TypeScript literal, one entry per line when it is too wide
    (indented by four spaces in Python, two in TypeScript)."""
    string = py_str if python else ts_str
    step = 4 if python else 2
    if isinstance(value, bool):
        return ("True" if value else "False") if python else ("true" if value else "false")
    if value is None:
        return "None" if python else "null"
    if isinstance(value, str):
        return string(value)
    if isinstance(value, int | float):
        return _number(value)

    def key(name: str) -> str:
        return f"[{string(name)}]" if not python and name == "__proto__" else string(name)

    if isinstance(value, dict):
        items = [f"{key(str(k))}: {_literal(v, indent + step, python)}" for k, v in value.items()]
        opening, closing = "{", "}"
    elif isinstance(value, list):
        items = [_literal(v, indent + step, python) for v in value]
        opening, closing = "[", "]"
    else:
        return string(str(value))
    flat = opening + ", ".join(items) + closing
    if not items or (len(flat) + indent <= WIDTH and "\n" not in flat):
        return flat
    pad = " " * (indent + step)
    return opening + "\n" + "".join(f"{pad}{item},\n" for item in items) + " " * indent + closing


def py_literal(value: Any, indent: int = 0) -> str:
    """*value* as a Python literal (``True``, ``None``, escaped strings), laid out from column *indent*."""
    return _literal(value, indent, python=True)


def ts_literal(value: Any, indent: int = 0) -> str:
    """*value* as a TypeScript literal (``true``, ``null``, escaped strings), laid out from column *indent*."""
    return _literal(value, indent, python=False)


def _pattern(value: str, string: Callable[[str], str], env: Callable[[str], str]) -> str:
    """A header pattern (``Bearer ${TOKEN}``) as an expression: its literal parts, and each variable read
    from the environment."""
    parts: list[str] = []
    last = 0
    for match in _VAR.finditer(value):
        if match.start() > last:
            parts.append(string(value[last : match.start()]))
        parts.append(env(match.group(1)))
        last = match.end()
    if last < len(value) or not parts:
        parts.append(string(value[last:]))
    return " + ".join(parts)


def command_words(address: str) -> tuple[str, ...]:
    """A stdio endpoint's published command split as a shell splits it (whole, when it does not parse)."""
    try:
        words = tuple(shlex.split(address))
    except ValueError:
        return (address,)
    return words or (address,)


def python_snippet(
    *, url: str | None, command: str, env: tuple[str, ...], auth: tuple[tuple[str, str], ...], sessionless: bool,
    method: str, params: dict[str, Any],
) -> str:  # fmt: skip
    """A Python program that sends one request (*method*, *params*) with the ``mcp`` SDK's ``Client``."""
    sdk_method, named = PYTHON_CALLS[method]
    stdlib, sdk = ["import asyncio"], ["from mcp import Client"]
    body: list[str] = []
    if named:
        body.append(f"    arguments = {py_literal(params.get('arguments') or {}, 4)}")
        request = f"{py_str(str(params['name']))}, arguments"
    else:
        request = py_str(str(params["uri"]))
    if env or any(_VAR.search(value) for _, value in auth):
        stdlib.append("import os")
    if url is None:
        words = command_words(command)
        sdk = ["from mcp import Client, StdioServerParameters"]
        body += ["    server = StdioServerParameters(", f"        command={py_str(words[0])},"]
        body.append(f"        args={py_literal(list(words[1:]), 8)},")
        if env:
            body.append("        env={" + ", ".join(f"{py_str(n)}: os.environ[{py_str(n)}]" for n in env) + "},")
        body.append("    )")
    elif auth:
        sdk = ["import httpx2", *sdk, "from mcp.client.streamable_http import streamable_http_client"]
        headers = ", ".join(
            f"{py_str(name)}: {_pattern(value, py_str, lambda v: f'os.environ[{py_str(v)}]')}" for name, value in auth
        )
        body.append(f"    headers = {{{headers}}}")
    mode = py_str("auto" if sessionless else "legacy")
    call = f"result = await client.{sdk_method}({request})"
    if url is None:
        body += [f"    async with Client(server, mode={mode}) as client:", f"        {call}"]
    elif auth:
        body += [
            "    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:",
            f"        transport = streamable_http_client({py_str(url)}, http_client=http)",
            f"        async with Client(transport, mode={mode}) as client:",
            f"            {call}",
        ]
    else:
        body += [f"    async with Client({py_str(url)}, mode={mode}) as client:", f"        {call}"]
    body.append("    print(result.model_dump_json(indent=2, by_alias=True, exclude_none=True))")
    head = "\n".join(stdlib) + "\n\n" + "\n".join(sdk) + "\n\n\nasync def main() -> None:\n"
    return head + "\n".join(body) + "\n\n\nasyncio.run(main())\n"


def typescript_snippet(
    *, url: str | None, command: str, env: tuple[str, ...], auth: tuple[tuple[str, str], ...], sessionless: bool,
    method: str, params: dict[str, Any], client: dict[str, str],
) -> str:  # fmt: skip
    """A TypeScript module (top-level ``await``: an ``.mts`` file) that sends one request with the SDK's ``Client``,
    introducing itself as *client* (``name`` and ``version``)."""
    lines: list[str] = []
    if url is None:
        words = command_words(command)
        lines.append(f"import {{ Client }} from {ts_str(TS_PACKAGE)};")
        lines.append(f"import {{ StdioClientTransport }} from {ts_str(TS_PACKAGE + '/stdio')};")
    else:
        lines.append(f"import {{ Client, StreamableHTTPClientTransport }} from {ts_str(TS_PACKAGE)};")
    lines.append("")
    if method == "resources/read":
        request = f"{{ uri: {ts_str(str(params['uri']))} }}"
    else:
        lines.append(f"const args = {ts_literal(params.get('arguments') or {})};")
        request = f"{{ name: {ts_str(str(params['name']))}, arguments: args }}"
    info = f"{{ name: {ts_str(client['name'])}, version: {ts_str(client['version'])} }}"
    negotiation = f"{{ versionNegotiation: {{ mode: {ts_str('auto' if sessionless else 'legacy')} }} }}"
    lines.append(f"const client = new Client({info}, {negotiation});")

    def read(name: str) -> str:
        return f'(process.env[{ts_str(name)}] ?? "")'

    if url is None:
        lines.append("const transport = new StdioClientTransport({")
        lines.append(f"  command: {ts_str(words[0])},")
        lines.append(f"  args: {ts_literal(list(words[1:]), 2)},")
        if env:
            lines.append("  env: { " + ", ".join(f"{ts_str(name)}: {read(name)}" for name in env) + " },")
        lines.append("});")
    elif auth:
        headers = ", ".join(f"{ts_str(name)}: {_pattern(value, ts_str, read)}" for name, value in auth)
        lines.append(f"const transport = new StreamableHTTPClientTransport(new URL({ts_str(url)}), {{")
        lines.append(f"  requestInit: {{ headers: {{ {headers} }} }},")
        lines.append("});")
    else:
        lines.append(f"const transport = new StreamableHTTPClientTransport(new URL({ts_str(url)}));")
    lines += [
        "await client.connect(transport);",
        f"const result = await client.{TS_CALLS[method]}({request});",
        "console.log(JSON.stringify(result, null, 2));",
        "await client.close();",
    ]
    return "\n".join(lines) + "\n"
