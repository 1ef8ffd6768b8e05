"""The human baseline: agreement among human raters, with the participants, and humans vs models.

AttuneBench's human baseline has a few people do the evaluated model's (EM's) task on the same
conversations. Claim (f) of the paper is that this baseline "beats most models at predicting
preferences but is weak at predicting conversation goals". This module answers it with numbers:

* :func:`rater_agreement` -- how much the human raters agree with *each other*, per annotation
  type (Krippendorff's alpha with the right metric, plus Fleiss' kappa or the ICC where they
  apply), with bootstrap intervals;
* :func:`rater_vs_participant` -- each rater against the participants' own first-person
  annotations (the participant is one more "rater"), and whether raters agree with each other more
  than with the participants (a paired bootstrap difference);
* :func:`humans_vs_models` -- paired bootstrap differences between the human raters (each, and
  their mean) and every model, per metric (and pillar), from ONE bootstrap of the scores;
* :func:`claim_f` -- the verdict on claim (f), with its rule, effect sizes, intervals and
  corrected p-values;
* :func:`baseline_tables` and the ``plot_*`` functions -- what notebook 07 shows.

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

Resampling
----------
Units within a conversation are not independent (the same participant, topic and conversation
drive all of them), so the default interval is a *cluster* bootstrap over conversations
(``resample="conversation"``): conversations are drawn with replacement and every unit of a drawn
conversation enters with the conversation's multiplicity; alpha is recomputed from the resampled
coincidences (Krippendorff's unit-contribution kernel, :mod:`attunestats.agreement.alpha`).
``resample="unit"`` draws the rated units themselves (turns, questions, comparisons, ...) with
replacement, which is :func:`~attunestats.agreement.krippendorff_alpha`'s ``method="units"`` and
ignores the clustering (narrower intervals when units of a conversation are correlated). Percentile
intervals; resamples where alpha is undefined are left out and counted. All alphas of one
annotation type (every rater subset, rater pair and rater-participant pair) are evaluated on the
same resamples, so their differences are paired. The F-based ICC intervals and Fleiss' kappa
standard errors of :mod:`attunestats.agreement` treat units as independent; they are reported as
descriptive companions of alpha.

Humans vs models
----------------
:func:`humans_vs_models` bootstraps every (predictor, metric) once with
:func:`attunestats.inference.bootstrap.bootstrap_scores` (shared conversation weights). The mean of the
human raters is a linear combination of their labels, so it is evaluated on the same resamples
(and jackknife values, for BCa) as a contrast: every difference is paired. p-values are the
bootstrap p-values of :func:`attunestats.inference.compare.bootstrap_pvalue`; the multiplicity correction
(``"holm"``, ``"bh"`` or ``"none"``, required) is applied within each family of comparisons.

Everything computed from a simulated release carries ``simulated=True`` (and the figures the
:data:`~attunestats.constants.SIMULATED_LABEL`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import sparse

from attunestats import constants as K
from attunestats._rng import RNGLike, check_rng, seed_record
from attunestats.errors import AttunestatsWarning

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from attunestats.inference.bootstrap import BootstrapResult
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

__all__ = [
    "ANNOTATION_TYPES",
    "CLAIM_F_RULE",
    "COMPARISONS",
    "CLAIM_F_STATEMENT",
    "PARTICIPANT",
    "AnnotationType",
    "ClaimFResult",
    "HumansVsModelsResult",
    "ParticipantAgreementResult",
    "RaterAgreementResult",
    "annotation_ratings",
    "masi_matrix",
    "baseline_tables",
    "claim_f",
    "humans_vs_models",
    "plot_claim_f",
    "plot_humans_vs_models",
    "plot_rater_agreement",
    "plot_rater_vs_participant",
    "rater_agreement",
    "rater_vs_participant",
]

#: Name of the participant when treated as one more rater.
PARTICIPANT = "participant"
RESAMPLE = ("conversation", "unit")
_BLOCK = 256  # resamples per block (memory ~ block x clusters x 8 bytes)


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
# argument checks
# --------------------------------------------------------------------------------------------
def _check_release(release: Any) -> None:
    from attunestats.release.model import Release

    if not isinstance(release, Release):
        raise TypeError(f"release must be an attunestats Release; got {type(release).__name__}")


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
            raise ValueError(
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


def _check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {value!r}")
    return value


def _check_level(confidence_level: Any) -> float:
    if isinstance(confidence_level, bool) or not isinstance(
        confidence_level, int | float | np.floating
    ):
        raise TypeError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1); got {confidence_level!r}")
    return float(confidence_level)


def _check_resamples(n_resamples: Any, minimum: int = 0) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer):
        raise TypeError(f"n_resamples must be an integer; got {n_resamples!r}")
    if n_resamples < minimum:
        raise ValueError(f"n_resamples must be >= {minimum}; got {n_resamples}")
    return int(n_resamples)


def _check_correction(correction: Any) -> str:
    from attunestats.inference.compare import CORRECTIONS

    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {list(CORRECTIONS)}; got {correction!r}")
    return str(correction)


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


# --------------------------------------------------------------------------------------------
# the alpha kernel: many rater subsets, one set of resamples
# --------------------------------------------------------------------------------------------
def masi_matrix(domain: Sequence[Any]) -> np.ndarray:
    """The MASI distance between every pair of label sets of ``domain`` (vectorised).

    Equal to :func:`attunestats.agreement.masi_distance` element by element: 0 for equal sets
    (two empty sets included), 1 for disjoint sets (an empty and a non-empty set included), else
    ``1 - J M`` with the Jaccard index ``J`` and ``M`` = 2/3 (one set contains the other) or 1/3.
    """
    sets = [frozenset(v) for v in domain]
    labels = sorted({lab for s in sets for lab in s}, key=str)
    index = {lab: i for i, lab in enumerate(labels)}
    member = np.zeros((len(sets), max(len(labels), 1)), dtype=np.float64)
    for i, s in enumerate(sets):
        for lab in s:
            member[i, index[lab]] = 1.0
    inter = member @ member.T
    size = member.sum(axis=1)
    a, b = size[:, None], size[None, :]
    union = a + b - inter
    equal = (inter == a) & (inter == b)
    nested = (inter == a) | (inter == b)
    weight = np.where(nested, 2.0 / 3.0, 1.0 / 3.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        jaccard = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 1.0)
    out = np.where(inter == 0, 1.0, 1.0 - jaccard * weight)
    out[equal] = 0.0
    return out


class _AlphaKernel:
    """Krippendorff's alpha of any subset of raters, on shared cluster-bootstrap resamples.

    Built on :class:`attunestats.agreement.alpha._UnitTerms` (the unit-contribution kernel of
    :func:`~attunestats.agreement.krippendorff_alpha`): for a subset of raters the pairable units
    are collapsed into count patterns; a resample is a vector of cluster multiplicities ``w``
    (conversations or units), and the pattern multiplicities are ``w @ M`` with ``M[g, p]`` the
    number of pairable units of cluster ``g`` with pattern ``p``.
    """

    def __init__(self, frame: pd.DataFrame, spec: AnnotationType) -> None:
        from attunestats.agreement._input import _check_ratings
        from attunestats.agreement.alpha import _metric

        self.spec = spec
        cols = list(spec.unit_columns)
        self.ratings = _check_ratings(
            frame, columns=(cols, "rater", "value"), value_domain=spec.value_domain
        )
        if spec.distance == "masi":  # vectorised MASI matrix (the loop over pairs is slow)
            self.metric = _metric(None, masi_matrix(self.ratings.domain), self.ratings)
        else:
            self.metric = _metric(spec.level, spec.distance, self.ratings)
        ids = self.ratings.unit_ids
        if isinstance(ids, pd.MultiIndex):
            conv = ids.get_level_values("conversation_id").astype(str).tolist()
        elif len(cols) > 1:  # an Index of (conversation_id, ...) tuples
            conv = [str(u[0]) for u in ids]
        else:
            conv = [str(u) for u in ids]
        codes, uniques = pd.factorize(pd.Index(conv, dtype=object), sort=True)
        self.unit_conversation = np.asarray(codes)
        self.conversations = tuple(str(u) for u in uniques)
        self.raters = tuple(str(r) for r in self.ratings.rater_ids)

    @property
    def n_units(self) -> int:
        return self.ratings.n_units

    def rows(self, raters: Sequence[str]) -> np.ndarray:
        pos = {r: i for i, r in enumerate(self.raters)}
        return np.array([pos[r] for r in raters], dtype=np.int64)

    def counts(self, rows: np.ndarray) -> np.ndarray:
        """Value counts per unit (U x V) for the raters ``rows``."""
        codes = self.ratings.codes[rows]
        n_units, n_values = self.ratings.n_units, self.ratings.n_values
        valid = codes >= 0
        units = np.broadcast_to(np.arange(n_units), codes.shape)[valid]
        flat = units * n_values + codes[valid]
        out = np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values)
        return out.astype(np.float64)

    def subset(self, rows: np.ndarray, cluster_of_unit: np.ndarray, n_clusters: int) -> _Subset:
        from attunestats.agreement.alpha import _UnitTerms

        counts = self.counts(rows)
        m = counts.sum(axis=1)
        pairable = m >= 2
        present = counts[pairable].sum(axis=0)
        if not pairable.any() or int((present > 0).sum()) < 2:
            return _Subset(None, None, int(pairable.sum()), counts[pairable])
        # values no rater of the subset used change nothing (zero marginals): drop them
        used = present > 0
        counts = counts[pairable][:, used]
        metric = replace(
            self.metric,
            x=None if self.metric.x is None else self.metric.x[used],
            delta=None if self.metric.delta is None else self.metric.delta[np.ix_(used, used)],
        )
        terms = _UnitTerms(counts, metric)
        patterns, inverse = np.unique(counts, axis=0, return_inverse=True)
        if patterns.shape != terms.patterns.shape or not np.array_equal(patterns, terms.patterns):
            raise RuntimeError("internal: pattern order differs from the agreement kernel")
        clusters = cluster_of_unit[pairable]
        mapping = sparse.csr_array(
            (np.ones(clusters.size), (clusters, inverse.ravel())),
            shape=(n_clusters, terms.n_patterns),
        )
        return _Subset(terms, mapping, int(pairable.sum()), counts)


@dataclass
class _Subset:
    terms: Any
    mapping: Any
    n_units: int
    counts: np.ndarray

    def statistic(self) -> float:
        if self.terms is None:
            return float("nan")
        return float(self.terms.alpha(self.terms.freq[None, :])[0])

    def resampled(self, cluster_weights: np.ndarray) -> np.ndarray:
        if self.terms is None:
            return np.full(cluster_weights.shape[0], np.nan)
        w = np.asarray((self.mapping.T @ cluster_weights.T).T)
        terms = self.terms
        if terms.metric.kind != "matrix":
            return terms.alpha(w)
        # matrix metrics: the kernel's formula with the quadratic form as matrix products
        sums = w @ terms.columns
        tot, do_num = sums[:, 0], sums[:, 1]
        n_b = terms.marginals(w)
        quad = ((n_b @ terms.metric.delta) * n_b).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 1.0 - (tot - 1.0) * do_num / quad
        out[~(quad > 1e-12 * tot * tot)] = np.nan
        return out

    def percent_agreement(self) -> float:
        """Share of agreeing pairs among all pairs of ratings of a unit (exact equality)."""
        c = self.counts
        if c.size == 0:
            return float("nan")
        m = c.sum(axis=1)
        pairs = float((m * (m - 1.0)).sum())
        return float((c * (c - 1.0)).sum() / pairs) if pairs > 0 else float("nan")


def _cluster_weights(
    rng: np.random.Generator, n_clusters: int, n_resamples: int
) -> list[np.ndarray]:
    """Blocks (B_block x G) of multiplicities of G clusters drawn G times with replacement."""
    out = []
    done = 0
    while done < n_resamples:
        size = min(_BLOCK, n_resamples - done)
        idx = rng.integers(0, n_clusters, size=(size, n_clusters))
        flat = (idx + (np.arange(size) * n_clusters)[:, None]).ravel()
        w = np.bincount(flat, minlength=size * n_clusters).reshape(size, n_clusters)
        out.append(w.astype(np.float64))
        done += size
    return out


def _alpha_subsets(
    kernel: _AlphaKernel,
    subsets: Sequence[Sequence[str]],
    *,
    resample: str,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, list[_Subset]]:
    """Alpha of each rater subset and its bootstrap distribution (B x S) on shared resamples."""
    if resample == "conversation":
        cluster_of_unit, n_clusters = kernel.unit_conversation, len(kernel.conversations)
    else:
        cluster_of_unit, n_clusters = np.arange(kernel.n_units), kernel.n_units
    subs = [kernel.subset(kernel.rows(s), cluster_of_unit, n_clusters) for s in subsets]
    estimate = np.array([s.statistic() for s in subs])
    dist = np.full((n_resamples, len(subs)), np.nan)
    if n_resamples:
        pos = 0
        for w in _cluster_weights(rng, n_clusters, n_resamples):
            for j, s in enumerate(subs):
                dist[pos : pos + w.shape[0], j] = s.resampled(w)
            pos += w.shape[0]
    return estimate, dist, subs


def _percentile(dist: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval and SE per column, NaN resamples left out."""
    a = 1.0 - level
    n = dist.shape[1]
    lo, hi, se = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    for j in range(n):
        x = dist[:, j][np.isfinite(dist[:, j])]
        if x.size >= 2:
            lo[j], hi[j] = np.quantile(x, [a / 2, 1 - a / 2])
            se[j] = np.std(x, ddof=1)
    return lo, hi, se


