"""A replicate whose frame cannot be stored, or replicates whose columns disagree in type, fail
with a message naming the replicates and the column (not a bare pyarrow error); the replicates
already written stay on disk."""

from __future__ import annotations

import textwrap

import pytest

from attunestats.design.studies import Study, replicate_seed, run_study

HELPER = textwrap.dedent(
    """
    import pandas as pd

    def mixed(config, seed):
        return pd.DataFrame({"x": [1, "a", 2.5]})

    def clash(config, seed):
        # replicate 1 (config["odd"]) returns x as text, the others as numbers
        return pd.DataFrame({"x": ["a"] if seed == config["odd"] else [1.5]})
    """
)


@pytest.fixture()
def helpers(tmp_path, monkeypatch):
    folder = tmp_path / "helpers"
    folder.mkdir()
    (folder / "store_error_helpers.py").write_text(HELPER)
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_a_frame_that_cannot_be_stored_names_the_replicate(tmp_path, helpers):
    study = Study("store_error_helpers:mixed", n_replicates=2, seed=1, name="mixed")
    with pytest.raises(TypeError, match=r"replicate 0 of study 'mixed' returned a frame that "
                       r"cannot be stored.*column x"):  # fmt: skip
        run_study(study, tmp_path / "m.parquet", progress=False)


def test_column_types_that_disagree_name_the_column_and_replicates(tmp_path, helpers):
    study = Study("store_error_helpers:clash", {"odd": replicate_seed(1, 1)}, n_replicates=3,
                  seed=1, name="clash")  # fmt: skip
    out = tmp_path / "c.parquet"
    with pytest.raises(TypeError, match=r"column 'x'.*double in replicates \[0, 2\].*string in "
                       r"replicates \[1\]"):  # fmt: skip
        run_study(study, out, progress=False)
    parts = sorted(p.name for p in out.with_name(out.name + ".parts").glob("rep-*"))
    assert len(parts) == 3 and not out.exists()
