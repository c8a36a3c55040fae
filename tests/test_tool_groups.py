"""How a long tool list is grouped (:func:`generator.model.site.name_groups`): by the first word of the
names, in the order the words first appear, with names that share their word with no other name last."""

from __future__ import annotations

from generator.model.site import GROUP_FROM, name_groups


def test_a_short_list_stays_flat() -> None:
    names = [f"compute_{i}" if i % 2 else f"storage_{i}" for i in range(GROUP_FROM)]
    assert name_groups(names) == ()


def test_a_long_list_groups_by_first_word_in_order_of_appearance() -> None:
    names = ["storage-get", *(f"compute_vm_{i}" for i in range(20)), *(f"storage.list.{i}" for i in range(15)), "ping"]
    groups = name_groups(names)
    assert [word for word, _ in groups] == ["storage", "compute", ""]
    assert groups[0][1] == (0, *range(21, 36))
    assert groups[1][1] == tuple(range(1, 21))
    assert groups[2][1] == (36,)  # "ping" has no separator; a word of one tool goes last too


def test_one_shared_word_is_no_grouping() -> None:
    assert name_groups([f"azure_{i}" for i in range(100)]) == ()
    assert name_groups([f"tool{i}" for i in range(100)]) == ()


def test_a_hostile_name_is_matched_in_bounded_time() -> None:
    names = ["a" * 100_000 + "_x", *(f"b_{i}" for i in range(40)), *(f"c_{i}" for i in range(2))]
    groups = name_groups(names)
    assert [word for word, _ in groups] == ["b", "c", ""]
    assert groups[-1][1] == (0,)
