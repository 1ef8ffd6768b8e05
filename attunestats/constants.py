"""Constants of the AttuneBench format and scorer, in one typed place.

Everything here follows the release format and metric definitions documented in
``docs/release-format.md`` and ``docs/metrics.md``, which in turn follow a public port of the
official ``constants.py``. Nothing in this module computes anything.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

# --- PANAS-SF (spec 1.5) -------------------------------------------------------------------------
PANAS_POSITIVE: Final = (
    "Proud", "Alert", "Inspired", "Determined", "Attentive",
    "Active", "Excited", "Strong", "Enthusiastic", "Interested",
)  # fmt: skip
PANAS_NEGATIVE: Final = (
    "Irritable", "Ashamed", "Nervous", "Jittery", "Distressed",
    "Afraid", "Upset", "Guilty", "Scared", "Hostile",
)  # fmt: skip
PANAS_ITEMS: Final = PANAS_POSITIVE + PANAS_NEGATIVE
PANAS_ITEM_MIN: Final = 1
PANAS_ITEM_MAX: Final = 7
PANAS_ITEM_MAX_ERROR: Final = 6
PANAS_TOTAL_MIN: Final = 10
PANAS_TOTAL_MAX: Final = 70
PANAS_TOTAL_MIDPOINT: Final = 40
PANAS_TOTAL_MAX_ERROR: Final = 60

#: The emotion-tag vocabulary: the 20 PANAS items, normalised (``strip().lower()``).
EMOTION_LABELS: Final = tuple(item.lower() for item in PANAS_ITEMS)
POSITIVE_LABELS: Final = frozenset(item.lower() for item in PANAS_POSITIVE)
NEGATIVE_LABELS: Final = frozenset(item.lower() for item in PANAS_NEGATIVE)

MOOD_INTENSITY_MIN: Final = 1
MOOD_INTENSITY_MAX: Final = 7
#: Word intensities accepted in ``moodShiftTags`` (spec 1.4).
MOOD_INTENSITY_WORDS: Final = MappingProxyType({"mild": 2, "moderate": 4, "intense": 6})

#: Valence-arousal coordinates (valence, arousal) in [0, 1] of each emotion label (spec 1.5).
VALENCE_AROUSAL: Final = MappingProxyType(
    {
        "afraid": (0.073, 0.84),
        "scared": (0.083, 0.82),
        "nervous": (0.188, 0.72),
        "jittery": (0.196, 0.788),
        "distressed": (0.125, 0.75),
        "upset": (0.167, 0.65),
        "guilty": (0.15, 0.6),
        "ashamed": (0.13, 0.62),
        "hostile": (0.2, 0.7),
        "irritable": (0.22, 0.68),
        "interested": (0.65, 0.6),
        "excited": (0.8, 0.85),
        "strong": (0.75, 0.7),
        "enthusiastic": (0.82, 0.78),
        "proud": (0.85, 0.65),
        "alert": (0.7, 0.75),
        "inspired": (0.9, 0.7),
        "determined": (0.78, 0.72),
        "attentive": (0.68, 0.6),
        "active": (0.72, 0.8),
    }
)
#: Weight of the valence-arousal similarity in the VA x intensity score (spec 2.1).
VA_INTENSITY_ALPHA: Final = 0.7

# --- Four branches (spec 1.5) --------------------------------------------------------------------
FOUR_BRANCHES: Final = ("perceiving", "facilitating", "understanding", "managing")
FOUR_BRANCH_MIN: Final = 1
FOUR_BRANCH_MAX: Final = 7
FOUR_BRANCH_MIDPOINT: Final = 4
FOUR_BRANCH_MAX_ERROR: Final = 6

# --- Binary behaviour questions (spec 1.5): id -> (Mayer-Salovey category, gist) ---------------
BINARY_QUESTIONS: Final = MappingProxyType(
    {
        "B1": ("perceiving", "acknowledged emotional content"),
        "B2": ("perceiving", "claims about HP's emotion consistent with what was expressed"),
        "B3": ("perceiving", "reflected a specific detail showing understanding"),
        "B4": ("understanding", "acknowledged more than one emotional state / mixed feelings"),
        "B5": ("understanding", "acknowledged change in emotional state across conversation"),
        "B6": ("understanding", "made inference/assumption beyond what HP said"),
        "B7": ("understanding", "expressed appropriate uncertainty when inferring emotion"),
        "B8": ("using", "emotional tone appropriate"),
        "B9": ("using", "matched seriousness"),
        "B10": ("using", "emotional intensity appropriate"),
        "B11": ("using", "tried to guide/direct the HP"),
        "B12": ("using", "gave explanations/reasoning"),
        "B13": ("using", "asked a follow-up question"),
        "B14": ("using", "made a moral judgment"),
        "B15": ("using", "reflected back a specific detail"),
        "B16": ("regulating", "adjusted approach after HP reacted/clarified"),
        "B17": ("regulating", "identified risk indicators"),
        "B18": ("regulating", "appropriate safety/emergency framing"),
        "B19": ("regulating", "validating statement"),
        "B20": ("regulating", "language that could escalate intensity"),
        "B108": ("perceiving", "mirrored HP's own emotion wording"),
        "B109": ("perceiving", "prioritised the most central emotion"),
        "B206": ("understanding", "overly formal/clinical"),
        "B207": ("understanding", "excessive repetition of emotional language"),
        "B310": ("using", "advice not connected to HP's situation"),
        "B311": ("using", "shifted focus to generic topic"),
        "B313": ("using", "advice before clarifying questions"),
        "B315": ("using", "introduced a new topic"),
        "B316": ("using", "acknowledged constraints of suggested action"),
        "B406": ("regulating", "corrected an earlier assumption"),
        "B408": ("regulating", "repeated earlier advice"),
        "B501": ("cognitive_framing", "encouraged self-reflection"),
        "B502": ("cognitive_framing", "suggested another person's perspective"),
        "B503": ("cognitive_framing", "offered multiple interpretations"),
        "B504": ("cognitive_framing", "acknowledged complexity"),
        "B505": ("cognitive_framing", "asked a reflective question"),
    }
)
BINARY_QUESTION_IDS: Final = tuple(BINARY_QUESTIONS)
#: Questions hidden from scoring (empty in the port, kept for fidelity).
BINARY_HIDDEN_QUESTIONS: Final = frozenset[str]()
BINARY_VALUES: Final = ("yes", "no", "na")

# --- Pairwise preference questions (spec 1.5) ----------------------------------------------------
PAIRWISE_QUESTIONS: Final = MappingProxyType(
    {
        "general": "which do you prefer overall",
        "PW1": "understands how you felt",
        "PW2": "handles mixed/unclear feelings",
        "PW3": "avoids incorrect assumptions",
        "PW4": "more supportive",
        "PW5": "less dismissive",
        "PW6": "lets you express yourself",
        "PW7": "more helpful direction",
        "PW8": "respects your ability to decide",
        "PW9": "avoids pushing too hard",
        "PW10": "helps you feel steadier",
        "PW11": "takes situation appropriately seriously",
        "PW12": "responds better to risk",
        "PW13": "better matches what you needed",
        "PW14": "adjusts better to your reactions",
        "PW15": "better pacing",
    }
)
#: Response labels of pairwise comparisons: the OM reply, the model-improved alternative and
#: the human-edited reply.
RESPONSE_LABELS: Final = ("original", "alternate", "human")
PAIRWISE_WINNERS: Final = ("A", "B")

# --- Post-conversation survey options (spec 1.5; exact strings matter) --------------------------
Q1_OPTIONS: Final = (
    "To just listen or let me vent",
    "To help me understand or sort out my feelings",
    "To help me think through options or make a decision",
    "To help with something urgent, risky, or high-stakes",
    "To get specific information or advice",
    "To help me calm down or feel steadier",
    "Other",
)
Q2_OPTIONS: Final = (
    "Clear and explicitly stated",
    "Implied or indirect",
    "Mixed or conflicted",
    "Unclear / evolving as I talked",
)
#: Ordinal model-fit options, index 0 (best) .. 3 (worst).
Q3_OPTIONS: Final = (
    "Very well-matched and adaptive",
    "Mostly well-matched",
    "Mixed, some good moments, some misses",
    "Mostly off-target or intrusive",
)
Q3_FOLLOW_UP_THRESHOLD: Final = 0.3

# --- Modes and PANAS strategies (spec 1.5) -------------------------------------------------------
MODES: Final = ("default", "verbose", "omniscient", "verbose_omniscient")
PANAS_STRATEGIES: Final = ("absolute", "delta", "blind_delta")
PANAS_DELTA_DEFAULT_ITEM: Final = 3

# --- Composite (spec 3) --------------------------------------------------------------------------
COMPOSITE_WEIGHTS: Final = MappingProxyType(
    {"emotion_tracking": 0.24, "evaluation_quality": 0.49, "holistic_comprehension": 0.27}
)
EMOTION_TRACKING_WEIGHTS: Final = MappingProxyType({"emotion_f1": 0.5, "emotion_va": 0.5})
EVAL_QUALITY_WEIGHTS: Final = MappingProxyType({"binary_accuracy": 0.5, "pairwise_accuracy": 0.5})
HOLISTIC_WEIGHTS: Final = MappingProxyType(
    {"panas_prediction": 0.4, "conv_wide_questions": 0.3, "four_branch": 0.3}
)
PILLARS: Final = tuple(COMPOSITE_WEIGHTS)

# --- Participant diagnosis groups (site labels; spec 1.1) ---------------------------------------
#: Codes of the diagnosis groups derived from participant traits, with display labels.
DIAGNOSIS_GROUPS: Final = MappingProxyType(
    {
        "none": "no reported diagnosis",
        "anxiety_depression": "anxiety/depression",
        "asd_adhd": "ASD/ADHD",
        "multiple": "anxiety/depression and ASD/ADHD",
        "unknown": "no profile",
    }
)

# --- Official subsets (spec 1.3) -----------------------------------------------------------------
_SAMPLE200 = (
    list(range(5, 44)) + list(range(46, 50)) + list(range(51, 79)) + list(range(80, 91))
    + [92, 94] + list(range(96, 106)) + list(range(107, 111)) + list(range(113, 127))
    + list(range(128, 151)) + list(range(153, 156)) + list(range(159, 163))
    + list(range(164, 171)) + list(range(172, 180)) + [181, 182] + list(range(184, 188))
    + [189, 190, 192, 194, 195, 196] + list(range(198, 208)) + [209, 213, 215]
    + list(range(218, 222)) + [223, 227, 232, 233, 235, 237] + list(range(240, 244))
    + list(range(245, 249))
)  # fmt: skip
SUBSETS: Final = MappingProxyType(
    {
        "Sample200": tuple(_SAMPLE200),
        "Subsample100": (
            9, 10, 13, 14, 15, 19, 21, 24, 25, 27, 28, 29, 30, 32, 36, 37, 38, 42, 43, 48, 49, 53,
            54, 55, 58, 60, 64, 71, 72, 73, 76, 77, 81, 83, 85, 87, 88, 92, 96, 97, 99, 103, 104,
            106, 108, 113, 114, 115, 117, 118, 119, 120, 124, 126, 129, 131, 132, 134, 135, 136,
            137, 141, 142, 144, 146, 147, 148, 150, 153, 155, 160, 162, 164, 165, 167, 169, 170,
            173, 176, 178, 179, 182, 185, 186, 187, 196, 199, 200, 201, 202, 205, 207, 209, 213,
            215, 223, 237, 242, 243, 247,
        ),
        "Subsample50": (
            5, 9, 10, 12, 13, 16, 24, 25, 29, 30, 34, 36, 39, 40, 46, 49, 53, 55, 59, 60, 63, 65,
            69, 70, 75, 80, 81, 105, 108, 117, 130, 139, 142, 155, 166, 178, 182, 185, 187, 198,
            200, 203, 207, 218, 219, 220, 223, 232, 233, 241,
        ),
        "Subsample25": (
            10, 12, 13, 16, 105, 108, 117, 130, 139, 142, 155, 166, 178, 182, 185, 187, 198, 200,
            203, 207, 218, 219, 220, 223, 232,
        ),
        "Subsample20": (
            13, 36, 41, 51, 68, 69, 102, 105, 108, 117, 119, 125, 141, 146, 154, 160, 167, 169,
            173, 246,
        ),
    }
)  # fmt: skip

#: Label shown on every table and figure built from a simulated release.
SIMULATED_LABEL: Final = "SIMULATED DATA - not findings about real models"
