"""Prompt, resource and resource-template pages are callable (issue 37, item 6): a concrete request
(a prompt's arguments filled, a template's variables expanded by RFC 6570) in each endpoint's era.
The sequences themselves run against the demo in tests/test_sequences.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.config.portal import PortalConfig
from generator.model.gather import gather
from generator.schema.uritemplate import expand, parse
from generator.snapshot.snapshot import load_snapshot
from tests.golden_tool import SNAPSHOT
from tests.test_sequences import _legacy_snapshot

VALUES = {"var": "value", "hello": "Hello World!", "path": "/foo/bar", "x": "1024", "y": "768", "empty": ""}


@pytest.mark.parametrize(
    ("template", "expected"),
    [  # RFC 6570, section 3.2 (one string per variable)
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("{#path}", "#/foo/bar"),
        ("map?{x,y}", "map?1024,768"),
        ("X{.var}", "X.value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{var:3}", "val"),
    ],
)
def test_expansion_follows_rfc_6570(template: str, expected: str) -> None:
    assert expand(parse(template), VALUES) == expected


@pytest.mark.parametrize("template", ["x://{a", "x://{}", "x://{a}{b}"])
def test_a_template_that_cannot_be_expanded_gives_none(template: str) -> None:
    assert expand(parse(template), {"a": "1"}) is None


def test_the_demo_items_get_concrete_requests_in_both_eras(tmp_path: Path) -> None:
    for snapshot, era in ((load_snapshot(SNAPSHOT), "2026-07-28"), (load_snapshot(_legacy_snapshot(tmp_path)), "x")):
        site = gather(snapshot, PortalConfig()).model
        (prompt,) = site.prompts
        assert prompt.call_request is not None
        method, params, name = prompt.call_request
        assert (method, name) == ("prompts/get", "triage_defect") and set(params["arguments"]) >= {"defect"}
        (template,) = site.resource_templates
        assert template.example_uri is not None and template.example_uri.startswith("teamspace://documents/")
        assert "{" not in template.example_uri
        for item in (prompt, *site.resources, template):
            assert {e.transport for e, _ in item.sequences} == {"stdio", "streamable-http"}
            for _, sequence in item.sequences:
                assert ("initialize" in sequence.text) == (era != "2026-07-28"), sequence.text


def test_a_templates_example_request_reads_the_uri_its_sequence_reads() -> None:
    # mongodb-mcp-server's exported-data://{exportName}: the Example request showed the template itself.
    site = gather(load_snapshot(SNAPSHOT), PortalConfig()).model
    (template,) = site.resource_templates
    assert template.example_uri is not None
    assert f'"uri": "{template.example_uri}"' in template.request
    assert "{" not in template.example_uri
