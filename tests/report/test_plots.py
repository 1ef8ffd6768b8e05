"""``result.plot()`` (attunestats/_results.py PlotMixin -> attunestats/report/plots.py): a
matplotlib Figure with the expected axes and artists, the numbers drawn equal to the result's
table; only the results holding a figure have ``plot``; the statistics folders import the report
layer nowhere but inside a method named ``plot``."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

from attunestats._results import PLOTTABLE, ResultMixin
from attunestats.constants import SIMULATED_LABEL

PACKAGE = Path(__file__).resolve().parents[2] / "attunestats"
STATISTICS = ("release", "metrics", "inference", "agreement", "baseline", "hierarchical",
              "independence", "design")  # fmt: skip
SHARED = ("_results.py", "_rng.py", "_io.py", "_progress.py", "constants.py", "errors.py")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    assert matplotlib.get_backend().lower() == "agg"  # report.figures chose the headless one
    plt.close("all")


@pytest.fixture(scope="module")
def comparison(small_simulated_scores):
    from attunestats import compare_models

    return compare_models(small_simulated_scores, correction="holm")


def _labels(text_objects) -> list[str]:
    return [t.get_text() for t in text_objects]


def _simulated_mark(fig: Figure) -> bool:
    return SIMULATED_LABEL in _labels(fig.texts)


def _points(ax) -> np.ndarray:
    """x of the points of every errorbar (the estimates drawn), in drawing order."""
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    return np.concatenate([c.lines[0].get_xdata() for c in bars])


def test_the_classes_with_a_figure_are_the_ones_the_report_layer_draws():
    from attunestats.report.plots import PLOTS

    assert set(PLOTS) == set(PLOTTABLE)
    for name in PLOTTABLE:
        module, _, qualname = name.rpartition(".")
        cls = getattr(importlib.import_module(module), qualname)
        assert issubclass(cls, ResultMixin) and callable(cls.plot), name


def test_results_without_a_figure_have_no_plot(small_simulated_release):
    report = small_simulated_release.report  # a LoadReport: a result, but no figure
    assert isinstance(report, ResultMixin)
    assert not hasattr(report, "plot")
    with pytest.raises(AttributeError, match="holds no figure"):
        report.plot()


def test_comparison_ranks(comparison):
    fig = comparison.plot()  # composite_score by default
    assert isinstance(fig, Figure) and len(fig.axes) == 1 and _simulated_mark(fig)
    ax = fig.axes[0]
    ranks = comparison.ranks[comparison.ranks["metric"] == "composite_score"]
    n = len(ranks)
    # two rank sets per predictor (simultaneous, marginal) and one point per predictor
    sets = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert [len(c.get_segments()) for c in sets] == [n, n]
    dots = [line for line in ax.lines if len(line.get_xdata()) == n]
    assert len(dots) == 1
    drawn = dict(zip(_labels(ax.get_yticklabels()), dots[0].get_xdata(), strict=True))
    assert drawn == dict(zip(ranks["predictor"], ranks["rank"], strict=True))
    marginal = {tuple(np.round(seg[:, 0], 9)) for seg in sets[1].get_segments()}
    assert marginal == {(lo, hi) for lo, hi in zip(ranks["rank_ci_low"], ranks["rank_ci_high"],
                                                  strict=True)}  # fmt: skip


def test_comparison_differences_and_discrimination(comparison):
    metric = "avg_emotion_f1"
    fig = comparison.plot(kind="differences", metric=metric)
    ax = fig.axes[0]
    pairs = comparison.pairs[comparison.pairs["metric"] == metric]
    assert len(fig.axes) == 1 and len(ax.get_yticklabels()) == len(pairs)
    assert sorted(_points(ax)) == sorted(pairs["difference"])
    assert any(list(line.get_xdata()) == [0.0, 0.0] for line in ax.lines)  # the line at 0
    assert "Emotion F1" in ax.get_xlabel()
    fig = comparison.plot(kind="discrimination")
    shown = comparison.discrimination.dropna(subset=["discrimination"])
    assert len(fig.axes) == 1 and len(_points(fig.axes[0])) == len(shown)
    with pytest.raises(ValueError, match="kind must be one of"):
        comparison.plot(kind="heat")
    with pytest.raises(ValueError, match="metric 'nope' is not in the rank table"):
        comparison.plot(metric="nope")


def test_score_estimates(small_simulated_scores):
    from attunestats import infer_scores

    inference = infer_scores(small_simulated_scores)
    fig = inference.plot(metric="avg_pairwise_accuracy")
    frame = inference.to_frame()
    rows = frame[frame["metric"] == "avg_pairwise_accuracy"]
    ax = fig.axes[0]
    assert len(fig.axes) == 1 and len(ax.get_yticklabels()) == len(rows) and _simulated_mark(fig)
    assert sorted(_points(ax)) == sorted(rows["estimate"])
    assert "Pairwise accuracy" in ax.get_xlabel()


def test_sample_size_plan():
    from attunestats.design.power import sample_size, sample_size_power

    plan = sample_size(effect=0.03, sd=0.15, icc=0.1, conversations_per_participant=[12, 18],
                       n_participants=[11, 20])  # fmt: skip
    fig = plan.plot(n_participants=range(2, 41), conversations_per_participant=range(1, 31))
    assert len(fig.axes) == 2 and not _simulated_mark(fig)
    left, right = fig.axes
    curves = [line for line in left.lines if len(line.get_xdata()) > 5]
    assert len(curves) == 2  # one per number of conversations each
    # the drawn power is the noncentral t power at those sizes (closed form, not the plot code)
    x, y = curves[1].get_xdata(), curves[1].get_ydata()
    k = int(np.flatnonzero(x == 25)[0])
    expected = sample_size_power(0.03, sd=0.15, icc=0.1, n_participants=25,
                                 conversations_per_participant=18)  # fmt: skip
    assert y[k] == pytest.approx(expected, rel=1e-12)
    assert len([line for line in right.lines if len(line.get_xdata()) > 5]) == 2


def test_simulated_power_curve():
    from attunestats.design.power import ContrastModel, power_curve

    model = ContrastModel(design="paired", effect=0.05, sd=0.15, icc=0.1)
    result = power_curve(model, n_conversations=[40, 80], n_participants=[8, 16],
                         n_simulations=40, rng=1)  # fmt: skip
    fig = result.plot(target=0.9)
    assert len(fig.axes) == 2 and _simulated_mark(fig)
    table = result.to_frame()
    for ax in fig.axes:
        bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        assert len(bars) == 2  # one line per level of the other size
        drawn = np.concatenate([c.lines[0].get_ydata() for c in bars])
        assert sorted(drawn) == sorted(table["power"])
        assert any(list(line.get_ydata()) == [0.9, 0.9] for line in ax.lines)  # the target


# --- the layer rule: statistics never import report, except inside a method named plot ------


def _imports(path: Path):
    """(module imported, name of the enclosing function or None) for every import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Import):
                out.extend((a.name, function) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                out.append((child.module, function))
            elif isinstance(child, ast.ImportFrom) and child.level:
                out.append(("." * child.level + (child.module or ""), function))
            visit(child, function)

    visit(tree, None)
    return out


def test_statistics_and_shared_modules_import_report_only_inside_plot():
    files = [p for folder in STATISTICS for p in (PACKAGE / folder).rglob("*.py")]
    files += [PACKAGE / name for name in SHARED if (PACKAGE / name).exists()]
    assert len(files) > 50
    upward = ("attunestats.report", "attunestats.artifacts", "attunestats.cli")
    found = []
    for path in files:
        for module, function in _imports(path):
            assert not module.startswith("."), f"{path}: relative import {module}"
            if not module.startswith(upward):
                continue
            allowed = module.startswith("attunestats.report") and function == "plot"
            if not allowed:
                found.append(f"{path.relative_to(PACKAGE)}: {module} in {function or 'module'}")
    assert found == []
    # the one allowed reference is where ARCHITECTURE.md says it is
    assert ("attunestats.report.plots", "plot") in _imports(PACKAGE / "_results.py")
    assert "inside a method named `plot`" in (PACKAGE.parent / "ARCHITECTURE.md").read_text()


def test_rater_agreement_and_independence_report(bundled_release, bundled_scores):
    from attunestats import rater_agreement
    from attunestats.independence import capability_independence

    agreement = rater_agreement(bundled_release, rng=1)
    fig = agreement.plot()
    table = agreement.to_frame().dropna(subset=["alpha"])
    ax = fig.axes[0]
    assert len(fig.axes) == 1 and _simulated_mark(fig)
    assert sorted(_points(ax)) == sorted(table["alpha"])
    assert set(_labels(ax.get_yticklabels())) == set(table["annotation"])

    report = capability_independence(bundled_scores, correction="holm", rng=1)
    fig = report.plot()
    assert len(fig.axes) == 2 and _simulated_mark(fig)  # the heatmap and its colour bar
    image = np.ma.filled(fig.axes[0].get_images()[0].get_array().astype(float), np.nan)
    assert report.basis == "disattenuated"  # the noise-corrected correlations are drawn
    expected = report.noise_corrected.corrected_matrix.to_numpy(float)
    assert image.shape == expected.shape == (5, 5)
    np.testing.assert_allclose(image, expected, rtol=0, atol=0)
