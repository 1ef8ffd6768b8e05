"""``attunestats power analytic|curve|release|sample-size|independence ...``: power, minimum
detectable effects and the sample size needed for a target power.

``attunestats power --target-power 0.8 ...`` (no subcommand) is ``power sample-size``.

The statistics live in :mod:`attunestats.design.power`; this module parses the arguments, prints
the tables and draws the figures (:mod:`attunestats.report.power`).

Every file is written safely (:mod:`attunestats._io`, as ``score`` does): the destinations
(``--out-csv`` a file, ``--figure`` a folder that gets ``figures/<name>.png`` and ``.pdf``,
``--study`` a file) are checked before any work, so a bad path costs no simulation and is one
line naming the option; each file goes to a temporary sibling and is renamed into place (0666
less the umask), the PNG and PDF of a figure only when both are written.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attunestats.cli._common import SCENARIO_NAMES, release_dir, seed
from attunestats.cli.study import add_executor_arguments, executor_options
from attunestats.errors import ReleaseError

_POWER_HELP = """\
attunestats power analytic  --effect D --sd S [--icc R] --conversations N.. [--participants P..]
attunestats power curve     [--release DIR] --metric M (--predictors A B | --diagnosis G |
                            --topic T)  or  --effect D --sd S --icc R [--design paired]
                            --conversations N.. [--participants P..] [--simulations 1000]
attunestats power release   --metric M --conversations N.. --participants P..
                            --logit-differences L.. [--scenario paper | --truth FILE]
attunestats power [sample-size] --target-power 0.8 (--effect D --sd S [--icc R] |
                            [--release DIR] --metric M (--predictors A B | --diagnosis G))
                            [--design paired|between] [--per-participant M..]
                            [--participants P..] [--figure DIR]
attunestats power independence --target-power 0.8 --correlation R [--reliability 0.95]
                            [--models 8 11 20 ..] [--simulations 200]
