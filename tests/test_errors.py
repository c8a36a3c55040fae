"""The close of a message about a file that could not be written (:func:`generator.errors.os_failure`): the
error, the file it names, and what to do by its errno. Real ``OSError`` values on real files: the owner is
read from the file system, so a test chowns its files (the suite runs as root)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from generator.errors import os_failure

STRANGER = 54321  # a uid no account of this machine has


def _error(code: int, name: object = None) -> OSError:
    return OSError(code, os.strerror(code), name)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_full_file_system_asks_for_space(code: int) -> None:
    said = os_failure(_error(code), "choose another --out")
    assert said == (f"({os.strerror(code)}). Free some space on its file system (or raise your quota), "
                    f"or choose another --out.")  # fmt: skip


def test_a_read_only_file_system_names_the_file_and_says_so() -> None:
    said = os_failure(_error(errno.EROFS, "/mnt/ro/site"), "choose another -o")
    assert said == "(Read-only file system: /mnt/ro/site). Its file system is mounted read-only: choose another -o."


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
def test_someone_elses_file_is_named_with_its_owner(tmp_path: Path) -> None:
    theirs = tmp_path / "site"
    theirs.mkdir()
    os.chown(theirs, STRANGER, STRANGER)
    said = os_failure(_error(errno.EPERM, str(theirs)), "choose another --out")
    assert said.endswith(f"{theirs} belongs to uid {STRANGER}, not to you (uid 0): run as that user, "
                         f"or choose another --out.")  # fmt: skip
    # A file not made yet was refused by the directory meant to hold it: that directory is named.
    said = os_failure(_error(errno.EACCES, str(theirs / ".s.json.1f.tmp")), "choose another -o")
    assert said.startswith(f"(Permission denied: {theirs / '.s.json.1f.tmp'}). {theirs} belongs to uid {STRANGER}")


def test_your_own_file_asks_you_to_check_its_permissions(tmp_path: Path) -> None:
    mine = tmp_path / "site"
    mine.mkdir()
    said = os_failure(_error(errno.EACCES, str(mine)), "choose another --out")
    assert said.endswith(
        f"Check the permissions of {mine} and of the directory that holds it, or choose another --out."
    )


@pytest.mark.parametrize("name", [None, b"/bytes/path", 3])
def test_other_errors_say_what_they_can(name: object) -> None:
    said = os_failure(_error(errno.EIO, name), "choose another --out")
    shown = f": {name}" if isinstance(name, str) else ""
    assert said == f"(Input/output error{shown}). Check the path and its file system, or choose another --out."


def test_too_many_open_files_asks_for_a_higher_limit() -> None:
    said = os_failure(_error(errno.EMFILE, "/site/.site.staging-7/en/index.html"), "choose another --out")
    assert said.endswith("Too few files may be open at once: raise the limit (e.g. ulimit -n 1024) and run again.")
