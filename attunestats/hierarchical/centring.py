"""The ``parameterization="auto"`` rule: which levels of a model are centred.

A level's effects are centred when the data pin them down (many effective observations per
group), where the centred form samples best, and non-centred otherwise (:mod:`.model`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from attunestats.hierarchical.model import LEVELS

#: ``parameterization="auto"``: conversation intercepts are centred when the median conversation
#: carries at least this many effective binary observations (summed over predictors and rows).
AUTO_CENTRED_MIN_OBS = 300.0
#: ... and participant / topic intercepts when the median participant / topic has at least this
#: many effective observations and :data:`AUTO_CENTRED_MIN_CONVERSATIONS` conversations.
AUTO_CENTRED_MIN_OBS_LEVEL = 1000.0
AUTO_CENTRED_MIN_CONVERSATIONS = 8
#: ... and the predictor x participant / predictor x conversation deviations when the median
#: predictor x participant / predictor x conversation cell has at least this many.
AUTO_CENTRED_MIN_OBS_INTERACTION = 1e12


def auto_centring(
    per_conversation: np.ndarray,
    participant_of_conversation: np.ndarray,
    topic_of_conversation: np.ndarray,
    *,
    n_predictors: int = 1,
    per_item: np.ndarray | None = None,
) -> tuple[bool, ...]:
    """The ``parameterization="auto"`` choice: is each level of :data:`.model.LEVELS` centred?

    Conversations: centred when the median conversation carries at least
    :data:`AUTO_CENTRED_MIN_OBS` effective observations. Topics: centred when conversations are
    and the median topic has :data:`AUTO_CENTRED_MIN_CONVERSATIONS` conversations and
    :data:`AUTO_CENTRED_MIN_OBS_LEVEL` effective observations. Items: centred when the median item
    has :data:`AUTO_CENTRED_MIN_OBS_LEVEL` effective observations. Participants: non-centred.
    Predictor x participant and predictor x conversation deviations: centred when the median
    cell (effective observations of the participant or conversation divided by the number of
    predictors) has :data:`AUTO_CENTRED_MIN_OBS_INTERACTION`.

    ``per_conversation`` holds the effective binary observations of each conversation (trials
    summed over predictors and rows; 4 per ordered-beta score), ``per_item`` those of each item.
    See :mod:`.model`.
    """
    per_conversation = np.asarray(per_conversation, dtype=float)
    conv = bool(np.median(per_conversation) >= AUTO_CENTRED_MIN_OBS)

    def level(index: np.ndarray) -> bool:
        n_conv = np.bincount(index)
        n_obs = np.bincount(index, weights=per_conversation)
        keep = n_conv > 0
        return bool(
            np.median(n_conv[keep]) >= AUTO_CENTRED_MIN_CONVERSATIONS
            and np.median(n_obs[keep]) >= AUTO_CENTRED_MIN_OBS_LEVEL
        )

    # participants: non-centred. With the group means integrated out (see .model) the
    # non-centred form sampled the paper-sized behaviour model without divergences (min bulk ESS
    # 686 / 4,000 draws), the centred one had divergent transitions at small sigma_participant
    # (a funnel over the few participants). A centred level above non-centred conversation
    # intercepts diverged as well (holistic outcomes), hence topics only with conversations.
    m = max(int(n_predictors), 1)
    per_part = np.bincount(participant_of_conversation, weights=per_conversation)
    item = per_item is not None and bool(
        np.median(np.asarray(per_item, dtype=float)) >= AUTO_CENTRED_MIN_OBS_LEVEL
    )
    return (
        False,
        conv and level(topic_of_conversation),
        conv,
        item,
        bool(np.median(per_part[per_part > 0]) / m >= AUTO_CENTRED_MIN_OBS_INTERACTION),
        bool(np.median(per_conversation) / m >= AUTO_CENTRED_MIN_OBS_INTERACTION),
    )


def _resolve(
    parameterization: Any,
    per_conversation: np.ndarray,
    lv: Mapping[str, Any],
    *,
    n_predictors: int,
    per_item: np.ndarray | None = None,
) -> tuple[bool, ...]:
    auto = auto_centring(
        per_conversation, lv["participant_of_conversation"], lv["topic_of_conversation"],
        n_predictors=n_predictors, per_item=per_item,
    )  # fmt: skip
    spec = (
        parameterization
        if isinstance(parameterization, Mapping)
        else dict.fromkeys(LEVELS, parameterization)
    )
    out = []
    for lev, a in zip(LEVELS, auto):
        choice = spec.get(lev, "auto")
        out.append(a if choice == "auto" else choice == "centred")
    return tuple(out)
