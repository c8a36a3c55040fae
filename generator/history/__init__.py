"""Stage 5, history: the releases kept in a versioned site, and each tool's timeline across them.

Reads the snapshots each earlier build left in ``OUT/<version>/snapshot.json`` (bounded, never
through a symbolic link) and ``OUT/versions.json``, and tells what changed from one release to the
next with :mod:`generator.compare`'s rules. Knows snapshots and changes; nothing of pages or templates.
"""
