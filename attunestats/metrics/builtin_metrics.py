"""The built-in metrics: the spec of every metric ``score()`` computes with its own kernels.

Each entry of :data:`BUILTIN_SPECS` holds the keyword arguments of one
:class:`~attunestats.metrics.registry.MetricSpec`, in registration order;
:mod:`attunestats.metrics.registry` registers them (and the conversation-level ``avg_``
counterpart of every turn metric) when it is imported. To add a built-in metric, extend a kernel
(:mod:`attunestats.metrics.turn` or :mod:`attunestats.metrics.conversation`) and add its spec
here; custom metrics use :func:`~attunestats.metrics.registry.register_metric` instead.

Plain data: this module imports only :mod:`attunestats.constants`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from attunestats.constants import FOUR_BRANCHES, PILLARS

#: Binary tasks with confusion counts (spec 2.2): OM assessment, HP prediction, and the same two
#: asked with the HP-facing wording.
BINARY_TASKS: tuple[str, ...] = ("om", "human", "om_hp", "human_hp")
POOLED_STATS: tuple[str, ...] = ("accuracy", "precision", "recall", "f1", "mcc")

_INF = float("inf")
_UNIT = (0.0, 1.0)
_SPECS: list[dict[str, Any]] = []


def _spec(name, level, rng, hib, pillar, cap, desc, **options):
    """Declare one metric: the positional fields of ``MetricSpec``, then its options."""
    _SPECS.append({
        "name": name, "level": level, "range": rng, "higher_is_better": hib, "pillar": pillar,
        "capability": cap, "description": desc, **options,
    })  # fmt: skip


def _turn(name, rng, hib, pillar, cap, desc, *, nullable=False, in_composite=False):
    _spec(name, "turn", rng, hib, pillar, cap, desc, nullable=nullable,
          in_composite=in_composite)  # fmt: skip


def _conv(name, rng, hib, pillar, cap, desc, *, nullable=False, in_composite=False):
    _spec(name, "conversation", rng, hib, pillar, cap, desc, nullable=nullable,
          in_composite=in_composite)  # fmt: skip


_ET, _EQ, _HC = PILLARS  # emotion_tracking, evaluation_quality, holistic_comprehension

# --- emotion tracking (spec 2.1) ---------------------------------------------------------------
_turn(
    "emotion_hit_rate",
    _UNIT,
    True,
    _ET,
    "emotion",
    "|P ∩ G| / |G| of predicted vs ground-truth tag sets; 1 if both empty, 0 if only G empty",
)
_turn(
    "emotion_precision",
    _UNIT,
    True,
    _ET,
    "emotion",
    "exact-tag precision tp / |P| (1 if both sets empty, 0 if only G empty)",
)
_turn(
    "emotion_recall",
    _UNIT,
    True,
    _ET,
    "emotion",
    "exact-tag recall tp / |G| (1 if both sets empty, 0 if only G empty)",
)
_turn(
    "emotion_f1",
    _UNIT,
    True,
    _ET,
    "emotion",
    "exact-tag F1 of predicted vs ground-truth tag sets (1 if both empty)",
    in_composite=True,
)
_turn(
    "emotion_f1_intensity",
    _UNIT,
    True,
    _ET,
    "emotion",
    "emotion F1 x mean (1 - |iG - iP| / 6) over matched tags with both intensities",
)
_turn(
    "emotion_intensity_mae",
    (0.0, 6.0),
    False,
    _ET,
    "emotion",
    "mean |iG - iP| over matched tags with both intensities; null if none",
    nullable=True,
)
_turn(
    "emotion_va_score",
    _UNIT,
    True,
    _ET,
    "emotion",
    "valence-arousal similarity of matched tags (one-to-one assignment) x coverage",
    in_composite=True,
)
_turn(
    "emotion_va_intensity_score",
    _UNIT,
    True,
    _ET,
    "emotion",
    "as emotion_va_score with similarity 0.7 VA + 0.3 intensity similarity",
)
# --- binary behaviour judgements (spec 2.2) ------------------------------------------------------
_turn(
    "binary_om_accuracy",
    _UNIT,
    True,
    _EQ,
    "behaviour",
    "accuracy of 'did the OM show the behaviour' vs observed (1 if the turn has no judgements)",
    in_composite=True,
)
_turn(
    "binary_human_accuracy",
    _UNIT,
    True,
    _EQ,
    "behaviour",
    "accuracy of 'how would the HP answer' vs preferred (1 if the turn has no judgements)",
    in_composite=True,
)
_turn(
    "binary_om_accuracy_hp",
    _UNIT,
    True,
    _EQ,
    "behaviour",
    "binary OM accuracy with the HP-facing wording (no-judgement turns: see conventions)",
)
_turn(
    "binary_human_accuracy_hp",
    _UNIT,
    True,
    _EQ,
    "behaviour",
    "binary HP accuracy with the HP-facing wording (no-judgement turns: see conventions)",
)
# --- preference prediction (spec 2.3) ------------------------------------------------------------
_turn(
    "pairwise_accuracy",
    _UNIT,
    True,
    _EQ,
    "preference",
    "share of the turn's pairwise comparisons whose winner was predicted (1 if none)",
    in_composite=True,
)
_turn(
    "pairwise_kendall_tau",
    (-1.0, 1.0),
    True,
    _EQ,
    "preference",
    "Kendall tau between win-count rankings of the response labels; null if < 2 labels or no "
    "prediction",
    nullable=True,
)
# --- draft responses (spec 2.4; not in the composite) -------------------------------------------
_turn(
    "response_similarity",
    _UNIT,
    True,
    None,
    "response",
    "max token Jaccard of the EM draft vs original / model-improved / human-edited reply",
)
_turn(
    "response_similarity_original",
    _UNIT,
    True,
    None,
    "response",
    "token Jaccard of the EM draft vs the original (OM) reply",
)
_turn(
    "response_similarity_llm_improved",
    _UNIT,
    True,
    None,
    "response",
    "token Jaccard of the EM draft vs the model-improved reply",
)
_turn(
    "response_similarity_human_edited",
    _UNIT,
    True,
    None,
    "response",
    "token Jaccard of the EM draft vs the human-edited reply",
)
_turn(
    "response_preference_alignment",
    _UNIT,
    True,
    None,
    "response",
    "token Jaccard of the draft vs each reply weighted by the reply's share of pairwise wins",
)
_turn(
    "draft_judge_score",
    _UNIT,
    True,
    None,
    "response",
    "judge's mean 1-7 score of the draft rescaled to 0-1; null if no judge",
    nullable=True,
)
_turn(
    "draft_binary_alignment",
    _UNIT,
    True,
    None,
    "response",
    "share of yes/no-GT behaviour questions where the judge's answer about the draft matches "
    "the HP's preference; null without judge answers",
    nullable=True,
)

_conv(
    "avg_emotion_hit_rate_tagged_only",
    _UNIT,
    True,
    _ET,
    "emotion",
    "mean emotion hit rate over turns with at least one ground-truth tag",
    nullable=True,
)

# --- pooled binary metrics (spec 2.2) -------------------------------------------------------------
_TASK_WORDS = {
    "om": "OM assessment",
    "human": "HP prediction",
    "om_hp": "OM assessment (HP-facing wording)",
    "human_hp": "HP prediction (HP-facing wording)",
}
for _task in BINARY_TASKS:
    for _stat in POOLED_STATS:
        _spec(
            f"pooled_binary_{_task}_{_stat}", "conversation",
            (-1.0, 1.0) if _stat == "mcc" else _UNIT, True, _EQ, "behaviour",
            f"{_stat} of the {_TASK_WORDS[_task]} confusion counts summed over turns "
            "(predictor level: over all turns of all conversations)",
            aggregation="pooled", pooled_task=_task, pooled_stat=_stat,
        )  # fmt: skip

_conv(
    "hp_perspective_gap",
    (-1.0, 1.0),
    None,
    _EQ,
    "behaviour",
    "avg_binary_human_accuracy - avg_binary_human_accuracy_hp",
)
_conv(
    "hp_perspective_alignment",
    (0.0, _INF),
    None,
    _EQ,
    "behaviour",
    "avg_binary_human_accuracy_hp / avg_binary_human_accuracy (0 if the denominator is 0)",
)
_conv(
    "hp_perspective_gap_mcc",
    (-2.0, 2.0),
    None,
    _EQ,
    "behaviour",
    "pooled human MCC - pooled human_hp MCC of the conversation",
)
_conv(
    "hp_perspective_alignment_mcc",
    (-_INF, _INF),
    None,
    _EQ,
    "behaviour",
    "pooled human_hp MCC / pooled human MCC (zero rule: see conventions)",
)

# --- post-conversation (spec 2.5) -------------------------------------------------------------------
_conv(
    "panas_mae",
    (0.0, 60.0),
    False,
    _HC,
    "holistic",
    "mean of the PA and NA total errors |actual - predicted| (missing side -> 40)",
)
_conv("panas_normalized", _UNIT, True, _HC, "holistic", "max(0, 1 - panas_mae / 60)")
_conv(
    "panas_pa_mae",
    (0.0, 60.0),
    False,
    _HC,
    "holistic",
    "|actual - predicted| positive-affect total (0 if both missing)",
)
_conv(
    "panas_na_mae",
    (0.0, 60.0),
    False,
    _HC,
    "holistic",
    "|actual - predicted| negative-affect total (0 if both missing)",
)
_conv("panas_pa_normalized", _UNIT, True, _HC, "holistic", "max(0, 1 - panas_pa_mae / 60)")
_conv("panas_na_normalized", _UNIT, True, _HC, "holistic", "max(0, 1 - panas_na_mae / 60)")
_conv(
    "panas_pa_baseline_adjusted",
    (-1.0, 1.0),
    True,
    _HC,
    "holistic",
    "PA prediction skill relative to 'no change' (null if post == pre)",
    nullable=True,
)
_conv(
    "panas_na_baseline_adjusted",
    (-1.0, 1.0),
    True,
    _HC,
    "holistic",
    "NA prediction skill relative to 'no change' (null if post == pre)",
    nullable=True,
)
_conv(
    "panas_baseline_adjusted",
    (-1.0, 1.0),
    True,
    _HC,
    "holistic",
    "mean of the non-null PA and NA baseline-adjusted scores (null if both null)",
    nullable=True,
    in_composite=True,
)
_conv(
    "panas_item_mae",
    (0.0, 6.0),
    False,
    _HC,
    "holistic",
    "mean |actual - predicted| over PANAS items present in both (items 1..7); null if none",
    nullable=True,
)
_conv(
    "panas_item_normalized",
    _UNIT,
    True,
    _HC,
    "holistic",
    "1 - panas_item_mae / 6 (in [0, 1] for items in 1..7); null if no item",
    nullable=True,
)
_conv(
    "panas_item_baseline_adjusted",
    (-1.0, 1.0),
    True,
    _HC,
    "holistic",
    "mean item-level baseline-adjusted score (max error 6); null if none",
    nullable=True,
)
_conv(
    "panas_score",
    _UNIT,
    True,
    _HC,
    "holistic",
    "(panas_baseline_adjusted + 1) / 2, 0.5 when null: the PANAS input of the composite",
)
_conv(
    "q1_looking_for_score",
    _UNIT,
    True,
    _HC,
    "holistic",
    "set F1 of predicted vs chosen conversation goals (1 if both empty, 0 if one empty)",
    in_composite=True,
)
_conv(
    "q2_emotion_clarity_match",
    _UNIT,
    True,
    _HC,
    "holistic",
    "1 if the predicted emotion-clarity option matches exactly (case-insensitive)",
    in_composite=True,
)
_conv(
    "q3_model_fit_match",
    _UNIT,
    True,
    _HC,
    "holistic",
    "1 if the predicted model-fit option matches exactly (case-insensitive)",
    in_composite=True,
)
_conv(
    "q3_model_fit_ordinal_distance",
    (0.0, 3.0),
    False,
    _HC,
    "holistic",
    "|index gt - index pred| on the 4 model-fit options (both unknown 0, one unknown 3)",
)
_conv(
    "q3_follow_up_score",
    _UNIT,
    True,
    _HC,
    "holistic",
    "fuzzy set F1 of 'what felt off' items (exact 1, else best token Jaccard if >= 0.3)",
    in_composite=True,
)
_conv(
    "conversation_wide_questions_score",
    _UNIT,
    True,
    _HC,
    "holistic",
    "(q1 + q2 match + q3 match + q3 follow-up) / 4: the survey input of the composite",
)
_conv(
    "four_branch_mae",
    (0.0, 6.0),
    False,
    _HC,
    "holistic",
    "mean |gt - pred| over branches the HP rated (missing prediction -> 4; 0 if none rated)",
)
_conv(
    "four_branch_normalized",
    _UNIT,
    True,
    _HC,
    "holistic",
    "max(0, 1 - four_branch_mae / 6); 1 if the HP rated no branch",
    in_composite=True,
)
for _b in FOUR_BRANCHES:
    _conv(
        f"four_branch_error_{_b}",
        (0.0, 6.0),
        False,
        _HC,
        "holistic",
        f"|gt - pred| for the {_b} branch (missing prediction -> 4); null if unrated",
        nullable=True,
    )

# --- composite (spec 3) ------------------------------------------------------------------------------
_conv(
    "emotion_tracking",
    _UNIT,
    True,
    _ET,
    "composite",
    "pillar: 0.5 avg_emotion_f1 + 0.5 avg_emotion_va_score",
)
_conv(
    "evaluation_quality",
    _UNIT,
    True,
    _EQ,
    "composite",
    "pillar: 0.5 (binary OM + HP accuracy) / 2 + 0.5 avg_pairwise_accuracy",
)
_conv(
    "holistic_comprehension",
    _UNIT,
    True,
    _HC,
    "composite",
    "pillar: 0.4 panas_score + 0.3 conversation_wide_questions_score + 0.3 four_branch_normalized",
)
_conv(
    "turn_level_average",
    _UNIT,
    True,
    None,
    "composite",
    "mean of emotion_tracking, (binary OM + HP accuracy) / 2 and avg_pairwise_accuracy",
)
_conv(
    "conversation_wide_average",
    _UNIT,
    True,
    None,
    "composite",
    "mean of panas_score, conversation_wide_questions_score and four_branch_normalized",
)
_conv(
    "composite_score",
    (0.0, 100.0),
    True,
    None,
    "composite",
    "100 (0.24 emotion_tracking + 0.49 evaluation_quality + 0.27 holistic_comprehension), "
    "unrounded",
)
_conv(
    "equal_weight_composite",
    (0.0, 100.0),
    True,
    None,
    "composite",
    "100 (turn_level_average + conversation_wide_average) / 2, unrounded",
)
_spec(
    "composite_z", "predictor", (-_INF, _INF), True, None, "composite",
    "z-score of the predictor's composite_score across all predictor x mode rows "
    "(0 if < 2 rows or SD 0)", aggregation="derived",
)  # fmt: skip

#: Display name of every built-in metric (tables, figures, docs); the ``avg_`` conversation
#: counterpart of a turn metric shows the turn metric's name. Generated for the pooled metrics.
DISPLAY_NAMES: Mapping[str, str] = MappingProxyType({
    'emotion_hit_rate': 'Emotion hit rate',
    'emotion_precision': 'Emotion precision',
    'emotion_recall': 'Emotion recall',
    'emotion_f1': 'Emotion F1',
    'emotion_f1_intensity': 'Emotion F1 x intensity',
    'emotion_intensity_mae': 'Emotion intensity MAE',
    'emotion_va_score': 'Valence-arousal score',
    'emotion_va_intensity_score': 'Valence-arousal-intensity score',
    'binary_om_accuracy': 'Behaviour accuracy (OM)',
    'binary_human_accuracy': 'HP prediction accuracy',
    'binary_om_accuracy_hp': 'Behaviour accuracy (OM, HP wording)',
    'binary_human_accuracy_hp': 'HP prediction accuracy (HP wording)',
    'pairwise_accuracy': 'Pairwise accuracy',
    'pairwise_kendall_tau': 'Pairwise Kendall tau',
    'response_similarity': 'Response similarity',
    'response_similarity_original': 'Response similarity (original)',
    'response_similarity_llm_improved': 'Response similarity (model-improved)',
    'response_similarity_human_edited': 'Response similarity (human-edited)',
    'response_preference_alignment': 'Response preference alignment',
    'draft_judge_score': 'Draft judge score',
    'draft_binary_alignment': 'Draft behaviour alignment',
    'avg_emotion_hit_rate_tagged_only': 'Emotion hit rate (tagged turns)',
    'hp_perspective_gap': 'HP perspective gap',
    'hp_perspective_alignment': 'HP perspective alignment',
    'hp_perspective_gap_mcc': 'HP perspective gap (MCC)',
    'hp_perspective_alignment_mcc': 'HP perspective alignment (MCC)',
    'panas_mae': 'PANAS MAE',
    'panas_normalized': 'PANAS (normalized)',
    'panas_pa_mae': 'PANAS PA MAE',
    'panas_na_mae': 'PANAS NA MAE',
    'panas_pa_normalized': 'PANAS PA (normalized)',
    'panas_na_normalized': 'PANAS NA (normalized)',
    'panas_pa_baseline_adjusted': 'PANAS PA (baseline-adjusted)',
    'panas_na_baseline_adjusted': 'PANAS NA (baseline-adjusted)',
    'panas_baseline_adjusted': 'PANAS (baseline-adjusted)',
    'panas_item_mae': 'PANAS item MAE',
    'panas_item_normalized': 'PANAS items (normalized)',
    'panas_item_baseline_adjusted': 'PANAS items (baseline-adjusted)',
    'panas_score': 'PANAS score',
    'q1_looking_for_score': 'Q1 goals F1',
    'q2_emotion_clarity_match': 'Q2 emotion clarity',
    'q3_model_fit_match': 'Q3 model fit',
    'q3_model_fit_ordinal_distance': 'Q3 model fit distance',
    'q3_follow_up_score': 'Q3 follow-up F1',
    'conversation_wide_questions_score': 'Conversation questions',
    'four_branch_mae': 'Four-branch MAE',
    'four_branch_normalized': 'Four-branch (normalized)',
    'four_branch_error_perceiving': 'Four-branch error: perceiving',
    'four_branch_error_facilitating': 'Four-branch error: facilitating',
    'four_branch_error_understanding': 'Four-branch error: understanding',
    'four_branch_error_managing': 'Four-branch error: managing',
    'emotion_tracking': 'Emotion tracking',
    'evaluation_quality': 'Evaluation quality',
    'holistic_comprehension': 'Holistic comprehension',
    'turn_level_average': 'Turn-level average',
    'conversation_wide_average': 'Conversation-wide average',
    'composite_score': 'Composite score',
    'equal_weight_composite': 'Equal-weight composite',
    'composite_z': 'Composite z-score',
    **{
        f"pooled_binary_{task}_{stat}": f"{task_name} {stat_name} (pooled)"
        for task, task_name in (
            ('om', 'Behaviour (OM)'),
            ('human', 'HP prediction'),
            ('om_hp', 'Behaviour (OM, HP wording)'),
            ('human_hp', 'HP prediction (HP wording)'),
        )
        for stat, stat_name in (
            ('accuracy', 'accuracy'),
            ('precision', 'precision'),
            ('recall', 'recall'),
            ('f1', 'F1'),
            ('mcc', 'MCC'),
        )
    },
})  # fmt: skip

#: Keyword arguments of the ``MetricSpec`` of every built-in metric, in registration order.
BUILTIN_SPECS: tuple[Mapping[str, Any], ...] = tuple(
    MappingProxyType({**s, "display_name": DISPLAY_NAMES[s["name"]]}) for s in _SPECS
)
