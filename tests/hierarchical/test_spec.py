"""The structure specification: strings that do not say one structure are errors naming the
offending term or value; the string form round-trips exactly (it is the compile-cache key).

Independent reference: the grammar of :mod:`attunestats.hierarchical.spec`'s docstring (a base,
then ``+ term`` / ``- term``, then ``;`` and ``name=value`` items), written out by hand.
"""

from __future__ import annotations

import pytest

from attunestats import hierarchical as H
from attunestats.hierarchical.spec import DEFAULT_TERMS, ModelSpec


@pytest.mark.parametrize(
    ("text", "match"),
    [
        # a term without its operator: it used to take the previous term's sign ("- item turn"
        # removed turn) or, after the base, to be added
        ("default - item turn", r"\+ or - before 'turn'"),
        ("default turn", r"\+ or - before 'turn'"),
        # operators without a term
        ("default +", "ends with '\\+'"),
        ("default - - turn", "two operators"),
        ("default + - turn", "two operators"),
        # one term said twice: contradictory or a slip for another term
        ("default - turn + turn", "'turn' more than once"),
        ("legacy + item + item", "'item' more than once"),
        # a base after the first place
        ("default + legacy", "base 'legacy' must come first"),
    ],
)
def test_malformed_structure_strings_are_errors_naming_the_term(text, match):
    with pytest.raises(ValueError, match=match):
        ModelSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        # the same prior twice: the last one silently won
        (
            "default; sigma_topic_scale=0.5, sigma_topic_scale=0.7",
            "'sigma_topic_scale' more than once",
        ),
        ("default; sigma_topic=gamma, sigma_topic=halfnormal", "'sigma_topic' more than once"),
        # an unknown name is reported as unknown, whatever its value
        ("default; sigma_foo=gamma", "unknown prior.*'sigma_foo'"),
        ("default; foo=0.5", "unknown prior.*'foo'"),
    ],
)
def test_prior_items_said_twice_or_unknown_are_errors(text, match):
    with pytest.raises(ValueError, match=match):
        ModelSpec.parse(text)


def test_well_formed_strings_still_parse():
    everything = set(DEFAULT_TERMS)
    assert set(ModelSpec.parse("default").terms) == everything
    assert set(ModelSpec.parse("default - item - turn").terms) == everything - {"item", "turn"}
    assert ModelSpec.parse("predictor:participant + turn").terms == (
        "predictor:participant",
        "turn",
    )
    assert ModelSpec.parse("base + turn + overdispersion").terms == ("turn", "overdispersion")
    assert ModelSpec.parse("default + overdispersion") == ModelSpec()  # adding a present term
    assert ModelSpec.parse("legacy + item") == ModelSpec(terms=H.LEGACY_TERMS + ("item",))
    assert ModelSpec.parse("default-item") == ModelSpec.parse("default - item")
    assert ModelSpec.parse(" default ;  sigma_topic=halfnormal , intercept_sd=2 ") == ModelSpec(
        priors={"intercept_sd": 2.0}, scale_priors={"sigma_topic": "halfnormal"}
    )


def test_string_form_round_trips_priors_exactly_so_compile_keys_differ():
    """``str(spec)`` is part of :meth:`HierarchicalModel.structure_key`, the key of the cache of
    compiled PyMC models, whose priors are constants: priors equal to six significant digits
    used to print alike and share one compiled model (with the first one's priors)."""
    from attunestats.hierarchical.synthetic import simulate_panel

    a = ModelSpec(priors={"sigma_topic_scale": 0.1234567})
    b = ModelSpec(priors={"sigma_topic_scale": 0.1234568})
    assert ModelSpec.parse(str(a)) == a and ModelSpec.parse(str(b)) == b
    assert str(a) != str(b)
    pan = simulate_panel(rng=1, n_conversations=6, n_participants=3, n_topics=2)
    ma = H.behaviour_model(pan.data, pan.design, structure=a)
    mb = H.behaviour_model(pan.data, pan.design, structure=b)
    assert ma.structure_key() != mb.structure_key()
    # usual values keep their short form
    assert str(ModelSpec(priors={"intercept_sd": 2.0, "sigma_item_scale": 0.25})).endswith(
        "; intercept_sd=2, sigma_item_scale=0.25"
    )


@pytest.mark.parametrize("terms", [["turn", 3, None], ("turn", ["item"])])
def test_terms_that_are_not_names_are_a_clear_error(terms):
    with pytest.raises((TypeError, ValueError), match="ModelSpec.terms"):
        ModelSpec(terms=terms)


def test_numpy_numbers_are_numbers():
    """A prior scale read from an array (``np.int64(2)``, ``np.float32(0.5)``) is a positive
    number; it was refused as "must be a positive number"."""
    import numpy as np

    assert ModelSpec(priors={"intercept_sd": np.int64(2)}).prior("intercept_sd") == 2.0
    assert ModelSpec(priors={"sigma_item_scale": np.float32(0.5)}).prior("sigma_item_scale") == 0.5
    for bad in (True, np.bool_(True), "1", 0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="must be a positive number"):
            ModelSpec(priors={"intercept_sd": bad})


def test_a_prior_equal_to_its_default_is_no_override():
    """As for scale families (test_kernel.test_spec_strings_and_errors): specs of the same
    model compare equal and share a compile key, whether a default value is spelled out or
    not."""
    from attunestats.hierarchical.spec import PRIORS

    spelled = ModelSpec(priors={"intercept_sd": PRIORS["intercept_sd"]})
    assert spelled == ModelSpec() and hash(spelled) == hash(ModelSpec())
    assert ModelSpec.parse(f"default; intercept_sd={PRIORS['intercept_sd']}") == ModelSpec()
    assert str(spelled) == str(ModelSpec())
    assert ModelSpec(priors={"intercept_sd": 2.0}) != ModelSpec()


def _specs():
    from hypothesis import strategies as st

    from attunestats.hierarchical.spec import FAMILIES, PRIORS, SCALE_PRIORS, TERMS

    values = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)
    return st.builds(
        ModelSpec,
        terms=st.lists(st.sampled_from(TERMS), unique=True).map(tuple),
        priors=st.dictionaries(st.sampled_from(sorted(PRIORS)), values),
        scale_priors=st.dictionaries(
            st.sampled_from(list(SCALE_PRIORS)), st.sampled_from(FAMILIES)
        ),
    )


def test_every_spec_round_trips_through_its_string():
    from hypothesis import given, settings

    @settings(max_examples=200, deadline=None)
    @given(_specs())
    def check(spec):
        again = ModelSpec.parse(str(spec))
        assert again == spec and str(again) == str(spec) and hash(again) == hash(spec)

    check()
