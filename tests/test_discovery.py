"""server.json and the Server Card: from the server's words and the author's ``registry:`` only, and valid.

Each document is validated against the official schema vendored in generator/model/schemas/ (its
sha256 is pinned here and in the README beside it), with jsonschema: the registry's 2025-12-11 schema
(draft-07) for server.json, ``$defs/ServerCard`` of SEP-2127's draft (2020-12) for the card.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from generator.commands.demo_portal import demo_config
from generator.config.portal import PortalConfig, load_config
from generator.config.registry import Registry
from generator.errors import ConfigError
from generator.model.discovery import CARD_SCHEMA, REGISTRY_SCHEMA, SCHEMAS, SERVER_CARD, SERVER_JSON, problems
from generator.model.gather import gather
from generator.snapshot.snapshot import Snapshot, fingerprint, load_snapshot
from tests.golden_tool import SNAPSHOT

PINNED = {
    "registry-server-2025-12-11.schema.json": "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0",
    "server-card-draft.schema.json": "2c772b51edb367f154771d84ddbae87ddba00a624422c8e46f218a9ac03bf042",
}
NAME = "example.teamspace/teamspace-demo"
SHORT = "A demo team workspace: search the chat archive, research, defects and documents."


def official(path: str, document: Any) -> list[str]:
    """Errors of *document* against the vendored schema, validated here independently of the generator."""
    if path == SERVER_JSON:
        schema = json.loads((SCHEMAS / "registry-server-2025-12-11.schema.json").read_text(encoding="utf-8"))
        validator: Any = Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    else:
        card = json.loads((SCHEMAS / "server-card-draft.schema.json").read_text(encoding="utf-8"))
        schema = {"$schema": card["$schema"], "$defs": card["$defs"], "$ref": "#/$defs/ServerCard"}
        validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [e.message for e in validator.iter_errors(document)]


def snapshot_with(tmp_path: Path, server: dict[str, Any] | None = None, **endpoint: Any) -> Snapshot:
    """The demo's snapshot with its serverInfo fields and each HTTP endpoint's record changed."""
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    data["server"].update(server or {})
    for record in data["endpoints"]:
        if record["transport"] == "streamable-http":
            record.update({k: v(record) if callable(v) else v for k, v in endpoint.items()})
    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    path = tmp_path / f"snapshot-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_snapshot(path)


def discovered(snapshot: Snapshot, registry: Registry | None = None) -> tuple[dict[str, Any], tuple[str, ...]]:
    config = PortalConfig(registry=registry) if registry is not None else PortalConfig()
    model = gather(snapshot, config).model
    return model.discovery.documents, model.discovery.warnings


def test_the_vendored_schemas_are_the_official_files() -> None:
    readme = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    for name, digest in PINNED.items():
        assert hashlib.sha256((SCHEMAS / name).read_bytes()).hexdigest() == digest, name
        assert digest in readme and name in readme


def test_the_demo_publishes_both_valid_and_made_of_what_it_said() -> None:
    model = gather(load_snapshot(SNAPSHOT), demo_config(PortalConfig())).model
    documents = model.discovery.documents
    assert set(documents) == {SERVER_JSON, SERVER_CARD} and model.discovery.warnings == ()
    entry, card = documents[SERVER_JSON], documents[SERVER_CARD]
    assert entry["$schema"] == REGISTRY_SCHEMA and card["$schema"] == CARD_SCHEMA
    for document in (entry, card):
        assert document["name"] == NAME and document["description"] == SHORT
        server = model.server
        assert (document["version"], document["title"], document["websiteUrl"]) == (
            server["version"], server["title"], server["websiteUrl"]
        )  # fmt: skip
        assert "remotes" not in document  # its HTTP endpoints are on 127.0.0.1
    for path, document in documents.items():
        assert official(path, document) == [] and problems(path, document) == []
        assert model.discovery.text(path) == json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def test_public_endpoints_are_remotes_with_their_headers_as_templates(tmp_path: Path) -> None:
    snapshot = snapshot_with(
        tmp_path,
        address=lambda r: r["address"].replace("http://127.0.0.1:8765", "https://api.teamspace.example"),
        auth=[["Authorization", "Bearer ${TEAMSPACE_TOKEN}"], ["X-Api-Key", None]],
    )
    documents, warnings = discovered(snapshot, Registry(name=NAME, description=SHORT))
    assert warnings == ()
    card = documents[SERVER_CARD]
    full = card["remotes"][0]
    assert full["url"] == "https://api.teamspace.example/mcp/" and full["type"] == "streamable-http"
    assert full["headers"] == [
        {
            "name": "Authorization",
            "isRequired": True,
            "isSecret": True,
            "value": "Bearer {TEAMSPACE_TOKEN}",
            "variables": {"TEAMSPACE_TOKEN": {"isRequired": True, "isSecret": True}},
        },
        {"name": "X-Api-Key", "isRequired": True, "isSecret": True},  # a literal value is never written
    ]
    assert full["supportedProtocolVersions"] == ["2026-07-28"]
    assert [r["url"] for r in card["remotes"]] == [
        "https://api.teamspace.example/mcp/", "https://api.teamspace.example/mcp/readonly/"
    ]  # fmt: skip
    assert [r for r in documents[SERVER_JSON]["remotes"] if "supportedProtocolVersions" in r] == []
    for path, document in documents.items():
        assert official(path, document) == [], path


def test_a_package_carries_the_stdio_endpoints_variables(tmp_path: Path) -> None:
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    data["endpoints"][0]["env"] = ["TEAMSPACE_TOKEN"]
    data["fingerprint"] = fingerprint(data["tools"], data["endpoints"])
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    registry = Registry(
        name=NAME,
        description=SHORT,
        package_type="pypi",
        package="teamspace-mcp",
        package_version="2.4.0",
        repository="https://github.com/teamspace/teamspace-mcp",
    )
    documents, warnings = discovered(load_snapshot(path), registry)
    assert documents[SERVER_JSON]["packages"] == [
        {
            "registryType": "pypi",
            "identifier": "teamspace-mcp",
            "version": "2.4.0",
            "transport": {"type": "stdio"},
            "environmentVariables": [{"name": "TEAMSPACE_TOKEN", "isSecret": True}],
        }
    ]
    assert documents[SERVER_JSON]["repository"] == {"url": registry.repository, "source": "github"}
    assert "packages" not in documents[SERVER_CARD]  # a card describes remote connectivity only
    assert official(SERVER_JSON, documents[SERVER_JSON]) == [] and warnings == ()


def test_nothing_is_written_or_said_for_a_server_nobody_registers() -> None:
    assert discovered(load_snapshot(SNAPSHOT)) == ({}, ())


def test_a_missing_required_field_is_a_warning_once_registry_is_configured() -> None:
    documents, warnings = discovered(load_snapshot(SNAPSHOT), Registry(name=NAME))
    assert documents == {}
    (warning,) = warnings
    assert "not written" in warning and "at most 100 characters" in warning and "registry.description" in warning


def test_a_server_that_names_itself_for_registries_needs_no_configuration(tmp_path: Path) -> None:
    snapshot = snapshot_with(tmp_path, {"name": "io.github.teamspace/demo", "description": "Teamspace, as a demo."})
    documents, warnings = discovered(snapshot)
    assert documents[SERVER_JSON]["name"] == "io.github.teamspace/demo" and warnings == ()
    snapshot = snapshot_with(tmp_path, {"name": "io.github.teamspace/demo"})
    assert discovered(snapshot) == ({}, ())  # a description too long, and no registry: asked for: silence
    documents, warnings = discovered(snapshot, Registry(repository="https://github.com/teamspace/demo"))
    assert documents == {} and "registry.description" in warnings[0]


def test_an_optional_field_that_breaks_a_schema_is_left_out_with_a_warning(tmp_path: Path) -> None:
    snapshot = snapshot_with(tmp_path, {"websiteUrl": "not a url", "title": "T" * 101})
    documents, warnings = discovered(snapshot, Registry(name=NAME, description=SHORT))
    assert set(documents) == {SERVER_JSON, SERVER_CARD}
    for document in documents.values():
        assert "websiteUrl" not in document and "title" not in document
    assert any("left out websiteUrl" in w for w in warnings), warnings


def test_a_repository_elsewhere_needs_its_source(tmp_path: Path) -> None:
    registry = Registry(name=NAME, description=SHORT, repository="https://code.example.org/teamspace")
    documents, warnings = discovered(load_snapshot(SNAPSHOT), registry)
    assert "repository" not in documents[SERVER_JSON] and "repository_source" in warnings[0]
    registry = Registry(name=NAME, description=SHORT, repository=registry.repository, repository_source="gitea")
    documents, _ = discovered(load_snapshot(SNAPSHOT), registry)
    assert documents[SERVER_CARD]["repository"]["source"] == "gitea"


def test_the_validators_refuse_what_the_schemas_refuse() -> None:
    assert any(
        "does not match" in p for p in problems(SERVER_JSON, {"name": "no slash", "description": "d", "version": "1"})
    )
    assert any(
        "'name' is a required property" in p for p in problems(SERVER_CARD, {"description": "d", "version": "1"})
    )
    assert official(SERVER_CARD, {"$schema": REGISTRY_SCHEMA, "name": "a/b", "description": "d", "version": "1"})


@pytest.mark.parametrize(
    ("registry", "message"),
    [
        ("name: weather", "`registry.name` must be a reverse-DNS name"),
        (f"description: {'x' * 101}", "`registry.description` must be at most 100 characters (it has 101)"),
        ("package: weather-mcp", "`registry.package` and `registry.package_type` go together"),
        ("package_type: cargo\n  package: x", "`registry.package_type` must be one of npm, pypi"),
        ("repository: ftp://example.com/x", "`registry.repository` must be an absolute http(s) URL"),
        # A clone URL with its token: server.json and the Server Card would publish it.
        ("repository: https://bot:ghp_x@github.com/acme/w", "`registry.repository` must not hold a user name or"),
        ("nmae: x", "`registry.nmae` is not a known key"),
    ],
)
def test_registry_settings_are_checked(tmp_path: Path, registry: str, message: str) -> None:
    path = tmp_path / "portal.yaml"
    path.write_text(f"registry:\n  {registry}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(path)


def test_registry_settings_are_read() -> None:
    path = Path(__file__).parent / "fixtures" / "registry-portal.yaml"
    config = load_config(path)
    assert config.registry == Registry(
        name="io.github.acme/weather",
        description="Forecasts and alerts for any city.",
        repository="https://github.com/acme/weather-mcp",
        package_type="npm",
        package="@acme/weather-mcp",
        package_version="2.4.0",
    )
