"""The simulation-study runner: same numbers on every executor, resumable, extendable.

Independent references: numpy's own ``SeedSequence.spawn`` for replicate seeds; byte-for-byte
comparison of files written by different executors and by interrupted-and-resumed runs; the exact
coverage of the cluster-level t interval (t theory) for the ``mean_coverage`` study.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from attunestats.cli.study import study_command
from attunestats.design.studies import (
    STUDY_KINDS,
    Study,
    StudyError,
    make_study,
    read_study,
    replicate_seed,
    run_study,
    summarise_coverage,
)

# a study kind whose replicates are cheap and pure numpy
MEAN_STUDY = {"n_participants": 6, "cluster_size": 4, "icc": 0.3}

# The real coverage study, shrunk (3 models, releases of 80 conversations, 200-conversation
# population values, 6 metrics, B = 500 BCa). At this size the bootstrap's matrix products are
# large enough for OpenBLAS to use several threads, whose different summation order flips BCa tie
# counts in the last bit: the sizes are chosen so that the executor test fails unless every
# executor pins BLAS to one thread.
TINY_COVERAGE = {
    "simulation": {"n_conversations": 80, "n_models": 3, "n_human_raters": 0, "n_topics": 20},
    "population_conversations": 200,
    "population_chunk_size": 200,
    "n_resamples": 500,
    "metrics": [
        "q1_looking_for_score", "avg_binary_human_accuracy", "four_branch_normalized",
        "avg_emotion_f1", "panas_normalized", "avg_binary_om_accuracy_hp",
    ],
}  # fmt: skip


def _bytes(path: Path) -> bytes:
    return Path(path).read_bytes()


# --------------------------------------------------------------------------------------------
# seeds
# --------------------------------------------------------------------------------------------
def test_replicate_seed_is_the_spawned_child():
    children = np.random.SeedSequence(2024).spawn(7)
    expected = [int(c.generate_state(1, np.uint64)[0]) >> 1 for c in children]
    # asked in another order, one at a time: same seeds
    got = {i: replicate_seed(2024, i) for i in (6, 0, 3, 1, 5, 2, 4)}
    assert [got[i] for i in range(7)] == expected
    assert len(set(expected)) == 7
    assert all(0 <= s < 2**63 for s in expected)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_replicate_seed_rejects_bad_values(bad):
    with pytest.raises(ValueError, match="must be a non-negative integer"):
        replicate_seed(bad, 0)
    with pytest.raises(ValueError, match="replicate must be a non-negative integer"):
        replicate_seed(0, bad)


# --------------------------------------------------------------------------------------------
# executors give the same file
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def local_cluster():
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra (dask)")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    yield cluster
    cluster.close()


def test_same_results_serial_processes_and_dask(tmp_path, local_cluster):
    from distributed import Client

    studies = {
        "mean": make_study("mean_coverage", MEAN_STUDY, n_replicates=30, rng=11),
        "coverage": make_study("coverage", TINY_COVERAGE, n_replicates=2, rng=1),
    }
    for label, study in studies.items():
        serial = run_study(study, tmp_path / f"{label}-serial.parquet", progress=False)
        procs = run_study(
            study, tmp_path / f"{label}-procs.parquet", executor="processes", n_workers=2,
            progress=False,
        )  # fmt: skip
        with Client(local_cluster) as client:
            dask_res = run_study(
                study, tmp_path / f"{label}-dask.parquet", executor="dask", client=client,
                progress=False,
            )  # fmt: skip
        assert (serial.n_computed, procs.n_computed, dask_res.n_computed) == (
            study.n_replicates,
        ) * 3
        assert procs.n_workers == 2 and dask_res.n_workers == 2
        reference = _bytes(serial.path)
        assert _bytes(procs.path) == reference, label
        assert _bytes(dask_res.path) == reference, label
        frame = serial.to_frame()
        assert sorted(frame["replicate"].unique()) == list(range(study.n_replicates))
        seeds = frame.groupby("replicate")["replicate_seed"].first()
        assert list(seeds) == [study.replicate_seed(i) for i in range(study.n_replicates)]
        assert frame.attrs["simulated"] and frame.attrs["label"]
        if label == "coverage":
            # the runner adds nothing but ids: the replicate is coverage_replicate itself
            assert (frame["seed"] == frame["replicate_seed"]).all()
            assert set(frame["kind"]) == {"mean", "difference"}


def test_dask_scheduler_address_and_worker_count_do_not_change_results(tmp_path, local_cluster):
    study = make_study("mean_coverage", MEAN_STUDY, n_replicates=12, rng=4)
    ref = run_study(study, tmp_path / "serial.parquet", progress=False)
    res = run_study(
        study, tmp_path / "addr.parquet", executor="dask",
        scheduler=local_cluster.scheduler_address, progress=False,
    )  # fmt: skip
    assert _bytes(res.path) == _bytes(ref.path)
    one = run_study(study, tmp_path / "one.parquet", executor="processes", n_workers=1,
                    progress=False)  # fmt: skip
    assert _bytes(one.path) == _bytes(ref.path)


# --------------------------------------------------------------------------------------------
# interruption, resumption, extension
# --------------------------------------------------------------------------------------------
HELPER = textwrap.dedent(
    """
    import time
    import numpy as np
    import pandas as pd

    def slow_replicate(config, seed):
        time.sleep(config["delay"])
        rng = np.random.default_rng(seed)
        k = 1 + seed % 3  # replicates of different lengths
        return pd.DataFrame({"x": rng.normal(size=k), "label": ["a", "b", "c"][:k]})

    def not_a_frame(config, seed):
        return 1

    def reserved_columns(config, seed):
        return pd.DataFrame({"replicate": [1]})

    def failing_replicate(config, seed):
        if seed == config["fail_seed"]:
            raise RuntimeError("planted failure")
        return pd.DataFrame({"x": [float(seed % 1000)]})
    """
)


@pytest.fixture()
def helper_module(tmp_path, monkeypatch):
    folder = tmp_path / "helpers"
    folder.mkdir()
    (folder / "study_helpers.py").write_text(HELPER)
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_killed_study_resumes_to_the_same_file(tmp_path, helper_module):
    n = 24
    config = {"delay": 0.15}
    study = Study("study_helpers:slow_replicate", config, n_replicates=n, seed=9, name="slow")
    out = tmp_path / "killed.parquet"
    script = textwrap.dedent(
        f"""
        from attunestats.design.studies import Study, run_study
        study = Study("study_helpers:slow_replicate", {config!r}, n_replicates={n}, seed=9,
                      name="slow")
        run_study(study, {str(out)!r}, progress=False)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(helper_module), *sys.path])}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env)
    parts = out.with_name(out.name + ".parts")
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            if parts.exists() and len(list(parts.glob("rep-*.parquet"))) >= 8:
                break
            if proc.poll() is not None:
                pytest.fail("the study finished before it could be interrupted")
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert not out.exists(), "killed before consolidation"
    done_before = len(list(parts.glob("rep-*.parquet")))
    assert 8 <= done_before < n
    # a crash in the middle of writing a part leaves only a temporary file behind
    (parts / ".rep-000000999.parquet.tmp-12345").write_bytes(b"PAR1 half a file")

    resumed = run_study(study, out, progress=False)
    assert resumed.n_resumed == done_before
    assert resumed.n_computed == n - done_before
    assert not parts.exists(), "parts are removed once consolidated"

    straight = run_study(study, tmp_path / "straight.parquet", progress=False)
    assert straight.n_computed == n
    assert _bytes(resumed.path) == _bytes(straight.path)
    a, b = read_study(resumed.path), read_study(straight.path)
    pd.testing.assert_frame_equal(a, b)
    assert list(a["replicate"]) == sorted(a["replicate"])  # canonical order


