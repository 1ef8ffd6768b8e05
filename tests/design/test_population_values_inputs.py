"""population_values refuses sizes that are not positive integers, naming the argument and the
value (a ZeroDivisionError before), without simulating anything."""

from __future__ import annotations

import pytest

from attunestats.design.coverage import population_values


@pytest.mark.parametrize(("name", "value"), [("n_conversations", 0), ("chunk_size", 0),
                                             ("chunk_size", -5), ("n_conversations", 2.5),
                                             ("chunk_size", True)])  # fmt: skip
def test_sizes_must_be_positive_integers(name, value):
    with pytest.raises(ValueError, match=rf"{name} must be an integer >= 1; got {value!r}"):
        population_values(None, **{name: value})
