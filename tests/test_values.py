"""The example value a name and a description suggest (``generator.schema.values``), decided case by case.

The example tests reach these rules through whole schemas, where a plain string validates whatever value
a rule picks; mutation testing (scripts/mutants) showed most branches unpinned. Each case is a name, a
description and an owner as servers write them, and the value it must give.
"""

from __future__ import annotations

import pytest

from generator.schema.values import (
    described_choice,
    described_example,
    fit_length,
    named_hint,
    number_hint,
    string_hint,
    string_hints,
)

TIMESTAMP = "2026-09-03T10:15:00Z"


@pytest.mark.parametrize(
    ("name", "description", "owner", "value"),
    [
        # A number schema quoted in the description: number_hint decides, no string.
        ("count", 'Provide a value matching the following JSON schema: {"type":"integer"}', None, None),
        # A path: a directory or a typed file from the description.
        ("path", "The directory to list", None, "./project"),
        ("output_dir", None, None, "./project"),
        ("path", "An .xlsx file", None, "data/file.xlsx"),
        # An id the description says is a number, else the id suffix.
        ("project_id", "Numeric project ID", None, "42"),
        ("project_id", "The project", None, "abc123"),
        ("issue_iid", "The internal ID of the issue", None, "42"),
        ("issue_iid", None, None, None),
        ("user_uid", "Numeric user id", None, "42"),
        ("project_ids", "Numeric project IDs", None, "42"),
        ("project_ids", None, None, "abc123"),
        # A thing's name, from the description or the owner; "the name of" counts for names that say nothing.
        ("name", "Name of the VM", None, "my-vm"),
        ("name", None, "node", "my-node"),
        ("label_x", "The name of the cluster", None, "my-cluster"),
        ("title", "The name of the cluster", None, "Quarterly report"),
        ("vm_name", "The name of the cluster", None, "my-vm"),
        # An edge's ends are nodes' names; a user's source is not.
        ("source", None, "create_edge", "my-node"),
        ("target", None, "relation", "my-node"),
        ("target", None, "create_link", "my-node"),
        ("source", None, "add_connection", "my-node"),
        ("source", None, "user", None),
        # A patch: JSON when the description says so, else a diff.
        ("patch", "A JSON merge patch", None, '{"spec": {"replicas": 2}}'),
        ("patch", "A unified diff", None, "-old line\n+new line"),
        # A flag passed as text, unless the name ends as an id, key, name, path or URL does.
        ("include_archived", None, None, "true"),
        ("has_id", None, None, "abc123"),
        ("use_key", None, None, "my-use"),
        ("include_ids", None, None, "abc123"),
        ("use_name", None, None, "my-use"),
        ("show_path", None, None, "reports/q3.pdf"),
        ("allow_url", None, None, "https://example.com"),
        ("role_arn", None, None, "arn:aws:iam::123456789012:role/my-role"),
        ("arn", None, None, "arn:aws:iam::123456789012:role/my-role"),
        ("policy_arn", None, None, "arn:aws:iam::aws:policy/ReadOnlyAccess"),
        # A Chinese description wins over the name (AMap's "location" is "longitude,latitude").
        ("location", "经纬度坐标", None, "116.397428,39.90923"),
        ("city", "城市名", None, "北京"),
        ("location", "x" * 197 + "经纬度", None, "116.397428,39.90923"),  # read in its first 200 characters
        ("location", "x" * 198 + "经纬度", None, "52.52,13.405"),
        # The exact name, then names that are ids.
        ("query", None, None, "quarterly report"),
        ("uuid", None, None, "abc123"),
        ("guid", None, None, "abc123"),
        # *_name: a thing's, unless a person's; *_key and *_slug: a thing's, unless a secret's.
        ("vm_name", None, None, "my-vm"),
        ("virtual_machine_name", None, None, "my-virtual-machine"),
        ("a" * 45 + "_name", None, None, "my-" + "a" * 40),
        ("author_name", None, None, "Alex Example"),
        ("project_key", None, None, "my-project"),
        ("a" * 45 + "_key", None, None, "my-" + "a" * 40),
        ("api_key", None, None, "abc123"),
        ("post_slug", None, None, "my-post"),
        # Name endings, then words of the description.
        ("callback_url", None, None, "https://example.com"),
        ("created_at", None, None, TIMESTAMP),
        ("time", None, None, TIMESTAMP),
        ("target", "The website to open", None, "https://example.com"),
        ("foo", "An identifier", None, "abc123"),
    ],
)
def test_a_name_and_its_description_suggest_one_value(
    name: str, description: str | None, owner: str | None, value: str | None
) -> None:
    assert named_hint(name, description, owner) == value


@pytest.mark.parametrize(
    ("name", "owner", "value"),
    [
        # A name of two parts, from its last split: its first part, then its last.
        ("time_a", None, TIMESTAMP),
        ("text_gone", None, "Hello, world!"),
        ("new_paragraph", None, "A short paragraph."),
        ("new_text_gone", None, "Hello, world!"),  # "new_text", not "text_gone"
        ("source_x", "edge", "my-node"),  # the owner goes along
        ("source_x", None, None),
        ("time_gone_x", None, None),  # one split only: "time_gone" is not split again
        # A part that only says what sort the value is suggests nothing (each alone would).
        ("incident_type", None, None),
        *[(f"{word}_gone", None, None) for word in ("name", "type", "kind", "mode", "id", "key", "format", "base")],
    ],
)
def test_a_name_of_two_parts_takes_its_value_from_one_of_them(name: str, owner: str | None, value: str | None) -> None:
    assert named_hint(name, None, owner) == value