def test_extending_a_study_gives_the_file_of_the_larger_study(tmp_path):
    small = make_study("mean_coverage", MEAN_STUDY, n_replicates=8, rng=3)
    large = make_study("mean_coverage", MEAN_STUDY, n_replicates=20, rng=3)
    out = tmp_path / "grow.parquet"
    run_study(small, out, progress=False)
    grown = run_study(large, out, progress=False)
    assert (grown.n_resumed, grown.n_computed, grown.n_replicates) == (8, 12, 20)
    direct = run_study(large, tmp_path / "direct.parquet", progress=False)
    assert _bytes(out) == _bytes(direct.path)
    again = run_study(large, out, progress=False)
    assert (again.n_computed, again.n_resumed) == (0, 20)
    assert _bytes(out) == _bytes(direct.path)


def test_failed_replicate_names_itself_and_keeps_finished_ones(tmp_path, helper_module):
    fail_seed = replicate_seed(1, 3)
    study = Study("study_helpers:failing_replicate", {"fail_seed": fail_seed}, n_replicates=6,
                  seed=1)  # fmt: skip
    out = tmp_path / "fail.parquet"
    with pytest.raises(StudyError, match=rf"replicate 3 \(seed {fail_seed}\).*planted failure"):
        run_study(study, out, progress=False)
    parts = sorted(p.name for p in out.with_name(out.name + ".parts").glob("rep-*"))
    assert parts == [f"rep-{i:09d}.parquet" for i in range(3)]
    assert not out.exists()


