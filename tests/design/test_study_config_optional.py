"""Config keys whose default is null (e.g. the coverage study's ``n_conversations``: null means
the scenario's size) are checked like the others when a value is given, before any work: a count
must be an integer >= 1, the message naming key, kind and value."""

from __future__ import annotations

import pytest

from attunestats.design.studies import make_study


@pytest.mark.parametrize(
    ("value", "message"),
    [(0, "must be >= 1; got 0"), (-3, "must be >= 1; got -3"),
     (2.5, "must be an integer; got 2.5"), ("x", "must be an integer; got 'x'"),
     (True, "must be an integer; got True")],
)  # fmt: skip
def test_a_count_with_a_null_default_is_checked(tmp_path, value, message):
    with pytest.raises(ValueError, match=rf"config key 'n_conversations' of study kind "
                       rf"'coverage' {message}"):  # fmt: skip
        make_study("coverage", {"n_conversations": value}, n_replicates=2, rng=1)


def test_null_and_a_valid_count_are_accepted():
    assert make_study("coverage", {"n_conversations": None}, n_replicates=1, rng=1)
    study = make_study("coverage", {"n_conversations": 40}, n_replicates=1, rng=1)
    assert study.config["n_conversations"] == 40
