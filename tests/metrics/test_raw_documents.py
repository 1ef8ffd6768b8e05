"""score() against a scorer of the raw JSON documents written from the spec text alone.

The reference scorer of :mod:`attunestats.metrics.reference` reads the release *tables*, so it
shares the loader's normalisation (labels ``strip().lower()``, binary and winner spellings,
aliases, word intensities, PANAS nesting and derived totals, survey aliases, clamping) with
``score()``: a bug there would be invisible to it. The small scorer below reads the official
documents directly, applies the rules of spec 1.4 itself and computes the metrics of spec 2 from
their definitions; hypothesis writes the documents with every spelling spec 1.4 allows. It shares
no code with the package except the loader entry point under test and the VA table copied from the
spec (1.5).
"""

from __future__ import annotations

import itertools
import math
import warnings

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from attunestats.errors import ReleaseError
from attunestats.metrics import score
from attunestats.release.load import release_from_documents

# --- the spec's constants, copied from its text (1.5) ----------------------------------------------
VA = {"afraid": (0.073, 0.84), "scared": (0.083, 0.82), "nervous": (0.188, 0.72),
      "jittery": (0.196, 0.788), "distressed": (0.125, 0.75), "upset": (0.167, 0.65),
      "guilty": (0.15, 0.6), "ashamed": (0.13, 0.62), "hostile": (0.2, 0.7),
      "irritable": (0.22, 0.68), "interested": (0.65, 0.6), "excited": (0.8, 0.85),
      "strong": (0.75, 0.7), "enthusiastic": (0.82, 0.78), "proud": (0.85, 0.65),
      "alert": (0.7, 0.75), "inspired": (0.9, 0.7), "determined": (0.78, 0.72),
      "attentive": (0.68, 0.6), "active": (0.72, 0.8)}  # fmt: skip
POS = ["Proud", "Alert", "Inspired", "Determined", "Attentive", "Active", "Excited", "Strong",
       "Enthusiastic", "Interested"]  # fmt: skip
NEG = ["Irritable", "Ashamed", "Nervous", "Jittery", "Distressed", "Afraid", "Upset", "Guilty",
       "Scared", "Hostile"]  # fmt: skip
Q1 = ["To just listen or let me vent", "To help me understand or sort out my feelings", "Other"]
Q2 = ["Clear and explicitly stated", "Implied or indirect", "Mixed or conflicted"]
Q3 = ["Very well-matched and adaptive", "Mostly well-matched",
      "Mixed, some good moments, some misses", "Mostly off-target or intrusive"]  # fmt: skip
Q3_LOWER = [q.lower() for q in Q3]
OBSERVED = ("observedBehavior", "did_occur", "humanValue", "actualValue")
PREFERRED = ("preferredBehavior", "should_occur", "humanPreference")


# --- spec 1.4 value rules ----------------------------------------------------------------------------
def sim(a, b):
    if a not in VA or b not in VA:
        return 0.0
    (v1, a1), (v2, a2) = VA[a], VA[b]
    return round(1 - math.sqrt((v1 - v2) ** 2 + (a1 - a2) ** 2) / math.sqrt(2), 4)


def binary(v):
    if v is None:
        return None
    text = ("true" if v else "false") if isinstance(v, bool) else str(v).strip().lower()
    for out, spellings in (("yes", ("true", "yes", "y", "1")), ("no", ("false", "no", "n", "0")),
                           ("na", ("na", "n/a", "not_applicable"))):  # fmt: skip
        if text in spellings:
            return out
    return None


def winner(v):
    if v is None:
        return None
    text = str(v).strip()
    if text in ("A", "B"):
        return text
    return {"a": "A", "response_1": "A", "b": "B", "response_2": "B"}.get(text.lower())


def number(v):
    if isinstance(v, str):
        return None if v.strip() in ("", "None") else float(v)
    return None if v is None else float(v)


def intensity(v):
    if isinstance(v, str) and v.strip().lower() in ("mild", "moderate", "intense"):
        return {"mild": 2, "moderate": 4, "intense": 6}[v.strip().lower()]
    x = number(v)
    return None if x is None else min(max(round(x), 1), 7)


def first(d, keys):
    return next((d[k] for k in keys if d.get(k) is not None), None)


