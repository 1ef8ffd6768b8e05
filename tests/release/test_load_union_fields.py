"""Fields whose type is a union (``participant_id``: string or integer; ``age``: string or
number): a value of another type is one error, at the field's own JSON path.

The expected messages are written by hand from the files below.
"""

from __future__ import annotations

import pytest

from attunestats.errors import ReleaseError
from attunestats.release.load import load_release


def _conversation(profile):
    return {"conversationId": "1", "participant_profile": profile, "turns": [{"turnNumber": 1}]}


def _run():
    return {"conversationId": "1", "em_model": "m", "mode": "default", "turns": [{"turnNumber": 1}]}


@pytest.mark.parametrize(
    ("profile", "path", "value"),
    [
        ({"participant_id": "P1", "age": [30]}, "$.participant_profile.age", "[30]"),
        ({"participant_id": "P1", "age": {"years": 30}}, "$.participant_profile.age",
         "{'years': 30}"),
        ({"participant_id": [1]}, "$.participant_profile.participant_id", "[1]"),
        ({"participant_id": 1.5}, "$.participant_profile.participant_id", "1.5"),
    ],
)  # fmt: skip
def test_a_value_of_the_wrong_type_in_a_union_field_is_one_error_at_its_path(
    tmp_path, write_release, profile, path, value
):
    root = write_release(tmp_path, {"conversation_1.json": _conversation(profile)},
                         {"m": {"conversation_1.json": _run()}})  # fmt: skip
    with pytest.raises(ReleaseError) as info:
        load_release(root)
    problems = [p for p in info.value.problems if p.file == "conversations/conversation_1.json"]
    # no path below the field: pydantic's union members (".str", ".int", ".float") are no keys
    # of the file
    assert [p.path for p in problems] == [path], [str(p) for p in problems]
    assert problems[0].value == value
    assert "string" in problems[0].message


@pytest.mark.parametrize(
    "profile",
    [{"participant_id": "P1", "age": "25-34"}, {"participant_id": 7, "age": 41},
     {"participant_id": "P1", "age": 41.5}, {"participant_id": None, "age": None}],
)  # fmt: skip
def test_every_type_the_union_allows_loads(tmp_path, write_release, profile):
    root = write_release(tmp_path, {"conversation_1.json": _conversation(profile)},
                         {"m": {"conversation_1.json": _run()}})  # fmt: skip
    release = load_release(root, warn=False)
    assert not release.report.errors
