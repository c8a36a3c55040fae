"""Stage 5, author files: overlays, the OpenAPI mapping and translations of server text.

Knows the author's YAML and the snapshot; knows nothing of templates.
"""
