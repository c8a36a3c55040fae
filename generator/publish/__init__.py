"""Stage 8, publishing: the staging directory, the survey of the previous site, the in-place update or
the swap into ``--out``, and the manifest.

Knows bytes and paths; knows nothing of templates.
"""