def test_a_different_study_at_the_same_path_is_refused(tmp_path):
    out = tmp_path / "s.parquet"
    run_study(make_study("mean_coverage", n_replicates=3, rng=1), out, progress=False)
    other = make_study("mean_coverage", n_replicates=3, rng=2)
    with pytest.raises(ValueError, match="different study"):
        run_study(other, out, progress=False)
    res = run_study(other, out, progress=False, overwrite=True)
    assert res.n_computed == 3


def test_study_result_protocol_and_rng(tmp_path):
    from attunestats.design.studies import resolve

    res = run_study(make_study("mean_coverage", MEAN_STUDY, n_replicates=4, rng=5),
                    tmp_path / "r.parquet", progress=False)  # fmt: skip
    assert res.seed == res.study.seed == 5
    text = str(res.summary())
    assert "Simulation study" in text and "SIMULATED DATA" in text
    assert "4 (4 computed, 0 resumed)" in text and "Seed:" in text
    assert repr(res) == "<StudyResult: 8 rows; study='mean_coverage'; 4 replicates; SIMULATED>"
    # rng: a SeedSequence gives a reproducible int study seed, recorded in the study
    one = make_study("mean_coverage", n_replicates=2, rng=np.random.SeedSequence(9))
    two = make_study("mean_coverage", n_replicates=2, rng=np.random.SeedSequence(9))
    assert one.seed == two.seed and one.fingerprint == two.fingerprint
    with pytest.raises(ValueError, match="non-negative"):
        make_study("mean_coverage", n_replicates=2, rng=-1)
    # every registered kind names importable replicate (and setup) functions
    for kind in STUDY_KINDS.values():
        assert callable(resolve(kind.replicate))
        assert kind.setup is None or callable(resolve(kind.setup))


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------
def test_study_input_errors(tmp_path):
    with pytest.raises(ValueError, match="importable top-level function"):
        Study(lambda c, s: None)
    with pytest.raises(ValueError, match="package.module:function"):
        Study("no_colon_here")
    with pytest.raises(TypeError, match="config must be JSON-serialisable"):
        Study("attunestats.design.studies.kinds:mean_coverage_replicate", {"x": object()})
    with pytest.raises(TypeError, match="config must be JSON-serialisable"):
        Study("attunestats.design.studies.kinds:mean_coverage_replicate", {"x": float("nan")})
    with pytest.raises(ValueError, match="n_replicates must be an integer >= 1; got 0"):
        Study("attunestats.design.studies.kinds:mean_coverage_replicate", n_replicates=0)
    with pytest.raises(ValueError, match="unknown study kind 'nope'"):
        make_study("nope", n_replicates=1, rng=0)
    with pytest.raises(ValueError, match=r"unknown config keys \['iccc'\]"):
        make_study("mean_coverage", {"iccc": 0.1}, n_replicates=1, rng=0)
    study = make_study("mean_coverage", n_replicates=2, rng=0)
    with pytest.raises(ValueError, match="executor must be one of"):
        run_study(study, tmp_path / "a.parquet", executor="threads")
    with pytest.raises(ValueError, match="out must be a .parquet file path"):
        run_study(study, tmp_path / "a.csv")
    with pytest.raises(ValueError, match="scheduler/client need executor='dask'"):
        run_study(study, tmp_path / "a.parquet", scheduler="tcp://x:1")
    with pytest.raises(ValueError, match="n_workers must be a positive integer"):
        run_study(study, tmp_path / "a.parquet", executor="processes", n_workers=0)
    bad = Study("attunestats.design.studies.kinds:not_there", n_replicates=1)
    with pytest.raises(ImportError, match="has no 'not_there'"):
        run_study(bad, tmp_path / "b.parquet", progress=False)
    assert not (tmp_path / "b.parquet.parts").exists(), "nothing written before the check"