def panas(block):
    """(items, positive total, negative total) of a PANAS block (spec 1.4)."""
    if not block:
        return {}, None, None
    items = {}
    for item in POS + NEG:
        for src in (block, block.get("items") or {}, block.get("responses") or {}):
            key = next((k for k in src if k.lower() == item.lower()), None)
            if key is not None:
                if number(src[key]) is not None:
                    items[item] = round(number(src[key]))
                break
    totals = []
    for key, names in (("totalPositiveAffect", POS), ("totalNegativeAffect", NEG)):
        x = number(first(block, [key]) if key in block else (block.get("responses") or {}).get(key))
        if x is None:
            given = [items[n] for n in names if n in items]
            x = sum(given) if given else None
        totals.append(None if x is None else min(max(round(x), 10), 70))
    return items, totals[0], totals[1]


def jaccard(a, b):
    ta, tb = set(a.lower().split()), set(b.lower().split())
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def f1(p, r):
    return 2 * p * r / (p + r) if p + r else 0.0


# --- spec 2.1-2.3: one turn ------------------------------------------------------------------------
def best_total(s):
    """Largest total similarity of a one-to-one matching (all assignments enumerated)."""
    a, b = len(s), len(s[0])
    if a <= b:
        return max(sum(s[i][p[i]] for i in range(a)) for p in itertools.permutations(range(b), a))
    return max(sum(s[p[j]][j] for j in range(b)) for p in itertools.permutations(range(a), b))


def turn_scores(gt, em):
    out = {}
    ann = gt.get("annotations") or {}
    g = [(t["emotion"].strip().lower(), intensity(t.get("intensity")))
         for t in gt.get("moodShiftTags") or []]  # fmt: skip
    p = [(t["emotion"].strip().lower(), intensity(t.get("intensity")))
         for t in em.get("em_emotion_tags") or []]  # fmt: skip
    p = [x for x in p if x[0] in VA]  # unknown predicted labels dropped (spec 4)
    gs, ps, gi, pi = {e for e, _ in g}, {e for e, _ in p}, dict(g), dict(p)
    tp = len(gs & ps)
    out["emotion_hit_rate"] = tp / len(gs) if gs else float(not ps)
    matched = [(gi[e], pi[e]) for e in gs & ps if gi[e] is not None and pi[e] is not None]
    if not gs:
        out["emotion_f1"] = out["emotion_f1_intensity"] = float(not ps)
    else:
        out["emotion_f1"] = f1(tp / len(ps) if ps else 0.0, tp / len(gs))
        closeness = [1 - abs(x - y) / 6 for x, y in matched]
        out["emotion_f1_intensity"] = (
            out["emotion_f1"] * sum(closeness) / len(closeness) if tp and closeness else 0.0
        )
    errors = [abs(x - y) for x, y in matched]
    out["emotion_intensity_mae"] = sum(errors) / len(errors) if errors else None
    if not g or not p:
        out["emotion_va_score"] = out["emotion_va_intensity_score"] = float(not g and not p)
    else:
        s = [[sim(a, b) for b, _ in p] for a, _ in g]
        c = [[0.7 * sim(a, b) + 0.3 * (1 - abs(x - y) / 6 if x is not None and y is not None
                                       else 0.0) for b, y in p] for a, x in g]  # fmt: skip
        m = min(len(g), len(p))
        coverage = m / max(len(g), len(p))
        out["emotion_va_score"] = best_total(s) / m * coverage
        out["emotion_va_intensity_score"] = best_total(c) / m * coverage
    judgements = {
        j["questionId"]: (binary(j.get("llmValue")), binary(first(j, OBSERVED)),
                          binary(first(j, PREFERRED)))
        for j in ann.get("binaryJudgements") or []
    }  # fmt: skip
    for name, field, task in (
        ("binary_om_accuracy", "em_binary_om_assessment", "om"),
        ("binary_human_accuracy", "em_binary_human_prediction", "hp"),
        ("binary_om_accuracy_hp", "em_binary_om_assessment_hp", "om"),
        ("binary_human_accuracy_hp", "em_binary_human_prediction_hp", "hp"),
    ):
        answers, n, right = em.get(field) or {}, 0, 0
        for q, (llm, obs, pref) in judgements.items():
            truth = (obs if obs is not None else llm) if task == "om" else (
                pref if pref is not None else obs)  # fmt: skip
            if truth in ("yes", "no"):
                n += 1
                right += truth == ("yes" if binary(answers.get(q)) == "yes" else "no")
        accuracy = right / n if n else 0.0
        if not judgements:  # no judgements: 1 for the main pair, 0 for _hp (spec 2.2 and 4)
            accuracy = 0.0 if name.endswith("_hp") else 1.0
        out[name] = accuracy
    comps = ann.get("pairwiseComparisons") or []
    chosen = {k: winner(v) for k, v in (em.get("em_pairwise_selections") or {}).items()}
    right = sum(chosen.get(str(i)) is not None and chosen.get(str(i)) == winner(c.get("winner"))
                for i, c in enumerate(comps))  # fmt: skip
    out["pairwise_accuracy"] = right / len(comps) if comps else 1.0
    blinded = {"alternate1": "alternate", "alternate2": "human"}
    labels, gt_wins, em_wins = set(), {}, {}
    for i, c in enumerate(comps):
        a = blinded.get(x := first(c, ("responseA", "response_1")), x)
        b = blinded.get(x := first(c, ("responseB", "response_2")), x)
        labels |= {a, b}
        for wins, w in ((gt_wins, winner(c.get("winner"))), (em_wins, chosen.get(str(i)))):
            if w is not None:
                wins[a if w == "A" else b] = wins.get(a if w == "A" else b, 0) + 1
    if len(labels) < 2 or not em_wins:
        out["pairwise_kendall_tau"] = None
    else:
        order = sorted(labels)
        gt_rank = sorted(order, key=lambda x: -gt_wins.get(x, 0))
        em_rank = sorted(order, key=lambda x: -em_wins.get(x, 0))
        signs = [(gt_rank.index(x) - gt_rank.index(y)) * (em_rank.index(x) - em_rank.index(y))
                 for x, y in itertools.combinations(order, 2)]  # fmt: skip
        concordant, discordant = sum(s > 0 for s in signs), sum(s < 0 for s in signs)
        out["pairwise_kendall_tau"] = (concordant - discordant) / (concordant + discordant)
    return out


