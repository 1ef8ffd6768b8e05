"""What a builder receives and returns: the build context, its memo, and the built outputs.

A :class:`BuildContext` holds what every artefact of one build shares: the release (loaded once),
the mode (fast or full) and its settings, the root seed, the directory of finished MCMC fits, and
a memo of intermediate results (the scores, a bootstrap, a comparison, a fit, ...) keyed by what
they were computed from, so an intermediate shared by several artefacts is computed once per
build. ``attunestats reproduce`` makes one; a notebook makes its own with the same parameters and
gets the same numbers.

A builder is a function ``builder(ctx: ArtefactContext) -> Built``. The
:class:`ArtefactContext` it gets is the build context seen from one artefact of the registry: its
seed (a child of the root seed named after the artefact's ``seed_name``), the settings it declared
(asking for an undeclared one is an error, so the registry's list stays true), and helpers that
make the :class:`Table` and :class:`FigureOutput` objects it returns.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from attunestats._rng import RNGLike, child_seed, root_seed
from attunestats.errors import AttunestatsWarning, NotApplicable, warn

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from attunestats.artifacts.registry import Artefact
    from attunestats.metrics.score import Scores
    from attunestats.release.model import Release

#: Root seed of ``attunestats reproduce`` when none is given.
DEFAULT_ROOT_SEED = 20260521

#: Settings per build mode. Each artefact of the registry declares which of them it uses.
# Full MCMC: 4 chains x (1,000 tuning + 2,000 draws). With 1,000 draws the paper-sized behaviour
# model failed the gate on one of ~900 parameters (r_hat 1.0105, bulk ESS >= 1,042 everywhere);
# 2,000 draws make R-hat's own noise small enough for the 1.01 threshold across that many.
# 2,000 tuning steps were tried (2026-12-06): a third more fitting time, and two of the four
# fits still failed the gate narrowly (benchmarks/RESULTS.md). Instead, a fit that fails is
# refitted once with twice the tuning steps and draws (mcmc_retries; 2026-12-07: one of the
# eight fits needed it and every fit passed).
FULL: Mapping[str, Any] = {
    "n_resamples": 10_000,  # bootstrap resamples
    "mcmc_draws": 2_000,  # posterior draws per chain
    "mcmc_tune": 1_000,  # tuning steps per chain
    "mcmc_chains": 4,
    # a hierarchical fit that fails the gate is refitted once with 2x tuning steps and draws
    # (builders.hierarchical.fit): at 4 x 2,000 draws which fit fails narrowly depends on the seed
    "mcmc_retries": 1,
    "n_permutations": 10_000,  # permutation tests of the independence report
    "n_splits": 1_000,  # split-half reliabilities of the independence report
    "agreement_resamples": 2_000,  # bootstrap of the human-baseline agreement
    # a full build whose MCMC fits fail the diagnostics gate exits 1 (unless --allow-failed-fits);
    # their outputs are stamped 'diagnostics failed' in either mode
    "accept_failed_fits": False,
}
FAST: Mapping[str, Any] = {
    "n_resamples": 400,
    "mcmc_draws": 150,
    "mcmc_tune": 150,
    "mcmc_chains": 2,
    "mcmc_retries": 0,  # 2 x 150 draws cannot pass the gate: no refits
    "n_permutations": 2_000,
    "n_splits": 200,
    "agreement_resamples": 300,
    # fast mode's chains are too short for the gate: stamped outputs, exit status 0
    "accept_failed_fits": True,
}
#: Settings that say an artefact uses MCMC fits (and so the build's MCMC seed).
MCMC_SETTINGS = ("mcmc_draws", "mcmc_tune", "mcmc_chains", "mcmc_retries", "accept_failed_fits")


def settings_for(fast: bool) -> dict[str, Any]:
    """A copy of the settings of one mode."""
    return dict(FAST if fast else FULL)


def sha256_json(value: Any) -> str:
    """sha256 of the canonical JSON of ``value`` (sorted keys): a hash of inputs or settings."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------- outputs


