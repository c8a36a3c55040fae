"""Every rule of the linter, declared once: its id, dimension, severity, what it says and how to fix it.

The reports (terminal, JSON, SARIF, Markdown), the gate's ``--fail-on`` and docs/lint.md all read
this table. ``source`` names what grounds the rule, as docs/lint.md cites it:

- ``smelly``: Hasan et al., "Model Context Protocol (MCP) Tool Descriptions Are Smelly!", arXiv 2602.14878;
- ``docs``: Wang et al., "From Docs to Descriptions: Smell-Aware Evaluation of MCP Server Descriptions",
  arXiv 2602.18914;
- ``tdqs``: Glama's Tool Definition Quality Score (TDQS) specification;
- ``sep986``: SEP-986 and the Tool Names section of the MCP specification (2025-11-25);
- ``spec``: the MCP specification's tool annotations and tool-safety text.
"""

from __future__ import annotations

from dataclasses import dataclass

DIMENSIONS: tuple[str, ...] = (
    "purpose", "usage", "behaviour", "parameters", "returns", "errors", "conciseness", "naming",
)  # fmt: skip
"""The dimensions a tool is scored on, in report order."""

WEIGHTS: dict[str, float] = {
    "purpose": 25, "usage": 15, "behaviour": 15, "parameters": 15,
    "returns": 10, "errors": 5, "conciseness": 10, "naming": 5,
}  # fmt: skip
"""Points of each dimension in a tool's score (they add up to 100); TDQS's weights, its "contextual
completeness" split into returns and errors, and five points for the name."""

SEVERITIES = ("error", "warning", "note")
"""An error takes a dimension's points, a warning half of them, a note none."""


@dataclass(frozen=True)
class Rule:
    """One rule."""

    id: str
    dimension: str
    """One of :data:`DIMENSIONS`, or ``server`` for a rule about the whole tool set."""
    severity: str
    title: str
    """What the rule finds, in a line."""
    fix: str
    """How to fix what it finds."""
    source: str
    """What grounds it (see the module docstring)."""
    default: bool = True
    """On unless turned off; a rule off by default runs only when named by ``--enable``."""


RULES: tuple[Rule, ...] = (
    Rule("purpose-missing", "purpose", "error", "the tool has no description",
         "Write one sentence that says what the tool does: a verb, the object it acts on, and its scope.",
         "tdqs"),
    Rule("purpose-tautology", "purpose", "error", "the description is the tool's name or title",
         "Say what the tool does beyond its name: the object it acts on, its scope, what sets it apart from "
         "its siblings.", "tdqs"),
    Rule("purpose-restates-name", "purpose", "warning", "the description's opening only restates the tool's name",
         "Open with what the tool does beyond its name: the object it acts on, its scope, what sets it apart "
         "from its siblings.", "tdqs", default=False),
    Rule("purpose-too-short", "purpose", "warning", "the description is too short to state a purpose",
         "Expand the description to a full sentence: a verb, the object and the scope.", "smelly"),
    Rule("usage-missing", "usage", "warning", "the description never says when to use the tool",
         'Add when to use it and when not ("Use this when ...; for ..., use `other_tool` instead"), or the '
         "step it belongs to in a workflow.", "tdqs"),
    Rule("behaviour-contradicts-annotations", "behaviour", "error",
         "the description contradicts the tool's annotations",
         "Make the annotations tell the truth: a tool that writes is not `readOnlyHint: true`, one that "
         "deletes is not `destructiveHint: false`.", "tdqs"),
    Rule("behaviour-undeclared", "behaviour", "warning",
         "neither annotations nor the description say what the tool changes",
         "Declare `readOnlyHint` (and `destructiveHint`, `idempotentHint`, `openWorldHint` for a tool that "
         "writes), "
         "or say in the description whether it changes anything and what.", "spec"),
    Rule("params-undescribed", "parameters", "warning", "a parameter has no description",
         "Give the parameter a description: its meaning, format and allowed values, with an example.",
         "docs"),
    Rule("params-no-unit", "parameters", "warning", "a numeric quantity does not say its unit",
         'Name the unit in the description ("in seconds") or in the name (`timeout_ms`).', "tdqs"),
    Rule("params-no-format", "parameters", "warning", "a date or time string does not say its format",
         'Declare `"format": "date-time"` (or `date`, `time`), or name the format in the description with an '
         "example (`2025-01-31T09:30:00Z`).", "tdqs"),
    Rule("params-no-values", "parameters", "warning", "a choice among fixed values does not list them",
         'List the allowed values with `"enum"`, or name them in the description.', "docs"),
    Rule("returns-undescribed", "returns", "warning", "nothing says what the tool returns",
         "Declare an `outputSchema`, or say in the description what comes back: its fields, its form, and "
         "what an empty result looks like.", "docs"),
    Rule("errors-unstated", "errors", "warning", "the description states no error or limit",
         "Say how the tool fails and what bounds it: not found, permissions, size or count caps, rate "
         "limits, timeouts.", "tdqs"),
    Rule("concise-wall-of-text", "conciseness", "warning", "the description is a wall of text",
         "Cut it to what an agent needs to choose and call the tool; move parameter details into the "
         "schema's descriptions and long guides into a resource or the docs.", "tdqs"),
    Rule("concise-shouting", "conciseness", "warning", "the text shouts orders at the model",
         "State the constraint plainly (\"`query_id` comes from `execute_query`\"); capitals and `MUST` or "
         "`ALWAYS` do not make an agent choose better, and read like a prompt injection.", "docs"),
    Rule("concise-injection", "conciseness", "error", "the text holds an instruction aimed at overriding the agent",
         "Remove it: a tool description describes the tool. Text that tells the model to ignore its "
         "instructions or hide things from the user is a prompt injection.", "spec"),
    Rule("concise-hidden-text", "conciseness", "error", "the text holds invisible or bidirectional-control characters",
         "Remove the invisible characters: a reader cannot see what they hide, an agent reads it anyway.",
         "spec"),
    Rule("name-invalid-characters", "naming", "error", "the name has characters outside `A-Z a-z 0-9 _ - .`",
         "Rename the tool with letters, digits, underscore, hyphen and dot only.", "sep986"),
    Rule("name-length", "naming", "error", "the name is empty or longer than 128 characters",
         "Rename the tool to between 1 and 128 characters.", "sep986"),
    Rule("name-edge-character", "naming", "warning", "the name starts or ends with a dot or a hyphen",
         "Remove the leading or trailing dot or hyphen.", "sep986"),
    Rule("name-generic", "naming", "warning", "the name is a bare generic verb that collides across servers",
         "Add the object the tool acts on (`search_docs`, not `search`).", "spec"),
    Rule("server-similar-tools", "server", "warning", "two tools an agent cannot tell apart",
         "Make the two tools' purposes distinct and say in each description when to use the other, or "
         "merge them into one.", "tdqs"),
    Rule("server-tool-count", "server", "warning", "more tools than an agent chooses among well",
         "Group related operations into fewer tools, or split the server by audience.", "tdqs"),
    Rule("server-missing-annotations", "server", "warning", "tools without annotations",
         "Declare `readOnlyHint`, `destructiveHint`, `idempotentHint` and `openWorldHint` on every tool.", "spec"),
    Rule("server-mixed-naming", "server", "warning", "tool names mix naming conventions",
         "Use one convention for every tool name (`snake_case`, `camelCase` or `kebab-case`).", "tdqs"),
)  # fmt: skip

BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def default_rules() -> frozenset[str]:
    """The ids of the rules that run when no ``--enable``/``--disable`` says otherwise."""
    return frozenset(rule.id for rule in RULES if rule.default)