# --- spec 2.5: post-conversation -------------------------------------------------------------------
def adjusted(post, pred, pre, max_error):
    if None in (post, pred, pre) or post == pre:
        return None
    naive = max(0, 1 - abs(post - pre) / max_error)
    raw = max(0, 1 - abs(post - pred) / max_error)
    return max(-1, min(1, (raw - naive) / (1 - naive)))


def fuzzy_credit(xs, ys):
    total = 0.0
    for x in xs:
        best = 1.0 if x in ys else max(jaccard(x, y) for y in ys)
        total += best if best >= 0.3 else 0.0
    return total / len(xs)


def conversation_scores(gt, run):
    out = {}
    _, pre_pa, pre_na = panas(gt.get("prePanas"))
    post_items, post_pa, post_na = panas(gt.get("postPanas"))
    post = run.get("post_conversation") or {}
    pred_items, pred_pa, pred_na = panas(post.get("predicted_post_panas"))
    errors = [abs((40 if a is None else a) - (40 if p is None else p))
              for a, p in ((post_pa, pred_pa), (post_na, pred_na)) if (a, p) != (None, None)]  # fmt: skip
    out["panas_mae"] = sum(errors) / len(errors) if errors else 0.0
    out["panas_normalized"] = max(0, 1 - out["panas_mae"] / 60)
    adj = [x for x in (adjusted(post_pa, pred_pa, pre_pa, 60), adjusted(post_na, pred_na, pre_na,
                                                                          60)) if x is not None]  # fmt: skip
    out["panas_baseline_adjusted"] = sum(adj) / len(adj) if adj else None
    item_errors = [abs(post_items[k] - pred_items[k]) for k in post_items if k in pred_items]
    out["panas_item_mae"] = sum(item_errors) / len(item_errors) if item_errors else None
    cw = gt.get("conversationWideQuestions") or {}
    pc = post.get("predicted_conversation_wide") or {}

    def answers(d, key, alias):
        value = first(d, (key, alias))
        return [x.strip().lower() for x in value or []] if isinstance(value, list | type(None)) \
            else (value or "").strip().lower()  # fmt: skip

    g1, p1 = set(answers(cw, "q1_lookingFor", "Q1")), set(answers(pc, "q1_lookingFor", "Q1"))
    out["q1_looking_for_score"] = (
        f1(len(g1 & p1) / len(p1), len(g1 & p1) / len(g1))
        if g1 and p1
        else float(not g1 and not p1)
    )
    g2, p2 = answers(cw, "q2_emotionClarity", "Q2"), answers(pc, "q2_emotionClarity", "Q2")
    g3, p3 = answers(cw, "q3_modelFit", "Q3"), answers(pc, "q3_modelFit", "Q3")
    out["q2_emotion_clarity_match"] = float(g2 == p2)
    out["q3_model_fit_match"] = float(g3 == p3)
    known = [x in Q3_LOWER for x in (g3, p3)]
    out["q3_model_fit_ordinal_distance"] = (
        float(abs(Q3_LOWER.index(g3) - Q3_LOWER.index(p3))) if all(known) else 3.0 if any(known)
        else 0.0
    )  # fmt: skip
    gf = [x.strip().lower() for x in cw.get("q3_followUp_whatFeltOff") or []]
    pf = [x.strip().lower() for x in pc.get("q3_followUp_whatFeltOff") or []]
    out["q3_follow_up_score"] = (
        f1(fuzzy_credit(pf, gf), fuzzy_credit(gf, pf)) if gf and pf else float(not gf and not pf)
    )
    errors = []
    for branch in ("perceiving", "facilitating", "understanding", "managing"):
        rated = number((cw.get("fourBranchScores") or {}).get(branch))
        if rated is not None:
            guess = number((pc.get("fourBranchScores") or {}).get(branch))
            errors.append(abs(min(max(rated, 1), 7) - (4 if guess is None else
                                                       min(max(guess, 1), 7))))  # fmt: skip
    out["four_branch_mae"] = sum(errors) / len(errors) if errors else 0.0
    out["four_branch_normalized"] = max(0, 1 - out["four_branch_mae"] / 6) if errors else 1.0
    return out


