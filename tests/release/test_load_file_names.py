"""File and directory names that are not valid UTF-8 (bytes a POSIX file system allows).

Such a name cannot be a conversation id, a predictor or a path in the tables: the release is
refused with an error naming the entry (its bad bytes shown escaped), never a raw
UnicodeEncodeError. Expected messages are written by hand.
"""

from __future__ import annotations

import json
import os

import pytest

from attunestats.errors import ReleaseError
from attunestats.release.load import check_release, load_release

GT = {"conversationId": "5", "turns": [{"turnNumber": 1}]}
RUN = {"conversationId": "5", "em_model": "m", "mode": "default", "turns": [{"turnNumber": 1}]}


def _write(path: bytes, doc) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


@pytest.mark.parametrize(
    ("files", "shown"),
    [
        ({b"runs/m/run_\xff.json": {**RUN, "mode": "verbose"}}, "runs/m/run_\\udcff.json"),
        ({b"runs/m\xe9/run.json": RUN}, "runs/m\\udce9"),
        ({b"conversations/conversation_\xff.json": {"turns": []}},
         "conversations/conversation_\\udcff.json"),
    ],
)  # fmt: skip
def test_a_name_that_is_not_utf8_is_an_error_naming_it(tmp_path, files, shown):
    root = os.fsencode(tmp_path)
    files = {b"conversations/conversation_5.json": GT, b"runs/m/run.json": RUN, **files}
    for rel, doc in files.items():
        _write(os.path.join(root, rel), doc)
    with pytest.raises(ReleaseError) as info:
        load_release(tmp_path)
    files_named = [p.file for p in info.value.problems]
    assert shown in files_named, [str(p) for p in info.value.problems]
    text = "\n".join(str(p) for p in info.value.problems)
    text.encode("utf-8")  # printable: no lone surrogate left in any message
    assert "not valid UTF-8" in text
    report = check_release(tmp_path)  # what `attunestats validate` prints
    assert not report.ok and shown in report.text()
    report.text().encode("utf-8")