@pytest.mark.parametrize("word", ["name", "type", "kind", "mode", "id", "key", "format", "base"])
def test_each_word_that_names_a_sort_has_a_value_of_its_own(word: str) -> None:
    """The words a two-part name skips are skipped for what they say of the other part, not because they
    say nothing: alone, each has a value."""
    assert named_hint(word) is not None


@pytest.mark.parametrize(
    ("name", "description", "hints"),
    [
        # The description's own examples, then the name's value.
        ("query", "Search text, for example `budget`", ["budget", "quarterly report"]),
        ("query", "e.g. `quarterly report`", ["quarterly report"]),  # once
        # An allow-list in prose, every listed value, then the name's.
        ("mode", "Options: 'general', 'azurefunctions'", ["general", "azurefunctions", "default"]),
        ("format", "One of: json, csv", ["json", "csv"]),
        ("zzz", "Either 'x' or 'y'", ["x"]),
        # No string from the name: a number, as text (whole numbers without ".0").
        ("page_count", None, ["10"]),
        ("temperature", None, ["0.7"]),
        ("value", None, ["42"]),
        ("x", "Number of items", ["10"]),  # the description's number
        ("user_id", None, ["abc123"]),  # a string from the name: no number besides
        # A value the description rejects is never offered, nor a path under one.
        ("path", 'A directory. Paths under "./project" are rejected', ["example"]),
        ("query", 'Text. "quarterly report" is rejected', ["example"]),
        ("file_path", '"reports" is rejected', ["example"]),
        ("file_path", '"reports/" is rejected', ["example"]),
        ("file_path", '"report" is rejected', ["reports/q3.pdf"]),
        ("path", 'Where to write. "/etc" is rejected', ["reports/q3.pdf"]),
        # Nothing fits.
        ("zzz", None, ["example"]),
        ("ratio", None, ["example"]),
    ],
)
def test_the_server_words_come_first_and_a_rejected_value_never(
    name: str, description: str | None, hints: list[str]
) -> None:
    assert string_hints(name, description) == hints
    assert string_hint(name, description) == hints[0]


@pytest.mark.parametrize(
    ("name", "description", "number"),
    [
        # A number schema quoted in the description: the name's number, else 3.
        ("limit", '{"type": "integer"}', 10),
        ("foo", '{"type":"number"}', 3),
        ("top_k", None, 5),
        ("uid", None, 42),
        ("guid", None, 42),
        ("id", None, 42),
        ("retry_ms", None, 1000),
        ("wait_seconds", None, 30),
        ("window_width", None, 1280),
        ("page_number", None, 1),
        ("max_depth", None, 10),
        ("min_x", None, 10),
        ("num_rows", None, 10),
        ("number_of_x", None, 10),
        ("threshold_high", None, 80),
        # Words of the description.
        ("x", "Number of items", 10),
        ("x", "Delay in milliseconds", 1000),
        ("x", "Wait, in seconds", 30),
        ("x", "Index of row", 0),
        ("x", "The ID", 42),
        ("x", "nothing", None),
        ("foo_ids", None, None),
    ],
)
def test_a_name_and_its_description_suggest_a_number(name: str, description: str | None, number: float | None) -> None:
    assert number_hint(name, description) == number


@pytest.mark.parametrize(
    ("description", "choice"),
    [
        ("one of: a, b", "a"),
        ("Must be one of: low, high", "low"),
        ("Valid values are `json`", "json"),
        ('Allowed values: "up"', "up"),
        ("options: a|b", "a"),
        ("either 'x' or 'y'", "x"),
        ("Provide either text or regex", None),  # two arguments, not two values
        ("x" * 1989 + " one of: a, b", "a"),  # read within its first 2,000 characters
        ("x" * 1990 + " one of: a, b", None),
        (None, None),
    ],
)
def test_an_allow_list_in_prose_gives_its_first_value(description: str | None, choice: str | None) -> None:
    assert described_choice(description) == choice


@pytest.mark.parametrize(
    ("description", "example"),
    [("e.g. `read_all`", "read_all"), ("For example #release", "#release"), ("nothing", None), (None, None)],
)
def test_a_description_gives_its_first_example(description: str | None, example: str | None) -> None:
    assert described_example(description) == example


@pytest.mark.parametrize(
    ("text", "lo", "hi", "fitted"),
    [
        ("ab", 5, None, "ab ab"),
        ("a", 4, None, "a ax"),  # never ends in a space
        ("", 3, None, "x x"),
        ("", 0, None, ""),
        ("abc", 2, None, "abc"),
        ("ab ", 3, None, "ab "),  # long enough: left as it is
        ("hello", 0, 3, "hel"),
        ("hi", 2, 2, "hi"),
    ],
)
def test_a_plain_string_is_padded_or_cut_to_its_length_bounds(text: str, lo: int, hi: int | None, fitted: str) -> None:
    assert fit_length(text, lo, hi) == fitted
