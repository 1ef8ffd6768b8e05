"""The load report's rules, one defect at a time (issue 19).

A small valid simulated release (2 conversations, 1 model, 1 human rater, 2-3 turns, no
messiness: it loads with no error and no warning) is copied and given exactly one defect of each
rule class of the issue: a misspelt key at each level of each file kind, a missing required field,
a wrong type, a value out of range, a duplicate JSON key, a duplicate id, an id that does not match
its file name, a reference to an unknown conversation or turn, a negative cost or duration, an
unknown emotion label, a turn-count mismatch, entries the reader skips (hidden, backup, wrong
extension, symbolic link, FIFO, directory), and text encodings (byte order mark, UTF-16, Latin-1).

Each case states what the issue asks for: error or warning, the file, the JSON path of the field
and a part of the message (for misspellings: the closest known key). An error must refuse the
release (``load_release`` raises ``ReleaseError`` carrying the report; ``attunestats validate``
exits 1); a warning must let it load, list the finding in ``release.report`` and emit one
``ReleaseWarning`` (``validate`` exits 0).
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from attunestats.cli import main
from attunestats.errors import ReleaseError
from attunestats.release.check import ReleaseWarning
from attunestats.release.load import check_release, load_release

GT = "conversations/conversation_5.json"
RUN = "runs/sim-model-01/conversation_5.json"
HUMAN = "runs/sim-human-1/conversation_5.json"
INFO = "release.json"


@pytest.fixture(scope="module")
def clean_release(make_tmp_release) -> Path:
    """A small simulated release with no defect: it loads with no error and no warning."""
    root = make_tmp_release(
        rng=3, n_conversations=2, n_participants=2, n_topics=1, n_models=1, n_human_raters=1,
        n_turns_range=(2, 3), messiness=0.0,
    )  # fmt: skip
    gt = json.loads((root / GT).read_text())
    run = json.loads((root / RUN).read_text())
    # what the cases below edit is there
    assert gt["turns"][0]["moodShiftTags"] and gt["turns"][0]["annotations"]["binaryJudgements"]
    assert run["turns"][0]["em_emotion_tags"] and len(gt["turns"]) == len(run["turns"]) == 2
    return root


def _edit(rel: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / rel
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc, indent=1))

    return apply


def _rename(obj: dict, old: str, new: str) -> None:
    obj[new] = obj.pop(old)


def _turn(doc: dict, i: int = 0) -> dict:
    return doc["turns"][i]


def _text(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / rel
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))

    return apply


def _copy(rel: str, new: str) -> Callable[[Path], None]:
    return lambda root: shutil.copyfile(root / rel, root / new)


def _run_for_unknown_conversation(root: Path) -> None:
    doc = json.loads((root / RUN).read_text())
    doc.update(conversationId="99", source_file="conversation_99.json")
    (root / "runs/sim-model-01/conversation_99.json").write_text(json.dumps(doc))


# (id, defect, severity, file, JSON path, part of the message)
CASES: list[tuple[str, Callable[[Path], None], str, str, str, str]] = [
    # misspelt keys at every level: a warning with the closest known key
    ("misspelt gt top", _edit(GT, lambda d: _rename(d, "postPanas", "postPanass")),
     "warning", GT, "$.postPanass", "did you mean 'postPanas'?"),
    ("misspelt gt metadata", _edit(GT, lambda d: _rename(d["metadata"], "category", "categroy")),
     "warning", GT, "$.metadata.categroy", "did you mean 'category'?"),
    ("misspelt gt panas", _edit(GT, lambda d: _rename(d["prePanas"], "totalPositiveAffect", "totalPositiveAfect")),
     "warning", GT, "$.prePanas.totalPositiveAfect", "did you mean 'totalPositiveAffect'?"),
    ("misspelt gt survey", _edit(GT, lambda d: _rename(d["conversationWideQuestions"], "q3_modelFit", "q3_modelfit")),
     "warning", GT, "$.conversationWideQuestions.q3_modelfit", "did you mean 'q3_modelFit'?"),
    ("misspelt gt turn", _edit(GT, lambda d: _rename(_turn(d), "moodShiftTags", "moodShiftTag")),
     "warning", GT, "$.turns[0].moodShiftTag", "did you mean 'moodShiftTags'?"),
    ("misspelt gt tag", _edit(GT, lambda d: _rename(_turn(d)["moodShiftTags"][0], "intensity", "intensty")),
     "warning", GT, "$.turns[0].moodShiftTags[0].intensty", "did you mean 'intensity'?"),
    ("misspelt gt annotations", _edit(GT, lambda d: _rename(_turn(d)["annotations"], "binaryJudgements", "binaryJudgments")),
     "warning", GT, "$.turns[0].annotations.binaryJudgments", "did you mean 'binaryJudgements'?"),
    ("misspelt gt judgement", _edit(GT, lambda d: _rename(_turn(d)["annotations"]["binaryJudgements"][0], "observedBehavior", "observedBehaviour")),
     "warning", GT, "$.turns[0].annotations.binaryJudgements[0].observedBehaviour", "did you mean 'observedBehavior'?"),
    ("misspelt run top", _edit(RUN, lambda d: _rename(d, "api_cost", "api_cots")),
     "warning", RUN, "$.api_cots", "did you mean 'api_cost'?"),
    ("misspelt run turn", _edit(RUN, lambda d: _rename(_turn(d), "em_binary_om_assessment", "em_binary_om_assesment")),
     "warning", RUN, "$.turns[0].em_binary_om_assesment", "did you mean 'em_binary_om_assessment'?"),
    ("misspelt run post", _edit(RUN, lambda d: _rename(d["post_conversation"], "predicted_post_panas", "predicted_post_pana")),
     "warning", RUN, "$.post_conversation.predicted_post_pana", "did you mean 'predicted_post_panas'?"),
    ("misspelt human rater turn", _edit(HUMAN, lambda d: _rename(_turn(d), "em_pairwise_selections", "em_pairwise_selection")),
     "warning", HUMAN, "$.turns[0].em_pairwise_selection", "did you mean 'em_pairwise_selections'?"),
    ("misspelt release.json", _edit(INFO, lambda d: _rename(d, "predictors", "predictor")),
     "warning", INFO, "$.predictor", "did you mean 'predictors'?"),
    ("misspelt release.json predictor", _edit(INFO, lambda d: _rename(d["predictors"]["sim-model-01"], "kind", "knd")),
     "warning", INFO, '$.predictors["sim-model-01"].knd', "did you mean 'kind'?"),
    # missing required fields: errors
    ("missing gt turnNumber", _edit(GT, lambda d: _turn(d).pop("turnNumber")),
     "error", GT, "$.turns[0].turnNumber", "missing required field turnNumber"),
    ("missing gt questionId", _edit(GT, lambda d: _turn(d)["annotations"]["binaryJudgements"][0].pop("questionId")),
     "error", GT, "$.turns[0].annotations.binaryJudgements[0].questionId", "missing required field questionId"),
    ("missing gt emotion", _edit(GT, lambda d: _turn(d)["moodShiftTags"][0].pop("emotion")),
     "error", GT, "$.turns[0].moodShiftTags[0].emotion", "missing required field emotion"),
    ("missing run turnNumber", _edit(RUN, lambda d: _turn(d).pop("turnNumber")),
     "error", RUN, "$.turns[0].turnNumber", "missing required field turnNumber"),
    ("missing run emotion", _edit(RUN, lambda d: _rename(_turn(d)["em_emotion_tags"][0], "emotion", "emotoin")),
     "error", RUN, "$.turns[0].em_emotion_tags[0].emotion", "missing required field emotion"),
    # wrong types: errors
    ("wrong type turnNumber", _edit(GT, lambda d: _turn(d).update(turnNumber="one")),
     "error", GT, "$.turns[0].turnNumber", "turnNumber must be an integer, not string"),
    ("wrong type run turns", _edit(RUN, lambda d: d.update(turns={"a": 1})),
     "error", RUN, "$.turns", "must be an array"),
    ("wrong type intensity", _edit(GT, lambda d: _turn(d)["moodShiftTags"][0].update(intensity=[3])),
     "error", GT, "$.turns[0].moodShiftTags[0].intensity", "must be a number"),
    ("wrong type api_cost", _edit(RUN, lambda d: d.update(api_cost="cheap")),
     "error", RUN, "$.api_cost", "must be a number"),
    # out of range: errors (values without a clamping rule)
    ("out of range panas item", _edit(GT, lambda d: d["prePanas"]["items"].update(Proud=9)),
     "error", GT, "$.prePanas.items.Proud", "expected 1..7"),
    ("out of range turnNumber", _edit(GT, lambda d: _turn(d).update(turnNumber=-1)),
     "error", GT, "$.turns[0].turnNumber", "non-negative"),
    ("out of range judge score", _edit(RUN, lambda d: _turn(d)["em_draft_judge_scores"].update(overall_score=99)),
     "error", RUN, "$.turns[0].em_draft_judge_scores.overall_score", "expected 1..7"),
    ("negative cost", _edit(RUN, lambda d: d.update(api_cost=-1.0)),
     "error", RUN, "$.api_cost", "greater than or equal to 0"),
    ("negative duration", _edit(HUMAN, lambda d: d.update(duration_seconds=-3)),
     "error", HUMAN, "$.duration_seconds", "greater than or equal to 0"),
    # duplicates: errors
    ("duplicate JSON key", _text(RUN, '"api_cost":', '"api_cost": 1.0, "api_cost":'),
     "error", RUN, "$.api_cost", "duplicate key 'api_cost'"),
    ("duplicate gt turn", _edit(GT, lambda d: d["turns"].append(dict(_turn(d)))),
     "error", GT, "$.turns[2].turnNumber", "duplicate turn number"),
    ("duplicate run turn", _edit(RUN, lambda d: d["turns"].append(dict(_turn(d)))),
     "error", RUN, "$.turns[2].turnNumber", "duplicate turn number"),
    # id / file-name mismatches: errors
    ("gt id mismatch", _edit(GT, lambda d: d.update(conversationId="6")),
     "error", GT, "$.conversationId", "does not match the id '5' of the file name"),
    ("run id mismatch", _edit(RUN, lambda d: d.update(conversationId="6")),
     "error", RUN, "$.conversationId", "does not match the id"),
    ("run source_file mismatch", _edit(RUN, lambda d: d.update(source_file="conversation_6.json")),
     "error", RUN, "$.source_file", "source_file names conversation '6'"),
    # unknown references: errors
    ("unknown turn", _edit(RUN, lambda d: _turn(d).update(turnNumber=99)),
     "error", RUN, "$.turns[0].turnNumber", "prediction for turn 99"),
    ("unknown conversation", _run_for_unknown_conversation,
     "error", "runs/sim-model-01/conversation_99.json", "$.conversationId", "ground truth lacks"),
    # warnings: unknown labels, counts, turns a run lacks
    ("unknown gt emotion", _edit(GT, lambda d: _turn(d)["moodShiftTags"][0].update(emotion="blissful")),
     "warning", GT, "$.turns[0].moodShiftTags[0].emotion", "outside the 20 PANAS items"),
    ("unknown run emotion", _edit(RUN, lambda d: _turn(d)["em_emotion_tags"][0].update(emotion="blissful")),
     "warning", RUN, "$.turns[0].em_emotion_tags[0].emotion", "outside the 20 PANAS items"),
    ("turn count mismatch", _edit(GT, lambda d: d["metadata"].update(turnCount=7)),
     "warning", GT, "$.metadata.turnCount", "differs from the 2 turn(s)"),
    ("run lacks a turn", _edit(RUN, lambda d: d["turns"].pop()),
     "warning", RUN, "$.turns", "ground-truth turn 2 has no run turn"),
    # entries the reader skips: warnings naming the entry
    ("hidden file", _copy(GT, "conversations/.conversation_7.json"),
     "warning", "conversations/.conversation_7.json", "", "hidden"),
    ("backup file", _copy(GT, "conversations/conversation_5.json~"),
     "warning", "conversations/conversation_5.json~", "", "backup"),
    ("backup .bak", _copy(RUN, "runs/sim-model-01/conversation_5.json.bak"),
     "warning", "runs/sim-model-01/conversation_5.json.bak", "", "backup"),
    ("upper-case extension", _copy(GT, "conversations/conversation_7.JSON"),
     "warning", "conversations/conversation_7.JSON", "", "lower case"),
    ("wrong extension", _copy(RUN, "runs/sim-model-01/conversation_5.txt"),
     "warning", "runs/sim-model-01/conversation_5.txt", "", "not a .json"),
    ("symlink", lambda r: os.symlink(r / GT, r / "conversations/conversation_8.json"),
     "warning", "conversations/conversation_8.json", "", "symbolic link"),
    ("symlink run", lambda r: os.symlink(r / RUN, r / "runs/sim-model-01/conversation_6.json.json"),
     "warning", "runs/sim-model-01/conversation_6.json.json", "", "symbolic link"),
    ("fifo", lambda r: os.mkfifo(r / "conversations/conversation_9.json"),
     "warning", "conversations/conversation_9.json", "", "FIFO"),
    ("directory", lambda r: (r / "conversations/conversation_10.json").mkdir(),
     "warning", "conversations/conversation_10.json", "", "directory skipped"),
    ("file among predictors", lambda r: (r / "runs/notes.txt").write_text("x"),
     "warning", "runs/notes.txt", "", "only predictor directories"),
    # encodings: an unreadable text is an error naming the file
    ("latin-1", lambda r: (r / GT).write_bytes((r / GT).read_text().replace('"turns"', '"caf\u00e9": 1, "turns"', 1).encode("latin-1")),
     "error", GT, "", "not valid UTF-8"),
]  # fmt: skip


def _load(root: Path) -> tuple[Any, Any]:
    """(release or None, report), with the warnings load_release emitted checked."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            release = load_release(root)
        except ReleaseError as exc:
            return None, exc.report
    mine = [w for w in caught if issubclass(w.category, ReleaseWarning)]
    assert len(mine) == (1 if release.report.warnings else 0), [str(w.message) for w in mine]
    return release, release.report


