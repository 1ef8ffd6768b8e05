"""The tidy, validated view of an AttuneBench release: :class:`Release` and its table schemas.

A release is the ground truth (one official ``conversation_<N>.json`` per conversation) plus the
run outputs of every predictor (an evaluated model or a human baseline rater). :func:`load_release`
reads the files into the tables below; the simulator writes files that load into the same tables.

Conventions for every table
---------------------------
- One row per observation, long format, sorted by the key columns listed first.
- Text columns have pandas' ``str`` dtype; missing text is ``NaN``.
- Nullable numbers are ``float64`` with ``NaN`` for "missing"; counts and keys are ``int64``.
- ``conversation_id`` is the string ``conversationId`` of the file (``"17"`` for
  ``conversation_17.json``); ``turn`` is the integer ``turnNumber``.
- Binary values are ``"yes"``, ``"no"``, ``"na"`` or missing (``NaN``) after the normalisation of
  spec 1.4; pairwise winners and selections are ``"A"``, ``"B"`` or missing.
- Emotion labels are normalised with ``strip().lower()``.

The column lists and dtypes are in :data:`TABLE_SCHEMAS`; tests check every table against them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd

from attunestats._results import ResultMixin

_PRED_KEY = {"predictor": "str", "mode": "str", "conversation_id": "str"}
_FOUR_BRANCH_COLUMNS = {
    "fb_perceiving": "float64",
    "fb_facilitating": "float64",
    "fb_understanding": "float64",
    "fb_managing": "float64",
}

#: Column name -> dtype of every table of a :class:`Release`. Documented column by column in
#: :data:`COLUMN_DOCS`.
TABLE_SCHEMAS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        # --- ground truth -----------------------------------------------------------------------
        "participants": {
            "participant_id": "str",
            "diagnosis_group": "str",
            "age": "str",
            "traits": "str",
            "n_conversations": "int64",
        },
        "conversations": {
            "conversation_id": "str",
            "file": "str",
            "participant_id": "str",
            "diagnosis_group": "str",
            "topic": "str",
            "subtopic": "str",
            "original_model": "str",
            "provider": "str",
            "n_turns": "int64",
            "pre_pa": "float64",
            "pre_na": "float64",
            "post_pa": "float64",
            "post_na": "float64",
            "q2_emotion_clarity": "str",
            "q3_model_fit": "str",
            **_FOUR_BRANCH_COLUMNS,
        },
        "panas_items": {
            "conversation_id": "str",
            "time": "str",
            "item": "str",
            "value": "float64",
        },
        "survey_choices": {
            "conversation_id": "str",
            "question": "str",
            "position": "int64",
            "value": "str",
        },
        "turns": {
            "conversation_id": "str",
            "turn": "int64",
            "user_message": "str",
            "llm_response": "str",
            "llm_improved": "str",
            "human_edited": "str",
            "selected_pairwise_questions": "str",
        },
        "emotion_tags": {
            "conversation_id": "str",
            "turn": "int64",
            "position": "int64",
            "emotion": "str",
            "intensity": "float64",
            "known": "bool",
        },
        "binary_judgements": {
            "conversation_id": "str",
            "turn": "int64",
            "question_id": "str",
            "llm_value": "str",
            "observed": "str",
            "preferred": "str",
        },
        "pairwise_comparisons": {
            "conversation_id": "str",
            "turn": "int64",
            "comparison": "int64",
            "question_id": "str",
            "response_a": "str",
            "response_b": "str",
            "winner": "str",
        },
        # --- predictions ------------------------------------------------------------------------
        "predictors": {
            "predictor": "str",
            "kind": "str",
            "display_name": "str",
            "n_runs": "int64",
        },
        "runs": {
            **_PRED_KEY,
            "file": "str",
            "em_model": "str",
            "run_timestamp": "str",
            "panas_strategy": "str",
            "pred_post_pa": "float64",
            "pred_post_na": "float64",
            "q2_emotion_clarity": "str",
            "q3_model_fit": "str",
            **_FOUR_BRANCH_COLUMNS,
            "api_cost": "float64",
            "duration_seconds": "float64",
        },
        "pred_panas_items": {**_PRED_KEY, "item": "str", "value": "float64"},
        "pred_survey_choices": {
            **_PRED_KEY,
            "question": "str",
            "position": "int64",
            "value": "str",
        },
        "pred_turns": {
            **_PRED_KEY,
            "turn": "int64",
            "drafted_response": "str",
            "judge_overall_score": "float64",
            "judge_emotional_appropriateness": "float64",
            "judge_helpfulness": "float64",
            "judge_tone_match": "float64",
        },
        "pred_emotion_tags": {
            **_PRED_KEY,
            "turn": "int64",
            "position": "int64",
            "emotion": "str",
            "intensity": "float64",
        },
        "pred_binary": {
            **_PRED_KEY,
            "turn": "int64",
            "task": "str",
            "question_id": "str",
            "value": "str",
        },
        "pred_pairwise": {
            **_PRED_KEY,
            "turn": "int64",
            "comparison": "int64",
            "selection": "str",
            "assigned_a": "str",
            "assigned_b": "str",
        },
    }
)

#: One line per column: what it holds and where it comes from in the official files.
COLUMN_DOCS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "participants": {
            "participant_id": "participant_profile.participant_id; 'anon-<conversation_id>' when the profile or id is missing",
            "diagnosis_group": "none | anxiety_depression | asd_adhd | multiple | unknown, derived from profile traits (see release.load.diagnosis_group)",
            "age": "participant_profile.age",
            "traits": "participant_profile.traits joined with '; '",
            "n_conversations": "number of conversations of this participant in the release",
        },
        "conversations": {
            "conversation_id": "conversationId (else N of conversation_<N>.json)",
            "file": "path of the ground-truth file relative to the release root",
            "participant_id": "see participants",
            "diagnosis_group": "see participants",
            "topic": "metadata.category",
            "subtopic": "metadata.subtopic",
            "original_model": "metadata.model: the anonymised OM the participant talked to",
            "provider": "metadata.provider",
            "n_turns": "number of turns in the file",
            "pre_pa": "prePanas.totalPositiveAffect (10..70, derived from items when absent)",
            "pre_na": "prePanas.totalNegativeAffect",
            "post_pa": "postPanas.totalPositiveAffect",
            "post_na": "postPanas.totalNegativeAffect",
            "q2_emotion_clarity": "conversationWideQuestions.q2_emotionClarity (alias Q2)",
            "q3_model_fit": "conversationWideQuestions.q3_modelFit (alias Q3)",
            "fb_perceiving": "fourBranchScores.perceiving, clamped to 1..7; NaN = branch unrated",
            "fb_facilitating": "fourBranchScores.facilitating",
            "fb_understanding": "fourBranchScores.understanding",
            "fb_managing": "fourBranchScores.managing",
        },
        "panas_items": {
            "conversation_id": "",
            "time": "pre | post",
            "item": "PANAS item name as in constants.PANAS_ITEMS",
            "value": "item rating, rounded (1..7 expected; not clamped, spec 4)",
        },
        "survey_choices": {
            "conversation_id": "",
            "question": "q1_looking_for | q3_follow_up",
            "position": "0-based position in the list",
            "value": "the chosen option or free text",
        },
        "turns": {
            "conversation_id": "",
            "turn": "turnNumber",
            "user_message": "userMessage (HP message)",
            "llm_response": "llmResponse (OM reply, label 'original')",
            "llm_improved": "alternateResponses.llmImproved (alias alternate1; label 'alternate')",
            "human_edited": "alternateResponses.humanEdited (alias alternate2; label 'human')",
            "selected_pairwise_questions": "annotations.selectedPairwiseQuestions joined with '; '",
        },
        "emotion_tags": {
            "conversation_id": "",
            "turn": "",
            "position": "0-based position in moodShiftTags",
            "emotion": "normalised label (strip().lower())",
            "intensity": "1..7 (words mild/moderate/intense -> 2/4/6; rounded, clamped); NaN if null",
            "known": "label is one of the 20 PANAS items",
        },
        "binary_judgements": {
            "conversation_id": "",
            "turn": "",
            "question_id": "questionId (last one kept when repeated in a turn)",
            "llm_value": "llmValue",
            "observed": "observedBehavior (aliases did_occur, humanValue, actualValue)",
            "preferred": "preferredBehavior (aliases should_occur, humanPreference)",
        },
        "pairwise_comparisons": {
            "conversation_id": "",
            "turn": "",
            "comparison": "0-based index i of the comparison in the turn (EM selections key str(i))",
            "question_id": "questionId (general, PW1..PW15 or custom:<text>)",
            "response_a": "label of response A (alias response_1): original | alternate | human",
            "response_b": "label of response B (alias response_2)",
            "winner": "A | B | NaN (undecided)",
        },
        "predictors": {
            "predictor": "directory name under runs/",
            "kind": "model | human (release.json; default model)",
            "display_name": "release.json display name (default: the directory name)",
            "n_runs": "number of run files",
        },
        "runs": {
            "predictor": "",
            "mode": "run mode (default | verbose | omniscient | verbose_omniscient)",
            "conversation_id": "",
            "file": "run file relative to the release root",
            "em_model": "em_model",
            "run_timestamp": "run_timestamp",
            "panas_strategy": "post_conversation.panas_strategy (absolute | delta | blind_delta)",
            "pred_post_pa": "predicted post PANAS positive total (derived from items or rebuilt from delta)",
            "pred_post_na": "predicted post PANAS negative total",
            "q2_emotion_clarity": "predicted_conversation_wide.q2_emotionClarity",
            "q3_model_fit": "predicted_conversation_wide.q3_modelFit",
            "fb_perceiving": "predicted four-branch score, clamped to 1..7",
            "fb_facilitating": "",
            "fb_understanding": "",
            "fb_managing": "",
            "api_cost": "api_cost",
            "duration_seconds": "duration_seconds",
        },
        "pred_panas_items": {"item": "PANAS item", "value": "predicted post item rating (rounded)"},
        "pred_survey_choices": {
            "question": "q1_looking_for | q3_follow_up",
            "position": "",
            "value": "",
        },
        "pred_turns": {
            "turn": "turnNumber",
            "drafted_response": "em_drafted_response",
            "judge_overall_score": "em_draft_judge_scores.overall_score (1..7)",
            "judge_emotional_appropriateness": "em_draft_judge_scores.emotional_appropriateness",
            "judge_helpfulness": "em_draft_judge_scores.helpfulness",
            "judge_tone_match": "em_draft_judge_scores.tone_match",
        },
        "pred_emotion_tags": {
            "position": "0-based position in em_emotion_tags (unknown labels dropped, counted)",
            "emotion": "normalised label",
            "intensity": "1..7 or NaN",
        },
        "pred_binary": {
            "task": "om | human | om_hp | human_hp | draft (em_binary_om_assessment, em_binary_human_prediction, the _hp variants, em_draft_binary_assessment)",
            "question_id": "",
            "value": "yes | no | na | NaN (unrecognised)",
        },
        "pred_pairwise": {
            "comparison": "index i of em_pairwise_selections[str(i)]",
            "selection": "A | B",
            "assigned_a": "pairwise_assignment[str(i)].A label shown to the EM (NaN if absent)",
            "assigned_b": "pairwise_assignment[str(i)].B",
        },
    }
)

GROUND_TRUTH_TABLES = (
    "participants",
    "conversations",
    "panas_items",
    "survey_choices",
    "turns",
    "emotion_tags",
    "binary_judgements",
    "pairwise_comparisons",
)
PREDICTION_TABLES = (
    "predictors",
    "runs",
    "pred_panas_items",
    "pred_survey_choices",
    "pred_turns",
    "pred_emotion_tags",
    "pred_binary",
    "pred_pairwise",
)


def empty_table(name: str) -> pd.DataFrame:
    """An empty table with the columns and dtypes of ``TABLE_SCHEMAS[name]``."""
    schema = TABLE_SCHEMAS[name]
    return pd.DataFrame({col: pd.Series(dtype=dtype) for col, dtype in schema.items()})


def coerce_table(name: str, df: pd.DataFrame, *, copy: bool = True) -> pd.DataFrame:
    """Return ``df`` with exactly the schema's columns, in order, cast to the schema's dtypes.

    ``copy=False`` (for a frame the caller has just built and hands over) shares the columns
    that already have their dtype instead of copying them.
    """
    schema = TABLE_SCHEMAS[name]
    missing = [c for c in schema if c not in df.columns]
    if missing:
        raise KeyError(f"table {name!r} lacks columns {missing}")
    out = df.loc[:, list(schema)]
    if copy:
        out = out.copy()
    for col, dtype in schema.items():
        if str(out[col].dtype) != dtype:
            out[col] = out[col].astype(dtype)
    return out.reset_index(drop=True)


@dataclass(frozen=True, repr=False)
class LoadReport(ResultMixin):
    """What loading a release found and did: errors, warnings, what was read, what was normalised.

    A result (:mod:`attunestats._results`): ``to_frame()`` is one row per normalisation event,
    ``summary()`` the number of events per rule; :meth:`text` is the report the CLI prints
    (errors, then warnings, then what was read), :meth:`findings_frame` one row per error or
    warning.

    Attributes
    ----------
    events : pandas.DataFrame
        One row per normalisation event: ``file``, ``path`` (JSON path), ``rule`` (see
        :data:`REPORT_RULES`), ``original`` (repr of the value read) and ``result`` (repr of the
        value kept, ``""`` when dropped).
    errors : tuple of Finding
        Every error (empty for a loaded release; see ``ReleaseError.report``). A
        :class:`~attunestats.release.check.Finding` names the file, JSON path, value, what was
        expected, its ``rule`` and ``severity``.
    warnings : tuple of Finding
        Every warning: what was skipped, guessed or is likely a mistake (unknown keys with the
        closest known key, unknown labels, clamped values, skipped files, ...).
    read : mapping of str to int
        What was read: files, ground-truth and run files, entries skipped, conversations,
        turns, participants, predictors, runs, predicted turns.
    """

    _title = "Load report"

    events: pd.DataFrame
    errors: tuple[Any, ...] = ()
    warnings: tuple[Any, ...] = ()
    read: Mapping[str, int] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per event (a copy of :attr:`events`)."""
        return self.events.copy()

    def findings_frame(self) -> pd.DataFrame:
        """One row per error and warning: severity, rule, file, path, message, value and cause
        (for a follow-on error, the ground-truth file whose error it follows from)."""
        rows = [(f.severity, f.rule, f.file, f.path, f.message, f.value, getattr(f, "cause", ""))
                for f in (*self.errors, *self.warnings)]  # fmt: skip
        cols = ["severity", "rule", "file", "path", "message", "value", "cause"]
        return pd.DataFrame(rows, columns=cols).astype("str")

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not self.errors

    def summary_line(self) -> str:
        """One line: the number of errors and warnings, the largest groups named."""
        from attunestats.release.check import group_counts, rule_title

        parts = []
        for what, found in (("error", self.errors), ("warning", self.warnings)):
            if found:
                groups = group_counts(found)
                named = "; ".join(f"{n} {rule_title(r).split(' (')[0]}" for r, n in groups[:3])
                more = "; ..." if len(groups) > 3 else ""
                parts.append(f"{len(found)} {what}{'s' if len(found) != 1 else ''} ({named}{more})")
        return ", ".join(parts) if parts else "no errors, no warnings"

    def text(self, *, max_per_group: int | None = 10, errors_only: bool = False) -> str:
        """The printed report: errors, then warnings (grouped and counted), then what was read.

        Errors of the ground truth come first; the errors of run outputs that follow from them
        (a prediction for a turn a defective conversation file lacks) are listed last, under the
        ground-truth file they follow from.

        ``max_per_group`` findings are listed per group (``None``: all); ``errors_only`` leaves
        out the warnings, what was read and the normalisation counts.
        """
        from attunestats.release.check import format_findings

        lines = format_findings(self.errors, "errors", max_per_group=max_per_group)
        if errors_only:
            return "\n".join(lines)
        lines += format_findings(self.warnings, "warnings", max_per_group=max_per_group)
        if self.read:
            lines.append("read: " + ", ".join(f"{k} {v}" for k, v in self.read.items()))
        counts = self.counts()
        if len(counts):
            lines.append(f"normalised ({len(self.events)} values, spec 1.4 rules): "
                         + ", ".join(f"{r} {n}" for r, n in zip(counts["rule"], counts["count"])))  # fmt: skip
        return "\n".join(lines)

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        n_files = int(self.events["file"].nunique()) if len(self.events) else 0
        meta = {"Errors": str(len(self.errors)), "Warnings": str(len(self.warnings)),
                "Events": str(len(self.events)), "Files": str(n_files)}  # fmt: skip
        notes = ["one row per event (file, JSON path, rule, value read, value kept): to_frame()",
                 "errors and warnings: text(), findings_frame()"]  # fmt: skip
        return self._title, meta, self.counts(), notes

    def counts(self) -> pd.DataFrame:
        """Number of events per rule, with the rule's description, most frequent first."""
        if self.events.empty:
            return pd.DataFrame(
                {"rule": pd.Series(dtype="str"), "count": pd.Series(dtype="int64"),
                 "description": pd.Series(dtype="str")}
            )  # fmt: skip
        counts = self.events.groupby("rule", sort=True).size().rename("count").reset_index()
        counts["description"] = counts["rule"].map(lambda r: REPORT_RULES.get(r, ""))
        return counts.sort_values(["count", "rule"], ascending=[False, True], ignore_index=True)

    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        # the errors and warnings first: a report with warnings and no events is not "empty"
        return (f"<LoadReport: {self.summary_line()}; {len(self.events)} normalisation events; "
                "text() lists them>")  # fmt: skip


