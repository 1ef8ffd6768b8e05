"""Common ground: the units one human rater actually rated, for comparing the rater with models.

A human rater of the baseline does not rate everything the models predict: a run can be missing,
a turn can be left out of a run, a binary question can go unanswered, a pairwise comparison can
be left without a selection and the post-conversation questionnaire can be skipped. The official
scorer reads a missing answer as an answer ("no" for a binary question, a wrong pairwise
selection, the midpoint or a fixed penalty for the questionnaire), so on *all* units a model that
answers exactly like the rater wherever the rater answered can still differ from the rater. The
comparison of a rater with the models is therefore made on the rater's **common ground**
(:func:`common_ground`), where every predictor is scored on the same units.

The rule (:data:`COMMON_GROUND_RULE`)
-------------------------------------
For rater ``r`` (and the compared models, in one run mode):

conversations
    those where ``r`` has a run *and every compared model has a run* (a unit a model lacks cannot
    be compared; such conversations are counted as left out);
turns
    the turns of those conversations that ``r``'s runs contain and every model's runs contain;
binary judgements
    a ground-truth judgement of a common turn is kept when ``r`` answered it (``yes``, ``no`` or
    ``na``) in **every** binary task in which it is scored (``om`` and ``om_hp`` score it when
    its OM reference, observedBehavior else llmValue, is yes/no; ``human`` and ``human_hp`` when
    its HP reference, preferredBehavior else observedBehavior, is yes/no). A judgement the rater
    answered in some of those tasks but not in others is left out of all four (counted as
    ``n_binary_partial``): keeping it would score the rater's missing answer as "no" in the
    tasks it skipped, so a model answering like the rater wherever the rater answered could
    still differ. Dropping it from all tasks keeps one set of judgements for the four tasks and
    keeps every comparison exact. (The ground-truth table is shared by the four tasks, so a
    judgement cannot be dropped from one task alone.) Judgements scored in no task are kept as
    they are (they count in no confusion matrix);
pairwise comparisons
    the comparisons of a common turn for which ``r`` made a selection (A or B);
conversation-level (holistic) metrics
    compared only in the conversations where ``r`` gave the predictions they score; elsewhere they
    are masked (null) for every predictor: the PANAS total metrics where ``r``'s predicted post PA
    (and/or NA) is missing, the PANAS item metrics where ``r`` lacks an item the participant
    rated, Q2 and Q3 where ``r``'s answer is missing, Q1 goals and the Q3 follow-up where ``r``
    left the whole questionnaire block (Q1, Q2, Q3, follow-up, four branches) unanswered (an
    empty list in an answered block is the empty answer), the four-branch metrics where ``r``
    lacks a branch the participant rated; the holistic pillar, the conversation-wide averages and
    both composites wherever one of their holistic inputs is masked. Metrics averaged over turns
    are masked in a conversation without common turns. Metrics a user registered (not built in)
    are masked wherever anything is.

Ground-truth rows outside the common ground are removed from the release (turns, emotion tags,
judgements, comparisons), prediction rows outside it are removed for every predictor, and the
conversations table is kept whole (so every rater's common ground has the same participants and
conversations, and their statistics can be combined in one participant-level inference). Turn
averages then follow the scorer unchanged; one consequence is stated, not hidden: a common turn
whose judgements (or comparisons) were all left out is a turn without judgements (comparisons) for
every predictor, scored by the scorer's convention for such turns (1 for the OM/HP and pairwise
accuracies, the ``hp_accuracy_no_judgements`` convention for the HP-wording ones); it adds 0 to
every difference, and its number is reported (``n_turns_binary_emptied``,
``n_turns_pairwise_emptied``).

Informative gaps: in real data, a rater may skip a question more often when unsure; the common
ground compares rater and models where the rater answered, which is the question the baseline
asks ("how good is this person where they gave an answer"), not how often they answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from attunestats import constants as K
from attunestats._results import ResultMixin
from attunestats.baseline._checks import _check_release

if TYPE_CHECKING:
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

__all__ = ["COMMON_GROUND_RULE", "CommonGround", "common_ground", "mask_scores"]

#: The common-ground rule in one paragraph (recorded with every comparison on common ground).
COMMON_GROUND_RULE = (
    "Common ground of a rater: the conversations where the rater and every compared model have a "
    "run; their turns that the rater's and every model's runs contain; the binary judgements of "
    "those turns that the rater answered (yes/no/na) in every task in which they are scored (a "
    "judgement answered in some of its tasks only is left out of all four tasks, so that no "
    "missing answer is scored as 'no'); the pairwise comparisons of those turns with a selection "
    "by the rater; and, for conversation-level metrics, the conversations where the rater gave "
    "the predictions the metric scores (elsewhere the metric, the holistic pillar and the "
    "composites are masked for every predictor). Every predictor is scored on exactly these units."
)

_TURN_KEY = ["conversation_id", "turn"]
_PANAS_PA = ("panas_pa_mae", "panas_pa_normalized", "panas_pa_baseline_adjusted")
_PANAS_NA = ("panas_na_mae", "panas_na_normalized", "panas_na_baseline_adjusted")
_PANAS_BOTH = ("panas_mae", "panas_normalized", "panas_baseline_adjusted", "panas_score")
_PANAS_ITEMS = ("panas_item_mae", "panas_item_normalized", "panas_item_baseline_adjusted")
_HOLISTIC_ALL = ("holistic_comprehension", "conversation_wide_average")
_COMPOSITES = ("composite_score", "equal_weight_composite")
_TURN_SIDE = (
    "avg_emotion_hit_rate_tagged_only", "hp_perspective_gap", "hp_perspective_alignment",
    "hp_perspective_gap_mcc", "hp_perspective_alignment_mcc", "emotion_tracking",
    "evaluation_quality", "turn_level_average",
)  # fmt: skip


def metric_requirements() -> dict[str, tuple[str, ...]]:
    """For every conversation-level metric, the rater's inputs it needs (condition names).

    Conditions: ``turns`` (the conversation has common turns), ``pa``, ``na`` (PANAS totals),
    ``items`` (every PANAS item the participant rated), ``block`` (the questionnaire block),
    ``q2``, ``q3``, ``fb`` (every rated four-branch score), ``fb_<branch>``. Pooled binary metrics
    need nothing (they are sums of confusion counts over the common judgements). A metric that a
    user registered needs every condition.
    """
    from attunestats.metrics.registry import iter_specs

    holistic = ("pa", "na", "block", "q2", "q3", "fb")
    fixed: dict[str, tuple[str, ...]] = {}
    for name in _PANAS_PA:
        fixed[name] = ("pa",)
    for name in _PANAS_NA:
        fixed[name] = ("na",)
    for name in _PANAS_BOTH:
        fixed[name] = ("pa", "na")
    for name in _PANAS_ITEMS:
        fixed[name] = ("items",)
    fixed["q1_looking_for_score"] = ("block",)
    fixed["q2_emotion_clarity_match"] = ("q2",)
    fixed["q3_model_fit_match"] = ("q3",)
    fixed["q3_model_fit_ordinal_distance"] = ("q3",)
    fixed["q3_follow_up_score"] = ("block",)
    fixed["conversation_wide_questions_score"] = ("block", "q2", "q3")
    fixed["four_branch_mae"] = ("fb",)
    fixed["four_branch_normalized"] = ("fb",)
    for b in K.FOUR_BRANCHES:
        fixed[f"four_branch_error_{b}"] = (f"fb_{b}",)
    for name in _HOLISTIC_ALL:
        fixed[name] = holistic
    for name in _COMPOSITES:
        fixed[name] = ("turns", *holistic)
    for name in _TURN_SIDE:
        fixed[name] = ("turns",)
    everything = ("turns", "items", *holistic, *(f"fb_{b}" for b in K.FOUR_BRANCHES))
    out = {}
    for spec in iter_specs("conversation"):
        if spec.aggregation == "pooled":
            out[spec.name] = ()
        elif spec.source is not None:
            out[spec.name] = ("turns",)
        elif spec.name in fixed:
            out[spec.name] = fixed[spec.name]
        else:  # a metric registered by a user (or a new built-in): masked wherever anything is
            out[spec.name] = everything
    return out


# --------------------------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class CommonGround(ResultMixin):
    """The units one rater rated, as a restricted release, and what is masked where.

    Attributes
    ----------
    rater : str
    mode : str
    models : tuple of str
        The compared models (their runs are kept; other predictors are dropped).
    release : Release
        The release restricted to the common ground (ground-truth turns, emotion tags, judgements
        and comparisons outside it removed; prediction rows of the rater and the models outside
        it removed; the conversations and participants tables unchanged).
    masked : pandas.DataFrame
        ``conversation_id``, ``metric``: conversation-level metrics not compared in that
        conversation (null for every predictor after :meth:`score`).
    counts : Mapping[str, int]
        ``n_conversations``, ``n_turns``, ``n_binary_judgements``, ``n_pairwise_comparisons`` of
        the common ground, ``n_holistic_conversations`` (conversations where the composite is
        compared), and what was left out: ``n_conversations_rater`` / ``n_turns_rater`` (what
        the rater has), ``n_conversations_models_lack`` / ``n_turns_models_lack`` (left out
        because a model lacks them), ``n_binary_partial`` (answered in some scored tasks only),
        ``n_binary_unanswered``, ``n_pairwise_unselected``, ``n_turns_binary_emptied`` /
        ``n_turns_pairwise_emptied`` (common turns whose judgements / comparisons were all left
        out), and per holistic input the conversations where the rater's is missing
        (``n_missing_pa``, ``n_missing_na``, ``n_missing_items``, ``n_missing_block``,
        ``n_missing_q2``, ``n_missing_q3``, ``n_missing_fb``).
    """

    rater: str
    mode: str
    models: tuple[str, ...]
    release: Any = field(repr=False)
    masked: pd.DataFrame = field(repr=False)
    counts: Mapping[str, int]
    simulated: bool = False

    _title = "Common ground of a rater and the models"

    def to_frame(self) -> pd.DataFrame:
        """One row per count (``quantity``, ``value``)."""
        return pd.DataFrame({"quantity": list(self.counts), "value": list(self.counts.values())})

    def _estimand(self) -> str:
        return f"the units rater {self.rater!r} rated (mode {self.mode!r})"

    def _method(self) -> str:
        return "ground truth and predictions restricted to the rater's units; metrics masked"

    def _summary_notes(self) -> list[str]:
        return [f"rule: {COMMON_GROUND_RULE}"]

    def score(self, *, options: Any = None) -> Scores:
        """Score the rater and the models on the common ground (masked metrics are null)."""
        from attunestats.metrics.score import score

        return mask_scores(score(self.release, options=options), self.masked)


# --------------------------------------------------------------------------------------------
# building the common ground
# --------------------------------------------------------------------------------------------
def _keys(frame: pd.DataFrame, columns: Sequence[str]) -> pd.MultiIndex:
    return pd.MultiIndex.from_frame(
        frame[list(columns)].astype({c: object for c in columns if c != "turn"})
    )


def _isin(frame: pd.DataFrame, keys: pd.MultiIndex, columns: Sequence[str]) -> np.ndarray:
    if len(frame) == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(_keys(frame, columns).isin(keys), dtype=bool)


def _check_predictors(release: Release, rater: Any, models: Any, mode: str) -> list[str]:
    table = release.tables["predictors"]
    names = set(table["predictor"].astype(str))
    if not isinstance(rater, str):
        raise TypeError(f"rater must be a predictor name (str); got {rater!r}")
    if rater not in names:
        raise ValueError(f"rater {rater!r} is not a predictor of the release; have {sorted(names)}")
    runs = release.tables["runs"]
    in_mode = set(runs.loc[runs["mode"] == mode, "predictor"].astype(str))
    if rater not in in_mode:
        modes = sorted(set(runs.loc[runs["predictor"] == rater, "mode"].astype(str)))
        raise ValueError(f"rater {rater!r} has no runs in mode {mode!r}; its modes: {modes}")
    if models is None:
        kinds = dict(zip(table["predictor"].astype(str), table["kind"].astype(str), strict=True))
        models = sorted(p for p in in_mode if kinds.get(p) == "model")
    else:
        models = [models] if isinstance(models, str) else [str(m) for m in models]
        unknown = sorted(set(models) - in_mode)
        if unknown:
            raise ValueError(f"models {unknown} have no runs in mode {mode!r}")
    models = sorted(dict.fromkeys(m for m in models if m != rater))
    if not models:
        raise ValueError(f"no model to compare rater {rater!r} with (mode {mode!r})")
    return models


def common_ground(
    release: Release,
    rater: str,
    *,
    models: Sequence[str] | None = None,
    mode: str = "default",
) -> CommonGround:
    """Restrict a release to the units ``rater`` rated (see :data:`COMMON_GROUND_RULE`).

    Parameters
    ----------
    release : Release
    rater : str
        A predictor of the release (usually a human rater).
    models : sequence of str, optional
        The predictors compared with the rater (default: every predictor of kind ``"model"``
        with runs in ``mode``). Their runs must contain a unit for it to be in the common ground.
    mode : str, default "default"

    Returns
    -------
    CommonGround
        The restricted release, the masks of conversation-level metrics and the counts;
        :meth:`CommonGround.score` scores it.

    Examples
    --------
    >>> import attunestats as at
    >>> ground = common_ground(at.load_bundled_release(), "sim-human-1")  # doctest: +SKIP
    >>> ground.counts["n_turns"], ground.counts["n_binary_partial"]       # doctest: +SKIP
    >>> scores = ground.score()                                            # doctest: +SKIP
    """
    _check_release(release)
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string; got {mode!r}")
    models = _check_predictors(release, rater, models, mode)
    t = release.tables
    keep_pred = [rater, *models]
    n_models = len(models)

    # conversations: the rater's and every model's runs
    runs = t["runs"]
    runs = runs.loc[(runs["mode"] == mode) & runs["predictor"].isin(keep_pred)]
    per_conv = runs.groupby("conversation_id", sort=True)["predictor"].agg(set)
    rater_convs = sorted(c for c, s in per_conv.items() if rater in s)
    convs = [c for c in rater_convs if len(per_conv[c] - {rater}) == n_models]
    conv_set = pd.Index(convs, dtype=object)

    # turns: the rater's and every model's run turns
    pt = t["pred_turns"]
    pt = pt.loc[(pt["mode"] == mode) & pt["predictor"].isin(keep_pred)]
    pt = pt.loc[pt["conversation_id"].isin(conv_set)]
    rater_turns = pt.loc[pt["predictor"] == rater, _TURN_KEY].drop_duplicates()
    model_rows = pt.loc[pt["predictor"] != rater]
    have = model_rows.groupby(_TURN_KEY, sort=False)["predictor"].nunique()
    full = have.index[have.to_numpy() == n_models]
    turn_keys = _keys(rater_turns, _TURN_KEY)
    turn_keys = turn_keys[turn_keys.isin(full)].sort_values()
    all_rater_turns = t["pred_turns"]
    all_rater_turns = all_rater_turns.loc[
        (all_rater_turns["predictor"] == rater) & (all_rater_turns["mode"] == mode)
    ]

    # binary judgements: answered in every scored task
    from attunestats.baseline.annotations import _binary_references
    from attunestats.metrics.registry import BINARY_TASKS

    refs = _binary_references(release)
    refs = refs.loc[_isin(refs, turn_keys, _TURN_KEY)]
    jkey = [*_TURN_KEY, "question_id"]
    pb = t["pred_binary"]
    pb = pb.loc[
        (pb["predictor"] == rater)
        & (pb["mode"] == mode)
        & pb["task"].isin(list(BINARY_TASKS))
        & pb["value"].notna()
    ]
    answered = _keys(pb, [*jkey, "task"])
    refs = refs.assign(answered=_isin(refs, answered, [*jkey, "task"]))
    per_judgement = refs.groupby(jkey, sort=False)["answered"].agg(["all", "any"])
    dropped = per_judgement.loc[~per_judgement["all"]]
    drop_keys = dropped.index
    bj = t["binary_judgements"]
    bj_turn = _isin(bj, turn_keys, _TURN_KEY)
    bj_keep = bj_turn & ~_isin(bj, drop_keys, jkey)
    scored_keys = per_judgement.index
    n_binary = int(np.sum(_isin(bj.loc[bj_keep], scored_keys, jkey)))

    # pairwise comparisons: selected by the rater
    ckey = [*_TURN_KEY, "comparison"]
    pp = t["pred_pairwise"]
    pp = pp.loc[
        (pp["predictor"] == rater) & (pp["mode"] == mode) & pp["selection"].isin(["A", "B"])
    ]
    pc = t["pairwise_comparisons"]
    pc_turn = _isin(pc, turn_keys, _TURN_KEY)
    pc_keep = pc_turn & _isin(pc, _keys(pp, ckey), ckey)

    def emptied(frame: pd.DataFrame, in_turn: np.ndarray, keep: np.ndarray) -> int:
        before = frame.loc[in_turn].groupby(_TURN_KEY).size()
        after = frame.loc[keep].groupby(_TURN_KEY).size()
        return int(len(before.index.difference(after.index)))

    scored_turn = np.zeros(len(bj), dtype=bool)
    scored_turn[bj_turn] = _isin(bj.loc[bj_turn], scored_keys, jkey)
    n_binary_emptied = emptied(bj, scored_turn, bj_keep & scored_turn)
    n_pairwise_emptied = emptied(pc, pc_turn, pc_keep)

    # the restricted tables
    tables = dict(t)
    gt_turns = t["turns"]
    tables["turns"] = gt_turns.loc[_isin(gt_turns, turn_keys, _TURN_KEY)].reset_index(drop=True)
    tags = t["emotion_tags"]
    tables["emotion_tags"] = tags.loc[_isin(tags, turn_keys, _TURN_KEY)].reset_index(drop=True)
    tables["binary_judgements"] = bj.loc[bj_keep].reset_index(drop=True)
    tables["pairwise_comparisons"] = pc.loc[pc_keep].reset_index(drop=True)
    for name in ("runs", "pred_panas_items", "pred_survey_choices"):
        frame = t[name]
        sel = (
            (frame["mode"] == mode)
            & frame["predictor"].isin(keep_pred)
            & frame["conversation_id"].isin(conv_set)
        )
        tables[name] = frame.loc[sel].reset_index(drop=True)
    for name in ("pred_turns", "pred_emotion_tags", "pred_binary", "pred_pairwise"):
        frame = t[name]
        sel = (frame["mode"] == mode) & frame["predictor"].isin(keep_pred)
        sel = sel.to_numpy() & _isin(frame, turn_keys, _TURN_KEY)
        tables[name] = frame.loc[sel].reset_index(drop=True)
    preds = t["predictors"]
    tables["predictors"] = preds.loc[preds["predictor"].isin(keep_pred)].reset_index(drop=True)
    restricted = replace(release, tables=MappingProxyType(tables))

    # holistic inputs of the rater, per common conversation
    conditions = _conditions(release, rater, mode, convs, turn_keys)
    requirements = metric_requirements()
    masked_rows = []
    for metric, needs in requirements.items():
        if not needs:
            continue
        ok = np.ones(len(convs), dtype=bool)
        for need in needs:
            ok &= conditions[need]
        masked_rows += [(c, metric) for c in np.asarray(convs, dtype=object)[~ok]]
    masked = pd.DataFrame(masked_rows, columns=["conversation_id", "metric"]).astype(object)
    composite_ok = np.ones(len(convs), dtype=bool)
    for need in requirements.get("composite_score", ()):
        composite_ok &= conditions[need]

    counts = {
        "n_conversations": len(convs),
        "n_turns": len(turn_keys),
        "n_binary_judgements": n_binary,
        "n_pairwise_comparisons": int(pc_keep.sum()),
        "n_holistic_conversations": int(composite_ok.sum()),
        "n_conversations_rater": len(rater_convs),
        "n_conversations_models_lack": len(rater_convs) - len(convs),
        "n_turns_rater": int(len(all_rater_turns[_TURN_KEY].drop_duplicates())),
        "n_turns_models_lack": int(len(rater_turns)) - len(turn_keys),
        "n_binary_partial": int((dropped["any"]).sum()),
        "n_binary_unanswered": int((~dropped["any"]).sum()),
        "n_pairwise_unselected": int(pc_turn.sum() - pc_keep.sum()),
        "n_turns_binary_emptied": n_binary_emptied,
        "n_turns_pairwise_emptied": n_pairwise_emptied,
        **{f"n_missing_{k}": int(np.sum(~conditions[k]))
           for k in ("pa", "na", "items", "block", "q2", "q3", "fb")},
    }  # fmt: skip
    return CommonGround(
        rater=rater,
        mode=mode,
        models=tuple(models),
        release=restricted,
        masked=masked,
        counts=MappingProxyType(counts),
        simulated=bool(release.simulated),
    )


def _conditions(
    release: Release, rater: str, mode: str, convs: Sequence[str], turn_keys: pd.MultiIndex
) -> dict[str, np.ndarray]:
    """Per common conversation: which of the rater's inputs are there (see metric_requirements)."""
    t = release.tables
    index = pd.Index(list(convs), dtype=object)
    runs = t["runs"]
    rr = runs.loc[(runs["predictor"] == rater) & (runs["mode"] == mode)]
    rr = rr.assign(conversation_id=rr["conversation_id"].astype(object))
    rr = rr.drop_duplicates("conversation_id").set_index("conversation_id").reindex(index)
    conv = t["conversations"].assign(
        conversation_id=t["conversations"]["conversation_id"].astype(object)
    ).set_index("conversation_id").reindex(index)  # fmt: skip
    out: dict[str, np.ndarray] = {
        "pa": rr["pred_post_pa"].notna().to_numpy(),
        "na": rr["pred_post_na"].notna().to_numpy(),
        "q2": rr["q2_emotion_clarity"].notna().to_numpy(),
        "q3": rr["q3_model_fit"].notna().to_numpy(),
    }
    fb_all = np.ones(len(index), dtype=bool)
    fb_any = np.zeros(len(index), dtype=bool)
    for b in K.FOUR_BRANCHES:
        has = rr[f"fb_{b}"].notna().to_numpy()
        rated = conv[f"fb_{b}"].notna().to_numpy()
        out[f"fb_{b}"] = has | ~rated
        fb_all &= out[f"fb_{b}"]
        fb_any |= has
    out["fb"] = fb_all
    ps = t["pred_survey_choices"]
    ps = ps.loc[(ps["predictor"] == rater) & (ps["mode"] == mode) & ps["value"].notna()]
    listed = index.isin(pd.Index(ps["conversation_id"].astype(object).unique(), dtype=object))
    out["block"] = np.asarray(listed) | out["q2"] | out["q3"] | fb_any
    # PANAS items: every item the participant rated post-conversation
    gt_items = t["panas_items"]
    gt_items = gt_items.loc[(gt_items["time"] == "post") & gt_items["value"].notna()]
    pi = t["pred_panas_items"]
    pi = pi.loc[(pi["predictor"] == rater) & (pi["mode"] == mode) & pi["value"].notna()]
    need = gt_items[["conversation_id", "item"]].astype(object)
    got = _keys(pi, ["conversation_id", "item"])
    lacking = need.loc[~np.asarray(_keys(need, ["conversation_id", "item"]).isin(got), bool)]
    out["items"] = ~np.asarray(index.isin(pd.Index(lacking["conversation_id"].unique(),
                                                   dtype=object)))  # fmt: skip
    with_turns = pd.Index(turn_keys.get_level_values(0).unique(), dtype=object)
    out["turns"] = np.asarray(index.isin(with_turns))
    return out


