"""The mode of a run output that does not state one (spec 1.6 lists ``mode`` in every run).

Expected findings are written by hand from the documents below.
"""

from __future__ import annotations

import warnings

from attunestats.release.load import release_from_documents

CONV = {"conversation_1.json": {"conversationId": "1", "turns": [{"turnNumber": 1}]}}


def _run(**extra):
    return {"conversationId": "1", "em_model": "m", "turns": [{"turnNumber": 1}],
            "post_conversation": None, **extra}  # fmt: skip


def _load(run, info=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return release_from_documents(CONV, {"m": {"m/run_1.json": run}}, info)


def _mode_warnings(release):
    return [w for w in release.report.warnings if w.path == "$.mode"]


def test_a_run_without_a_mode_read_as_default_is_warned():
    # no mode in the file and none in release.json: the run is filed under "default" (a guess
    # that would merge, say, verbose runs into the default ones): a warning naming file and field
    release = _load(_run())
    assert release.runs["mode"].tolist() == ["default"]
    [w] = _mode_warnings(release)
    assert w.file == "m/run_1.json" and w.severity == "warning"
    assert "'default'" in w.message


def test_a_mode_given_by_the_run_or_by_release_json_is_not_warned():
    assert not _mode_warnings(_load(_run(mode="verbose")))
    info = {"simulated": False, "predictors": {"m": {"kind": "model", "mode": "omniscient"}}}
    release = _load(_run(), info)
    assert release.runs["mode"].tolist() == ["omniscient"]
    assert not _mode_warnings(release)
