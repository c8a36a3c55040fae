"""Values from the description first (issue 37, item 4): prose allow-lists, examples given after
"e.g." or "for example", paths that suit what the description names, thing names that are not a
person's. Shapes taken from real servers (Azure, the Excel and AWS CDK servers, arXiv); every value
still validates against its schema, and a description's value that does not is not used."""

from __future__ import annotations

import jsonschema
import pytest

from generator.schema.examples import example_for
from generator.schema.values import described_choice


def _value(prop: dict[str, object]) -> object:
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"]}
    example = example_for(schema)
    assert example.ok, example.reason
    jsonschema.validate(example.value, schema)
    return example.value["x"]


def _named(name: str, prop: dict[str, object]) -> object:
    schema = {"type": "object", "properties": {name: prop}, "required": [name]}
    example = example_for(schema)
    assert example.ok, example.reason
    return example.value[name]


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("The app kind. Options: 'general', 'azurefunctions', 'functionapp'.", "general"),
        ("Must be one of: fast, slow or auto.", "fast"),
        ('Valid values are "json" and "csv".', "json"),
        ("Either `asc` or `desc`.", "asc"),
    ],
)
def test_a_prose_allow_list_gives_its_first_value(description: str, expected: str) -> None:
    assert _value({"type": "string", "description": description}) == expected


def test_an_example_the_description_gives_is_used() -> None:
    assert _named("paper_id", {"type": "string", "description": "The arXiv id, e.g. 2401.12345"}) == "2401.12345"


def test_a_described_value_the_schema_rejects_is_not_used() -> None:
    value = _value({"type": "string", "pattern": "^[a-z]+$", "description": "Options: 'A1', 'B2'."})
    assert value != "A1"


@pytest.mark.parametrize(
    ("name", "description", "expected"),
    [
        ("path", "Path to the Excel workbook (.xlsx) to open.", "data/file.xlsx"),
        ("filepath", "The spreadsheet to read.", "data/workbook.xlsx"),
        ("project_path", "The CDK project directory.", "./project"),
        ("output_dir", None, "./project"),
    ],
)
def test_a_path_suits_what_the_description_names(name: str, description: str | None, expected: str) -> None:
    prop: dict[str, object] = {"type": "string"}
    if description:
        prop["description"] = description
    assert _named(name, prop) == expected


@pytest.mark.parametrize(
    ("name", "expected"), [("vm-name", "my-vm"), ("indexName", "my-index"), ("diskName", "my-disk")]
)
def test_a_thing_s_name_is_not_a_person_s(name: str, expected: str) -> None:
    assert _named(name, {"type": "string", "description": "The name of it."}) == expected


@pytest.mark.parametrize("name", ["author_name", "display_name", "assignee"])
def test_a_person_s_name_stays_a_person_s(name: str) -> None:
    assert _named(name, {"type": "string"}) == "Alex Example"


def test_a_hostile_description_is_matched_in_bounded_time() -> None:
    assert described_choice("Options: " + "a" * 100_000) is None
    assert described_choice("one of: " + "x, " * 50_000) == "x"


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Name of the resource", "my-resource"),
        ("The cluster name.", "my-cluster"),
        ("Full name of the person to greet.", "Alex Example"),
        ("Name of the user.", "Alex Example"),
        ("The display name.", "Alex Example"),
        ("The name of the file share", "my-file-share"),  # @azure/mcp, 21 tools
        ("The name of the VM to create in the group", "my-vm"),
        ("The name of the user who owns it", "Alex Example"),
    ],
)
def test_a_plain_name_names_what_its_description_says(description: str, expected: str) -> None:
    # kubectl_logs' "name" ("Name of the resource") was "Alex Example".
    assert _named("name", {"type": "string", "description": description}) == expected


def test_a_listed_value_stands_alone_only_when_quoted_and_a_list_stops_at_16() -> None:
    from generator.schema.prose_values import listed_values

    assert listed_values("One of: 'fast', 'slow'") == ["fast", "slow"]
    assert listed_values("Valid values: 'local'") == ["local"]  # one value, but quoted: a value
    assert listed_values("Valid values: local") == [] == listed_values("Valid values: Xenon")  # one bare word: prose
    many = [f"mode{chr(97 + i)}" for i in range(20)]
    assert listed_values("One of: " + ", ".join(many)) == many[:16]
