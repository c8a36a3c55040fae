"""Stage 3 (beside connect), JSON Schema: references, constraints, table rows, validation,
examples and bounded regular expressions.

Knows JSON Schema; knows nothing of tools, servers or pages.
"""
