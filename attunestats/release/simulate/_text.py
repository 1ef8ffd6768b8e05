"""Text material for the release simulator: topic names, messages, replies, survey phrases.

Private helper of :mod:`attunestats.release.simulate`. Everything here is plain data plus small
functions that draw from a ``numpy.random.Generator`` passed in, so the simulator controls every
random draw. The texts are templated English: realistic enough to look like a release and to
give token overlaps (response similarity) that depend on the simulated skill, nothing more.
"""

from __future__ import annotations

import numpy as np

#: Topic 0 is the designated hardest topic of the paper-like scenario.
HARDEST_TOPIC = "romantic relationships"

TOPIC_NAMES: tuple[str, ...] = (
    HARDEST_TOPIC,
    "money and personal finance",
    "work and career",
    "hobbies",
    "family",
    "friendship",
    "physical health",
    "mental health",
    "studies and exams",
    "housing",
    "travel",
    "parenting",
    "grief and loss",
    "self-esteem",
    "sleep",
    "fitness",
    "food and cooking",
    "technology",
    "social media",
    "moving to a new city",
    "job search",
    "workplace conflict",
    "retirement",
    "pets",
    "creative projects",
    "music",
    "sports",
    "religion and spirituality",
    "politics and news",
    "climate worries",
    "loneliness",
    "identity",
    "body image",
    "habits and addiction",
    "chronic illness",
    "caring for a relative",
    "separation and divorce",
    "wedding planning",
    "pregnancy",
    "education choices",
    "debt",
    "investing",
    "legal trouble",
    "neighbours",
    "volunteering",
    "gaming",
    "reading and books",
    "language learning",
    "holidays and celebrations",
    "productivity and procrastination",
)

SUBTOPICS: tuple[str, ...] = (
    "a decision to make",
    "something that happened recently",
    "an ongoing worry",
    "a conflict with someone",
    "planning ahead",
    "looking for reassurance",
)

#: Short keywords per topic, used inside messages (topic name words as fallback).
_TOPIC_WORDS: dict[str, tuple[str, ...]] = {
    HARDEST_TOPIC: ("partner", "relationship", "date", "breakup", "feelings"),
    "money and personal finance": ("budget", "rent", "savings", "bills", "money"),
    "work and career": ("manager", "promotion", "deadline", "job", "colleagues"),
    "hobbies": ("painting", "weekend", "project", "hobby", "practice"),
    "family": ("mother", "brother", "family", "dinner", "parents"),
    "friendship": ("friend", "group", "message", "plans", "trust"),
}

AGE_BANDS: tuple[str, ...] = ("18-24", "25-34", "35-44", "45-54", "55-64")

#: Trait lists written into participant_profile.traits per diagnosis group (variants).
DIAGNOSIS_TRAITS: dict[str, tuple[tuple[str, ...], ...]] = {
    "none": ((),),
    "anxiety_depression": (("anxiety",), ("depression",), ("anxiety", "depression")),
    "asd_adhd": (("ADHD",), ("autism spectrum",), ("ADHD", "autism spectrum")),
}

PROFILE_GOALS: tuple[str, ...] = (
    "feel heard",
    "get practical advice",
    "sort out my thoughts",
    "calm down",
    "make a decision",
)

#: Ground-truth emotion labels outside the PANAS vocabulary (kept by the loader, spec 4).
UNKNOWN_GT_LABELS: tuple[str, ...] = (
    "neutral",
    "confused",
    "frustrated",
    "hopeful",
    "relieved",
    "overwhelmed",
)
#: Predicted labels outside the vocabulary (dropped by the loader, spec 4).
UNKNOWN_PRED_LABELS: tuple[str, ...] = ("neutral", "calm", "hopeful", "content")

_OPENERS = (
    "Honestly,",
    "So,",
    "I don't know,",
    "Okay,",
    "Well,",
    "Thanks.",
    "Hmm,",
    "Right,",
)
_FEELING_PHRASES = (
    "I've been feeling {e} about {w}",
    "I feel {e} when I think about the {w}",
    "the {w} thing keeps making me {e}",
    "I'm a bit {e} about the {w} right now",
    "I guess I'm {e} because of the {w}",
)
_NEUTRAL_PHRASES = (
    "I wanted to ask about the {w}",
    "there's an update on the {w}",
    "I'm still thinking about the {w}",
    "let me explain the {w} a bit more",
)
_DETAILS = (
    "It started last week and I can't stop thinking about it.",
    "I'm not sure what to do next.",
    "Nobody around me really gets it.",
    "Maybe I'm overthinking this.",
    "I tried to talk about it but it didn't go well.",
    "It's been on my mind all day.",
    "Part of me wants to just let it go.",
    "I made a small step yesterday.",
)