Simulations accept --executor serial|processes|dask, --workers W, --scheduler ADDRESS.
"""

if TYPE_CHECKING:
    import pandas as pd


def _add_test_args(p: Any) -> None:
    from attunestats.design.power import ALTERNATIVES

    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided")
    p.add_argument("--power", type=float, default=0.8, help="target power for the MDE")


def _add_model_args(p: Any, *, required: bool) -> None:
    from attunestats.design.power import DESIGNS

    p.add_argument("--effect", type=float, nargs="+", required=required,
                   help="effect(s) on the metric scale")  # fmt: skip
    p.add_argument("--sd", type=float, required=required,
                   help="sd of a conversation-level value")  # fmt: skip
    p.add_argument("--icc", type=float, default=None, help="intraclass correlation (default 0)")
    p.add_argument("--cv", type=float, default=None, help="cv of conversations per participant")
    p.add_argument("--design", choices=DESIGNS, default=None)
    p.add_argument("--allocation", type=float, default=None,
                   help="share of participants (between) or conversations (within) in group")  # fmt: skip


def _add_grid_args(p: Any, *, participants_required: bool) -> None:
    """``--conversations`` (the total) and ``--participants``: the grid of sizes."""
    p.add_argument("--conversations", type=int, nargs="+", required=True, metavar="N",
                   help="total number(s) of conversations, over all participants (not the "
                   "number per participant)")  # fmt: skip
    p.add_argument("--participants", type=int, nargs="+", required=participants_required,
                   default=None, metavar="P",
                   help="number(s) of participants" + ("" if participants_required else
                   " (default: independent conversations)") + "; cells with fewer "
                   "conversations than participants are skipped, with a note")  # fmt: skip


def _print_table(frame: pd.DataFrame, out_csv: str | None) -> None:
    """Print a table for reading (4 significant digits, display only); optionally write CSV."""
    if frame.attrs.get("label"):
        print(f"*** {frame.attrs['label']} ***")
    print(frame.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if out_csv:
        _write_csv(frame, out_csv)


def _write_csv(frame: pd.DataFrame, out_csv: str) -> None:
    """``--out-csv``: the table at full precision, written through a temporary sibling."""
    from attunestats._io import atomic_write_text

    atomic_write_text(out_csv, frame.to_csv(index=False, lineterminator="\n"), what="--out-csv")
    print(f"wrote {out_csv}")


def _check_outputs(args: Any) -> None:
    """Check every destination of the command before any work (one-line OutputError)."""
    from attunestats._io import check_dir_destination, check_file_destination

    if getattr(args, "out_csv", None):
        check_file_destination(args.out_csv, what="--out-csv")
    if getattr(args, "study", None):
        check_file_destination(args.study, what="--study")
    if getattr(args, "figure", None):
        check_dir_destination(Path(args.figure) / "figures", what="--figure")


def _save_figure(fig: Any, name: str, out_dir: str) -> list[Path]:
    """``<out_dir>/figures/<name>.png`` and ``.pdf`` (as :func:`report.figures.save_figure`
    draws them: 300 dpi, tight box, no time stamps), written through temporary siblings and
    renamed together; the figure is closed."""
    import matplotlib.pyplot as plt

    from attunestats._io import OutputError, write_files

    folder = Path(out_dir) / "figures"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--figure {str(out_dir)!r}: cannot create {str(folder)!r}: "
                          f"{exc.strerror or exc}") from None  # fmt: skip
    options = {"dpi": 300, "bbox_inches": "tight", "pad_inches": 0.03}
    metadata = {"png": {"Software": None},
                "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}  # fmt: skip

    def writer(fmt: str) -> Any:
        return lambda tmp: fig.savefig(tmp, format=fmt, metadata=metadata[fmt], **options)

    try:
        paths = write_files({folder / f"{name}.{fmt}": writer(fmt) for fmt in ("png", "pdf")},
                            what="--figure")  # fmt: skip
    finally:
        plt.close(fig)
    for path in paths:
        print(f"wrote {path}")
    return paths


def _safe_mde(sd: float, n: int, p: int | None, power: float, **opts: Any) -> float:
    """:func:`~attunestats.design.power.analytic_mde`, NaN when it is not reachable."""
    from attunestats.design.power import analytic_mde

    try:
        return analytic_mde(sd=sd, n_conversations=n, n_participants=p, power=power, **opts)
    except ValueError:
        return math.nan


def _grid_cells(ns: Sequence[int], ps: Sequence[int] | None) -> list[tuple[int, int | None]]:
    """The cells ``(conversations, participants)`` of the grid that can be computed.

    ``--conversations`` is the total over all participants: a cell with fewer conversations
    than participants leaves a participant without any, so it is skipped (as the simulations
    of ``curve`` and ``release`` skip it), with a note on stderr naming the skipped cells; when
    no cell is left this is an error (nothing is computed or written).
    """
    pss: list[int | None] = list(ps) if ps else [None]
    cells = [(n, p) for n in ns for p in pss if p is None or n >= p]
    skipped = [(n, p) for n in ns for p in pss if p is not None and n < p]
    if skipped:
        shown = "; ".join(
            f"--conversations {n} with --participants "
            + ", ".join(str(p) for m, p in skipped if m == n)
            for n in dict.fromkeys(n for n, _ in skipped)
        )  # fmt: skip
        why = ("fewer conversations than participants (--conversations is the total number of "
               "conversations, not the number per participant)")  # fmt: skip
        if not cells:
            raise ValueError(f"no cell of the grid is left ({shown}): {why}; nothing was computed")
        print(f"attunestats power: note: skipped {len(skipped)} of {len(ns) * len(pss)} cells "
              f"({shown}): {why}", file=sys.stderr)  # fmt: skip
    return cells


@contextlib.contextmanager
def _grid_noted() -> Iterator[None]:
    """The design layer's warning about skipped grid cells, already said by the note of
    :func:`_grid_cells`, is not repeated."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"left out \d+ of \d+ grid cells")
        yield


def _cmd_analytic(args: Any) -> int:
    import pandas as pd

    from attunestats.design.power import analytic_power, design_effect

    cells = _grid_cells(args.conversations, args.participants)
    rows = []
    for n, p in cells:
        opts = {
            "icc": args.icc or 0.0, "cv": args.cv or 0.0, "design": args.design or "paired",
            "allocation": args.allocation or 0.5, "alpha": args.alpha,
            "alternative": args.alternative,
        }  # fmt: skip
        m = n / p if p else 1.0
        for d in args.effect:
            row = {"n_conversations": n, "n_participants": -1 if p is None else p,
                   "effect": d}  # fmt: skip
            if not p:
                row["design_effect"] = 1.0
            elif opts["design"] == "within":
                row["design_effect"] = (1.0 - opts["icc"]) * n / (n - p) if n > p else math.nan
            else:
                row["design_effect"] = design_effect(m, opts["icc"], cv=opts["cv"])
            for method in ("z", "t"):
                row[f"power_{method}"] = analytic_power(
                    d, sd=args.sd, n_conversations=n, n_participants=p, method=method, **opts
                )
                row[f"mde_{method}"] = _safe_mde(args.sd, n, p, args.power, method=method,
                                                 **opts)  # fmt: skip
            rows.append(row)
    frame = pd.DataFrame(rows)
    print(f"analytic power ({args.design or 'paired'}, alpha {args.alpha}, {args.alternative}); "
          f"mde at power {args.power}")  # fmt: skip
    _print_table(frame, args.out_csv)
    return 0