#: Rules recorded in the load report, with what each means.
REPORT_RULES: Mapping[str, str] = MappingProxyType(
    {
        "alias_field": "a field was read under an accepted alias (did_occur, alternate1, response_1, Q1, ...)",
        "binary_value_normalised": "a binary value spelled otherwise (true, Y, 0, n/a, ...) was mapped to yes/no/na",
        "binary_value_unrecognised": "a binary value was not a recognised spelling and was set to missing",
        "winner_normalised": "a pairwise winner/selection spelled otherwise (a, response_2, ...) was mapped to A/B",
        "winner_unrecognised": "a pairwise winner/selection was not recognised and was set to missing",
        "label_normalised": "a response label alternate1/alternate2 was mapped to alternate/human",
        "intensity_word": "a word intensity (mild/moderate/intense) was mapped to 2/4/6",
        "intensity_rounded": "a non-integer intensity was rounded",
        "intensity_clamped": "an intensity outside 1..7 was clamped",
        "panas_items_nested": "PANAS items were read from under 'responses'",
        "panas_item_rounded": "a non-integer PANAS item was rounded",
        "panas_total_derived": "a PANAS total was derived from its items",
        "panas_total_clamped": "a PANAS total outside 10..70 was clamped (or rounded)",
        "panas_rebuilt_from_delta": "predicted post PANAS was rebuilt from predicted deltas (delta strategies)",
        "four_branch_clamped": "a four-branch score outside 1..7 was clamped",
        "unknown_emotion_kept": "a ground-truth emotion label outside the PANAS vocabulary was kept (spec 4)",
        "unknown_emotion_dropped": "a predicted emotion label outside the PANAS vocabulary was dropped (spec 4)",
        "emotion_label_normalised": "an emotion label was changed by strip().lower()",
        "duplicate_question": "a questionId repeated in one turn; the last one was kept (as the official dict does)",
        "ground_truth_turn_not_in_run": "a ground-truth turn has no run turn; it is skipped in the averages",
        "participant_anonymous": "no participant id: the conversation is its own participant",
        "ignored_field": "a field the scorer does not use was not loaded (e.g. *_by_model judge details)",
        "subset_id_missing": "a conversation id listed for the requested subset has no file",
        # added with the loader (release/load.py):
        "run_id_from_source_file": "a run without conversationId was linked to its conversation by source_file",
        "run_outside_subset": "a run file for a conversation outside the requested subset was not loaded",
        "number_from_string": "a number written as a string ('5') was read as a number",
        "blank_value": "an empty or 'None' string was read as a missing number",
        "panas_item_null": "a PANAS item given as null (or blank) was treated as not rated",
        "panas_items_missing": "a PANAS block gave some of the 20 items but not all; the others count as not rated",
        "panas_total_partial": "a PANAS total was derived from fewer than the 10 items of its valence",
        "unknown_comparison": "a run's pairwise selection or assignment names a comparison the ground-truth turn lacks (not scored)",
        "duplicate_emotion": "an emotion label repeated in one turn's tags (each tag is scored as written)",
        "judge_score_null": "a draft judge score given as null or blank was left out of the turn's mean of judge scores",
        "comparison_key_not_index": "a pairwise selection keyed with a leading zero ('07') is no key str(i) the scorer reads; not scored",
        "mode_defaulted": "a run file without a mode, and none given for its predictor in release.json, was read as mode 'default'",
        "participant_conflict": "a participant's age or traits differ between conversations; those of the first conversation (in id order) are kept",
    }
)