_REPLY_OPENERS = (
    "That sounds really hard.",
    "Thank you for sharing this with me.",
    "It makes sense that you feel this way.",
    "I hear you.",
    "That's a lot to carry.",
    "It sounds like this matters to you.",
)
_REPLY_BODIES = (
    "When it comes to the {w}, it can help to take one small step at a time.",
    "You don't have to figure out the whole {w} situation today.",
    "Many people find the {w} stressful, and your reaction is understandable.",
    "It might help to write down what worries you most about the {w}.",
    "Could you tell me a bit more about what happened with the {w}?",
    "One option is to talk to someone you trust about the {w}.",
    "Be gentle with yourself while you work through the {w}.",
    "What would feel like a good outcome with the {w} for you?",
)
_REPLY_CLOSERS = (
    "I'm here if you want to keep talking.",
    "What feels most important to you right now?",
    "How are you feeling about that?",
    "Take your time.",
    "Would it help to plan the next step together?",
)
#: Generic words a weaker draft uses instead of the reference's own words.
FILLER_TOKENS: tuple[str, ...] = (
    "generally",
    "things",
    "often",
    "situation",
    "important",
    "consider",
    "various",
    "aspects",
    "perhaps",
    "overall",
    "certainly",
    "approach",
    "options",
    "helpful",
    "really",
    "maybe",
)

FOLLOW_UP_PHRASES: tuple[str, ...] = (
    "it gave advice too quickly",
    "it did not ask what I needed",
    "the tone felt too formal",
    "it repeated the same suggestions",
    "it assumed things I did not say",
    "it changed the subject",
    "it felt generic",
    "it missed how upset I was",
    "it pushed me to act before I was ready",
    "the replies were too long",
)
_PARAPHRASE_SWAPS = {
    "it": "the model",
    "too": "a bit too",
    "did": "didn't really",
    "felt": "seemed",
    "I": "me",
}


def topic_names(n: int) -> tuple[str, ...]:
    """The first ``n`` topic names; beyond the 50 listed ones, numbered extra domains."""
    base = TOPIC_NAMES[:n]
    extra = tuple(f"other domain {i}" for i in range(len(TOPIC_NAMES) + 1, n + 1))
    return base + extra


def topic_words(topic: str) -> tuple[str, ...]:
    """Keywords used in messages about ``topic``."""
    if topic in _TOPIC_WORDS:
        return _TOPIC_WORDS[topic]
    words = tuple(w for w in topic.replace(",", " ").split() if len(w) > 3)
    return words or ("situation",)


def _pick(rng: np.random.Generator, seq: tuple[str, ...]) -> str:
    return seq[int(rng.integers(len(seq)))]


def user_message(rng: np.random.Generator, topic: str, feeling: str | None) -> str:
    """An HP message about ``topic``, mentioning ``feeling`` (a lower-case label) if given."""
    w = _pick(rng, topic_words(topic))
    if feeling is None:
        core = _pick(rng, _NEUTRAL_PHRASES).format(w=w)
    else:
        core = _pick(rng, _FEELING_PHRASES).format(e=feeling, w=w)
    return f"{_pick(rng, _OPENERS)} {core}. {_pick(rng, _DETAILS)}"


def replies(rng: np.random.Generator, topic: str) -> tuple[str, str, str]:
    """Original (OM), model-improved and human-edited replies sharing a common stem."""
    w = _pick(rng, topic_words(topic))
    idx = rng.permutation(len(_REPLY_BODIES))[:4]
    bodies = [_REPLY_BODIES[i].format(w=w) for i in idx]
    opener = _pick(rng, _REPLY_OPENERS)
    closer = _pick(rng, _REPLY_CLOSERS)
    original = f"{bodies[0]} {bodies[1]}"
    improved = f"{opener} {bodies[0]} {bodies[2]}"
    human = f"{opener} {bodies[2]} {bodies[3]} {closer}"
    return original, improved, human


def draft_from_reference(reference: str, keep: np.ndarray, filler_idx: np.ndarray) -> str:
    """A drafted reply: token ``i`` of ``reference`` kept where ``keep[i]``, else a filler word.

    ``keep`` and ``filler_idx`` must have at least as many entries as the reference has tokens.
    """
    tokens = reference.split()
    out = [
        tok if keep[i] else FILLER_TOKENS[int(filler_idx[i]) % len(FILLER_TOKENS)]
        for i, tok in enumerate(tokens)
    ]
    return " ".join(out)


def paraphrase(phrase: str) -> str:
    """A deterministic paraphrase of a follow-up phrase that keeps most of its tokens."""
    return " ".join(_PARAPHRASE_SWAPS.get(tok, tok) for tok in phrase.split())
