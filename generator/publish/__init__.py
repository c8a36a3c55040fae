"""Stage 8, publishing: the search index, the manifest, and the safe swap into ``--out``.

Knows bytes and paths; knows nothing of templates.
"""
