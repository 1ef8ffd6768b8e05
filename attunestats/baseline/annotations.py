"""Annotation types of the human baseline and the long tables of their ratings.

:func:`annotation_ratings` reads, for every annotation type of :data:`ANNOTATION_TYPES`, what the
human raters (and, on request, the participants themselves, as rater :data:`PARTICIPANT`) said
about each rated unit.

Annotation types (:data:`ANNOTATION_TYPES`)
-------------------------------------------
Each annotation type is a long table of ratings: one row per (unit, rater) with the rater's value.
Predictions of a rater count only for turns the rater's run contains (``pred_turns``); a turn-level
unit of a turn the rater did not annotate is missing, not "no".

=====================  ==========================================  ==============================
name                   unit (what one rated item is)               metric
=====================  ==========================================  ==============================
``emotion_tags``       a turn                                      MASI distance on label sets
``emotion_label``      a turn, ratings with exactly one label      valence-arousal distance
``binary_<task>``      a question of a turn (task om, human,       nominal (answer yes / no, with
                       om_hp, human_hp), scored questions only     na or missing read as no)
``pairwise``           a pairwise comparison of a turn             nominal (selection A / B)
``panas_items``        a conversation x PANAS item (post)          interval
``panas_totals``       a conversation x scale (post PA, post NA)   interval
``four_branch``        a conversation x branch                     interval
``q1_looking_for``     a conversation                              MASI distance on goal sets
``q2_emotion_clarity`` a conversation                              nominal
``q3_model_fit``       a conversation                              ordinal (options in order)
=====================  ==========================================  ==============================

Conventions, chosen to match the scorer (spec 2.2, 2.3) so that agreement and accuracy speak
about the same thing: binary units are the ground-truth judgements whose reference for the task
(``om``: observedBehavior, else llmValue; ``human``: preferredBehavior, else observedBehavior; the
``_hp`` tasks the same) is yes or no, and a rater's answer is "yes" or "no" with "na", a missing
answer or an unrecognised value read as "no"; the draft task is left out (it is about each
predictor's own draft). Pairwise units are the ground-truth comparisons; a missing selection is a
missing rating. Emotion labels outside the PANAS vocabulary are left out (predictions never hold
them, spec 4); a turn the rater annotated without tags is the empty set. Survey answers that are
not one of the official options are missing. The Q3 follow-up (free text) is not analysed.

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from attunestats import constants as K
from attunestats.baseline._checks import _check_release
from attunestats.errors import NotApplicable

if TYPE_CHECKING:
    from attunestats.release.model import Release

__all__ = ["ANNOTATION_TYPES", "PARTICIPANT", "AnnotationType", "annotation_ratings"]

#: Name of the participant when treated as one more rater.
PARTICIPANT = "participant"


# --------------------------------------------------------------------------------------------
# annotation types
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnnotationType:
    """One kind of annotation and how agreement on it is measured.

    Attributes
    ----------
    name : str
        Key of :data:`ANNOTATION_TYPES` and value of the ``annotation`` column.
    description : str
        One line.
    unit : str
        What one rated unit is (e.g. "turn", "comparison", "conversation x item").
    unit_columns : tuple of str
        Columns identifying a unit in the long rating tables (always starting with
        ``conversation_id``).
    level : str or None
        Krippendorff level (``nominal``, ``ordinal``, ``interval``), or None with ``distance``.
    distance : str or None
        Named distance of :mod:`attunestats.agreement.distances` (``masi``, ``valence_arousal``).
    value_domain : tuple or None
        Ordered values (for the ordinal Q3 options).
    nominal : bool
        Categorical values: Fleiss' and Cohen's kappa and exact percent agreement apply.
    interval : bool
        Numeric values: the ICC applies.
    """

    name: str
    description: str
    unit: str
    unit_columns: tuple[str, ...]
    level: str | None = None
    distance: str | None = None
    value_domain: tuple[Any, ...] | None = None
    nominal: bool = False
    interval: bool = False

    @property
    def metric(self) -> str:
        """The level or the distance name."""
        return self.distance if self.distance is not None else str(self.level)


def _types() -> dict[str, AnnotationType]:
    c, t = ("conversation_id",), ("conversation_id", "turn")
    out: list[AnnotationType] = [
        AnnotationType(
            "emotion_tags", "set of emotion labels of a turn", "turn", t, distance="masi"
        ),
        AnnotationType(
            "emotion_label",
            "the emotion label of a turn, where the rating is a single label",
            "turn (single-label ratings)",
            t,
            distance="valence_arousal",
        ),
    ]
    for task, what in (
        ("om", "did the OM show the behaviour (reference observedBehavior)"),
        ("human", "how would the HP answer (reference preferredBehavior)"),
        ("om_hp", "did the OM show the behaviour, HP-facing wording"),
        ("human_hp", "how would the HP answer, HP-facing wording"),
    ):
        out.append(
            AnnotationType(
                f"binary_{task}",
                f"binary judgement: {what}",
                "question of a turn",
                (*t, "question_id"),
                level="nominal",
                nominal=True,
            )
        )
    out += [
        AnnotationType(
            "pairwise",
            "pairwise preference selection (A or B)",
            "comparison",
            (*t, "comparison"),
            level="nominal",
            nominal=True,
        ),
        AnnotationType(
            "panas_items",
            "post-conversation PANAS item ratings (1-7)",
            "conversation x PANAS item",
            (*c, "item"),
            level="interval",
            interval=True,
        ),
        AnnotationType(
            "panas_totals",
            "post-conversation PANAS totals (PA, NA; 10-70)",
            "conversation x scale",
            (*c, "scale"),
            level="interval",
            interval=True,
        ),
        AnnotationType(
            "four_branch",
            "four-branch scores (1-7)",
            "conversation x branch",
            (*c, "branch"),
            level="interval",
            interval=True,
        ),
        AnnotationType(
            "q1_looking_for",
            "Q1: set of goals the participant was looking for",
            "conversation",
            c,
            distance="masi",
        ),
        AnnotationType(
            "q2_emotion_clarity",
            "Q2: emotion clarity (one of 4 options)",
            "conversation",
            c,
            level="nominal",
            nominal=True,
        ),
        AnnotationType(
            "q3_model_fit",
            "Q3: model fit (4 ordered options)",
            "conversation",
            c,
            level="ordinal",
            value_domain=tuple(K.Q3_OPTIONS),
            nominal=True,
        ),
    ]
    return {a.name: a for a in out}


#: Every annotation type, in table order.
ANNOTATION_TYPES: Mapping[str, AnnotationType] = MappingProxyType(_types())
_ANNOTATION_ORDER = tuple(ANNOTATION_TYPES)
_BINARY_TASKS = ("om", "human", "om_hp", "human_hp")


# --------------------------------------------------------------------------------------------
# argument checks (annotation types, raters, mode)
# --------------------------------------------------------------------------------------------
def _check_annotations(annotations: Any) -> list[str]:
    if annotations is None:
        return list(_ANNOTATION_ORDER)
    if isinstance(annotations, str):
        annotations = [annotations]
    try:
        names = list(annotations)
    except TypeError:
        raise TypeError(
            f"annotations must be a sequence of annotation type names; got {annotations!r}"
        ) from None
    unknown = [a for a in names if a not in ANNOTATION_TYPES]
    if unknown or not names:
        raise ValueError(
            f"annotations must be names of ANNOTATION_TYPES {list(_ANNOTATION_ORDER)}; got "
            f"{annotations!r}"
        )
    return [a for a in _ANNOTATION_ORDER if a in names]


def _check_raters(release: Release, predictors: Any, *, minimum: int) -> list[str]:
    table = release.tables["predictors"]
    if predictors is None:
        names = sorted(table.loc[table["kind"] == "human", "predictor"].astype(str).tolist())
        if len(names) < minimum:
            raise NotApplicable(
                f"the release has {len(names)} human rater(s) (predictors of kind 'human'); "
                f"need at least {minimum}; pass predictors= to choose raters"
            )
        return names
    if isinstance(predictors, str):
        predictors = [predictors]
    names = list(dict.fromkeys(str(p) for p in predictors))
    unknown = sorted(set(names) - set(table["predictor"].astype(str)))
    if unknown:
        raise ValueError(
            f"predictors {unknown} are not in the release; available: {release.predictor_names}"
        )
    if PARTICIPANT in names:
        raise ValueError(f"predictor name {PARTICIPANT!r} is reserved for the participants")
    if len(names) < minimum:
        raise ValueError(f"predictors must name at least {minimum} rater(s); got {predictors!r}")
    return sorted(names)


def _check_mode(release: Release, mode: Any, raters: Sequence[str]) -> str:
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string; got {mode!r}")
    runs = release.tables["runs"]
    have = runs.loc[runs["predictor"].isin(list(raters)), "mode"].astype(str)
    if len(have) and mode not in set(have):
        raise ValueError(f"mode={mode!r} has no runs of {list(raters)}; modes: {sorted(set(have))}")
    return mode


# --------------------------------------------------------------------------------------------
# rating tables
# --------------------------------------------------------------------------------------------
def _str(s: pd.Series) -> pd.Series:
    return s.astype(object)


def _rated_turns(release: Release, raters: Sequence[str], mode: str) -> pd.DataFrame:
    pt = release.tables["pred_turns"]
    sel = pt["predictor"].isin(list(raters)) & (pt["mode"] == mode)
    out = pt.loc[sel, ["predictor", "conversation_id", "turn"]].drop_duplicates()
    return out.rename(columns={"predictor": "rater"}).reset_index(drop=True)


def _runs(release: Release, raters: Sequence[str], mode: str) -> pd.DataFrame:
    runs = release.tables["runs"]
    sel = runs["predictor"].isin(list(raters)) & (runs["mode"] == mode)
    return runs.loc[sel].rename(columns={"predictor": "rater"}).reset_index(drop=True)


def _label_sets(
    tags: pd.DataFrame, keys: list[str], base: pd.DataFrame, labels: frozenset[str]
) -> pd.DataFrame:
    """``base`` (one row per rated key) with ``value`` = frozenset of the known labels there."""
    known = tags.loc[tags["emotion"].isin(list(labels))]
    grouped = known.groupby(keys, sort=False)["emotion"].agg(lambda s: frozenset(s.tolist()))
    out = base.merge(grouped.rename("value").reset_index(), on=keys, how="left")
    empty = frozenset()
    out["value"] = [v if isinstance(v, frozenset) else empty for v in out["value"]]
    return out


def _emotion_sets(
    release: Release, raters: Sequence[str], mode: str, participant: bool
) -> pd.DataFrame:
    labels = frozenset(K.EMOTION_LABELS)
    keys = ["rater", "conversation_id", "turn"]
    pt = release.tables["pred_emotion_tags"]
    pt = pt.loc[pt["predictor"].isin(list(raters)) & (pt["mode"] == mode)]
    pt = pt.rename(columns={"predictor": "rater"})
    frames = [_label_sets(pt, keys, _rated_turns(release, raters, mode), labels)]
    if participant:
        turns = release.tables["turns"][["conversation_id", "turn"]].assign(rater=PARTICIPANT)
        gt = release.tables["emotion_tags"].assign(rater=PARTICIPANT)
        frames.append(_label_sets(gt, keys, turns[keys], labels))
    return pd.concat(frames, ignore_index=True)[["conversation_id", "turn", "rater", "value"]]


def _binary_references(release: Release) -> pd.DataFrame:
    bj = release.tables["binary_judgements"]
    if K.BINARY_HIDDEN_QUESTIONS:
        bj = bj.loc[~bj["question_id"].isin(list(K.BINARY_HIDDEN_QUESTIONS))]
    observed = _str(bj["observed"])
    om = observed.where(observed.notna(), _str(bj["llm_value"]))
    human = _str(bj["preferred"]).where(bj["preferred"].notna(), observed)
    base = bj[["conversation_id", "turn", "question_id"]].reset_index(drop=True)
    out = []
    for task in _BINARY_TASKS:
        ref = (om if task in ("om", "om_hp") else human).reset_index(drop=True)
        scored = ref.isin(["yes", "no"]).to_numpy()
        out.append(base.loc[scored].assign(task=task, reference=ref[scored].to_numpy()))
    return pd.concat(out, ignore_index=True)


def _binary(
    release: Release, raters: Sequence[str], mode: str, participant: bool, task: str
) -> pd.DataFrame:
    refs = _binary_references(release)
    refs = refs.loc[refs["task"] == task].drop(columns="task")
    keys = ["conversation_id", "turn", "question_id"]
    units = _rated_turns(release, raters, mode).merge(refs[keys], on=["conversation_id", "turn"])
    pb = release.tables["pred_binary"]
    pb = pb.loc[pb["predictor"].isin(list(raters)) & (pb["mode"] == mode) & (pb["task"] == task)]
    pb = pb.rename(columns={"predictor": "rater"})[["rater", *keys, "value"]]
    pb = pb.drop_duplicates(["rater", *keys], keep="last")
    rated = units.merge(pb, on=["rater", *keys], how="left")
    rated["value"] = np.where(rated["value"].astype(object) == "yes", "yes", "no")
    frames = [rated]
    if participant:
        frames.append(refs.assign(rater=PARTICIPANT).rename(columns={"reference": "value"}))
    out = pd.concat(frames, ignore_index=True)
    return out[[*keys, "rater", "value"]].astype({"value": object})


def _pairwise(
    release: Release, raters: Sequence[str], mode: str, participant: bool
) -> pd.DataFrame:
    keys = ["conversation_id", "turn", "comparison"]
    pc = release.tables["pairwise_comparisons"]
    units = _rated_turns(release, raters, mode).merge(pc[keys], on=["conversation_id", "turn"])
    pp = release.tables["pred_pairwise"]
    pp = pp.loc[pp["predictor"].isin(list(raters)) & (pp["mode"] == mode)]
    pp = pp.rename(columns={"predictor": "rater", "selection": "value"})[["rater", *keys, "value"]]
    rated = units.merge(pp.drop_duplicates(["rater", *keys], keep="last"), on=["rater", *keys])
    frames = [rated]
    if participant:
        gt = pc[[*keys, "winner"]].rename(columns={"winner": "value"}).assign(rater=PARTICIPANT)
        frames.append(gt)
    out = pd.concat(frames, ignore_index=True)
    out = out.loc[out["value"].astype(object).isin(["A", "B"])]
    return out[[*keys, "rater", "value"]].astype({"value": object}).reset_index(drop=True)


def _panas_items(
    release: Release, raters: Sequence[str], mode: str, participant: bool
) -> pd.DataFrame:
    pi = release.tables["pred_panas_items"]
    pi = pi.loc[pi["predictor"].isin(list(raters)) & (pi["mode"] == mode)]
    frames = [
        pi.rename(columns={"predictor": "rater"})[["conversation_id", "item", "rater", "value"]]
    ]
    if participant:
        gt = release.tables["panas_items"]
        gt = gt.loc[gt["time"] == "post", ["conversation_id", "item", "value"]]
        frames.append(gt.assign(rater=PARTICIPANT))
    out = pd.concat(frames, ignore_index=True)
    return out.loc[out["value"].notna()].reset_index(drop=True)


def _wide_to_long(
    frame: pd.DataFrame, columns: Mapping[str, str], key: str, value_name: str = "value"
) -> pd.DataFrame:
    long = frame.melt(
        id_vars=["conversation_id", "rater"],
        value_vars=list(columns),
        var_name=key,
        value_name=value_name,
    )
    long[key] = long[key].map(dict(columns))
    return long


def _conversation_level(
    release: Release,
    raters: Sequence[str],
    mode: str,
    participant: bool,
    columns: Mapping[str, str],
    key: str,
) -> pd.DataFrame:
    runs = _runs(release, raters, mode)[["conversation_id", "rater", *columns]]
    frames = [runs]
    if participant:
        conv = release.tables["conversations"]
        gt = conv[["conversation_id", *[c.replace("pred_", "") for c in columns]]]
        gt = gt.rename(columns={c.replace("pred_", ""): c for c in columns})
        frames.append(gt.assign(rater=PARTICIPANT))
    wide = pd.concat(frames, ignore_index=True)
    long = _wide_to_long(wide, columns, key)
    long = long.loc[long["value"].notna()]
    return long[["conversation_id", key, "rater", "value"]].reset_index(drop=True)


def _survey_option(
    release: Release,
    raters: Sequence[str],
    mode: str,
    participant: bool,
    column: str,
    options: Sequence[str],
) -> pd.DataFrame:
    runs = _runs(release, raters, mode)[["conversation_id", "rater", column]]
    frames = [runs]
    if participant:
        gt = release.tables["conversations"][["conversation_id", column]]
        frames.append(gt.assign(rater=PARTICIPANT))
    out = pd.concat(frames, ignore_index=True).rename(columns={column: "value"})
    out = out.loc[out["value"].astype(object).isin(list(options))]
    return (
        out[["conversation_id", "rater", "value"]].astype({"value": object}).reset_index(drop=True)
    )


def _q1_sets(release: Release, raters: Sequence[str], mode: str, participant: bool) -> pd.DataFrame:
    ps = release.tables["pred_survey_choices"]
    ps = ps.loc[
        ps["predictor"].isin(list(raters))
        & (ps["mode"] == mode)
        & (ps["question"] == "q1_looking_for")
    ].rename(columns={"predictor": "rater"})
    frames = [ps[["conversation_id", "rater", "value"]]]
    if participant:
        gt = release.tables["survey_choices"]
        gt = gt.loc[gt["question"] == "q1_looking_for", ["conversation_id", "value"]]
        frames.append(gt.assign(rater=PARTICIPANT))
    rows = pd.concat(frames, ignore_index=True)
    rows = rows.loc[rows["value"].notna()]
    sets = rows.groupby(["conversation_id", "rater"], sort=True)["value"].agg(
        lambda s: frozenset(s.astype(str).tolist())
    )
    return sets.reset_index()[["conversation_id", "rater", "value"]]


def _ratings_of(
    name: str, release: Release, raters: Sequence[str], mode: str, participant: bool
) -> pd.DataFrame:
    if name == "emotion_tags":
        return _emotion_sets(release, raters, mode, participant)
    if name == "emotion_label":
        sets = _emotion_sets(release, raters, mode, participant)
        single = np.array([len(v) == 1 for v in sets["value"]], dtype=bool)
        out = sets.loc[single].copy()
        out["value"] = [next(iter(v)) for v in out["value"]]
        return out.astype({"value": object}).reset_index(drop=True)
    if name.startswith("binary_"):
        return _binary(release, raters, mode, participant, name.removeprefix("binary_"))
    if name == "pairwise":
        return _pairwise(release, raters, mode, participant)
    if name == "panas_items":
        return _panas_items(release, raters, mode, participant)
    if name == "panas_totals":
        return _conversation_level(
            release, raters, mode, participant,
            {"pred_post_pa": "positive_affect", "pred_post_na": "negative_affect"}, "scale",
        )  # fmt: skip
    if name == "four_branch":
        cols = {f"fb_{b}": b for b in K.FOUR_BRANCHES}
        return _conversation_level(release, raters, mode, participant, cols, "branch")
    if name == "q1_looking_for":
        return _q1_sets(release, raters, mode, participant)
    if name == "q2_emotion_clarity":
        return _survey_option(
            release, raters, mode, participant, "q2_emotion_clarity", K.Q2_OPTIONS
        )
    if name == "q3_model_fit":
        return _survey_option(release, raters, mode, participant, "q3_model_fit", K.Q3_OPTIONS)
    raise ValueError(f"unknown annotation type {name!r}")  # pragma: no cover - checked earlier


def annotation_ratings(
    release: Release,
    *,
    predictors: Sequence[str] | None = None,
    mode: str = "default",
    include_participant: bool = False,
    annotations: Sequence[str] | None = None,
) -> dict[str, pd.DataFrame]:
    """The long rating tables of each annotation type (see the module docstring).

    Parameters
    ----------
    release : Release
    predictors : sequence of str, optional
        Raters (default: every predictor of kind ``"human"``).
    mode : str, default "default"
        Run mode of the predictions.
    include_participant : bool, default False
        Add the participants' own annotations as rater :data:`PARTICIPANT`.
    annotations : sequence of str, optional
        Names of :data:`ANNOTATION_TYPES` (default: all).

    Returns
    -------
    dict of str to pandas.DataFrame
        Per annotation type: the unit columns (``AnnotationType.unit_columns``), ``rater`` and
        ``value`` (object: strings, numbers or frozensets of labels), one row per rating.
    """
    _check_release(release)
    names = _check_annotations(annotations)
    raters = _check_raters(release, predictors, minimum=1)
    mode = _check_mode(release, mode, raters)
    return {n: _ratings_of(n, release, raters, mode, bool(include_participant)) for n in names}
