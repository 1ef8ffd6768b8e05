"""``attunestats reproduce``: build every table and figure of the registry, write a manifest.

The build runs the builder of each artefact of :data:`attunestats.artifacts.registry.REGISTRY`
(all, or those selected by ``only``) in this process, sharing one
:class:`~attunestats.artifacts.context.BuildContext` (release loaded once, intermediates computed
once), and writes into a temporary directory next to the output; only when every artefact was
built does the temporary directory replace the output. On failure the error names the artefact
and its builder (or the notebook and cell), the previous outputs stay untouched, and the exit
status is 1.

``only``: the selected artefacts are rebuilt into a copy of the existing output, whose other
files (and their manifest entries) are kept as they are; each output's manifest entry says with
which release, mode and seeds it was built, and the top-level ``consistent`` flag says whether
they all agree. Without an existing output, the new one holds only the selected artefacts.

``notebooks=True`` also executes the notebooks that tell the story of the selected artefacts into
``<out>/notebooks/`` (jupytext ``.py`` sources, executed through nbclient). They call the same
builders with the same root seed and settings, and read the build's memo of intermediate results
and its MCMC fit cache, so they add little time and show the same numbers.

``MANIFEST.json`` lists every file with its sha256 (``artefacts``) and, for every output
(``outputs``), its artefact id, paper reference, notebook, builder, seed, settings, inputs with
their hashes (release checksum, settings) and whether its inputs were simulated; plus the release,
the seeds and the versions of the package, Python and the main dependencies. Wall times (of the
steps, and the ``*_seconds`` columns of the fit-diagnostics tables) go to ``BUILD.log``, so that a
rebuild with the same release and seed gives byte-identical tables and manifest.

Safe output (:mod:`attunestats._io`): ``--out`` is checked before any work (an existing file
there is refused, an unwritable parent is one clear line); the build happens in a hidden sibling
``.<out>.tmp-<pid>-<token>`` (modes 0777/0666 less the umask) that is swapped with the old output
in one atomic exchange, so a SIGKILL at any moment leaves the old complete output or the new one;
the next run removes what killed runs left.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from attunestats import _io
from attunestats._progress import progress_bar, should_show
from attunestats._results import ResultMixin
from attunestats._rng import RNGLike
from attunestats.artifacts.context import (
    DEFAULT_ROOT_SEED,
    ArtefactContext,
    BuildContext,
    Built,
    output_files,
    run_builder,
    sha256_json,
)
from attunestats.artifacts.notebooks import (
    NotebookFailed,
    default_notebooks_dir,
    execute_notebook,
    find_notebook,
)
from attunestats.artifacts.registry import Artefact, select

_VERSIONED = (
    "attunestats", "numpy", "scipy", "pandas", "pymc", "pytensor", "arviz", "nutpie",
    "krippendorff", "matplotlib", "nbclient", "jupytext", "pyarrow",
)  # fmt: skip
_SCRATCH = (".fit-cache", ".memo")  # build-internal directories, removed before the manifest
#: The build log: wall times of the steps and of the MCMC fits (not in any table, not hashed).
BUILD_LOG = "BUILD.log"

OUTPUT_README = """# paper_figures