def test_replicate_must_return_a_frame_without_reserved_columns(tmp_path, helper_module):
    study = Study("study_helpers:not_a_frame", n_replicates=1)
    with pytest.raises(TypeError, match="replicate 0 returned int; .* must return a pandas"):
        run_study(study, tmp_path / "c.parquet", progress=False)
    study = Study("study_helpers:reserved_columns", n_replicates=1)
    with pytest.raises(ValueError, match=r"reserved columns \['replicate'\]"):
        run_study(study, tmp_path / "d.parquet", progress=False)


# --------------------------------------------------------------------------------------------
# progress, summaries, CLI
# --------------------------------------------------------------------------------------------
def test_progress_line_reports_counts_rate_and_eta(tmp_path):
    stream = io.StringIO()
    study = make_study("mean_coverage", n_replicates=40, rng=2)
    run_study(study, tmp_path / "p.parquet", progress=True, stream=stream)
    lines = stream.getvalue().strip().splitlines()
    assert len(lines) == 20  # not a terminal: one line per 5%
    assert lines[-1].startswith("mean_coverage: 40/40 replicates")
    assert "/s, elapsed" in lines[0] and "ETA" in lines[0]
    stream = io.StringIO()
    run_study(make_study("mean_coverage", n_replicates=60, rng=2), tmp_path / "p.parquet",
              progress=True, stream=stream)  # fmt: skip
    assert "(40 resumed)" in stream.getvalue()


def test_summarise_coverage_by_hand():
    frame = pd.DataFrame(
        {
            "replicate": [0, 0, 1, 1, 2, 2],
            "kind": ["a", "b"] * 3,
            "covered": [True, False, True, True, False, True],
        }
    )
    out = summarise_coverage(frame).set_index("kind")
    assert out.loc["a", "coverage"] == pytest.approx(2 / 3)
    # per-replicate coverage 1, 1, 0: sd sqrt(1/3), se sqrt(1/3)/sqrt(3) = 1/3
    assert out.loc["a", "mc_se"] == pytest.approx(1 / 3)
    assert out.loc["b", "n_replicates"] == 3
    with pytest.raises(ValueError, match=r"lacks columns \['covered'\]"):
        summarise_coverage(frame.drop(columns="covered"))


