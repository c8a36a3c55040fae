"""Stage 4, comparing: the change classifier behind ``diff``, ``check`` and the changes page.

Knows snapshots and schema rows; knows nothing of pages or files.
"""