Built by `attunestats reproduce` (the README's main command) from the artefact registry
(`attunestats/artifacts/registry.py`; `attunestats list` prints it). Do not edit by hand: the
directory is replaced atomically on every successful build (`--only ID` rebuilds some artefacts
and keeps the other files).

- `tables/`: every table as CSV (full precision) and LaTeX (rounded for display)
- `figures/`: every figure as PNG and PDF
- `notebooks/`: the executed notebooks, with their outputs (only with `--notebooks`)
- `BUILD.log`: the wall times of the build and of its MCMC fits (they differ on every run)
- `MANIFEST.json`: for every file its sha256, and for every output the artefact, the paper result
  it stands for, the notebook, the builder, the seed, the settings, the hashes of its inputs and
  whether they were simulated; the release checksum, the seeds and the versions

When the release is simulated (the default bundled release), every table and figure says so:
those numbers are not findings about real models.
"""


class ArtefactFailed(RuntimeError):
    """A builder raised, or built other outputs than its artefact declares."""

    def __init__(self, artefact: Artefact, error: str) -> None:
        self.artefact, self.error = artefact, error
        super().__init__(
            f"artefact {artefact.id} (builder {artefact.builder_name}, notebook "
            f"{artefact.notebook}) failed:\n{error}"
        )


@dataclass(frozen=True, repr=False)
class BuildResult(ResultMixin):
    """What a build produced: output directory, manifest content, wall time per step.

    A result (:mod:`attunestats._results`): ``to_frame()`` is one row per output file (its
    artefact, paper reference, notebook, builder, whether its inputs were simulated, the MCMC
    fits behind it that failed the diagnostics gate, its SHA-256), ``summary()`` the same as
    text under the build's mode, seed and release.
    """

    out: Path
    manifest: dict[str, Any]
    timings: dict[str, float]
    built: tuple[str, ...]  # ids of the artefacts built
    used_settings: dict[str, tuple[str, ...]]  # settings each builder read (tests check them)
    _title = "attunestats reproduce: the paper's tables and figures"

    @property
    def simulated(self) -> bool:
        """Whether the release the build read was simulated."""
        return bool(self.manifest.get("release", {}).get("simulated"))

    @property
    def method(self) -> str:
        """The build, in words."""
        return (f"{self.manifest.get('mode', '?')} build of {len(self.built)} artefact(s) into "
                f"{self.out}, root seed {self.manifest.get('root_seed')}")  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per output file, from the manifest."""
        rows = [
            {"file": rel, "artefact": e["artefact"], "paper_ref": e["paper_ref"],
             "notebook": e["notebook"], "builder": e["builder"], "simulated": e["simulated"],
             "failed_fits": "; ".join(e.get("failed_fits", [])), "sha256": e["sha256"]}
            for rel, e in sorted(self.manifest.get("outputs", {}).items())
        ]  # fmt: skip
        columns = ["file", "artefact", "paper_ref", "notebook", "builder", "simulated",
                   "failed_fits", "sha256"]  # fmt: skip
        return pd.DataFrame(rows, columns=columns)

    def _summary_parts(self) -> tuple[str, dict[str, str], pd.DataFrame, list[str]]:
        frame = self.to_frame()[["file", "artefact", "paper_ref", "failed_fits"]]
        meta = {"Build": self.method,
                "Release": f"{self.manifest.get('release', {}).get('path', '')} "
                           f"(checksum {str(self.manifest.get('release', {}).get('checksum', ''))[:12]})",
                "Seconds": f"{sum(self.timings.values()):.1f}"}  # fmt: skip
        notes = []
        failed = self.manifest.get("failed_fits", [])
        if failed:
            notes.append(f"{len(failed)} MCMC fit(s) failed the diagnostics gate; the outputs "
                         "built from them say so (failed_fits)")  # fmt: skip
        skipped = self.manifest.get("skipped", {})
        if skipped:
            notes.append(f"{len(skipped)} declared output(s) skipped: see MANIFEST.json 'skipped'")
        if not self.manifest.get("consistent", True):
            notes.append("the output mixes builds with different releases, modes or seeds")
        return self._title, meta, frame, notes


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _check_outputs(artefact: Artefact, built: Built) -> None:
    """Every declared output built or skipped with a reason; nothing undeclared."""
    declared = {("table", t) for t in artefact.tables} | {("figure", f) for f in artefact.figures}
    made = {("table", t.name) for t in built.tables} | {("figure", f.name) for f in built.figures}
    skipped = {(s.kind, s.name) for s in built.skipped}
    extra = sorted((made | skipped) - declared)
    missing = sorted(declared - made - skipped)
    if extra or missing:
        raise ArtefactFailed(
            artefact,
            f"the builder's outputs do not match the registry: undeclared {extra}, "
            f"missing {missing}",
        )


def _entry(actx: ArtefactContext, settings: dict[str, Any], sha: str) -> dict[str, Any]:
    artefact, ctx = actx.artefact, actx.context
    seed = ctx.seed(artefact.seed_name)
    mcmc_seed = ctx.mcmc_seed if actx.used_mcmc_seed else None
    uses_release = "release" in artefact.inputs
    hashed = {"mode": ctx.mode, "settings": settings, "seed": seed, "mcmc_seed": mcmc_seed}
    return {
        "sha256": sha,
        "artefact": artefact.id,
        "paper_ref": artefact.paper_ref,
        "notebook": artefact.notebook,
        "builder": artefact.builder_name,
        "mode": ctx.mode,
        "root_seed": ctx.root_seed,
        "seed_name": artefact.seed_name,
        "seed": seed,
        "mcmc_seed": mcmc_seed,
        "settings": settings,
        "inputs": list(artefact.inputs),
        "input_hashes": {
            "release_checksum": ctx.release.checksum if uses_release else None,
            "settings_sha256": sha256_json(hashed),
        },
        "simulated": bool(uses_release and ctx.simulated),
    }


def _is_build(path: Path) -> bool:
    """An earlier build (its MANIFEST.json, written by ``attunestats reproduce``), or the output
    folder of a fresh checkout (nothing but the README.md a build writes): the only folders
    ``build`` replaces. A MANIFEST.json of another tool does not make a folder ours."""
    if (path / "MANIFEST.json").is_file():
        try:
            manifest = json.loads((path / "MANIFEST.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return False
        return isinstance(manifest, dict) and manifest.get("generator") == "attunestats reproduce"
    entries = [e.name for e in os.scandir(path)]
    if entries != ["README.md"]:
        return False
    try:
        return (path / "README.md").read_text(encoding="utf-8") == OUTPUT_README
    except (OSError, UnicodeDecodeError):
        return False


def _read_manifest(out: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return manifest if isinstance(manifest.get("outputs"), dict) else None


def build(
    *,
    release: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] = "paper_figures",
    fast: bool = False,
    rng: RNGLike = DEFAULT_ROOT_SEED,
    only: Sequence[str] | None = None,
    notebooks: bool = False,
    notebooks_dir: str | os.PathLike[str] | None = None,
    registry: Iterable[Artefact] | None = None,
    progress: bool | None = None,
) -> BuildResult:
    """Build the artefacts of the registry into a temporary directory, then replace ``out``.

    Parameters
    ----------
    release : path, optional
        Release directory (default: the bundled SIMULATED release).
    out : path
        Output directory (replaced atomically).
    fast : bool
        Fast mode (CI): few resamples, short MCMC. See ``attunestats.artifacts.context.FAST``.
    rng : int, SeedSequence or Generator
        Root seed; each artefact uses the child seed named by its ``seed_name``.
    only : list of str, optional
        Artefact ids, output names, notebook stems or numbers
        (:func:`attunestats.artifacts.registry.select`); other outputs of ``out`` are kept.
    notebooks : bool
        Also execute the notebooks of the selected artefacts into ``out/notebooks/``.
    notebooks_dir : path, optional
        Where the notebooks are (default: ``notebooks/`` of the checkout).
    registry : iterable of Artefact, optional
        Another registry (tests); default :data:`~attunestats.artifacts.registry.REGISTRY`.
    progress : bool, optional
        A progress bar over the artefacts and notebooks (tqdm; :mod:`attunestats._progress`):
        None (default) shows it on a terminal or in a notebook, False never (``--quiet``),
        True always. A step is an artefact (its MCMC fits included) or a notebook.

    Raises :class:`ArtefactFailed` or :class:`NotebookFailed` (previous outputs untouched).
    """
    artefacts = select(only, registry=registry)
    out_path = Path(out).resolve()
    # before any work: a file there is refused, and so is a non-empty folder that is not a build
    _io.check_dir_destination(out_path, what="--out", ours=_is_build,
                              kind="an attunestats build (it has no MANIFEST.json)")  # fmt: skip
    nb_dir = Path(notebooks_dir) if notebooks_dir is not None else default_notebooks_dir()
    if notebooks:  # fail before any work when a notebook is missing
        notebook_paths = {a.notebook: find_notebook(nb_dir, a.notebook) for a in artefacts}
    # a hidden sibling (0777 less the umask); the leftovers of killed runs are cleaned first
    tmp = _io.staging_dir(out_path, what="--out")
    timings: dict[str, float] = {}
    fit_times: dict[str, list[dict[str, Any]]] = {}
    used: dict[str, tuple[str, ...]] = {}
    bar = progress_bar(len(artefacts) + (len(notebook_paths) if notebooks else 0),
                       desc="reproduce", unit="step", enabled=should_show(progress))  # fmt: skip
    try:
        ctx = BuildContext(release=release, fast=fast, rng=rng, fit_cache=tmp / ".fit-cache",
                           memo_dir=(tmp / ".memo") if notebooks else None)  # fmt: skip
        old = _read_manifest(out_path) if only else None
        if old is not None:
            shutil.copytree(out_path, tmp, dirs_exist_ok=True)
            for artefact in artefacts:  # stale files of the rebuilt artefacts go
                for rel in artefact.outputs:
                    (tmp / rel).unlink(missing_ok=True)
                # and so does the executed notebook of their story: it shows the old numbers
                # (executed again below with --notebooks)
                (tmp / "notebooks" / f"{artefact.notebook}.ipynb").unlink(missing_ok=True)
        outputs: dict[str, Any] = dict(old["outputs"]) if old else {}
        skipped: dict[str, str] = dict(old.get("skipped", {})) if old else {}
        for artefact in artefacts:
            bar.set_postfix_str(artefact.id)
            start = time.perf_counter()
            actx = ctx.for_artefact(artefact)
            try:
                built = run_builder(actx)  # NotApplicable: outputs skipped, with the reason
            except Exception as exc:
                raise ArtefactFailed(artefact, f"{type(exc).__name__}: {exc}") from exc
            _check_outputs(artefact, built)
            built = _without_timings(built, fit_times)
            try:  # a figure that cannot be drawn, a full disk: named like a failing builder
                built.write(tmp)
            except Exception as exc:
                raise ArtefactFailed(
                    artefact, f"writing its outputs: {type(exc).__name__}: {exc}"
                ) from exc
            timings[artefact.id] = time.perf_counter() - start
            used[artefact.id] = tuple(sorted(actx.used_settings))
            settings = {key: ctx.settings[key] for key in artefact.settings}
            for rel in artefact.outputs:
                outputs.pop(rel, None)
                skipped.pop(rel, None)
            for rel in built.output_files():
                outputs[rel] = _entry(actx, settings, _sha256(tmp / rel))
                if built.failed_fits:  # MCMC fits behind this output that failed the gate
                    outputs[rel]["failed_fits"] = sorted(built.failed_fits)
            for skip in built.skipped:
                for rel in output_files(skip.kind, skip.name):
                    skipped[rel] = f"{artefact.id}: {skip.reason}"
            bar.update()
        executed: list[str] = []
        stopped: dict[str, str] = {}  # notebooks stopped at an output the release cannot support
        if notebooks:
            params = {"release": str(ctx.release_path), "fast": ctx.fast, "rng": ctx.root_seed,
                      "fit_cache": str(tmp / ".fit-cache"), "memo_dir": str(tmp / ".memo")}  # fmt: skip
            for stem, path in notebook_paths.items():
                bar.set_postfix_str(f"notebook {path.name}")
                start = time.perf_counter()
                saved = tmp / "notebooks" / f"{stem}.ipynb"
                nb = execute_notebook(path, params, save_to=saved, progress=False)
                # the staging folder's name (pid, random token) is in the injected parameters
                # and in any path a cell printed: saved as the output folder, the same bytes on
                # every build with the same parameters
                text = saved.read_text(encoding="utf-8")
                saved.write_text(text.replace(str(tmp), str(out_path)), encoding="utf-8")
                timings[f"notebook {stem}"] = time.perf_counter() - start
                executed.append(stem)
                if "attunestats_not_applicable" in nb.metadata:
                    stopped[stem] = str(nb.metadata["attunestats_not_applicable"])
                bar.update()
        bar.close()
        for name in _SCRATCH:
            shutil.rmtree(tmp / name, ignore_errors=True)
        (tmp / "README.md").write_text(OUTPUT_README, encoding="utf-8")
        (tmp / BUILD_LOG).write_text(_build_log(timings, fit_times), encoding="utf-8")
        # the executed notebooks the output holds: this build's and those kept from the last
        present = sorted(p.stem for p in (tmp / "notebooks").glob("*.ipynb"))
        kept_stops = {k: v for k, v in (old or {}).get("notebooks_stopped", {}).items()
                      if k in present and k not in executed}  # fmt: skip
        manifest = _manifest(ctx, tmp, artefacts, outputs, skipped, present, only)
        manifest["notebooks_stopped"] = {**kept_stops, **stopped}
        (tmp / "MANIFEST.json").write_text(
            json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        _io.fix_modes(tmp)  # copies of an older output keep no 0600/0700 modes
        _io.replace_dir(tmp, out_path, what="--out")
    except BaseException:
        bar.close()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return BuildResult(out=out_path, manifest=manifest, timings=timings,
                       built=tuple(a.id for a in artefacts), used_settings=used)  # fmt: skip


def _manifest(ctx: BuildContext, tmp: Path, artefacts: Sequence[Artefact],
              outputs: dict[str, Any], skipped: dict[str, str], notebooks: list[str],
              only: Sequence[str] | None) -> dict[str, Any]:  # fmt: skip
    # not the manifest itself: an --only rebuild copies the previous one into tmp first
    files = {
        str(p.relative_to(tmp)): _sha256(p)
        for p in sorted(tmp.rglob("*"))
        if p.is_file()
        and p.relative_to(tmp).parts[0] != "notebooks"
        and p.relative_to(tmp).as_posix() not in (BUILD_LOG, "MANIFEST.json")
    }
    outputs = {rel: entry for rel, entry in outputs.items() if rel in files}
    seed_names = sorted({a.seed_name for a in artefacts})
    agree = {(e["mode"], e["root_seed"], e["input_hashes"]["release_checksum"] or "")
             for e in outputs.values()}  # fmt: skip
    releases = {e["input_hashes"]["release_checksum"] for e in outputs.values()} - {None}
    return {
        "generator": "attunestats reproduce",
        "mode": ctx.mode,
        "sizes": ctx.settings,
        "only": list(only) if only else None,
        "release": {
            "path": str(ctx.release_path),
            "checksum": ctx.release.checksum,
            "simulated": ctx.simulated,
            "name": ctx.release.info.get("name", ""),
        },
        "root_seed": ctx.root_seed,
        "seeds": {**{n: ctx.seed(n) for n in seed_names}, "mcmc": ctx.mcmc_seed},
        "consistent": len({(m, s) for m, s, _ in agree}) <= 1 and len(releases) <= 1,
        "versions": _versions(),
        "build_log": BUILD_LOG,
        "notebooks": sorted(notebooks),  # the executed notebooks in notebooks/
        "artefacts": files,
        "outputs": outputs,
        "skipped": skipped,
        "failed_fits": sorted({f for e in outputs.values() for f in e.get("failed_fits", [])}),
    }


def _without_timings(built: Built, log: dict[str, list[dict[str, Any]]]) -> Built:
    """The built tables without their wall-clock columns (``*_seconds``), which go to the log.

    Times differ on every run (compile caches, load), so a table holding them would never be
    byte-identical on a rerun; they are kept in :data:`BUILD_LOG` instead.
    """
    tables = []
    for table in built.tables:
        timed = [c for c in table.frame.columns if str(c).endswith("_seconds")]
        if timed:
            keys = [c for c in table.frame.columns if c not in timed
                    and not pd.api.types.is_numeric_dtype(table.frame[c])][:3]  # fmt: skip
            log[table.name] = table.frame[keys + timed].to_dict("records")
            table = replace(table, frame=table.frame.drop(columns=timed))
        tables.append(table)
    return replace(built, tables=tuple(tables))


def _build_log(timings: dict[str, float], fit_times: dict[str, list[dict[str, Any]]]) -> str:
    lines = ["# attunestats reproduce: wall times of this build (they differ on every run, so",
             "# they are kept here and not in the tables or MANIFEST.json)", ""]  # fmt: skip
    lines += [f"{k}\t{v:.2f} s" for k, v in timings.items()]
    for name, rows in fit_times.items():
        lines += ["", f"# {name}: the *_seconds columns taken out of the table"]
        lines += [json.dumps(row, default=str, sort_keys=True) for row in rows]
    return "\n".join(lines) + "\n"


def reproduce(
    *,
    release: str | None = None,
    out: str = "paper_figures",
    fast: bool = False,
    rng: RNGLike = DEFAULT_ROOT_SEED,
    only: Sequence[str] | None = None,
    notebooks: bool = False,
    notebooks_dir: str | None = None,
    allow_failed_fits: bool = False,
    quiet: bool = False,
) -> int:
    """CLI wrapper of :func:`build`: prints a summary, returns an exit status.

    MCMC fits that failed the diagnostics gate are stamped in every table and figure built from
    them and listed in ``MANIFEST.json`` (``failed_fits``); a full (non-fast) build with any of
    them exits with status 1 unless ``allow_failed_fits`` (fast mode's chains are short by
    design and never fail the build).
    """
    try:
        result = build(release=release, out=out, fast=fast, rng=rng, only=only,
                       notebooks=notebooks, notebooks_dir=notebooks_dir,
                       progress=False if quiet else None)  # fmt: skip
    except (ArtefactFailed, NotebookFailed) as exc:
        print(f"reproduce FAILED: {exc}", file=sys.stderr)
        print(f"previous outputs in {out} were left untouched", file=sys.stderr)
        return 1
    total = sum(result.timings.values())
    n = len(result.built)
    files = len(result.manifest["artefacts"])
    sim = " (SIMULATED release)" if result.manifest["release"]["simulated"] else ""
    print(f"built {n} artefacts ({files} files) into {result.out} in {total:.1f} s{sim}")
    if not result.manifest["consistent"]:
        print("note: the output mixes builds with different releases, modes or seeds "
              "(see MANIFEST.json)")  # fmt: skip
    reasons: dict[str, list[str]] = {}
    for rel, reason in result.manifest.get("skipped", {}).items():
        reasons.setdefault(reason, []).append(rel)
    if reasons:
        print(f"{sum(map(len, reasons.values()))} declared output file(s) not produced "
              "(MANIFEST.json: skipped):")  # fmt: skip
        for reason, rels in reasons.items():
            print(f"  {len(rels)} file(s), {reason}")
    for stem, reason in result.manifest.get("notebooks_stopped", {}).items():
        print(f"notebook {stem} stopped at an output this release cannot support: {reason}")
    failed = result.manifest.get("failed_fits", [])
    if failed:
        accepted = allow_failed_fits or bool(result.manifest["sizes"].get("accept_failed_fits"))
        print(f"{len(failed)} MCMC fit(s) failed the diagnostics gate; every table row and figure "
              "built from them says 'diagnostics failed' (MANIFEST.json: failed_fits):",
              file=sys.stderr)  # fmt: skip
        for line in failed:
            print(f"  {line}", file=sys.stderr)
        if fast:
            print("  (expected in fast mode: its chains are too short to pass by design; a full "
                  "build's fits are the ones to read)", file=sys.stderr)  # fmt: skip
        if not accepted:
            print("reproduce FAILED: a full build needs fits that pass the gate; pass "
                  "--allow-failed-fits to accept them", file=sys.stderr)  # fmt: skip
            return 1
    return 0
