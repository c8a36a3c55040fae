"""The corpus budget of questionable example values (issue 47, item 2), and the auditor's own rules.

The auditor (:mod:`tests.example_audit`) builds the model of every server in tests/corpus/ as a
build does and judges every string of every tool's example call, every prompt's example arguments
and every resource template's filled variables. A value is questionable when it breaks one of these
rules, judged in this order (one finding per value, under the first rule it breaks):

1. ``rejected``: a value the description names as rejected, forbidden or not allowed (CircleCI's
   ``outputDir`` was ``"/etc"``, from 'System paths ... (e.g. "/etc", "~/.ssh") are rejected');
2. ``exclusive``: both of two arguments a description calls mutually exclusive, says "not both" of,
   or of which "if both ... are provided, one is ignored" (GitLab's ``assignee_id`` and
   ``assignee_username``);
3. ``number``: a template variable or prompt argument named as a number (count, limit, page, size,
   replicas, an IID, a threshold...) or described with an integer schema, filled with a non-number;
4. ``path``: a directory given a file's path, or a file path whose extension is not one the
   description names;
5. ``person``: a person's name ("Alex Example") in a field whose name and description name no person;
6. ``ignored``: a value other than the ones the description gives after "Example:", "Examples of X:",
   "e.g.", "for example", "for instance" or "such as", when one of those fits the schema and the schema
   offers no value of its own (enum, const, default, examples, pattern, format);
7. ``placeholder``: a placeholder word ("example", "string", "text", "value", "foo", "test",
   "sample", "my-item"...) that is not the schema's own value; or ``abc123`` where the name or the
   description says what the id looks like (a number, an IID, a slug, a key, a SHA, an ARN, a path, an
   example).

The budget: at most one questionable value per 50 tool pages over the whole corpus.
"""

from __future__ import annotations

from typing import Any

from tests.example_audit import RULES, Leaf, audit_corpus, exclusive_pairs, given_values, judge, report


def test_the_corpus_stays_within_one_questionable_value_per_50_tool_pages() -> None:
    pages, found = audit_corpus()
    print(report(pages, found))  # shown with -s, and on failure: every flagged value, by rule
    assert pages >= 1000, "the corpus shrank: the budget would mean less"
    assert len(found) <= pages // 50, report(pages, found)


def _leaf(name: str, value: str, description: str = "", schema: Any = None) -> Leaf:
    return Leaf(name, name, value, description, schema if schema is not None else {"type": "string"})


def test_each_rule_flags_the_value_it_names() -> None:
    """The auditor is not a test that cannot fail: each rule catches the defect issue 47 found."""
    circleci = (
        'Must be inside the cwd. System paths and hidden config directories (e.g. "/etc", "~/.ssh") are rejected.'
    )
    cases = {
        "rejected": (_leaf("outputDir", "/etc", circleci), False),
        "number": (_leaf("count", "example"), True),
        "path": (_leaf("output_dir", "reports/q3.pdf", "The directory to save the CSV file."), False),
        "person": (_leaf("name", "Alex Example", "The chart to delete."), False),
        "ignored": (_leaf("nodeType", "nodes-base.webhook", "Node type. Example: nodes-base.httpRequest"), False),
        "placeholder": (_leaf("action", "example", "Rollout action (status, history, restart)"), False),
    }
    for rule, (leaf, template) in cases.items():
        assert judge(leaf, template=template) == rule, rule
    assert judge(_leaf("merge_request_iid", "abc123", "The IID of a merge request")) == "placeholder"
    assert set(cases) | {"exclusive"} == set(RULES)


def test_a_good_value_is_not_flagged() -> None:
    assert judge(_leaf("outputDir", "./project", 'System paths (e.g. "/etc") are rejected.')) is None
    assert judge(_leaf("count", "10"), template=True) is None
    assert judge(_leaf("author", "Alex Example", "The author of the commit")) is None
    assert judge(_leaf("nodeType", "nodes-base.httpRequest", "Example: nodes-base.httpRequest")) is None
    assert judge(_leaf("type", "text", "", {"type": "string", "const": "text"})) is None  # the schema's own word
    assert judge(_leaf("id", "abc123", "The id of the page")) is None  # nothing says what an id looks like


def test_mutually_exclusive_pairs_are_read_from_either_side() -> None:
    props = {
        "assignee_id": {
            "type": "string",
            "description": "Return issues assigned to the user ID. Mutually exclusive with assignee_username.",
        },
        "assignee_username": {"type": "string", "description": "Return issues assigned to the username."},
        "labels": {"type": "string"},
    }
    assert exclusive_pairs(props) == [("assignee_id", "assignee_username")]
    assert exclusive_pairs({"a": {}, "b": {}}, "Provide a or b, not both.") == [("a", "b")]


def test_given_values_skip_a_sentence_that_rejects_them() -> None:
    assert given_values('Paths (e.g. "/etc", "~/.ssh") are rejected.') == []
    assert given_values("Do not include secrets such as API keys.") == []
    assert given_values('Node type as string. Example: "nodes-base.slack"') == ["nodes-base.slack"]