# --- documents with every spelling spec 1.4 allows ------------------------------------------------
LABELS = ["afraid", "scared", "excited", "upset", "proud"]


def spelled(x):
    return st.sampled_from([x, x.upper(), " " + x.capitalize(), x + "\t", "\u00a0" + x.title()])


GT_EMOTION = st.one_of(st.sampled_from(LABELS).flatmap(spelled),
                       st.sampled_from(["neutral", "Calm", ""]))  # fmt: skip
EM_EMOTION = st.one_of(st.sampled_from(LABELS).flatmap(spelled), st.sampled_from(["neutral"]))
INTENSITY = st.one_of(st.none(), st.integers(-2, 9),
                      st.sampled_from([2.4, 3.5, 6.6, "mild", "Moderate", " intense", "5", ""]))  # fmt: skip
BINARY = st.sampled_from(["yes", "no", "na", None, "Yes ", "Y", "true", True, False, 1, 0, "n/a",
                          "NA", "not_applicable", "N", "maybe", "FALSE"])  # fmt: skip
WINNER = st.sampled_from(["A", "B", None, "a", "b", "response_1", "response_2", " B ", "tie"])
LABEL = st.sampled_from(["original", "alternate", "human", "alternate1", "alternate2"])
QUESTIONS = ["B1", "B2", "B3"]


def tags(emotion):
    return st.lists(st.fixed_dictionaries({"emotion": emotion, "intensity": INTENSITY}), max_size=5)


@st.composite
def judgement(draw, q):
    d = {"questionId": q, "llmValue": draw(BINARY)}
    d[draw(st.sampled_from(OBSERVED))] = draw(BINARY)
    d[draw(st.sampled_from(PREFERRED))] = draw(BINARY)
    return d


@st.composite
def comparison(draw):
    d = {"questionId": "general", "winner": draw(WINNER)}
    d[draw(st.sampled_from(["responseA", "response_1"]))] = draw(LABEL)
    d[draw(st.sampled_from(["responseB", "response_2"]))] = draw(LABEL)
    return d


@st.composite
def turn_pair(draw, n):
    questions = draw(st.lists(st.sampled_from(QUESTIONS), unique=True, max_size=3))
    comps = draw(st.lists(comparison(), max_size=4))
    ann = {"binaryJudgements": [draw(judgement(q)) for q in questions],
           "pairwiseComparisons": comps}  # fmt: skip
    gt = {"turnNumber": n, "moodShiftTags": draw(tags(GT_EMOTION)), "annotations": ann}
    em = {"turnNumber": n, "em_emotion_tags": draw(tags(EM_EMOTION))}
    for field in ("em_binary_om_assessment", "em_binary_human_prediction",
                  "em_binary_om_assessment_hp", "em_binary_human_prediction_hp"):  # fmt: skip
        em[field] = draw(st.dictionaries(st.sampled_from(QUESTIONS), BINARY, max_size=3))
    keys = st.sampled_from([str(i) for i in range(len(comps))])
    em["em_pairwise_selections"] = draw(st.dictionaries(keys, WINNER, max_size=4)) if comps else {}
    return gt, em