def _spawned(generator: np.random.Generator) -> dict[str, np.random.Generator]:
    """One child generator per annotation type (all spawned, so a subset gets the same ones)."""
    children = generator.spawn(len(_ANNOTATION_ORDER))
    return dict(zip(_ANNOTATION_ORDER, children, strict=True))


def _warn_undefined(name: str, n_bad: int, total: int) -> None:
    if n_bad:
        warnings.warn(
            f"{name}: alpha is undefined in {n_bad} of {total} bootstrap resamples (no variation "
            "among the resampled values); they are left out of the interval",
            AttunestatsWarning,
            stacklevel=3,
        )


# --------------------------------------------------------------------------------------------
# rater agreement
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RaterAgreementResult:
    """Agreement among raters per annotation type.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per annotation type: ``annotation``, ``description``, ``unit``, ``metric``,
        ``alpha`` (Krippendorff), ``ci_low``, ``ci_high``, ``standard_error``,
        ``percent_agreement`` (share of agreeing pairs of ratings; exact equality, NaN for interval
        data), ``fleiss_kappa`` (nominal types), ``icc`` (ICC(A,1), interval types) with
        ``icc_ci_low``/``icc_ci_high`` (F-based, units independent), ``n_units`` (pairable),
        ``n_conversations``, ``n_raters``, ``n_undefined_resamples`` and the settings
        (``resample``, ``n_resamples``, ``confidence_level``, ``seed``, ``simulated``).
    raters : tuple of str
    resample : str
        ``"conversation"`` (cluster bootstrap) or ``"unit"``.
    bootstrap_distribution : dict of str to ndarray
        Alpha in each resample, per annotation type.
    """

    table: pd.DataFrame
    raters: tuple[str, ...]
    resample: str
    n_resamples: int
    confidence_level: float
    seed: int | str | None
    simulated: bool
    bootstrap_distribution: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The agreement table (a copy)."""
        return self.table.copy()


def _fleiss(frame: pd.DataFrame, spec: AnnotationType) -> float:
    from attunestats.agreement import fleiss_kappa

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = fleiss_kappa(
                frame,
                columns=(list(spec.unit_columns), "rater", "value"),
                value_domain=spec.value_domain,
            )
        return float(res.statistic)
    except ValueError:
        return float("nan")


def _icc(frame: pd.DataFrame, spec: AnnotationType, level: float) -> tuple[float, float, float]:
    from attunestats.agreement import icc

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AttunestatsWarning)
            res = icc(
                frame,
                columns=(list(spec.unit_columns), "rater", "value"),
                confidence_level=level,
            )
        i = res.forms.index("ICC(A,1)")
        return (
            float(res.statistic[i]),
            float(res.confidence_interval.low[i]),
            float(res.confidence_interval.high[i]),
        )
    except ValueError:
        return (float("nan"),) * 3


def _simulated(release: Release) -> bool:
    return bool(release.simulated)


def rater_agreement(
    release: Release,
    *,
    predictors: Sequence[str] | None = None,
    mode: str = "default",
    annotations: Sequence[str] | None = None,
    resample: Literal["conversation", "unit"] = "conversation",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> RaterAgreementResult:
    """Agreement among the human raters on every annotation type.

    Parameters
    ----------
    release : Release
    predictors : sequence of str, optional
        The raters (default: every predictor of kind ``"human"``); at least two.
    mode : str, default "default"
        Run mode of their predictions.
    annotations : sequence of str, optional
        Names of :data:`ANNOTATION_TYPES` (default: all).
    resample : {"conversation", "unit"}, default "conversation"
        Cluster bootstrap over conversations, or bootstrap over the rated units (see the module
        docstring).
    n_resamples : int, default 2000
        Bootstrap resamples (0: no interval).
    confidence_level : float, default 0.95
    rng : int, Generator or SeedSequence, optional

    Returns
    -------
    RaterAgreementResult

    Examples
    --------
    >>> import attunestats as at
    >>> res = rater_agreement(at.load_bundled_release(), n_resamples=500, rng=1)  # doctest: +SKIP
    >>> res.to_frame()[["annotation", "alpha", "ci_low", "ci_high"]]             # doctest: +SKIP
    """
    _check_release(release)
    names = _check_annotations(annotations)
    raters = _check_raters(release, predictors, minimum=2)
    mode = _check_mode(release, mode, raters)
    resample = _check_choice(resample, "resample", RESAMPLE)  # type: ignore[assignment]
    n_resamples = _check_resamples(n_resamples)
    level = _check_level(confidence_level)
    children = _spawned(check_rng(rng))
    rows, dists = [], {}
    for name in names:
        spec = ANNOTATION_TYPES[name]
        frame = _ratings_of(name, release, raters, mode, participant=False)
        row: dict[str, Any] = {
            "annotation": name,
            "description": spec.description,
            "unit": spec.unit,
            "metric": spec.metric,
        }
        alpha = lo = hi = se = pa = fk = float("nan")
        icc_v = (float("nan"),) * 3
        n_units = n_conv = n_bad = 0
        if len(frame):
            try:
                kernel = _AlphaKernel(frame, spec)
            except ValueError:  # e.g. a single value in the domain
                kernel = None
            if kernel is not None:
                est, dist, subs = _alpha_subsets(
                    kernel, [raters], resample=resample, n_resamples=n_resamples,
                    rng=children[name],
                )  # fmt: skip
                alpha = float(est[0])
                lo_a, hi_a, se_a = _percentile(dist, level)
                lo, hi, se = float(lo_a[0]), float(hi_a[0]), float(se_a[0])
                n_bad = int(np.sum(~np.isfinite(dist[:, 0]))) if n_resamples else 0
                _warn_undefined(name, n_bad, n_resamples)
                dists[name] = dist[:, 0]
                n_units = subs[0].n_units
                pairable_conv = kernel.unit_conversation[
                    kernel.counts(kernel.rows(raters)).sum(1) >= 2
                ]
                n_conv = int(np.unique(pairable_conv).size)
                if not spec.interval:
                    pa = subs[0].percent_agreement()
            if spec.nominal and spec.level == "nominal":
                fk = _fleiss(frame, spec)
            if spec.interval:
                icc_v = _icc(frame, spec, level)
        row.update(
            alpha=alpha,
            ci_low=lo,
            ci_high=hi,
            standard_error=se,
            percent_agreement=pa,
            fleiss_kappa=fk,
            icc=icc_v[0],
            icc_ci_low=icc_v[1],
            icc_ci_high=icc_v[2],
            n_units=n_units,
            n_conversations=n_conv,
            n_raters=len(raters),
            n_undefined_resamples=n_bad,
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    seed = seed_record(rng)
    table["resample"] = resample
    table["n_resamples"] = n_resamples
    table["confidence_level"] = level
    table["seed"] = pd.Series([seed] * len(table), dtype=object)
    table["simulated"] = _simulated(release)
    return RaterAgreementResult(
        table=table,
        raters=tuple(raters),
        resample=resample,
        n_resamples=n_resamples,
        confidence_level=level,
        seed=seed,
        simulated=_simulated(release),
        bootstrap_distribution=MappingProxyType(dists),
    )


# --------------------------------------------------------------------------------------------
# raters vs participants
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParticipantAgreementResult:
    """Agreement of each rater with the participants, next to agreement between raters.

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per annotation type and pair of "raters": ``comparison`` (``"rater-rater"`` or
        ``"rater-participant"``), ``rater_a``, ``rater_b`` (the participant is
        :data:`PARTICIPANT`), ``alpha`` with ``ci_low``, ``ci_high``, ``standard_error``,
        ``percent_agreement`` (exact equality; NaN for interval data), ``kappa`` (Cohen's;
        unweighted for nominal types, quadratic weights for the ordinal Q3, NaN otherwise) and
        ``kappa_weights``, ``n_units`` (units both rated), and the settings.
    summary : pandas.DataFrame
        One row per annotation type: ``alpha_rater_rater`` (mean over rater pairs),
        ``alpha_rater_participant`` (mean over raters), ``difference`` = rater-rater minus
        rater-participant, with a paired bootstrap ``ci_low``, ``ci_high``, ``standard_error``
        and two-sided bootstrap ``pvalue``; positive differences mean the raters agree with each
        other more than with the participants.
    """

    pairs: pd.DataFrame
    summary: pd.DataFrame
    raters: tuple[str, ...]
    resample: str
    n_resamples: int
    confidence_level: float
    seed: int | str | None
    simulated: bool
    bootstrap_distribution: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The pair table (a copy)."""
        return self.pairs.copy()