@dataclass(frozen=True)
class Release:
    """A loaded AttuneBench release: ground truth and predictions as tidy pandas tables.

    Build one with :func:`attunestats.load_release`. Table columns and dtypes are documented in
    :data:`TABLE_SCHEMAS` and :data:`COLUMN_DOCS` (``attunestats.release.model``).

    Attributes
    ----------
    root : pathlib.Path or None
        Directory the release was read from (``None`` for in-memory releases).
    tables : Mapping[str, pandas.DataFrame]
        Every table by name; also reachable as attributes (``release.conversations``).
    report : LoadReport
        What was normalised, clamped, derived or dropped while loading.
    info : Mapping[str, Any]
        Content of ``release.json`` (empty if absent). ``info.get("simulated")`` is true for
        releases written by :func:`attunestats.simulate_release`.
    checksum : str
        SHA-256 over the relative paths and bytes of every file read, in sorted order.
    """

    root: Path | None
    tables: Mapping[str, pd.DataFrame]
    report: LoadReport
    info: Mapping[str, Any] = field(default_factory=dict)
    checksum: str = ""

    def __getattr__(self, name: str) -> pd.DataFrame:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(name)

    @property
    def simulated(self) -> bool:
        """True when ``release.json`` marks the release as written by the simulator."""
        return bool(self.info.get("simulated", False))

    def __repr__(self) -> str:
        t = self.__dict__.get("tables", {})
        if not all(k in t for k in ("conversations", "turns", "participants", "predictors")):
            return f"<Release: tables {sorted(t)}>"
        kinds = t["predictors"]["kind"].astype(str).value_counts()
        who = ", ".join(f"{kinds.get(k, 0)} {name}" for k, name in
                        (("model", "models"), ("human", "human raters")))  # fmt: skip
        n_warn = len(self.report.warnings)
        where = "in memory" if self.root is None else str(self.root)
        return (f"<Release: {len(t['conversations'])} conversations, {len(t['turns'])} turns, "
                f"{len(t['participants'])} participants, {len(t['predictors'])} predictors "
                f"({who}); {n_warn} load warning(s); "
                f"{'SIMULATED' if self.simulated else 'not marked simulated'}; {where}>")  # fmt: skip

    @property
    def predictor_names(self) -> list[str]:
        """Predictors in the release, sorted."""
        return sorted(self.tables["predictors"]["predictor"].tolist())

    def summary(self) -> pd.DataFrame:
        """Counts of everything in the release: one row per quantity (``item``, ``value``)."""
        t = self.tables
        conv = t["conversations"]
        rows: list[tuple[str, object]] = [
            ("simulated", self.simulated),
            ("conversations", len(conv)),
            ("turns", len(t["turns"])),
            ("participants", len(t["participants"])),
            ("topics", int(conv["topic"].nunique())),
            ("original models", int(conv["original_model"].nunique())),
            ("emotion tags", len(t["emotion_tags"])),
            ("unknown ground-truth emotion labels", int((~t["emotion_tags"]["known"]).sum())),
            ("binary judgements", len(t["binary_judgements"])),
            ("pairwise comparisons", len(t["pairwise_comparisons"])),
            ("predictors", len(t["predictors"])),
            ("predictor kinds", ", ".join(
                f"{k}: {n}" for k, n in t["predictors"]["kind"].value_counts().sort_index().items()
            )),
            ("runs (predictor x mode x conversation)", len(t["runs"])),
            ("predicted turns", len(t["pred_turns"])),
            ("predicted emotion tags", len(t["pred_emotion_tags"])),
            ("predicted binary answers", len(t["pred_binary"])),
            ("predicted pairwise selections", len(t["pred_pairwise"])),
            ("load report events", len(self.report)),
        ]  # fmt: skip
        groups = t["participants"]["diagnosis_group"].value_counts().sort_index()
        rows += [(f"participants: {g}", int(n)) for g, n in groups.items()]
        return pd.DataFrame(rows, columns=["item", "value"])