@dataclass(frozen=True)
class Table:
    """A table to write as ``tables/<name>.csv`` (full precision), ``.json`` (metadata), ``.tex``."""

    name: str
    frame: pd.DataFrame
    caption: str
    simulated: bool
    digits: int | Mapping[str, int] = 3
    failed_fits: tuple[str, ...] = ()  # MCMC fits behind the table that failed the gate

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write the CSV, sidecar JSON and LaTeX. A table built from fits that failed the
        diagnostics gate says so in its caption and lists them in the sidecar (``failed_fits``)."""
        from attunestats._io import atomic_write_text
        from attunestats.report.tables import write_table

        caption = self.caption
        if self.failed_fits:
            names = ", ".join(f.split(":")[0] for f in self.failed_fits)
            caption += (f". DIAGNOSTICS FAILED: the MCMC fit(s) of {names} did not pass the gate; "
                        "their rows say 'diagnostics failed'")  # fmt: skip
        paths = write_table(self.frame, self.name, out_dir, simulated=self.simulated,
                            caption=caption, digits=self.digits)  # fmt: skip
        if self.failed_fits:
            sidecar = next(p for p in paths if p.suffix == ".json")
            meta = json.loads(sidecar.read_text(encoding="utf-8"))
            meta["failed_fits"] = sorted(self.failed_fits)
            atomic_write_text(sidecar, json.dumps(meta, indent=2, sort_keys=True,
                                                  ensure_ascii=False, default=str) + "\n")  # fmt: skip
        return paths


@dataclass(frozen=True)
class FigureOutput:
    """A figure to write as ``figures/<name>.png`` and ``.pdf``."""

    name: str
    figure: Figure

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        from attunestats.report.figures import save_figure

        return save_figure(self.figure, self.name, out_dir)  # closes the figure


def output_files(kind: str, name: str) -> list[str]:
    """Paths, relative to the output directory, of the files of one table or figure."""
    if kind == "table":
        return [f"tables/{name}.{ext}" for ext in ("csv", "json", "tex")]
    return [f"figures/{name}.{ext}" for ext in ("png", "pdf")]


@dataclass(frozen=True)
class Skipped:
    """A declared output deliberately not produced (e.g. its MCMC fit failed the gate)."""

    name: str
    kind: str  # "table" or "figure"
    reason: str


@dataclass(frozen=True)
class Built:
    """What a builder returns: the tables and figures of one artefact (and any it skipped)."""

    artefact: str
    tables: tuple[Table, ...] = ()
    figures: tuple[FigureOutput, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    failed_fits: tuple[str, ...] = ()  # MCMC fits behind these outputs that failed the gate

    def frame(self, name: str | None = None) -> pd.DataFrame:
        """The table ``name`` (default: the only or first one) as a DataFrame."""
        self._not_skipped("table", name)
        return _pick(self.tables, name, "table", self.artefact).frame

    def figure(self, name: str | None = None) -> Figure:
        """The figure ``name`` (default: the only or first one)."""
        self._not_skipped("figure", name)
        return _pick(self.figures, name, "figure", self.artefact).figure

    def _not_skipped(self, kind: str, name: str | None) -> None:
        """NotApplicable (with the reason) when the output asked for was skipped."""
        for skip in self.skipped:
            if skip.kind == kind and name in (None, skip.name):
                made = self.tables if kind == "table" else self.figures
                if name is not None or not made:
                    raise NotApplicable(f"{self.artefact}: {skip.name} not produced: {skip.reason}")

    def output_files(self) -> list[str]:
        """Paths, relative to the output directory, of the files :meth:`write` writes."""
        files = [rel for t in self.tables for rel in output_files("table", t.name)]
        return files + [rel for f in self.figures for rel in output_files("figure", f.name)]

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write every table and figure into ``out_dir`` (figures are closed afterwards)."""
        paths: list[Path] = []
        for output in (*self.tables, *self.figures):
            paths += output.write(out_dir)
        return paths

    def show(self) -> None:
        """Display every table and figure (in a notebook) or print the tables (elsewhere)."""
        try:
            from IPython.display import display
        except ImportError:  # pragma: no cover - IPython comes with the notebook tooling
            display = print
        for table in self.tables:
            print(f"{table.name}: {table.caption}")
            display(table.frame)
        for fig in self.figures:
            display(fig.figure)
        for skip in self.skipped:
            print(f"{skip.name} ({skip.kind}) not produced: {skip.reason}")

    def __repr__(self) -> str:
        names = [t.name for t in self.tables] + [f.name for f in self.figures]
        return f"Built({self.artefact!r}: {', '.join(names) or 'nothing'})"


def run_builder(actx: ArtefactContext) -> Built:
    """The builder of ``actx.artefact``; an analysis the release cannot support
    (:class:`~attunestats.errors.NotApplicable`) gives every declared output skipped with the
    reason, and a warning."""
    try:
        return actx.artefact.resolve_builder()(actx)
    except NotApplicable as exc:
        warn(f"{actx.artefact.id} is not applicable to this release ({exc}); its "
                      "outputs are skipped (MANIFEST.json 'skipped')",
                      AttunestatsWarning)  # fmt: skip
        return actx.not_applicable(str(exc))