def test_summarise_coverage_intervals_are_wilson_on_the_effective_size_and_stay_in_0_1():
    # statsmodels' Wilson interval at the effective number of intervals c(1 - c) / mc_se^2
    # (here 10 replicates of 4 intervals); a coverage of 1 gets an interval below 1, never above
    from statsmodels.stats.proportion import proportion_confint

    covered = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1] * 2
    frame = pd.DataFrame({"replicate": np.repeat(np.arange(10), 4), "kind": "a",
                          "covered": np.array(covered, dtype=bool)})  # fmt: skip
    row = summarise_coverage(frame).iloc[0]
    c, se = row["coverage"], row["mc_se"]
    n_eff = c * (1 - c) / se**2
    lo, hi = proportion_confint(c * n_eff, n_eff, alpha=0.05, method="wilson")
    assert (row["mc_low"], row["mc_high"]) == pytest.approx((lo, hi), rel=1e-10)
    assert row["mc_high"] < 1.0
    full = summarise_coverage(frame.assign(covered=True)).iloc[0]
    lo1, hi1 = proportion_confint(10, 10, alpha=0.05, method="wilson")  # n_eff = replicates
    assert full["coverage"] == 1.0 and (full["mc_low"], full["mc_high"]) == pytest.approx(
        (lo1, hi1), rel=1e-10
    )


def test_cluster_t_interval_coverage_is_exact():
    # The cluster-level t interval is exact for a clustered normal mean: 95% coverage within
    # Monte Carlo error (binomial SE of 2000 replicates = 0.0049); the naive interval that
    # ignores an ICC of 0.3 with clusters of 4 (deff 1.9) must fall clearly below.
    from attunestats.design.studies import mean_coverage_replicate

    config = {**STUDY_KINDS["mean_coverage"].defaults, **MEAN_STUDY}
    frames = [mean_coverage_replicate(config, replicate_seed(8, i)) for i in range(2000)]
    frame = pd.concat(frames, keys=range(2000), names=["replicate", None]).reset_index(0)
    cover = frame.groupby("kind")["covered"].mean()
    se = np.sqrt(0.95 * 0.05 / 2000)
    assert abs(cover["cluster_t"] - 0.95) < 4 * se
    assert cover["naive_t"] < 0.95 - 4 * se


def test_study_command_runs_and_summarises(tmp_path, capsys):
    assert study_command(["kinds"]) == 0
    assert "coverage" in capsys.readouterr().out
    out = tmp_path / "cli.parquet"
    code = study_command(
        ["run", "mean_coverage", "--replicates", "10", "--seed", "1", "--out", str(out),
         "--config", json.dumps(MEAN_STUDY), "--no-progress"]
    )  # fmt: skip
    assert code == 0
    assert "10 replicates (10 computed, 0 resumed)" in capsys.readouterr().out
    reference = run_study(
        make_study("mean_coverage", MEAN_STUDY, n_replicates=10, rng=1),
        tmp_path / "api.parquet", progress=False,
    )  # fmt: skip
    assert _bytes(out) == _bytes(reference.path)
    assert study_command(["summary", str(out)]) == 0
    text = capsys.readouterr().out
    assert "SIMULATED" in text and "cluster_t" in text
    assert study_command(["run", "nope", "--replicates", "1", "--seed", "0",
                          "--out", str(out)]) == 2  # fmt: skip
    assert "unknown study kind" in capsys.readouterr().err


@pytest.mark.slow
def test_recovery_study_gives_the_same_file_serially_and_in_two_processes(tmp_path):
    # hierarchical recovery replicates (simulate, fit with seeded chains, compare with the
    # planted truth) are pure functions of their seed like any other replicate
    study = make_study("recovery", {"draws": 100, "tune": 100}, n_replicates=2, rng=3)
    serial = run_study(study, tmp_path / "serial.parquet", progress=False)
    procs = run_study(study, tmp_path / "procs.parquet", executor="processes", n_workers=2,
                      progress=False)  # fmt: skip
    assert _bytes(serial.path) == _bytes(procs.path)
    frame = serial.to_frame()
    assert {"parameter", "truth", "mean", "ci_low", "ci_high", "covered"} <= set(frame.columns)
    assert np.isfinite(frame["truth"]).all() and frame["replicate"].nunique() == 2
