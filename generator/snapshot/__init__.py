"""Stage 2, the snapshot: what the server said, frozen, validated on load and fingerprinted.

Every later stage reads a :class:`~generator.snapshot.snapshot.Snapshot`; none reads the wire.
"""
