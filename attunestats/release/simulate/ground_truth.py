"""Ground truth of one simulated conversation and its file (spec 1.4).

The tags, judgements, comparisons, PANAS and survey are drawn from fixed realistic rates that do
not depend on the predictors (the ``_gt_*`` draws); :func:`_conversation_document` writes them
in the official format with the messiness of :data:`~.config.MESSINESS_RATES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from attunestats import constants as K
from attunestats.release.simulate import _text as text
from attunestats.release.simulate._common import (
    _BIN_STR,
    _MASKED,
    _NA,
    _NEG,
    _NO,
    _NULL,
    _POS,
    _QIDS,
    _TITLE,
    _YES,
    _clamp_int,
    _logistic,
    _turn_position,
)
from attunestats.release.simulate.effects import TrueEffects

# fixed realism rates (not messiness)
_P_NO_ALTERNATES = 0.05
_P_NULL_WINNER = 0.03
_P_EMPTY_BINARY_TURN = 0.02
_OBSERVED_NA = 0.08
_N_TAG_PROBS = (0.15, 0.4, 0.3, 0.15)
#: Rate of "yes" for observedBehavior per question (by the gist of the question).
_OBSERVED_YES = {
    "B1": 0.7, "B2": 0.6, "B3": 0.5, "B4": 0.25, "B5": 0.2, "B6": 0.3, "B7": 0.15,
    "B8": 0.7, "B9": 0.65, "B10": 0.6, "B11": 0.4, "B12": 0.55, "B13": 0.5, "B14": 0.08,
    "B15": 0.45, "B16": 0.3, "B17": 0.12, "B18": 0.1, "B19": 0.6, "B20": 0.08, "B108": 0.35,
    "B109": 0.5, "B206": 0.2, "B207": 0.15, "B310": 0.15, "B311": 0.12, "B313": 0.3,
    "B315": 0.1, "B316": 0.25, "B406": 0.08, "B408": 0.2, "B501": 0.3, "B502": 0.15,
    "B503": 0.2, "B504": 0.45, "B505": 0.3,
}  # fmt: skip
_YES_RATE = np.array([_OBSERVED_YES[q] for q in _QIDS])
_YES_ALIASES: tuple[Any, ...] = (True, "true", "Y", "y", "1", "Yes")
_NO_ALIASES: tuple[Any, ...] = (False, "false", "N", "n", "0", "No")
_NA_ALIASES: tuple[Any, ...] = ("n/a", "not_applicable", "NA")
_OBS_KEY_ALIASES = ("did_occur", "humanValue", "actualValue")
_PREF_KEY_ALIASES = ("should_occur", "humanPreference")
_PAIRS = (("original", "alternate"), ("original", "human"), ("alternate", "human"))
_PW_IDS = tuple(q for q in K.PAIRWISE_QUESTIONS if q != "general")
_Q1_WEIGHTS = np.array([0.2, 0.22, 0.2, 0.06, 0.17, 0.1, 0.05])
_Q2_WEIGHTS = np.array([0.35, 0.3, 0.2, 0.15])
_INTENSITY_WORDS = {v: k for k, v in K.MOOD_INTENSITY_WORDS.items()}
_PA_ITEM_OFFSET = np.array([0.0, 0.3, -0.3, 0.2, 0.4, 0.0, -0.2, -0.1, -0.2, 0.5])
_NA_ITEM_OFFSET = np.array([0.2, -0.4, 0.5, -0.1, 0.3, -0.2, 0.3, -0.3, -0.3, -0.6])


def _binary_written(code: int, alias_u: float, pick_u: float, rate: float) -> Any:
    if code == _NULL:
        return None
    if alias_u < rate:
        pool = (_YES_ALIASES, _NO_ALIASES, _NA_ALIASES)[code]
        return pool[int(pick_u * len(pool))]
    return _BIN_STR[code]


def _panas_block(
    items: np.ndarray, rng: np.random.Generator, rates: Mapping[str, float]
) -> dict[str, Any]:
    """A ground-truth PANAS block in one of the accepted layouts (spec 1.4, spec 4)."""
    vals = {name: int(v) for name, v in zip(K.PANAS_ITEMS, items)}
    pa, na = int(items[:10].sum()), int(items[10:].sum())
    u_layout, u_tot, u_out_pa, u_out_na, u_k = rng.random(5)
    block: dict[str, Any] = {}
    if u_tot >= rates["panas_totals_absent"]:
        totals = []
        for total, u_out in ((pa, u_out_pa), (na, u_out_na)):
            if (
                total in (K.PANAS_TOTAL_MIN, K.PANAS_TOTAL_MAX)
                and u_out < rates["panas_total_out_of_range"]
            ):
                step = 1 + int(u_k * 3)
                total = total - step if total == K.PANAS_TOTAL_MIN else total + step
            totals.append(total)
        block["totalPositiveAffect"] = totals[0]
        block["totalNegativeAffect"] = totals[1]
    if u_layout < rates["panas_items_top_level"]:
        block.update(vals)
    elif u_layout < rates["panas_items_top_level"] + rates["panas_items_nested"]:
        block["responses"] = vals
    else:
        block["items"] = vals
    return block


@dataclass
class _GroundTruth:
    """Ground truth of one conversation as the scorer sees it (normalised), plus what was written.

    Codes: binary 0 yes, 1 no, 2 na, -1 null; winners 0 A, 1 B, -1 none.
    """

    nt: int
    x: np.ndarray
    tags: list[list[tuple[str, int | None, bool]]]  # (label, intensity, known) per turn
    written_tags: list[list[dict[str, Any]]]
    obs: np.ndarray  # (nt, Q) observedBehavior
    pref: np.ndarray  # preferredBehavior
    llm: np.ndarray  # llmValue
    ref_om: np.ndarray  # scorer reference of the OM tasks (observed, fallback llmValue)
    ref_hp: np.ndarray  # of the HP tasks (preferred, fallback observed)
    included: np.ndarray  # question present in the turn
    answered: np.ndarray  # included and applicable (the EM is asked)
    written_judgements: list[list[dict[str, Any]]]
    comps: list[list[tuple[str, str, str, int]]]  # (questionId, label A, label B, winner)
    selected: list[list[str]]
    has_alt: list[bool]
    blinded: bool
    texts: list[tuple[str, str, str, str]]  # user, original, llm-improved, human-edited
    pre: np.ndarray  # 20 PANAS items, order of constants.PANAS_ITEMS
    post: np.ndarray
    pre_block: dict[str, Any]
    post_block: dict[str, Any]
    q1_idx: list[int]
    q2_idx: int
    q3_idx: int
    follow_up: list[str]
    fb_true: np.ndarray
    fb_rated: np.ndarray
    survey_doc: dict[str, Any]


def _gt_emotion(
    rng: np.random.Generator, x: np.ndarray, distress: float, R: Mapping[str, float]
) -> tuple[list[list[tuple[str, int | None, bool]]], list[list[dict[str, Any]]]]:
    """Mood tags per turn: 0-3 PANAS labels of the participant's current valence.

    Negative valence has probability ``L(0.3 + distress + N(0, 0.5) - 0.8 x)`` (conversations
    help a little); with 2+ tags one of them is of the other valence with probability 0.15;
    intensities ``round(N(4 + 0.6 distress, 1.4))`` clamped to 1..7.
    """
    neg_logit = 0.3 + 1.0 * distress + 0.5 * float(rng.standard_normal())
    tags_all: list[list[tuple[str, int | None, bool]]] = []
    written_all: list[list[dict[str, Any]]] = []
    for xj in x:
        n_tags = int(rng.choice(4, p=_N_TAG_PROBS))
        negative = rng.random() < _logistic(neg_logit - 0.8 * xj)
        pool = _NEG if negative else _POS
        other = _POS if negative else _NEG
        labels = [pool[i] for i in rng.permutation(10)[:n_tags]]
        if n_tags >= 2 and rng.random() < 0.15:
            labels[-1] = other[int(rng.integers(10))]
        intens = np.clip(np.rint(4.0 + 0.6 * distress + 1.4 * rng.standard_normal(n_tags)), 1, 7)
        u_null, u_word, u_case, u_case_kind = rng.random((4, n_tags))
        tags: list[tuple[str, int | None, bool]] = []
        written: list[dict[str, Any]] = []
        for i, lab in enumerate(labels):
            inten: int | None = None if u_null[i] < R["intensity_null"] else int(intens[i])
            w_int: Any = inten
            if inten in _INTENSITY_WORDS and u_word[i] < R["intensity_word"]:
                w_int = _INTENSITY_WORDS[inten]
            if u_case[i] < R["label_case"]:
                w_lab = lab if u_case_kind[i] < 0.5 else f" {_TITLE[lab]} "
            else:
                w_lab = _TITLE[lab]
            tags.append((lab, inten, True))
            written.append({"emotion": w_lab, "intensity": w_int})
        if rng.random() < R["gt_unknown_label"]:
            lab = text.UNKNOWN_GT_LABELS[int(rng.integers(len(text.UNKNOWN_GT_LABELS)))]
            inten = _clamp_int(3.5 + 1.2 * rng.standard_normal(), 1, 7)
            tags.append((lab, inten, False))
            written.append({"emotion": lab, "intensity": inten})
        tags_all.append(tags)
        written_all.append(written)
    return tags_all, written_all


def _gt_binary(rng: np.random.Generator, nt: int, R: Mapping[str, float]) -> dict[str, Any]:
    """Binary judgements (vectorised over turns x the 36 questions).

    Each question is asked in a turn with probability ``pi ~ U(0.15, 0.45)`` (per conversation);
    2% of turns have none. observedBehavior: na 8%, else yes at the question's rate
    (``_OBSERVED_YES``); preferredBehavior equals it 70% of the time (else the opposite), na 3%;
    llmValue agrees with observed 75%. Nulls at messiness rates; a null observedBehavior never
    has an na preferredBehavior, so every scored question is also one the EM is asked.
    """
    Q = len(_QIDS)
    pi = rng.uniform(0.15, 0.45)
    incl = rng.random((nt, Q)) < pi
    incl[rng.random(nt) < _P_EMPTY_BINARY_TURN] = False
    obs = np.where(
        rng.random((nt, Q)) < _OBSERVED_NA,
        _NA,
        np.where(rng.random((nt, Q)) < _YES_RATE, _YES, _NO),
    )
    obs[rng.random((nt, Q)) < R["observed_null"]] = _NULL
    agree = rng.random((nt, Q)) < 0.7
    u = rng.random((nt, Q))
    pref = np.where(
        obs == _NA,
        np.where(u < 0.7, _NA, np.where(u < 0.85, _YES, _NO)),
        np.where(obs == _NULL, np.where(u < 0.5, _YES, _NO), np.where(agree, obs, 1 - obs)),
    )
    pref[(rng.random((nt, Q)) < 0.03) & (obs != _NULL)] = _NA
    pref[rng.random((nt, Q)) < R["preferred_null"]] = _NULL
    u = rng.random((nt, Q))
    llm = np.where(
        (obs == _YES) | (obs == _NO),
        np.where(u < 0.75, obs, 1 - obs),
        np.where(u < 0.5, _YES, _NO),
    )
    llm[rng.random((nt, Q)) < 0.05] = _NA
    llm[rng.random((nt, Q)) < R["llm_value_null"]] = _NULL
    applicable = (
        ((obs == _NULL) & (pref == _NULL))
        | ((obs != _NULL) & (obs != _NA))
        | ((pref != _NULL) & (pref != _NA))
    )
    alias_u = rng.random((nt, Q, 3))
    pick_u = rng.random((nt, Q, 3))
    key_u = rng.random((nt, Q, 2))
    rate = R["binary_value_alias"]
    written: list[list[dict[str, Any]]] = []
    for j in range(nt):
        rows = []
        for q in np.flatnonzero(incl[j]):
            values = [
                _binary_written(int(arr[j, q]), alias_u[j, q, i], pick_u[j, q, i], rate)
                for i, arr in enumerate((llm, obs, pref))
            ]
            obs_key, pref_key = "observedBehavior", "preferredBehavior"
            if key_u[j, q, 0] < R["binary_key_alias"]:
                obs_key = _OBS_KEY_ALIASES[int(key_u[j, q, 1] * 3)]
                pref_key = _PREF_KEY_ALIASES[int(key_u[j, q, 1] * 2)]
            rows.append(
                {
                    "questionId": _QIDS[q],
                    "llmValue": values[0],
                    obs_key: values[1],
                    pref_key: values[2],
                }
            )
        written.append(rows)
    return {
        "obs": obs,
        "pref": pref,
        "llm": llm,
        "ref_om": np.where(obs != _NULL, obs, llm),
        "ref_hp": np.where(pref != _NULL, pref, obs),
        "included": incl,
        "answered": incl & applicable,
        "written_judgements": written,
    }


def _gt_pairwise(
    rng: np.random.Generator, nt: int, om_quality: float, R: Mapping[str, float]
) -> tuple[list[list[tuple[str, str, str, int]]], list[list[str]], list[bool], bool]:
    """Pairwise comparisons per turn.

    5% of turns have no alternates (and no comparisons). Otherwise "general" compares all three
    pairs of original/alternate/human and 0-3 of PW1..PW15 (probabilities .35/.3/.2/.15) one
    random pair each; A/B placement is random; winner A with probability
    ``L(quality_A - quality_B)`` (qualities per turn: original ``om_quality + N(0, 1)``, alternate
    ``0.3 + N(0, 1)``, human ``0.8 + N(0, 1)``), none with probability 0.03.
    """
    blinded = bool(rng.random() < R["blinded_labels"])
    comps: list[list[tuple[str, str, str, int]]] = []
    selected: list[list[str]] = []
    has_alt: list[bool] = []
    for _j in range(nt):
        if rng.random() < _P_NO_ALTERNATES:
            comps.append([])
            selected.append([])
            has_alt.append(False)
            continue
        has_alt.append(True)
        n_pw = int(rng.choice(4, p=(0.35, 0.3, 0.2, 0.15)))
        pws = [_PW_IDS[i] for i in np.sort(rng.permutation(len(_PW_IDS))[:n_pw])]
        quality = {
            "original": om_quality + rng.standard_normal(),
            "alternate": 0.3 + rng.standard_normal(),
            "human": 0.8 + rng.standard_normal(),
        }
        plan = [("general", pair) for pair in _PAIRS] + [
            (q, _PAIRS[int(rng.integers(3))]) for q in pws
        ]
        turn_comps = []
        for qid, pair in plan:
            a, b = pair if rng.random() < 0.5 else pair[::-1]
            u_null, u_win = rng.random(2)
            if u_null < _P_NULL_WINNER:
                win = _NULL
            else:
                win = 0 if u_win < _logistic(quality[a] - quality[b]) else 1
            turn_comps.append((qid, a, b, win))
        comps.append(turn_comps)
        selected.append(pws)
    return comps, selected, has_alt, blinded


def _gt_post(
    rng: np.random.Generator, distress: float, om_quality: float, R: Mapping[str, float]
) -> dict[str, Any]:
    """PANAS before/after and the post-conversation survey.

    Pre items ``round(base + item offset + N(0, 1))`` (PA base ``3.6 - 0.4 distress``, NA base
    ``1.8 + 0.7 distress``); post = pre + a conversation change (PA ``0.3 + 0.3 q + N(0, .5)``,
    NA ``-0.4 - 0.2 q + N(0, .5)``, ``q`` the OM quality) + ``N(0, 0.6)`` per item; with probability
    ``0.25 L(-2 distress)`` the participant rates every NA item 1 (floor responder; after the
    conversation too with probability 0.8: NA total 10). Q3 index
    ``round(1.3 - 0.9 q + N(0, 0.6))``; 0-2 follow-up phrases for poorer fits; Q2 and Q1 (1-3
    options) at fixed rates; four-branch ``round(4.6 + 0.8 q + N(0, 1.1))``, 1..7.
    """
    pa_base = 3.6 - 0.4 * distress
    na_base = 1.8 + 0.7 * distress
    pre = np.clip(
        np.rint(
            np.concatenate([pa_base + _PA_ITEM_OFFSET, na_base + _NA_ITEM_OFFSET])
            + rng.standard_normal(20)
        ),
        1,
        7,
    )
    change = np.concatenate(
        [
            np.full(10, 0.3 + 0.3 * om_quality + 0.5 * rng.standard_normal()),
            np.full(10, -0.4 - 0.2 * om_quality + 0.5 * rng.standard_normal()),
        ]
    )
    post = np.clip(np.rint(pre + change + 0.6 * rng.standard_normal(20)), 1, 7)
    u_floor = rng.random(2)
    if u_floor[0] < 0.25 * _logistic(-2.0 * distress):  # floor responders: every NA item 1
        pre[10:] = 1
        if u_floor[1] < 0.8:
            post[10:] = 1
    pre_block = _panas_block(pre, rng, R)
    post_block = _panas_block(post, rng, R)

    q3_idx = _clamp_int(1.3 - 0.9 * om_quality + 0.6 * rng.standard_normal(), 0, 3)
    u_fu1, u_fu2 = rng.random(), rng.random()
    n_fu = (0, int(u_fu1 < 0.25), 1 + int(u_fu2 < 0.5), 2)[q3_idx]
    order = rng.permutation(len(text.FOLLOW_UP_PHRASES))[:n_fu]
    follow_up = [text.FOLLOW_UP_PHRASES[i] for i in order]
    q2_idx = int(rng.choice(4, p=_Q2_WEIGHTS))
    n_q1 = int(rng.choice(3, p=(0.5, 0.35, 0.15))) + 1
    q1_idx = sorted(int(i) for i in rng.choice(7, size=n_q1, replace=False, p=_Q1_WEIGHTS))
    fb_true = np.clip(np.rint(4.6 + 0.8 * om_quality + 1.1 * rng.standard_normal(4)), 1, 7)
    fb_u = rng.random((4, 2))
    fb_rated = fb_u[:, 0] >= R["four_branch_unrated"]
    four_branch: dict[str, Any] = {}
    for b, branch in enumerate(K.FOUR_BRANCHES):
        if fb_rated[b]:
            four_branch[branch] = int(fb_true[b])
        elif fb_u[b, 1] < 0.5:
            four_branch[branch] = None  # unrated: null, or (else) the key is absent
    alias = rng.random() < R["survey_key_alias"]
    survey_doc = {
        ("Q1" if alias else "q1_lookingFor"): [K.Q1_OPTIONS[i] for i in q1_idx],
        ("Q2" if alias else "q2_emotionClarity"): K.Q2_OPTIONS[q2_idx],
        ("Q3" if alias else "q3_modelFit"): K.Q3_OPTIONS[q3_idx],
        "q3_followUp_whatFeltOff": follow_up,
        "fourBranchScores": four_branch,
    }
    return {
        "pre": pre,
        "post": post,
        "pre_block": pre_block,
        "post_block": post_block,
        "q1_idx": q1_idx,
        "q2_idx": q2_idx,
        "q3_idx": q3_idx,
        "follow_up": follow_up,
        "fb_true": fb_true,
        "fb_rated": fb_rated,
        "survey_doc": survey_doc,
    }


def _ground_truth(
    rng: np.random.Generator,
    nt: int,
    topic: str,
    distress: float,
    om_quality: float,
    R: Mapping[str, float],
) -> _GroundTruth:
    x = _turn_position(nt)
    tags, written_tags = _gt_emotion(rng, x, distress, R)
    binary = _gt_binary(rng, nt, R)
    comps, selected, has_alt, blinded = _gt_pairwise(rng, nt, om_quality, R)
    texts = []
    for j in range(nt):
        known = [lab for lab, _i, kn in tags[j] if kn]
        user = text.user_message(rng, topic, known[0] if known else None)
        texts.append((user, *text.replies(rng, topic)))
    post = _gt_post(rng, distress, om_quality, R)
    return _GroundTruth(
        nt=nt,
        x=x,
        tags=tags,
        written_tags=written_tags,
        comps=comps,
        selected=selected,
        has_alt=has_alt,
        blinded=blinded,
        texts=texts,
        **binary,
        **post,
    )


def _conversation_document(
    rng: np.random.Generator,
    cid: str,
    eff: TrueEffects,
    p: int,
    om: int,
    topic: str,
    gt: _GroundTruth,
    R: Mapping[str, float],
) -> dict[str, Any]:
    """The ground-truth file (spec 1.4), with the messiness of pairwise keys and winners."""
    nt = gt.nt
    day = int(rng.integers(0, 120))
    sec = int(rng.integers(0, 86400))
    conv_time = datetime(2025, 11, 1) + timedelta(days=day, seconds=sec)
    key_alias_u = rng.random((nt, 16))
    win_alias_u = rng.random((nt, 16, 2))
    turn_docs = []
    for j in range(nt):
        user, original, improved, human = gt.texts[j]
        alt: dict[str, str] | None = None
        if gt.has_alt[j]:
            if gt.blinded:
                alt = {"alternate1": improved, "alternate2": human}
            else:
                alt = {"llmImproved": improved, "humanEdited": human}
        pw_docs = []
        for i, (qid, a, b, win) in enumerate(gt.comps[j]):
            la, lb = (_MASKED[a], _MASKED[b]) if gt.blinded else (a, b)
            ka, kb = ("responseA", "responseB")
            if key_alias_u[j, i] < R["pairwise_key_alias"]:
                ka, kb = ("response_1", "response_2")
            if win == _NULL:
                wv: Any = None
            elif win_alias_u[j, i, 0] < R["winner_alias"]:
                wv = (("a", "response_1"), ("b", "response_2"))[win][int(win_alias_u[j, i, 1] * 2)]
            else:
                wv = "AB"[win]
            pw_docs.append({"questionId": qid, ka: la, kb: lb, "winner": wv})
        turn_docs.append(
            {
                "turnNumber": j + 1,
                "userMessage": user,
                "llmResponse": original,
                "moodShiftTags": gt.written_tags[j],
                "annotations": {
                    "binaryJudgements": gt.written_judgements[j],
                    "alternateResponses": alt,
                    "pairwiseComparisons": pw_docs,
                    "selectedPairwiseQuestions": gt.selected[j],
                },
            }
        )
    om_name = eff.original_models[om]
    return {
        "conversationId": cid,
        "metadata": {
            "conversationId": cid,
            "model": om_name,
            "provider": "anonymised",
            "timestamp": conv_time.isoformat() + "Z",
            "category": topic,
            "subtopic": text.SUBTOPICS[int(rng.integers(len(text.SUBTOPICS)))],
            "model_version": f"{om_name}-v1",
            "conversation_visibility": "private",
            "turnCount": nt,
        },
        "participant_profile": {
            "schema_version": "1.0",
            "participant_id": eff.participants[p],
            "responses": {"prior_ai_use": ("weekly", "daily", "rarely")[p % 3]},
            "age": eff.ages[p],
            "traits": list(eff.traits[p]),
            "goals": [text.PROFILE_GOALS[p % len(text.PROFILE_GOALS)]],
        },
        "prePanas": gt.pre_block,
        "postPanas": gt.post_block,
        "conversationWideQuestions": gt.survey_doc,
        "turns": turn_docs,
    }