def _model_from_args(args: Any) -> Any:
    from attunestats.design.power import ContrastModel, fit_contrast

    if args.effect is not None or args.sd is not None:
        if args.effect is None or args.sd is None:
            raise ValueError("give both --effect and --sd (or a release and --metric)")
        return ContrastModel(
            design=args.design or "paired", effect=float(args.effect[0]), sd=args.sd,
            icc=args.icc or 0.0, allocation=args.allocation or 0.5, cluster_cv=args.cv or 0.0,
            label="specified",
        )  # fmt: skip
    if not args.metric:
        raise ValueError("give --metric with a contrast, or --effect and --sd")
    from attunestats.metrics.score import score
    from attunestats.release.load import load_release

    release = load_release(release_dir(args.release))
    scores = score(release)
    model = fit_contrast(
        scores, metric=args.metric, predictors=args.predictors, diagnosis=args.diagnosis,
        reference=args.reference, topic=args.topic, predictor=args.predictor,
    )  # fmt: skip
    overrides = {k: getattr(args, k) for k in ("icc", "allocation") if getattr(args, k) is not None}
    if args.cv is not None:
        overrides["cluster_cv"] = args.cv
    if args.design is not None and args.design != model.design:
        raise ValueError(f"--design {args.design} contradicts the contrast ({model.design})")
    return ContrastModel(**{**model.to_dict(), **overrides}) if overrides else model


def _cmd_curve(args: Any) -> int:
    from attunestats.design.power import power_curve
    from attunestats.report.power import plot_power_curves

    _grid_cells(args.conversations, args.participants)  # before the release is read
    model = _model_from_args(args)
    print(f"model: {model.design} contrast {model.label!r} on {model.metric or 'values'}: "
          f"effect {model.effect:.4g}, sd {model.sd:.4g}, icc {model.icc:.3g}, "
          f"cluster cv {model.cluster_cv:.3g}")  # fmt: skip
    effects = args.effect if (args.effect and len(args.effect) > 1) else args.effects
    with _grid_noted():
        result = power_curve(
            model, n_conversations=args.conversations, n_participants=args.participants,
            effects=effects, n_simulations=args.simulations, alpha=args.alpha,
            alternative=args.alternative, test=args.test, rng=args.seed, out=args.study,
            **executor_options(args),
        )  # fmt: skip
    _print_table(result.to_frame(), args.out_csv)
    if args.test == "cluster_t" and args.alternative != "less":
        print(f"minimum detectable effect at power {args.power}:")
        _print_table(result.minimum_detectable_effect(args.power), None)
    if args.figure:
        fig = plot_power_curves(result.to_frame(), simulated=True, target=args.power)
        _save_figure(fig, "power_curves", args.figure)
    return 0


def _cmd_release(args: Any) -> int:
    from attunestats.design.power import release_power
    from attunestats.release.simulate import SCENARIOS, truth_from_file
    from attunestats.report.power import plot_power_curves

    _grid_cells(args.conversations, args.participants)
    effects = truth_from_file(args.truth) if args.truth else None
    config = None if effects is not None else SCENARIOS[args.scenario]
    with _grid_noted():
        result = release_power(
            config, metric=args.metric, n_conversations=args.conversations,
            n_participants=args.participants,
            logit_differences=(
                args.logit_differences
                if args.logit_differences is not None or effects is not None
                else [0.0]
            ),
            effects=effects, predictors=args.predictors, unit=args.unit,
            n_simulations=args.simulations, n_resamples=args.resamples, alpha=args.alpha,
            rng=args.seed, out=args.study, **executor_options(args),
        )  # fmt: skip
    _print_table(result.to_frame(), args.out_csv)
    if args.figure:
        frame = result.to_frame().assign(effect=lambda f: f["logit_difference"])
        fig = plot_power_curves(frame, simulated=True, target=args.power)
        _save_figure(fig, "release_power_curves", args.figure)
    return 0


