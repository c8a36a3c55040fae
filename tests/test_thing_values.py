"""What a name says a thing is (``generator.schema.thing_values``), decided case by case.

The example tests reach these helpers through whole schemas, where most branches give a value that
validates either way; mutation testing (scripts/mutants) showed each branch below unpinned. Each case
is a name and a description as servers write them, and the value it must give.
"""

from __future__ import annotations

import pytest

from generator.schema.thing_values import (
    PATH_NAMES,
    PERSON_NAME,
    arn,
    ends,
    hint_key,
    name_hint,
    path_hint,
    singular,
    thing_named,
    words,
)


@pytest.mark.parametrize(
    ("key", "description", "path"),
    [
        # The name says a directory.
        ("output_dir", None, "./project"),
        ("target_directory", None, "./project"),
        ("export_folder", None, "./project"),
        ("repo_path", None, "./project"),
        ("repository_path", None, "./project"),
        ("project_path", None, "./project"),
        # The description's first words do, unless the name says a file or a typed path.
        ("path", "The directory with the file.", "./project"),
        ("target", "The directory to put the .csv export in.", "./project"),
        ("file_path", "The directory where the CSV file is written.", "data/file.csv"),
        ("data_file", "The folder with the file.", "reports/q3.pdf"),
        # A file of the type the description names, as an extension or as a word.
        ("path", "Path to the Excel workbook (.xlsx) to open.", "data/file.xlsx"),
        ("image_path", "A JPEG photo of the receipt.", "data/file.jpg"),
        ("image_path", "A PNG screenshot.", "data/file.png"),
        # A spreadsheet named without its type.
        ("filepath", "The spreadsheet to read.", "data/workbook.xlsx"),
        ("filepath", "An Excel export of the ledger.", "data/workbook.xlsx"),
        ("filepath", "The workbook.", "data/workbook.xlsx"),
        # A folder named after the first sentence, and only where no file is named.
        ("path", "Where to write. The target directory.", "./project"),
        ("path", "Where to write. A folder of its own.", "./project"),
        ("path", "Where to write. The project root.", "./project"),
        ("path", "Where to write. The workspace.", "./project"),
        ("path", "Where to write. The folder for the file.", "reports/q3.pdf"),
        # Else a report file.
        ("path", "Where the report goes.", "reports/q3.pdf"),
        ("path", None, "reports/q3.pdf"),
        ("path", 42, "reports/q3.pdf"),
    ],
)
def test_path_hint(key: str, description: object, path: str) -> None:
    assert path_hint(key, description) == path


@pytest.mark.parametrize(
    ("word", "one"),
    [
        ("children", "child"),
        ("entries", "entry"),
        ("flies", "fly"),
        ("ties", "tie"),
        ("ingresses", "ingress"),
        ("nodes", "node"),
        ("class", "class"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("bus", "bus"),
        ("gas", "gas"),
        ("node", "node"),
    ],
)
def test_singular(word: str, one: str) -> None:
    assert singular(word) == one


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("policy_arn", "arn:aws:iam::aws:policy/ReadOnlyAccess"),
        ("log_group_arn", "arn:aws:logs:us-east-1:123456789012:log-group:my-log-group"),
        ("group_arn", "arn:aws:iam::123456789012:group/my-group"),
        ("topicarn", "arn:aws:sns:us-east-1:123456789012:my-topic"),
        ("arn", "arn:aws:iam::123456789012:role/my-role"),
        ("arn_policy", "arn:aws:iam::aws:policy/ReadOnlyAccess"),
    ],
)
def test_arn(key: str, value: str) -> None:
    assert arn(key) == value


LONG = "supercalifragilisticexpialidocious"


@pytest.mark.parametrize(
    ("description", "thing"),
    [
        ("Name of the file share", "my-file-share"),
        ("Name of the file share to use.", "my-file-share"),
        ("The cluster name.", "my-cluster"),
        (f"Name of the {LONG} extraordinary thing", "my-" + f"{LONG}-extraordinary-thing"[:40]),
        ("Name of the author", None),
        ("Name of the person to greet", None),
        ("Says nothing of what it names.", None),
        (None, None),
    ],
)
def test_thing_named(description: object, thing: str | None) -> None:
    assert thing_named(description) == thing


@pytest.mark.parametrize(
    ("description", "owner", "name"),
    [
        ("Name of the file share", "create_share", "my-file-share"),
        ("The author of the post.", None, PERSON_NAME),
        (None, "delete_chart", "my-chart"),
        (None, "list_nodes", "my-node"),
        (None, "get_cluster_node_pools", "my-node-pool"),
        (None, f"get_{LONG}_configurations", "my-" + f"{LONG}-configuration"[:40]),
        (None, "get", "my-item"),
        (None, None, "my-item"),
    ],
)
def test_name_hint(description: object, owner: str | None, name: str) -> None:
    assert name_hint(description, owner) == name


def test_words_reads_500_characters_and_keeps_two_phrases() -> None:
    assert {"iso 8601", "number of", "dates", "days"} <= words("Dates in ISO 8601, and the Number of days.")
    cut = words("x" * 495 + " abcdef")
    assert "abcd" in cut and "abcde" not in cut
    assert words(None) == set()


def test_names_are_read_as_words_and_endings() -> None:
    assert hint_key("csvFilePath") == "csv_file_path" and hint_key(" page-Id ") == "page_id" and hint_key(None) == ""
    assert ends("output_path", PATH_NAMES) and ends("path", PATH_NAMES) and ends("file", PATH_NAMES)
    assert not ends("xpath2", PATH_NAMES) and not ends("filename", PATH_NAMES)
