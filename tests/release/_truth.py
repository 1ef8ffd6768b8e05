"""The simulator's linear predictor recomputed from truth.json alone (its documented formula),
shared by the simulator's tests: the independent reference the released outcomes are checked
against."""

from __future__ import annotations


def eta_from_truth(truth, pred, cid, turn, cap, *, turn_level=True, behaviour=False):
    """The linear predictor from truth.json: its documented formula with the planted terms."""
    t = truth
    c = t["conversations"][cid]
    pid, g, top = c["participant"], c["diagnosis_group"], c["topic"]
    n = c["n_turns"]
    val = (
        t["theta"][pred][cap]
        + t["u"][pid][cap]
        + t["delta"][g][cap]
        + t["gamma"][pred][g][cap]
        + t["v"][top][cap]
        + t["topic_interaction"][pred][top][cap]
        + c["w"][cap]
    )
    if "participant_interaction" in t:
        val += t["participant_interaction"][pred][pid][cap]
    if "wi" in c:
        val += c["wi"][pred][cap]
    if turn_level:
        val += t["beta"][pred][cap] * (0.5 if n == 1 else (turn - 1) / (n - 1))
    if behaviour and "binary_noise" in c:
        val += c["binary_noise"][pred][turn - 1]
    return val
