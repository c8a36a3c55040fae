"""Agent readiness: how well each tool's name, description and schemas let an agent choose and call it.

A stage of its own over the snapshot and :mod:`generator.schema`'s rows: rule-based, deterministic and
explainable, with no model call and no network. :func:`generator.quality.lint.lint` scores a snapshot;
``mcp-portal lint`` reports it and the optional "Agent readiness" page shows it. docs/lint.md
describes every rule and the sources it rests on.
"""