def _cohen(frame: pd.DataFrame, spec: AnnotationType, a: str, b: str) -> tuple[float, str]:
    from attunestats.agreement import cohen_kappa

    if not spec.nominal:
        return float("nan"), ""
    weights = "quadratic" if spec.level == "ordinal" else None
    sub = frame.loc[frame["rater"].isin([a, b])]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = cohen_kappa(
                sub,
                columns=(list(spec.unit_columns), "rater", "value"),
                weights=weights,
                value_domain=spec.value_domain,
            )
        return float(res.statistic), weights or "identity"
    except ValueError:
        return float("nan"), weights or "identity"


def rater_vs_participant(
    release: Release,
    *,
    predictors: Sequence[str] | None = None,
    mode: str = "default",
    annotations: Sequence[str] | None = None,
    resample: Literal["conversation", "unit"] = "conversation",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ParticipantAgreementResult:
    """Each rater against the participants' own annotations, and against the other raters.

    The participant is treated as one more rater (:data:`PARTICIPANT`: the ground-truth emotion
    tags, binary references, pairwise winners, post PANAS, four-branch scores and survey
    answers). For every annotation type, alpha (and Cohen's kappa where it applies) is computed for
    every rater-participant pair and every rater-rater pair on the same bootstrap resamples, so the
    difference "mean rater-rater alpha minus mean rater-participant alpha" has a paired interval.

    Parameters
    ----------
    release : Release
    predictors : sequence of str, optional
        The raters (default: every predictor of kind ``"human"``); at least one.
    mode, annotations, resample, n_resamples, confidence_level, rng
        As in :func:`rater_agreement`.

    Returns
    -------
    ParticipantAgreementResult

    Examples
    --------
    >>> import attunestats as at
    >>> res = rater_vs_participant(at.load_bundled_release(), n_resamples=500, rng=1)  # doctest: +SKIP
    >>> res.summary[["annotation", "difference", "ci_low", "ci_high"]]               # doctest: +SKIP
    """
    from attunestats.inference.compare import bootstrap_pvalue

    _check_release(release)
    names = _check_annotations(annotations)
    raters = _check_raters(release, predictors, minimum=1)
    mode = _check_mode(release, mode, raters)
    resample = _check_choice(resample, "resample", RESAMPLE)  # type: ignore[assignment]
    n_resamples = _check_resamples(n_resamples)
    level = _check_level(confidence_level)
    children = _spawned(check_rng(rng))
    rater_pairs = list(combinations(raters, 2))
    part_pairs = [(r, PARTICIPANT) for r in raters]
    all_pairs = rater_pairs + part_pairs
    kinds = ["rater-rater"] * len(rater_pairs) + ["rater-participant"] * len(part_pairs)
    pair_frames, summary_rows, dists = [], [], {}
    nan = float("nan")
    for name in names:
        spec = ANNOTATION_TYPES[name]
        frame = _ratings_of(name, release, raters, mode, participant=True)
        n_pairs = len(all_pairs)
        est = np.full(n_pairs, nan)
        dist = np.full((n_resamples, n_pairs), nan)
        n_units = np.zeros(n_pairs, dtype=np.int64)
        pa = np.full(n_pairs, nan)
        kernel = None
        if len(frame):
            try:
                kernel = _AlphaKernel(frame, spec)
            except ValueError:
                kernel = None
        if kernel is not None:
            present = [p for p in all_pairs if all(r in kernel.raters for r in p)]
            idx = [all_pairs.index(p) for p in present]
            if present:
                e, d, subs = _alpha_subsets(
                    kernel, [list(p) for p in present], resample=resample,
                    n_resamples=n_resamples, rng=children[name],
                )  # fmt: skip
                est[idx], dist[:, idx] = e, d
                n_units[idx] = [s.n_units for s in subs]
                if not spec.interval:
                    pa[idx] = [s.percent_agreement() for s in subs]
        lo, hi, se = _percentile(dist, level)
        kappa = [
            _cohen(frame, spec, a, b) if kernel is not None else (nan, "") for a, b in all_pairs
        ]
        pair_frames.append(
            pd.DataFrame(
                {
                    "annotation": name,
                    "unit": spec.unit,
                    "metric": spec.metric,
                    "comparison": kinds,
                    "rater_a": [a for a, _ in all_pairs],
                    "rater_b": [b for _, b in all_pairs],
                    "alpha": est,
                    "ci_low": lo,
                    "ci_high": hi,
                    "standard_error": se,
                    "percent_agreement": pa,
                    "kappa": [k for k, _ in kappa],
                    "kappa_weights": [w for _, w in kappa],
                    "n_units": n_units,
                }
            )
        )
        # paired difference: mean rater-rater alpha - mean rater-participant alpha
        contrast = np.zeros(n_pairs)
        if rater_pairs:
            contrast[: len(rater_pairs)] = 1.0 / len(rater_pairs)
        contrast[len(rater_pairs) :] = -1.0 / len(part_pairs)
        rr = float(np.mean(est[: len(rater_pairs)])) if rater_pairs else nan
        rp = float(np.mean(est[len(rater_pairs) :]))
        diff = rr - rp if rater_pairs else nan
        d_dist = dist @ contrast if rater_pairs else np.full(n_resamples, nan)
        dists[name] = dist
        d_lo, d_hi, d_se = _percentile(d_dist[:, None], level)
        pval = (
            float(bootstrap_pvalue(d_dist[:, None], np.array([diff]))[0])
            if n_resamples and np.isfinite(diff)
            else nan
        )
        summary_rows.append(
            {
                "annotation": name,
                "unit": spec.unit,
                "metric": spec.metric,
                "alpha_rater_rater": rr,
                "alpha_rater_participant": rp,
                "difference": diff,
                "ci_low": float(d_lo[0]),
                "ci_high": float(d_hi[0]),
                "standard_error": float(d_se[0]),
                "pvalue": pval,
                "n_raters": len(raters),
            }
        )
    seed = seed_record(rng)
    simulated = _simulated(release)
    pairs = pd.concat(pair_frames, ignore_index=True)
    summary = pd.DataFrame(summary_rows)
    for frame_ in (pairs, summary):
        frame_["resample"] = resample
        frame_["n_resamples"] = n_resamples
        frame_["confidence_level"] = level
        frame_["seed"] = pd.Series([seed] * len(frame_), dtype=object)
        frame_["simulated"] = simulated
    return ParticipantAgreementResult(
        pairs=pairs,
        summary=summary,
        raters=tuple(raters),
        resample=resample,
        n_resamples=n_resamples,
        confidence_level=level,
        seed=seed,
        simulated=simulated,
        bootstrap_distribution=MappingProxyType(dists),
    )


# --------------------------------------------------------------------------------------------
# humans vs models
# --------------------------------------------------------------------------------------------
#: Comparison kinds of :func:`humans_vs_models`, in table order.
COMPARISONS = (
    "human_mean - model",
    "human - model",
    "human - model_mean",
    "human_mean - model_mean",
)
HUMAN_MEAN = "mean of humans"
MODEL_MEAN = "mean of models"


@dataclass(frozen=True)
class HumansVsModelsResult:
    """Paired bootstrap differences between human raters and models, per metric.

    Attributes
    ----------
    comparisons : pandas.DataFrame
        One row per metric and comparison: ``comparison`` (one of :data:`COMPARISONS`),
        ``human`` (a rater, or ``"mean of humans"``), ``model`` (a model, or ``"mean of
        models"``), ``estimate_human``, ``estimate_model``, ``difference`` (human minus model),
        ``ci_low``, ``ci_high``, ``standard_error``, ``pvalue`` (two-sided bootstrap),
        ``pvalue_adjusted``, ``significant`` (adjusted p below ``1 - confidence_level``),
        ``human_better`` / ``human_worse`` (significant and in the metric's better / worse
        direction; both False for two-sided metrics), the metric's ``pillar``, ``capability`` and
        ``higher_is_better``, and the settings (``correction``, ``family``, ``method``,
        ``interval_method``, ``confidence_level``, ``n_resamples``, ``unit``, ``seed``,
        ``simulated``).
    summary : pandas.DataFrame
        One row per metric: ``human_mean``, ``model_mean``, ``difference`` (= human mean minus
        model mean) with interval and p-values, ``n_models``, ``n_models_beaten`` (models the human
        mean beats significantly after correction), ``share_models_beaten``,
        ``n_models_better`` (models significantly better than the human mean),
        ``share_models_better``.
    boot : BootstrapResult
        The one bootstrap every number comes from.
    """

    comparisons: pd.DataFrame
    summary: pd.DataFrame
    humans: tuple[str, ...]
    models: tuple[str, ...]
    correction: str
    family: str
    confidence_level: float
    simulated: bool
    boot: Any = field(repr=False, default=None)

    def to_frame(self) -> pd.DataFrame:
        """The comparison table (a copy)."""
        return self.comparisons.copy()


def _default_metrics(available: set[str]) -> list[str]:
    from attunestats.metrics.registry import MAIN_METRICS, METRICS

    return [m for m in MAIN_METRICS if m in available and METRICS[m].level == "conversation"]


def _split_predictors(
    kinds: Mapping[str, str] | None,
    names: Sequence[str],
    humans: Sequence[str] | None,
    models: Sequence[str] | None,
) -> tuple[list[str], list[str]]:
    present = sorted(set(names))
    if humans is None:
        if kinds is None:
            raise ValueError(
                "humans must name the human raters when data is a BootstrapResult (its labels do "
                "not record predictor kinds)"
            )
        humans = [p for p in present if kinds.get(p) == "human"]
    else:
        humans = [humans] if isinstance(humans, str) else list(humans)
    if models is None:
        if kinds is None:
            models = [p for p in present if p not in set(humans)]
        else:
            models = [p for p in present if kinds.get(p) == "model"]
    else:
        models = [models] if isinstance(models, str) else list(models)
    for arg, group in (("humans", humans), ("models", models)):
        unknown = sorted(set(group) - set(present))
        if unknown:
            raise ValueError(f"{arg} {unknown} are not predictors of the data; have {present}")
        if not group:
            raise ValueError(f"no {arg} to compare (predictors: {present})")
    overlap = sorted(set(humans) & set(models))
    if overlap:
        raise ValueError(f"predictors {overlap} are given both as humans and as models")
    return sorted(dict.fromkeys(humans)), sorted(dict.fromkeys(models))


def humans_vs_models(
    data: Scores | BootstrapResult,
    *,
    correction: Literal["holm", "bh", "none"],
    family: Literal["metric", "all"] = "metric",
    metrics: Sequence[str] | None = None,
    humans: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    mode: str = "default",
    method: Literal["percentile", "basic", "bca"] = "bca",
    unit: Literal["conversation", "participant"] = "conversation",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> HumansVsModelsResult:
    """Human raters vs models on identical conversations: paired bootstrap differences.

    One cluster bootstrap of the scores (:func:`attunestats.inference.bootstrap.bootstrap_scores`) gives
    every predictor's metric in every resample on shared conversation weights. The differences
    (each rater, and the mean of the raters, minus each model and minus the mean of the models)
    are contrasts of those labels, evaluated on the same resamples: paired by construction.

    Parameters
    ----------
    data : Scores or BootstrapResult
        Scores to bootstrap, or a bootstrap of scores to reuse (then ``humans`` is required and
        the bootstrap options below are ignored).
    correction : {"holm", "bh", "none"}
        Multiplicity correction, required and echoed in every row.
    family : {"metric", "all"}, default "metric"
        Family of the correction: the comparisons of one kind (:data:`COMPARISONS`) within one
        metric (e.g. the mean of humans against each of the M models: M tests), or of one kind
        across all metrics.
    metrics : sequence of str, optional
        Conversation-level metrics (default: the main metrics of spec section 5 present,
        pillars and composites included).
    humans, models : sequence of str, optional
        Default: predictors of kind ``"human"`` and ``"model"``.
    mode : str, default "default"
        Run mode compared.
    method, unit, n_resamples, confidence_level, rng
        Bootstrap options (see :func:`~attunestats.inference.bootstrap.bootstrap_scores`).

    Returns
    -------
    HumansVsModelsResult

    Examples
    --------
    >>> import attunestats as at
    >>> scores = at.score(at.load_bundled_release())                            # doctest: +SKIP
    >>> res = humans_vs_models(scores, correction="holm", n_resamples=2000, rng=1)  # doctest: +SKIP
    >>> res.summary[["metric", "difference", "ci_low", "ci_high", "share_models_beaten"]]  # doctest: +SKIP
    """
    from attunestats.inference.bootstrap import (
        BootstrapResult,
        bootstrap_scores,
        confidence_interval,
    )
    from attunestats.inference.compare import adjust_pvalues, bootstrap_pvalue
    from attunestats.metrics.registry import METRICS
    from attunestats.metrics.score import Scores

    correction = _check_correction(correction)
    family = _check_choice(family, "family", ("metric", "all"))  # type: ignore[assignment]
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string; got {mode!r}")
    if isinstance(data, BootstrapResult):
        boot = data
        kinds = None
        names = boot.labels.loc[boot.labels["mode"] == mode, "predictor"].astype(str).tolist()
        h, m = _split_predictors(kinds, names, humans, models)
    elif isinstance(data, Scores):
        kinds = dict(
            zip(data.predictors["predictor"].astype(str), data.predictors["kind"].astype(str))
        )
        conv = data.conversation
        names = conv.loc[conv["mode"] == mode, "predictor"].astype(str).unique().tolist()
        h, m = _split_predictors(kinds, names, humans, models)
        if metrics is None:
            metrics = _default_metrics(set(conv["metric"]))
        level = _check_level(confidence_level)
        boot = bootstrap_scores(
            data, metrics=metrics, predictors=h + m, unit=unit, method=method,
            n_resamples=n_resamples, confidence_level=level, rng=rng,
        )  # fmt: skip
    else:
        raise TypeError(f"data must be Scores or a BootstrapResult; got {type(data).__name__}")
    level = boot.confidence_level if isinstance(data, BootstrapResult) else level
    labels = boot.labels
    if "mode" not in labels.columns:
        labels = labels.assign(mode="default")
    have = list(dict.fromkeys(labels["metric"]))
    if metrics is None:
        metrics = have
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    missing = [x for x in metrics if x not in have]
    if missing:
        raise ValueError(f"metrics {missing} are not in the bootstrap; have {have}")
    jack_all = boot.jackknife_distribution
    rows = []
    for metric in metrics:
        sel = (labels["metric"] == metric) & (labels["mode"] == mode)
        pos = {p: i for p, i in zip(labels.loc[sel, "predictor"].astype(str), np.flatnonzero(sel))}
        absent = [p for p in h + m if p not in pos]
        if absent:
            raise ValueError(f"metric {metric!r} has no bootstrap label for predictors {absent}")
        ih = np.array([pos[p] for p in h])
        im = np.array([pos[p] for p in m])
        C, meta = _contrasts(ih, im, h, m, len(labels))
        pos_part, neg_part = np.clip(C, 0, None), np.clip(-C, 0, None)
        est_h, est_m = boot.estimate @ pos_part, boot.estimate @ neg_part
        d_est = boot.estimate @ C
        d_dist = boot.bootstrap_distribution @ C
        d_jack = jack_all @ C if jack_all is not None else None
        lo, hi, degenerate = confidence_interval(
            d_dist, d_est, method=boot.method, confidence_level=level, jackknife=d_jack
        )
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            se = np.nanstd(d_dist, axis=0, ddof=1)
        spec = METRICS.get(metric)
        frame = pd.DataFrame(
            {
                "metric": metric,
                "pillar": getattr(spec, "pillar", None),
                "capability": getattr(spec, "capability", None),
                "higher_is_better": getattr(spec, "higher_is_better", None),
                "comparison": [k for k, _, _ in meta],
                "human": [x for _, x, _ in meta],
                "model": [x for _, _, x in meta],
                "estimate_human": est_h,
                "estimate_model": est_m,
                "difference": d_est,
                "ci_low": lo,
                "ci_high": hi,
                "standard_error": se,
                "pvalue": bootstrap_pvalue(d_dist, d_est),
                "interval_method": np.where(degenerate, "percentile", boot.method),
            }
        )
        rows.append(frame)
    table = pd.concat(rows, ignore_index=True)
    groups = ["comparison"] if family == "all" else ["metric", "comparison"]
    table["pvalue_adjusted"] = np.nan
    for _, idx in table.groupby(groups, sort=False).groups.items():
        table.loc[idx, "pvalue_adjusted"] = adjust_pvalues(
            table.loc[idx, "pvalue"].to_numpy(dtype=float),
            method=correction,  # type: ignore[arg-type]
        )
    alpha = 1.0 - level
    table["significant"] = table["pvalue_adjusted"] < alpha
    hib = table["higher_is_better"]
    up = (hib == True).to_numpy()  # noqa: E712 - object column with None
    down = (hib == False).to_numpy()  # noqa: E712
    pos_d = (table["difference"] > 0).to_numpy()
    neg_d = (table["difference"] < 0).to_numpy()
    sig = table["significant"].to_numpy()
    table["human_better"] = sig & ((up & pos_d) | (down & neg_d))
    table["human_worse"] = sig & ((up & neg_d) | (down & pos_d))
    settings = {
        "correction": correction,
        "family": family,
        "method": boot.method,
        "confidence_level": level,
        "n_resamples": boot.n_resamples,
        "unit": boot.plan.unit,
        "seed": boot.seed,
        "simulated": bool(boot.simulated),
    }
    for key, value in settings.items():
        table[key] = pd.Series([value] * len(table), dtype=object) if key == "seed" else value
    summary = _summary(table, len(m))
    return HumansVsModelsResult(
        comparisons=table,
        summary=summary,
        humans=tuple(h),
        models=tuple(m),
        correction=correction,
        family=family,
        confidence_level=level,
        simulated=bool(boot.simulated),
        boot=boot,
    )


def _contrasts(
    ih: np.ndarray, im: np.ndarray, humans: Sequence[str], models: Sequence[str], n_labels: int
) -> tuple[np.ndarray, list[tuple[str, str, str]]]:
    """Contrast matrix (labels x comparisons) of every comparison kind, and its row labels."""
    columns: list[np.ndarray] = []
    meta: list[tuple[str, str, str]] = []

    def add(weights: Sequence[tuple[np.ndarray, float]], kind: str, human: str, model: str) -> None:
        c = np.zeros(n_labels)
        for idx, w in weights:
            c[idx] += w
        columns.append(c)
        meta.append((kind, human, model))

    hmean = (ih, 1.0 / len(ih))
    mmean = (im, -1.0 / len(im))
    for j, model in zip(im, models, strict=True):
        add([hmean, (np.array([j]), -1.0)], COMPARISONS[0], HUMAN_MEAN, model)
    for i, human in zip(ih, humans, strict=True):
        for j, model in zip(im, models, strict=True):
            add([(np.array([i]), 1.0), (np.array([j]), -1.0)], COMPARISONS[1], human, model)
    for i, human in zip(ih, humans, strict=True):
        add([(np.array([i]), 1.0), mmean], COMPARISONS[2], human, MODEL_MEAN)
    add([hmean, mmean], COMPARISONS[3], HUMAN_MEAN, MODEL_MEAN)
    return np.column_stack(columns), meta


def _summary(table: pd.DataFrame, n_models: int) -> pd.DataFrame:
    out = []
    for metric, sub in table.groupby("metric", sort=False):
        mm = sub.loc[sub["comparison"] == "human_mean - model_mean"].iloc[0]
        per = sub.loc[sub["comparison"] == "human_mean - model"]
        beaten, better = int(per["human_better"].sum()), int(per["human_worse"].sum())
        out.append(
            {
                "metric": metric,
                "pillar": mm["pillar"],
                "capability": mm["capability"],
                "higher_is_better": mm["higher_is_better"],
                "human_mean": mm["estimate_human"],
                "model_mean": mm["estimate_model"],
                "difference": mm["difference"],
                "ci_low": mm["ci_low"],
                "ci_high": mm["ci_high"],
                "standard_error": mm["standard_error"],
                "pvalue": mm["pvalue"],
                "pvalue_adjusted": mm["pvalue_adjusted"],
                "significant": mm["significant"],
                "n_models": n_models,
                "n_models_beaten": beaten,
                "share_models_beaten": beaten / n_models,
                "n_models_better": better,
                "share_models_better": better / n_models,
                **{k: mm[k] for k in ("correction", "family", "method", "confidence_level",
                                      "n_resamples", "unit", "seed", "simulated")},
            }
        )  # fmt: skip
    return pd.DataFrame(out)


# --------------------------------------------------------------------------------------------
# claim (f)
# --------------------------------------------------------------------------------------------
#: Claim (f) of the paper (spec section 0).
CLAIM_F_STATEMENT = (
    "a human baseline (three people doing the EM's task) beats most models at predicting "
    "preferences but is weak at predicting conversation goals"
)

#: The decision rule of :func:`claim_f`.
CLAIM_F_RULE = (
    "Evidence comes from one paired cluster bootstrap of the scores. Preference part: the mean of "
    "the human raters is compared with each of the M models on the preference metric "
    "(avg_pairwise_accuracy), the M p-values corrected together (the chosen correction). Goal "
    "part: the mean of the humans is compared with the mean of the models on the goal metric "
    "(q1_looking_for_score), one test. SUPPORTED if the human mean is significantly better than "
    "more than M/2 models on the preference metric AND significantly below the model mean on the "
    "goal metric (an intersection-union test: each part at level alpha = 1 - confidence_level). "
    "CONTRADICTED if the opposite of a part is shown, each part at level alpha/2 (Bonferroni over "
    "the two parts): at least M/2 models significantly better than the human mean on the "
    "preference metric, or the human mean significantly above the model mean on the goal metric. "
    "Otherwise INCONCLUSIVE. The secondary preference metric (avg_pairwise_kendall_tau) is "
    "reported but does not enter the verdict."
)
VERDICTS = ("supported", "contradicted", "inconclusive")


@dataclass(frozen=True)
class ClaimFResult:
    """The verdict on claim (f) with the evidence behind it.

    Attributes
    ----------
    verdict : {"supported", "contradicted", "inconclusive"}
    statement, rule : str
        The claim and the decision rule (:data:`CLAIM_F_RULE`).
    preference_supported, preference_contradicted, goal_supported, goal_contradicted : bool
        The four parts of the rule.
    evidence : pandas.DataFrame
        One row per metric of the claim (preference, secondary preference, goal): human mean,
        model mean, their difference with interval and p-values, and the numbers and shares of
        models the human mean beats / loses to significantly after correction.
    comparisons : pandas.DataFrame
        The underlying human-mean-vs-each-model rows (:class:`HumansVsModelsResult`).
    agreement : pandas.DataFrame or None
        Rater agreement on the pairwise selections and Q1 goals, when a release was given.
    """

    verdict: str
    statement: str
    rule: str
    preference_supported: bool
    preference_contradicted: bool
    goal_supported: bool
    goal_contradicted: bool
    evidence: pd.DataFrame
    comparisons: pd.DataFrame
    correction: str
    confidence_level: float
    n_humans: int
    n_models: int
    simulated: bool
    agreement: pd.DataFrame | None = None

    def to_frame(self) -> pd.DataFrame:
        """The evidence table with the verdict in every row."""
        out = self.evidence.copy()
        out.insert(0, "claim", "f")
        out["verdict"] = self.verdict
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain summary for the claims audit."""
        ev = self.evidence.set_index("role")
        return {
            "claim": "f",
            "statement": self.statement,
            "verdict": self.verdict,
            "rule": self.rule,
            "preference_supported": self.preference_supported,
            "preference_contradicted": self.preference_contradicted,
            "goal_supported": self.goal_supported,
            "goal_contradicted": self.goal_contradicted,
            "share_models_beaten_on_preference": float(ev.loc["preference", "share_models_beaten"]),
            "preference_difference": float(ev.loc["preference", "difference"]),
            "goal_difference": float(ev.loc["goal", "difference"]),
            "goal_ci": (float(ev.loc["goal", "ci_low"]), float(ev.loc["goal", "ci_high"])),
            "correction": self.correction,
            "confidence_level": self.confidence_level,
            "n_humans": self.n_humans,
            "n_models": self.n_models,
            "simulated": self.simulated,
        }


def claim_f(
    data: Scores | BootstrapResult,
    release: Release | None = None,
    *,
    correction: Literal["holm", "bh", "none"] = "holm",
    preference_metric: str = "avg_pairwise_accuracy",
    secondary_preference_metric: str | None = "avg_pairwise_kendall_tau",
    goal_metric: str = "q1_looking_for_score",
    humans: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    mode: str = "default",
    method: Literal["percentile", "basic", "bca"] = "bca",
    unit: Literal["conversation", "participant"] = "conversation",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> ClaimFResult:
    """Test claim (f): humans beat most models on preferences but are weak on goals.

    Parameters
    ----------
    data : Scores or BootstrapResult
        Scores (bootstrapped here on the claim's metrics) or a bootstrap of scores to reuse.
    release : Release, optional
        When given, rater agreement on the pairwise selections and Q1 goals is attached (context
        only; it does not enter the verdict).
    correction : {"holm", "bh", "none"}, default "holm"
        Correction over the M human-mean-vs-model tests of each metric.
    preference_metric, secondary_preference_metric, goal_metric : str
        The metrics of the claim (see :data:`CLAIM_F_RULE`).
    humans, models, mode, method, unit, n_resamples, confidence_level, rng
        As in :func:`humans_vs_models`.

    Returns
    -------
    ClaimFResult
        ``verdict`` by the rule :data:`CLAIM_F_RULE`.

    Examples
    --------
    >>> import attunestats as at
    >>> release = at.load_bundled_release()                             # doctest: +SKIP
    >>> res = claim_f(at.score(release), release, n_resamples=2000, rng=1)  # doctest: +SKIP
    >>> res.verdict                                                     # doctest: +SKIP
    'supported'
    """
    metrics = [preference_metric, goal_metric]
    if secondary_preference_metric is not None:
        metrics.insert(1, secondary_preference_metric)
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"the claim's metrics must differ; got {metrics}")
    res = humans_vs_models(
        data, correction=correction, family="metric", metrics=metrics, humans=humans,
        models=models, mode=mode, method=method, unit=unit, n_resamples=n_resamples,
        confidence_level=confidence_level, rng=rng,
    )  # fmt: skip
    level = res.confidence_level
    alpha = 1.0 - level
    table = res.comparisons
    n_models = len(res.models)
    roles = {preference_metric: "preference", goal_metric: "goal"}
    if secondary_preference_metric is not None:
        roles[secondary_preference_metric] = "secondary_preference"
    for metric in (preference_metric, goal_metric):
        hib = res.summary.set_index("metric").loc[metric, "higher_is_better"]
        if hib is None or pd.isna(hib) or not bool(hib):
            raise ValueError(f"claim (f) needs metrics where higher is better; {metric!r} is not")

    def per_model(metric: str) -> pd.DataFrame:
        sel = (table["metric"] == metric) & (table["comparison"] == "human_mean - model")
        return table.loc[sel]

    pref = per_model(preference_metric)
    p_adj = pref["pvalue_adjusted"].to_numpy(dtype=float)
    diff = pref["difference"].to_numpy(dtype=float)
    n_beaten = int(np.sum((p_adj < alpha) & (diff > 0)))
    n_better_half = int(np.sum((p_adj < alpha / 2) & (diff < 0)))
    preference_supported = n_beaten > n_models / 2
    preference_contradicted = n_better_half >= n_models / 2

    goal = table.loc[
        (table["metric"] == goal_metric) & (table["comparison"] == "human_mean - model_mean")
    ].iloc[0]
    g_p, g_d = float(goal["pvalue"]), float(goal["difference"])
    goal_supported = g_p < alpha and g_d < 0
    goal_contradicted = g_p < alpha / 2 and g_d > 0
    if preference_contradicted or goal_contradicted:
        verdict = "contradicted"
    elif preference_supported and goal_supported:
        verdict = "supported"
    else:
        verdict = "inconclusive"

    evidence = res.summary.loc[res.summary["metric"].isin(metrics)].copy()
    evidence.insert(0, "role", evidence["metric"].map(roles))
    evidence = evidence.set_index("metric").loc[metrics].reset_index()
    evidence["comparisons_corrected_over"] = f"{n_models} models"
    agreement = None
    if release is not None:
        agreement = rater_agreement(
            release,
            predictors=list(res.humans),
            mode=mode,
            annotations=["pairwise", "q1_looking_for"],
            n_resamples=min(n_resamples, 2000),
            confidence_level=level,
            rng=rng if not isinstance(rng, np.random.Generator) else rng.spawn(1)[0],
        ).to_frame()
    return ClaimFResult(
        verdict=verdict,
        statement=CLAIM_F_STATEMENT,
        rule=CLAIM_F_RULE,
        preference_supported=bool(preference_supported),
        preference_contradicted=bool(preference_contradicted),
        goal_supported=bool(goal_supported),
        goal_contradicted=bool(goal_contradicted),
        evidence=evidence,
        comparisons=table.loc[table["metric"].isin(metrics)].reset_index(drop=True),
        correction=res.correction,
        confidence_level=level,
        n_humans=len(res.humans),
        n_models=n_models,
        simulated=res.simulated,
        agreement=agreement,
    )


# --------------------------------------------------------------------------------------------
# tables for notebook 07
# --------------------------------------------------------------------------------------------
def baseline_tables(
    release: Release,
    scores: Scores | None = None,
    *,
    correction: Literal["holm", "bh", "none"] = "holm",
    resample: Literal["conversation", "unit"] = "conversation",
    agreement_resamples: int = 2000,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RNGLike = None,
) -> dict[str, pd.DataFrame]:
    """Every table of the human-baseline analysis, from one call.

    Parameters
    ----------
    release : Release
    scores : Scores, optional
        ``attunestats.score(release)`` (computed here when absent).
    correction : {"holm", "bh", "none"}, default "holm"
    resample : {"conversation", "unit"}, default "conversation"
        Resampling of the agreement intervals.
    agreement_resamples : int, default 2000
        Resamples of the agreement intervals.
    n_resamples : int, default 10000
        Resamples of the score bootstrap (humans vs models and claim (f) share it).
    confidence_level : float, default 0.95
    rng : int, Generator or SeedSequence, optional
        Root seed; the agreement tables and the score bootstrap get independent child streams.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``rater_agreement``, ``rater_vs_participant``, ``rater_vs_participant_summary``,
        ``humans_vs_models``, ``humans_vs_models_summary`` and ``claim_f``; each has a
        ``simulated`` column.
    """
    from attunestats.metrics.score import score

    _check_release(release)
    if scores is None:
        scores = score(release)
    g_agree, g_part, g_boot = check_rng(rng).spawn(3)
    agree = rater_agreement(
        release, resample=resample, n_resamples=agreement_resamples,
        confidence_level=confidence_level, rng=g_agree,
    )  # fmt: skip
    part = rater_vs_participant(
        release, resample=resample, n_resamples=agreement_resamples,
        confidence_level=confidence_level, rng=g_part,
    )  # fmt: skip
    hvm = humans_vs_models(
        scores, correction=correction, n_resamples=n_resamples,
        confidence_level=confidence_level, rng=g_boot,
    )  # fmt: skip
    claim = claim_f(
        hvm.boot, correction=correction, humans=list(hvm.humans), models=list(hvm.models)
    )
    seed = seed_record(rng)
    tables = {
        "rater_agreement": agree.to_frame(),
        "rater_vs_participant": part.pairs.copy(),
        "rater_vs_participant_summary": part.summary.copy(),
        "humans_vs_models": hvm.comparisons.copy(),
        "humans_vs_models_summary": hvm.summary.copy(),
        "claim_f": claim.to_frame(),
    }
    for frame in tables.values():
        frame["root_seed"] = pd.Series([seed] * len(frame), dtype=object)
    return tables


# --------------------------------------------------------------------------------------------
# figures (matplotlib imported lazily)
# --------------------------------------------------------------------------------------------
def plot_rater_agreement(frame: pd.DataFrame, *, simulated: bool, title: str = "") -> Figure:
    """Krippendorff's alpha among the raters per annotation type, with intervals.

    ``frame`` is :meth:`RaterAgreementResult.to_frame` (or the ``rater_agreement`` table).
    """
    from attunestats.report.figures import forest_plot

    data = frame.loc[frame["alpha"].notna()].iloc[::-1].reset_index(drop=True)
    return forest_plot(
        data, estimate="alpha", label="annotation", xlabel="Krippendorff's alpha among raters",
        title=title, simulated=simulated, reference=0.0, sort=False,
    )  # fmt: skip


def plot_rater_vs_participant(summary: pd.DataFrame, *, simulated: bool, title: str = "") -> Figure:
    """Rater-rater minus rater-participant alpha per annotation type (paired intervals).

    ``summary`` is :attr:`ParticipantAgreementResult.summary`. Right of 0: the raters agree with
    each other more than with the participants.
    """
    from attunestats.report.figures import forest_plot

    data = summary.loc[summary["difference"].notna()].iloc[::-1].reset_index(drop=True)
    return forest_plot(
        data, estimate="difference", label="annotation",
        xlabel="alpha(rater-rater) - alpha(rater-participant)", title=title,
        simulated=simulated, reference=0.0, sort=False,
    )  # fmt: skip


def _unit_scale(metric: str) -> bool:
    from attunestats.metrics.registry import METRICS

    spec = METRICS.get(metric)
    return spec is not None and max(abs(spec.range[0]), abs(spec.range[1])) <= 1.0


def plot_humans_vs_models(
    frame: pd.DataFrame,
    *,
    simulated: bool,
    metric: str | None = None,
    metrics: Sequence[str] | None = None,
    title: str = "",
) -> Figure:
    """Humans minus models with paired intervals.

    Without ``metric``: ``frame`` is :attr:`HumansVsModelsResult.summary` and each row is a
    metric (mean of humans minus mean of models; by default the metrics on a 0-1 or -1-1 scale,
    ``metrics`` to choose). With ``metric``: ``frame`` is
    :attr:`HumansVsModelsResult.comparisons` and each row is a model (mean of humans minus that
    model), plus the mean of the models.
    """
    from attunestats.report.figures import forest_plot

    if metric is None:
        data = frame
        if metrics is not None:
            data = data.loc[data["metric"].isin(list(metrics))]
        else:
            data = data.loc[[_unit_scale(m) for m in data["metric"]]]
        data = data.assign(group=data["pillar"].fillna("composite").astype(str))
        data = data.iloc[::-1].reset_index(drop=True)
        fig = forest_plot(
            data, estimate="difference", label="metric", group="group",
            xlabel="mean of humans - mean of models", title=title, simulated=simulated,
            reference=0.0, sort=False,
        )  # fmt: skip
        return _legend_outside(fig)
    sel = (frame["metric"] == metric) & frame["comparison"].isin(
        ["human_mean - model", "human_mean - model_mean"]
    )
    data = frame.loc[sel].copy()
    if data.empty:
        raise ValueError(f"metric {metric!r} has no human_mean comparisons in frame")
    data["outcome"] = np.select(
        [data["human_better"], data["human_worse"]],
        ["humans better", "humans worse"],
        default="not significant",
    )
    fig = forest_plot(
        data, estimate="difference", label="model", group="outcome",
        xlabel=f"{metric}: mean of humans - model", title=title, simulated=simulated,
        reference=0.0, sort=True,
    )  # fmt: skip
    return _legend_outside(fig)


def _legend_outside(fig: Figure) -> Figure:
    """Move the legend of a one-axes figure to the right of the axes (never over the points)."""
    from attunestats.report.figures import style

    ax = fig.axes[0]
    if ax.get_legend() is not None:
        with style():
            ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    return fig


def plot_claim_f(result: ClaimFResult, *, width: float | None = None) -> Figure:
    """Two panels: mean of humans minus each model on the preference and on the goal metric."""
    import matplotlib.pyplot as plt

    from attunestats.report.figures import PAGE_WIDTH, mark_simulated, style

    ev = result.evidence.set_index("role")
    panels = [ev.loc["preference", "metric"], ev.loc["goal", "metric"]]
    comp = result.comparisons
    with style():
        fig, axes = plt.subplots(
            1, 2, figsize=(width or PAGE_WIDTH, max(1.8, 0.2 * (result.n_models + 1) + 1.0)),
            squeeze=False, layout="constrained",
        )  # fmt: skip
        for ax, metric in zip(axes[0], panels, strict=True):
            sub = comp.loc[
                (comp["metric"] == metric)
                & comp["comparison"].isin(["human_mean - model", "human_mean - model_mean"])
            ].sort_values("difference", kind="stable")
            y = np.arange(len(sub))
            est = sub["difference"].to_numpy(dtype=float)
            err = np.vstack(
                [est - sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float) - est]
            )
            colour = np.where(sub["human_better"], "C0", np.where(sub["human_worse"], "C3", "0.5"))
            for k in range(len(sub)):
                ax.errorbar(est[k], y[k], xerr=err[:, k : k + 1], fmt="o", color=colour[k])
            ax.axvline(0.0, color="0.4", linewidth=0.6, linestyle="--")
            ax.set_yticks(y, sub["model"].astype(str).tolist())
            ax.set_xlabel(f"{metric}: humans - model")
            ax.grid(axis="y", visible=False)
        fig.suptitle(f"claim (f): {result.verdict} ({result.correction} correction)")
        mark_simulated(fig, result.simulated)
    return fig