def _cmd_sample_size(args: Any) -> int:
    from attunestats.design.power import sample_size

    model = None
    if args.effect is None or args.sd is None:
        if args.effect is not None or args.sd is not None:
            raise ValueError("give both --effect and --sd (or a release with --metric)")
        model = _model_from_args(args)
    effect = None if args.effect is None else float(args.effect[0])
    result = sample_size(
        model, power=args.target_power, effect=effect, sd=args.sd, icc=args.icc,
        design=args.design, allocation=args.allocation, cv=args.cv,
        conversations_per_participant=args.per_participant, n_participants=args.participants,
        alpha=args.alpha, alternative=args.alternative,
    )  # fmt: skip
    print(result.summary())
    if args.out_csv:
        _write_csv(result.to_frame(), args.out_csv)
    if args.figure:
        from attunestats.report.power import plot_sample_size

        _save_figure(plot_sample_size(result), "sample_size", args.figure)
    return 0


def _cmd_independence(args: Any) -> int:
    from attunestats.design.power import independence_sample_size

    result = independence_sample_size(
        args.correlation, reliability=args.reliability, n_models=args.models,
        n_metrics=args.metrics, power=args.target_power, alpha=args.alpha,
        n_simulations=args.simulations, n_permutations=args.permutations, rng=args.seed,
    )  # fmt: skip
    print(result.summary())
    if args.out_csv:
        _write_csv(result.to_frame(), args.out_csv)
    return 0


def _add_sample_size_parser(sub: Any) -> None:
    p = sub.add_parser(
        "sample-size",
        help="participants and conversations per participant needed for a target power",
        description=(
            "Participants needed (for each number of conversations per participant), "
            "conversations per participant needed (for each number of participants) and the "
            "minimum detectable effect, for the participant-level t test: paired model "
            "differences (P - 1 df) or a diagnosis contrast (P - 2 df). Give the contrast "
            "(--effect, --sd, --icc) or estimate it from a release (--metric with --predictors "
            "A B or --diagnosis G; default release: the bundled simulated one)."
        ),
    )
    p.add_argument("--target-power", type=float, default=0.8)
    p.add_argument("--release", default=None, help="release folder (default: bundled, simulated)")
    p.add_argument("--metric", default=None)
    p.add_argument("--predictors", nargs=2, default=None, metavar=("A", "B"))
    p.add_argument("--diagnosis", default=None)
    p.add_argument("--reference", default="none")
    p.add_argument("--predictor", default=None, help="predictor for a diagnosis contrast")
    p.add_argument("--topic", default=None, help=argparse.SUPPRESS)
    _add_model_args(p, required=False)
    p.add_argument("--per-participant", type=int, nargs="+", default=[6, 12, 18, 24, 36],
                   metavar="M", help="conversations per participant to solve participants for")  # fmt: skip
    p.add_argument("--participants", type=int, nargs="+", default=[6, 11, 20, 40], metavar="P",
                   help="participants to solve conversations per participant for")  # fmt: skip
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--alternative", choices=("two-sided", "greater"), default="two-sided")
    p.add_argument("--figure", default=None,
                   help="write figures/sample_size.{png,pdf} under this folder")  # fmt: skip
    p.add_argument("--out-csv", default=None)

    p = sub.add_parser("independence",
                       help="models needed for the global independence test (simulated)")  # fmt: skip
    p.add_argument("--target-power", type=float, default=0.8)
    p.add_argument("--correlation", type=float, required=True,
                   help="true correlation between every pair of skills")  # fmt: skip
    p.add_argument("--reliability", type=float, default=0.95)
    p.add_argument("--models", type=int, nargs="+", default=[8, 11, 15, 20, 30, 50])
    p.add_argument("--metrics", type=int, default=5)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--simulations", type=int, default=200)
    p.add_argument("--permutations", type=int, default=199)
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--out-csv", default=None)