def _load(gt, run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return release_from_documents({"conversation_5.json": gt}, {"m": {"m/run_5.json": run}})


def _assert_close(got, expected, what):
    note(f"{what}: score() {got}, spec {expected}")
    if expected is None:
        assert math.isnan(got), what
    else:
        assert abs(got - expected) <= 1e-12, what


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(*[turn_pair(i + 1) for i in range(n)])))
def test_turn_metrics_of_raw_documents(pairs):
    gt = {"conversationId": "5", "turns": [g for g, _ in pairs]}
    run = {"conversationId": "5", "em_model": "m", "turns": [e for _, e in pairs]}
    turn = score(_load(gt, run)).turn
    for g, e in pairs:
        rows = turn[turn["turn"] == g["turnNumber"]].set_index("metric")["value"]
        for name, expected in turn_scores(g, e).items():
            _assert_close(float(rows[name]), expected, f"{name}, turn {g['turnNumber']}")


ITEM = st.one_of(st.none(), st.integers(1, 7), st.sampled_from([2.4, 6.5, "3", "", 1.5]))
TOTAL = st.one_of(st.none(), st.integers(0, 80), st.sampled_from([33.5, "41", "", 10.4]))
BRANCH = st.one_of(st.none(), st.integers(0, 9), st.sampled_from([4.5, "6", 7.7, 0.2]))


@st.composite
def panas_block(draw):
    if draw(st.booleans()):
        return None
    items = {draw(st.sampled_from([k, k.lower(), k.upper()])): draw(ITEM)
             for k in draw(st.lists(st.sampled_from(POS + NEG), unique=True, max_size=20))}  # fmt: skip
    where = draw(st.sampled_from(["top", "items", "responses"]))
    block = dict(items) if where == "top" else {where: items}
    for key in ("totalPositiveAffect", "totalNegativeAffect"):
        if draw(st.booleans()):
            block[key] = draw(TOTAL)
    return block


def spelled_option(x):
    return st.sampled_from([x, x.upper(), " " + x.lower() + " "])


@st.composite
def survey(draw):
    if draw(st.integers(0, 3)) == 0:
        return None
    d = {draw(st.sampled_from(["q1_lookingFor", "Q1"])):
         draw(st.lists(st.sampled_from(Q1).flatmap(spelled_option), max_size=3))}  # fmt: skip
    d[draw(st.sampled_from(["q2_emotionClarity", "Q2"]))] = draw(
        st.one_of(st.none(), st.sampled_from(Q2).flatmap(spelled_option)))  # fmt: skip
    d[draw(st.sampled_from(["q3_modelFit", "Q3"]))] = draw(
        st.one_of(st.none(), st.just("other"), st.sampled_from(Q3).flatmap(spelled_option)))  # fmt: skip
    d["q3_followUp_whatFeltOff"] = draw(st.lists(st.sampled_from(
        ["too long", "Too LONG reply", "felt cold", "cold and distant", "x"]), max_size=3))  # fmt: skip
    d["fourBranchScores"] = draw(st.dictionaries(
        st.sampled_from(["perceiving", "facilitating", "understanding", "managing"]), BRANCH))  # fmt: skip
    return d


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(panas_block(), panas_block(), panas_block(), survey(), survey())
def test_conversation_metrics_of_raw_documents(pre, post, pred, cw, pcw):
    gt = {"conversationId": "5", "prePanas": pre, "postPanas": post,
          "conversationWideQuestions": cw, "turns": [{"turnNumber": 1}]}  # fmt: skip
    run = {"conversationId": "5", "em_model": "m", "turns": [{"turnNumber": 1}],
           "post_conversation": {"predicted_post_panas": pred,
                                 "predicted_conversation_wide": pcw}}  # fmt: skip
    try:
        release = _load(gt, run)
    except ReleaseError as exc:  # a rounded PANAS item outside 1..7 (0.5 -> 0) is an error
        assert all("PANAS item" in str(p) for p in exc.problems), exc.problems
        return
    values = score(release).conversation.set_index("metric")["value"]
    for name, expected in conversation_scores(gt, run).items():
        _assert_close(float(values[name]), expected, name)