def _copy_release(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def test_the_clean_release_is_clean(clean_release):
    report = check_release(clean_release)
    assert report.errors == () and report.warnings == ()


@pytest.mark.parametrize(
    ("defect", "severity", "file", "path", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)  # fmt: skip
def test_one_defect(clean_release, tmp_path, capsys, defect, severity, file, path, message):
    root = _copy_release(clean_release, tmp_path / "release")
    defect(root)
    release, report = _load(root)
    found = [f for f in (*report.errors, *report.warnings) if f.file == file and f.path == path]
    assert found, f"nothing at {file} {path}:\n{report.text()}"
    assert any(f.severity == severity and message in f.message for f in found), found
    if severity == "error":
        assert release is None
    else:
        assert release is not None and report.errors == ()
    code = main(["validate", str(root)])
    err = capsys.readouterr().err
    assert code == (1 if severity == "error" else 0)
    assert file in err and message in err  # the report printed names the file and the rule


def test_all_problems_at_once_grouped_and_counted(clean_release, tmp_path):
    root = _copy_release(clean_release, tmp_path / "release")
    picked = ["misspelt gt top", "misspelt gt metadata", "misspelt run top", "missing gt questionId",
              "missing gt emotion", "missing run emotion"]  # fmt: skip
    for name, defect, *_ in CASES:
        if name in picked:
            defect(root)
    _, report = _load(root)
    assert [f.rule for f in report.errors] == ["missing_field"] * 3
    assert sum(f.rule == "unknown_key" for f in report.warnings) == 4  # 3 + the run's 'emotoin'
    text = report.text()
    assert "errors (3)" in text and "warnings (" in text
    assert all(f"{f.file}: {f.path}" in text for f in (*report.errors, *report.warnings))


def _tables(release: Any) -> dict[str, pd.DataFrame]:
    return {
        k: v.drop(columns=[c for c in v.columns if c == "file"]) for k, v in release.tables.items()
    }


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-8", b"\xef\xbb\xbf"), ("utf-16", b""), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"")],
)
@pytest.mark.parametrize("rel", [GT, RUN])
def test_bom_and_utf16_read_correctly(clean_release, tmp_path, rel, encoding, bom):
    """Re-encoded files give the same tables as the UTF-8 originals, with one warning each."""
    original = load_release(clean_release)
    root = _copy_release(clean_release, tmp_path / "release")
    (root / rel).write_bytes(bom + (root / rel).read_text(encoding="utf-8").encode(encoding))
    release, report = _load(root)
    assert release is not None, report.text()
    assert [(f.file, f.rule) for f in report.warnings] == [(rel, "encoding")]
    for name, table in _tables(original).items():
        pd.testing.assert_frame_equal(_tables(release)[name], table, obj=name)
