"""Stage 1, configuration: the types of portal.yaml and its loader.

Knows YAML and its own schema; knows nothing of servers or pages.
"""
