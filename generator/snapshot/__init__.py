"""Stage 2, the snapshot: what the server said, frozen, validated on load and fingerprinted.

Every later stage reads a :class:`~generator.snapshot.snapshot.Snapshot` (with its
:class:`~generator.snapshot.records.EndpointRecord` per endpoint); none reads the wire.  The file's
shape and the checks that enforce it are in :mod:`generator.snapshot.shape`.
"""
