"""The cache's one record format: what is written is read back, and damage is a miss, never other bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.cache.record import RecordWriter, read_record, write_record

BLOBS = [b"first", b"", "второй ثاني".encode(), b"\n" * 300]


def test_a_record_reads_back_its_header_and_blobs(tmp_path: Path) -> None:
    path = tmp_path / "k.pages"
    assert write_record(path, "pages", "k", {"pages": [["a", "b"]], "notes": []}, BLOBS)
    record = read_record(path, "pages", "k")
    assert record is not None
    assert record.header == {"pages": [["a", "b"]], "notes": []}
    assert [record.read(blob) for blob in record.blobs] == BLOBS
    with record.reading() as handle:
        assert [record.read(blob, handle) for blob in reversed(record.blobs)] == BLOBS[::-1]


def test_a_record_of_another_kind_or_key_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "k.rows"
    write_record(path, "rows", "k", {})
    assert read_record(path, "rows", "k") is not None
    assert read_record(path, "index", "k") is None
    assert read_record(path, "rows", "other") is None
    assert read_record(tmp_path / "missing", "rows", "k") is None


def test_a_writer_that_is_dropped_leaves_nothing(tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path / "pending" / "k.snapshot")
    writer.add(b"text")
    writer.drop()
    assert not writer.finish("snapshot", "k", {})
    assert list((tmp_path / "pending").iterdir()) == []


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_damaged_record_is_a_miss_or_gives_only_checked_bytes(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """Any cut or flipped byte: the header does not check out, or a blob that changed reads as None."""
    path = tmp_path_factory.mktemp("record") / "k.pages"
    write_record(path, "pages", "k", {"pages": [["a", "b"]]}, BLOBS)
    sound = path.read_bytes()
    damaged = bytearray(sound)
    if data.draw(st.booleans(), label="cut"):
        damaged = damaged[: data.draw(st.integers(0, len(sound) - 1), label="at")]
    else:
        at = data.draw(st.integers(0, len(sound) - 1), label="at")
        damaged[at] ^= data.draw(st.integers(1, 255), label="bits")
    path.write_bytes(bytes(damaged))
    record = read_record(path, "pages", "k")
    if record is not None:
        for blob, expected in zip(record.blobs, BLOBS, strict=True):
            assert record.read(blob) in (expected, None)