def _pick(items: tuple[Any, ...], name: str | None, kind: str, artefact: str) -> Any:
    if not items:
        raise KeyError(f"artefact {artefact!r} built no {kind}")
    if name is None:
        return items[0]
    for item in items:
        if item.name == name:
            return item
    raise KeyError(
        f"artefact {artefact!r} has no {kind} {name!r}; it has {[i.name for i in items]}"
    )


# --------------------------------------------------------------------------- memo


class Memo:
    """Intermediate results of one build, keyed by a tuple of what they were computed from.

    With ``directory``, results are also pickled there (written to a temporary file, then
    renamed) and read back by a later context given the same directory: ``reproduce
    --notebooks`` hands its memo to the notebooks it executes, so they do not compute again
    what the build has just computed. Only for directories you trust (loading runs pickle).
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self._values: dict[Hashable, Any] = {}
        self.directory = Path(directory) if directory is not None else None
        self.hits = 0
        self.misses = 0

    def _path(self, key: Hashable) -> Path:
        assert self.directory is not None
        return self.directory / f"memo-{hashlib.sha256(repr(key).encode()).hexdigest()[:32]}.pkl"

    def get(self, key: Hashable, compute: Callable[[], Any], *, persist: bool = True) -> Any:
        """The value stored under ``key``, computing (and storing) it on first use."""
        if key in self._values:
            self.hits += 1
            return self._values[key]
        if persist and self.directory is not None:
            path = self._path(key)
            if path.is_file():
                with path.open("rb") as fh:
                    value = pickle.load(fh)
                self._values[key] = value
                self.hits += 1
                return value
        self.misses += 1
        value = compute()
        self._values[key] = value
        if persist and self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self._path(key)
            tmp = path.with_suffix(f".tmp-{os.getpid()}")
            try:
                with tmp.open("wb") as fh:
                    pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            except Exception:  # not picklable (e.g. a compiled model): kept in memory only
                tmp.unlink(missing_ok=True)
        return value


# --------------------------------------------------------------------------- contexts


class BuildContext:
    """What the artefacts of one build share (see the module docstring).

    Parameters
    ----------
    release : path, optional
        Release directory; ``None`` uses the bundled SIMULATED release.
    fast : bool
        Fast mode (few resamples, short MCMC) or full mode; see :data:`FAST` and :data:`FULL`.
    rng : int, SeedSequence or Generator, optional
        Root seed of the build (:func:`attunestats._rng.root_seed`); every artefact derives its
        own seed from it and its ``seed_name``, so one artefact rebuilt alone gives the same
        numbers as in a full build.
    fit_cache : path, optional
        Directory of finished MCMC fits (``hierarchical.fit(cache_dir=...)``).
    memo_dir : path, optional
        Directory where the memo of intermediate results is pickled (see :class:`Memo`).
    """

    def __init__(
        self,
        *,
        release: str | os.PathLike[str] | None = None,
        fast: bool = False,
        rng: RNGLike = DEFAULT_ROOT_SEED,
        fit_cache: str | os.PathLike[str] | None = None,
        memo_dir: str | os.PathLike[str] | None = None,
        progress: bool = False,
    ) -> None:
        from attunestats.release.load import load_release

        if release is None:
            from attunestats.release.bundled import bundled_release_path

            self.release_path = bundled_release_path()
        else:
            self.release_path = Path(release).resolve()
        self.release: Release = load_release(self.release_path)  # validates before any build
        self.fast = bool(fast)
        self.settings = settings_for(self.fast)
        self.root_seed = root_seed(rng)
        self.mcmc_seed = child_seed(self.root_seed, "mcmc")  # one seed for every fit of a build
        self.fit_cache = None if fit_cache is None else str(fit_cache)
        self.memo = Memo(memo_dir)
        self.progress = progress

    @property
    def simulated(self) -> bool:
        return self.release.simulated

    @property
    def mode(self) -> str:
        return "fast" if self.fast else "full"

    @property
    def scores(self) -> Scores:
        """Every metric of the release (computed once per build)."""
        from attunestats.metrics.score import score

        return self.memo.get(("scores", self.release.checksum), lambda: score(self.release))

    def seed(self, name: str) -> int:
        """The child seed ``name`` of the root seed."""
        return child_seed(self.root_seed, name)

    def for_artefact(self, artefact: Artefact) -> ArtefactContext:
        return ArtefactContext(self, artefact)

    def build(self, artefact_id: str, *, registry: Any = None) -> Built:
        """Run the builder of one artefact of the registry and return what it built."""
        from attunestats.artifacts.registry import get_artefact

        artefact = get_artefact(artefact_id, registry=registry)
        start = time.perf_counter()
        built = run_builder(self.for_artefact(artefact))
        if self.progress:
            print(f"    {artefact.id}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
        return built

    def banner(self) -> str:
        """One line saying what this context builds from; printed in every notebook."""
        from attunestats.constants import SIMULATED_LABEL

        text = (f"release {self.release.info.get('name', '') or self.release_path.name} "
                f"(checksum {self.release.checksum[:12]}), {self.mode} mode, root seed {self.root_seed}")  # fmt: skip
        return f"*** {SIMULATED_LABEL} ***\n{text}" if self.simulated else text


@dataclass
class ArtefactContext:
    """The build context seen from one artefact: its seed, its settings, output helpers."""

    context: BuildContext
    artefact: Artefact
    used_settings: set[str] = field(default_factory=set)
    used_mcmc_seed: bool = False

    @property
    def release(self) -> Release:
        return self.context.release

    @property
    def scores(self) -> Scores:
        return self.context.scores

    @property
    def simulated(self) -> bool:
        return self.context.simulated

    @property
    def fast(self) -> bool:
        return self.context.fast

    @property
    def seed(self) -> int:
        """This artefact's seed: child of the root seed named by its ``seed_name``."""
        return self.context.seed(self.artefact.seed_name)

    @property
    def mcmc_seed(self) -> int:
        """The seed of every MCMC fit of the build (shared, so each model is sampled once)."""
        self._require(MCMC_SETTINGS[0])
        self.used_mcmc_seed = True
        return self.context.mcmc_seed

    @property
    def fit_cache(self) -> str | None:
        return self.context.fit_cache

    def setting(self, key: str) -> Any:
        """The value of a setting this artefact declared in the registry."""
        self._require(key)
        self.used_settings.add(key)
        return self.context.settings[key]

    def _require(self, key: str) -> None:
        if key not in self.artefact.settings:
            raise KeyError(
                f"artefact {self.artefact.id!r} uses setting {key!r} but does not declare it in "
                f"the registry (declared: {list(self.artefact.settings)})"
            )

    def memo(self, key: tuple[Hashable, ...], compute: Callable[[], Any], *,
             persist: bool = True) -> Any:  # fmt: skip
        """An intermediate result shared by the artefacts of the build (see :class:`Memo`)."""
        return self.context.memo.get(key, compute, persist=persist)

    def table(self, name: str, frame: pd.DataFrame, caption: str, *,
              simulated: bool | None = None, digits: int | Mapping[str, int] = 3) -> Table:  # fmt: skip
        """A table labelled simulated when the release is (unless ``simulated`` says otherwise)."""
        sim = self.simulated if simulated is None else simulated
        return Table(name=name, frame=frame, caption=caption, simulated=sim, digits=digits)

    def figure(self, name: str, figure: Figure, *, note: str) -> FigureOutput:
        """A figure of this artefact, with ``note`` (which estimand and method it shows, at
        which interval level: :func:`attunestats.report.figures.figure_note`) written under it,
        so that the figure says so on its own, as every table does in its caption."""
        from attunestats.report.figures import add_note

        return FigureOutput(name=name, figure=add_note(figure, note))

    def skip(self, name: str, kind: str, reason: str) -> Skipped:
        return Skipped(name=name, kind=kind, reason=reason)

    def not_applicable(self, reason: str) -> Built:
        """Every declared output of this artefact skipped with ``reason`` (the release lacks what
        it needs, e.g. human raters); the manifest lists them under ``skipped``."""
        return self.built(
            *(self.skip(name, "table", reason) for name in self.artefact.tables),
            *(self.skip(name, "figure", reason) for name in self.artefact.figures),
        )

    def built(self, *outputs: Table | FigureOutput | Skipped,
              failed_fits: tuple[str, ...] = ()) -> Built:  # fmt: skip
        """Collect the outputs of this artefact into a :class:`Built` (``failed_fits``: the MCMC
        fits behind them that failed the diagnostics gate, listed in the manifest)."""
        failed_fits = tuple(failed_fits)
        tables = [o for o in outputs if isinstance(o, Table)]
        return Built(
            artefact=self.artefact.id,
            tables=tuple(replace(t, failed_fits=failed_fits) for t in tables),
            figures=tuple(o for o in outputs if isinstance(o, FigureOutput)),
            skipped=tuple(o for o in outputs if isinstance(o, Skipped)),
            failed_fits=failed_fits,
        )
