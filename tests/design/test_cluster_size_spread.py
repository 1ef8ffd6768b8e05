"""The simulated cluster sizes of power_curve have the model's coefficient of variation.

ContrastModel.cluster_cv is the CV of conversations per participant (fit_contrast_values
measures it as std(sizes, ddof=0) / mean); datasets simulated from the model must have that
spread on average, else the simulated power describes a more (or less) unbalanced design than
the one fitted or specified. Reference: the definition, averaged over 8000 draws (the Monte
Carlo SE of the mean squared CV is about 1% of it; tolerance 5%).
"""

from __future__ import annotations

import numpy as np
import pytest

from attunestats.design.power.curve import _cluster_sizes


@pytest.mark.parametrize(("n", "p", "cv"), [(40, 10, 0.3), (60, 20, 0.5), (198, 11, 0.5),
                                            (200, 10, 0.5), (60, 6, 0.8)])  # fmt: skip
def test_mean_squared_cv_of_simulated_sizes_is_the_models(n, p, cv):
    rng = np.random.default_rng(5)
    draws = [_cluster_sizes(n, p, cv, rng) for _ in range(8000)]
    assert all(s.sum() == n and s.min() >= 1 and s.size == p for s in draws)
    cv2 = np.array([(s.std() / s.mean()) ** 2 for s in draws])
    assert cv2.mean() == pytest.approx(cv**2, rel=0.05)


def test_zero_cv_gives_sizes_as_equal_as_possible():
    sizes = _cluster_sizes(23, 5, 0.0, np.random.default_rng(0))
    assert sorted(sizes.tolist()) == [4, 4, 5, 5, 5]