def power_command(argv: Sequence[str]) -> int:
    """``attunestats power analytic|curve|release|sample-size|independence ...``; returns the exit code.

    ``analytic``: design-effect (z) and cluster-level t power and MDE over a grid.
    ``curve``: simulated power (and MDE) of a clustered contrast, fitted from a release
    (default: the bundled simulated release) or specified, with a figure (``--figure DIR``).
    ``release``: size/power of the paired bootstrap comparison on full simulated releases.
    ``sample-size``: participants and conversations per participant needed for a target power
    (``attunestats power --target-power 0.8 ...`` without a subcommand means this one).
    ``independence``: models needed for the global independence test (simulated).
    """
    from attunestats.design.power import TESTS

    parser = argparse.ArgumentParser(
        prog="attunestats power", description=power_command.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_POWER_HELP,
    )  # fmt: skip
    sub = parser.add_subparsers(dest="action", required=True)

    p = sub.add_parser("analytic", help="analytic power and MDE (design effect / noncentral t)",
                       description="Analytic power and minimum detectable effect over the grid "
                       "--conversations x --participants (a table; --out-csv writes it, there is "
                       "no figure). --conversations is the total number of conversations over "
                       "all participants; cells with fewer conversations than participants are "
                       "skipped, with a note on stderr.")  # fmt: skip
    _add_model_args(p, required=True)
    _add_grid_args(p, participants_required=False)
    _add_test_args(p)
    p.add_argument("--out-csv", default=None)

    p = sub.add_parser("curve", help="simulated power curve of a clustered contrast")
    p.add_argument("--release", default=None, help="release folder (default: bundled, simulated)")
    p.add_argument("--metric", default=None)
    p.add_argument("--predictors", nargs=2, default=None, metavar=("A", "B"))
    p.add_argument("--diagnosis", default=None)
    p.add_argument("--reference", default="none")
    p.add_argument("--topic", default=None)
    p.add_argument("--predictor", default=None, help="predictor for diagnosis/topic contrasts")
    _add_model_args(p, required=False)
    p.add_argument("--effects", type=float, nargs="+", default=None,
                   help="effects at which to report power (default: the fitted effect)")  # fmt: skip
    _add_grid_args(p, participants_required=False)
    p.add_argument("--simulations", type=int, default=1000)
    p.add_argument("--test", choices=TESTS, default="cluster_t")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--study", default=None, help="keep the simulations in this .parquet file")
    p.add_argument("--figure", default=None, help="write figures/power_curves.{png,pdf} here")
    p.add_argument("--out-csv", default=None)
    _add_test_args(p)
    add_executor_arguments(p)

    p = sub.add_parser("release", help="size/power of paired comparisons on simulated releases")
    p.add_argument("--metric", required=True)
    _add_grid_args(p, participants_required=True)
    p.add_argument("--logit-differences", type=float, nargs="+", default=None,
                   help="skill differences on the metric's capability (default: 0, the size; "
                   "with --truth: the planted difference)")  # fmt: skip
    p.add_argument("--scenario", choices=SCENARIO_NAMES, default="paper",
                   help="scenario of the simulated releases (default: paper)")  # fmt: skip
    p.add_argument("--truth", default=None, help="truth.json of a simulated release")
    p.add_argument("--predictors", nargs=2, default=None, metavar=("A", "B"))
    p.add_argument("--unit", choices=("participant", "conversation"), default="participant")
    p.add_argument("--simulations", type=int, default=200)
    p.add_argument("--resamples", type=int, default=499)
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--study", default=None, help="keep the simulations in this .parquet file")
    p.add_argument("--figure", default=None,
                   help="write figures/release_power_curves.{png,pdf} under this folder")  # fmt: skip
    p.add_argument("--out-csv", default=None)
    _add_test_args(p)
    add_executor_arguments(p)

    _add_sample_size_parser(sub)

    argv = list(argv)
    if (argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help")
            and any(a.split("=")[0] == "--target-power" for a in argv)):  # fmt: skip
        argv = ["sample-size", *argv]
    args = parser.parse_args(argv)
    try:
        _check_outputs(args)
        if args.action == "sample-size":
            return _cmd_sample_size(args)
        if args.action == "independence":
            return _cmd_independence(args)
        if args.action == "analytic":
            return _cmd_analytic(args)
        if args.action == "curve":
            return _cmd_curve(args)
        return _cmd_release(args)
    except ReleaseError as err:  # as the other commands: the load report, exit status 1
        report = getattr(err, "report", None)
        print(report.text() if report is not None else str(err), file=sys.stderr)
        print(f"attunestats power: the release has {len(err.problems)} error(s); nothing was "
              "computed", file=sys.stderr)  # fmt: skip
        return 1
    except (ValueError, TypeError, ImportError, OSError) as err:
        from attunestats.cli import _one_line

        print(f"attunestats power: error: {_one_line(err)}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    return power_command(args.rest)


def register(sub: Any) -> None:
    """Add ``power`` (which parses its own arguments) to the subparsers ``sub``."""
    p = sub.add_parser("power", help="power and minimum detectable effects (attunestats power --help)",
                       add_help=False)  # fmt: skip
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_run)