# --------------------------------------------------------------------------------------------
# masking scores
# --------------------------------------------------------------------------------------------
def mask_scores(scores: Scores, masked: pd.DataFrame) -> Scores:
    """``scores`` with the conversation-level values at ``masked`` (conversation, metric) null
    for every predictor, and the predictor-level means recomputed from what is left.

    Pooled metrics (sums of confusion counts) are not masked; ``composite_z`` is recomputed.
    """
    from attunestats.metrics.composite import composite_z
    from attunestats.metrics.registry import METRICS

    if masked is None or len(masked) == 0:
        return scores
    conv = scores.conversation.copy()
    keys = pd.MultiIndex.from_frame(masked[["conversation_id", "metric"]].astype(object))
    hit = np.asarray(
        pd.MultiIndex.from_frame(conv[["conversation_id", "metric"]].astype(object)).isin(keys),
        dtype=bool,
    )
    conv.loc[hit, "value"] = np.nan
    conv.attrs.update(scores.conversation.attrs)
    mean_metrics = [m for m, s in METRICS.items() if s.aggregation == "mean"]
    sub = conv.loc[conv["metric"].isin(mean_metrics)]
    grouped = sub.groupby(["predictor", "mode", "metric"], sort=False)["value"]
    stats_ = grouped.agg(["mean", "std", "count"]).reset_index()
    pred = scores.predictor.copy()
    key = ["predictor", "mode", "metric"]
    merged = (
        pred[key]
        .astype(object)
        .merge(
            stats_.astype({"predictor": object, "mode": object, "metric": object}),
            on=key,
            how="left",
        )
    )
    is_mean = pred["metric"].isin(mean_metrics).to_numpy() & merged["count"].notna().to_numpy()
    n = merged["count"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(n > 1, merged["std"].to_numpy(dtype=float) / np.sqrt(n), np.nan)
    pred.loc[is_mean, "value"] = merged["mean"].to_numpy(dtype=float)[is_mean]
    pred.loc[is_mean, "standard_error"] = se[is_mean]
    pred.loc[is_mean, "n"] = n[is_mean].astype(np.int64)
    comp = (pred["metric"] == "composite_score").to_numpy()
    zrows = (pred["metric"] == "composite_z").to_numpy()
    if comp.sum() == zrows.sum() and comp.any():
        # composite_z rows follow the composite rows' predictor order (score() builds them so)
        order_c = pred.loc[comp, ["predictor", "mode"]].astype(str).agg("/".join, axis=1)
        order_z = pred.loc[zrows, ["predictor", "mode"]].astype(str).agg("/".join, axis=1)
        z = pd.Series(composite_z(pred.loc[comp, "value"].to_numpy(dtype=float)),
                      index=order_c.to_numpy())  # fmt: skip
        pred.loc[zrows, "value"] = z.reindex(order_z.to_numpy()).to_numpy()
    pred.attrs.update(scores.predictor.attrs)
    return replace(scores, conversation=conv, predictor=pred)
