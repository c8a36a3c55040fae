"""The values a description names in prose (``generator.schema.prose_values``), decided case by case.

The example tests see these values only once the solver has validated them against a schema, where a
plain string takes whatever is read: a value with the sentence's period still on it, a list cut short or
a rejected value read as an allowed one would all pass. Mutation testing (scripts/mutants) showed those
rules unpinned. Each case is a description as servers write them and exactly what is read from it.
"""

from __future__ import annotations

import pytest

from generator.schema.prose_values import given_values, listed_values, rejected_values


@pytest.mark.parametrize(
    ("description", "given"),
    [
        # A JSON-like example is taken whole, its braces balanced, after "e.g." and "e.g.:" alike.
        ('Label selector, e.g. {job="foo", namespace="bar"}', ['{job="foo", namespace="bar"}']),
        ('Filter, e.g.: {"level": {"min": "error"}} to keep the rest out.', ['{"level": {"min": "error"}}']),
        # Braces that never close are no value: the quoted words inside are read instead.
        ('Filter, e.g. {"level": {"min": "error"}', ["level", "min", "error"]),
        # A list of single words, up to "etc.", the parenthesis or the end of the sentence.
        ("Resource kind, e.g., pods, deployments, services, etc.", ["pods", "deployments", "services"]),
        ("Kinds (e.g. pods, services) to list.", ["pods", "services"]),
        ("Resource type, e.g. pods or services.", ["pods", "services"]),
        ("Resource type, e.g. pods and services.", ["pods", "services"]),
        ("Resource type, e.g. pods, services,", ["pods", "services"]),
        # Two lists, in the order given.
        ("Kinds, e.g. pods, services. For example, jobs, cronjobs.", ["pods", "services", "jobs", "cronjobs"]),
        # A list with a part of several words is no list: the first word stands alone.
        ("Kinds, e.g. pods, stateful sets", ["pods"]),
        # A bare word is taken when it stands alone or reads as a value, never the sentence's period.
        ("Data source, for example prometheus.", ["prometheus"]),
        ("Label, for example BOX.", ["BOX"]),
        ("Version, e.g. v1.2. For example v2.0.", ["v1.2", "v2.0"]),
        ("Query text, for example open issues about login.", []),
        ("Secrets such as API keys", []),
        ("How many, e.g. one.", []),
        # Quoted values, every one of them; a one-character value too.
        ("Example: 'alpha'. Also accepts 'beta'.", ["alpha", "beta"]),
        ("Axis, e.g. 'x'", ["x"]),
        # A sentence that rejects values gives none, and the sentences after it are still read.
        ('Paths such as "/etc" are rejected. For example "docs/readme.md".', ["docs/readme.md"]),
    ],
)
def test_given_values(description: str, given: list[str]) -> None:
    assert given_values(description) == given


@pytest.mark.parametrize(
    ("description", "listed"),
    [
        # Type names, single letters and filler words are no allowed values; two letters are.
        ("Type: string or number", []),
        ("One of: x, y, z", []),
        ("One of: GB, MB", ["GB", "MB"]),
        # What follows the mark must start a list.
        ("Allowed values: <see the docs>.", []),
        # A value the description rejects is not listed.
        ('One of: "a1", "b2". The value "b2" is rejected.', ["a1"]),
        # Every list, in order, without the sentence's period.
        ("Options: create, delete. Type: full or partial.", ["create", "delete", "full", "partial"]),
        (
            "Action: start or stop. Rollout (status, history, restart)",
            ["start", "stop", "status", "history", "restart"],
        ),
        ("Rollout (status, history, or restart)", ["status", "history", "restart"]),
        # A quoted value keeps its period: it is the server's.
        ("One of: 'a.', 'b.'", ["a.", "b."]),
        # A description that starts with a list names its first item.
        ("deployment, statefulset, or another kind", ["deployment"]),
    ],
)
def test_listed_values(description: str, listed: list[str]) -> None:
    assert listed_values(description) == listed


def test_rejected_values_are_the_quoted_ones_of_a_rejecting_sentence() -> None:
    description = 'Paths such as "/etc" or "~/.ssh" are rejected. Use "docs" instead.'
    assert rejected_values(description) == frozenset({"/etc", "~/.ssh"})
    assert given_values(description) == []
