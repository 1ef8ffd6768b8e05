"""fit_independence_noise on a matrix resampled by participant: the per-conversation noise it
returns must reproduce, through reliability_at at the release's own number of conversations,
the sampling variance of the model means (which with clustered conversations is that of the
participant means, not that of as many independent conversations).

Independent generator: values = skill[model, metric] + u[participant, model, metric] + e, with
u ~ N(0, sb^2) and e ~ N(0, sw^2); the variance of a model mean over P participants of m
conversations is (sb^2 + sw^2 / m) / P. Tolerance: the bootstrap variance, averaged over 11
models and 3 metrics, estimates the sample variance of 40 participant means (relative SE about
sqrt(2 / 39) / sqrt(33) = 0.04) with a bias of (P - 1) / P; 20% is > 4 SE.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from attunestats import independence as ind
from attunestats.design.power import fit_independence_noise, reliability_at


def test_participant_resampled_noise_gives_the_reliability_of_the_model_means():
    rng = np.random.default_rng(11)
    p, m, n_models, n_metrics, sb, sw, skill_sd = 40, 10, 11, 3, 1.0, 1.0, 0.4
    c = p * m
    part = np.repeat(np.arange(p), m)
    skill = rng.normal(0, skill_sd, (n_models, n_metrics))
    u = rng.normal(0, sb, (p, n_models, n_metrics))[part]
    e = rng.normal(0, sw, (c, n_models, n_metrics))
    values = skill[None] + u + e
    design = pd.DataFrame({"conversation_id": [f"c{i:04d}" for i in range(c)],
                           "participant_id": [f"p{j:03d}" for j in part]})  # fmt: skip
    matrix = ind.metric_matrix(values, design=design, unit="participant", n_resamples=400, rng=2)
    fitted = fit_independence_noise(matrix)
    noise_var = (sb**2 + sw**2 / m) / p  # of one model mean
    np.testing.assert_allclose(fitted["noise_sd"].to_numpy() ** 2 / c, noise_var, rtol=0.2)
    truth = skill_sd**2 / (skill_sd**2 + noise_var)
    got = reliability_at(c, skill_sd=skill_sd, noise_sd=fitted["noise_sd"].to_numpy())[0]
    np.testing.assert_allclose(got, truth, rtol=0.1)
