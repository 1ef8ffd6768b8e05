"""The artefact registry and `attunestats reproduce` built from it (cheap artefacts, small release).

The full fast build of every artefact, with the notebooks, is tests/artifacts/test_notebooks.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from attunestats._rng import child_seed
from attunestats.artifacts.context import FAST, FULL, BuildContext
from attunestats.artifacts.notebooks import NotebookFailed, default_notebooks_dir
from attunestats.artifacts.registry import REGISTRY, Artefact, get_artefact, paper_map, select
from attunestats.artifacts.reproduce import OUTPUT_README, ArtefactFailed, build, reproduce

OVERVIEW = [a for a in REGISTRY if a.notebook == "01_release_overview"]
# the old notebooks, whose names are the seeds of their artefacts (numbers must not change)
OLD_NOTEBOOKS = {
    "01_release_overview", "02_leaderboard", "03_model_comparisons", "04_metric_independence",
    "05_hierarchical_effects", "06_turn_dynamics", "07_human_baseline", "08_claims_audit",
}  # fmt: skip


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------- the registry


def test_registry_ids_outputs_builders_and_notebooks_are_consistent():
    ids = [a.id for a in REGISTRY]
    assert len(ids) == len(set(ids)), "artefact ids must be unique"
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)
    outputs = [rel for a in REGISTRY for rel in a.outputs]
    assert len(outputs) == len(set(outputs)), "each output file is declared by one artefact"
    notebooks = {p.stem for p in default_notebooks_dir().glob("[0-9][0-9]_*.py")}
    for a in REGISTRY:
        assert callable(a.resolve_builder()), a.id
        assert a.notebook in notebooks, f"{a.id}: no notebooks/{a.notebook}.py"
        # seeds stay those of the old notebooks, and output names start with the notebook number
        assert a.seed_name in OLD_NOTEBOOKS
        assert all(n.startswith(a.notebook[:3]) for n in (*a.tables, *a.figures)), a.id
        assert set(a.fast) == set(a.full) == set(a.settings)
        assert all(a.fast[k] == FAST[k] and a.full[k] == FULL[k] for k in a.settings)
        # the paper's table and figure numbers are not known: never cite one
        assert not re.search(r"\b(table|figure|fig\.)\s*\d", a.paper_ref, re.I), a.paper_ref
        assert a.paper_ref.strip() and a.title.strip()
    # every notebook tells the story of at least one artefact
    assert notebooks == {a.notebook for a in REGISTRY}


def test_select_by_id_output_notebook_and_number():
    assert select(None) == REGISTRY
    assert [a.id for a in select(["leaderboard-pillars"])] == ["leaderboard-pillars"]
    assert [a.id for a in select(["02_rank_intervals_composite".replace("02", "03")])] == [
        "rank-intervals-composite"
    ]
    by_number = select(["1"])
    assert by_number == select(["01"]) == select(["01_release_overview"]) == tuple(OVERVIEW)
    # registry order whatever the order asked for
    assert [a.id for a in select(["topics", "release-summary"])] == ["release-summary", "topics"]
    with pytest.raises(ValueError, match="matches no artefact"):
        select(["table3"])
    with pytest.raises(KeyError, match="no artefact 'nope'"):
        get_artefact("nope")


def test_paper_map_has_one_row_per_artefact_with_its_outputs():
    frame = paper_map()
    assert list(frame.columns[:5]) == ["id", "paper_ref", "outputs", "notebook", "builder"]
    assert list(frame["id"]) == [a.id for a in REGISTRY]
    row = frame.set_index("id").loc["leaderboard-pillars"]
    assert row["outputs"] == "tables/02_leaderboard_pillars figures/02_leaderboard_pillars"
    assert row["builder"] == "leaderboard:pillars" and row["notebook"] == "02_leaderboard"


def test_output_readme_in_the_repository_is_the_one_reproduce_writes():
    committed = Path(__file__).resolve().parents[2] / "paper_figures" / "README.md"
    assert committed.read_text(encoding="utf-8") == OUTPUT_README


# --------------------------------------------------------------------------- building


def test_only_builds_the_selection_and_writes_a_manifest_entry_per_output(
    tmp_path, release_small, release_small_path
):
    out = tmp_path / "figs"
    result = build(
        release=release_small_path, out=out, fast=True, rng=7, only=["01"], progress=False
    )
    assert result.built == tuple(a.id for a in OVERVIEW)
    declared = {rel for a in OVERVIEW for rel in a.outputs}
    produced = set(_files(out)) - {"README.md", "MANIFEST.json", "BUILD.log"}
    assert produced == declared
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest == json.loads(json.dumps(result.manifest))
    assert set(manifest["outputs"]) == declared and manifest["skipped"] == {}
    assert set(manifest["artefacts"]) == declared | {"README.md"}
    for rel, entry in manifest["outputs"].items():
        artefact = get_artefact(entry["artefact"])
        assert rel in artefact.outputs
        assert entry["sha256"] == manifest["artefacts"][rel]
        assert entry["paper_ref"] == artefact.paper_ref and entry["notebook"] == artefact.notebook
        assert entry["builder"] == artefact.builder_name
        assert entry["seed"] == child_seed(7, artefact.seed_name) and entry["root_seed"] == 7
        assert entry["mcmc_seed"] is None and entry["mode"] == "fast"
        assert entry["input_hashes"]["release_checksum"] == release_small.checksum
        assert len(entry["input_hashes"]["settings_sha256"]) == 64
        assert entry["simulated"] is release_small.simulated
    assert manifest["release"]["checksum"] == release_small.checksum
    assert manifest["seeds"] == {"01_release_overview": child_seed(7, "01_release_overview"),
                                 "mcmc": child_seed(7, "mcmc")}  # fmt: skip
    assert manifest["consistent"] is True and manifest["only"] == ["01"]
    assert len(manifest["versions"]["jupytext"]) > 0
    # no temporary build directories are left behind
    assert [p.name for p in tmp_path.iterdir()] == ["figs"]
    # the result protocol: one row per output file, each the file on disk with its artefact
    frame = result.to_frame()
    assert sorted(frame["file"]) == sorted(declared)
    for row in frame.itertuples():
        assert hashlib.sha256((out / row.file).read_bytes()).hexdigest() == row.sha256
        assert row.paper_ref == get_artefact(row.artefact).paper_ref and row.failed_fits == ""
    text = str(result.summary())
    assert "fast build of" in text and all(rel in text for rel in declared)
    assert ("SIMULATED" in text) is release_small.simulated
    assert repr(result).startswith(f"<BuildResult: {len(declared)} rows")


def test_a_release_without_human_raters_or_emotion_predictions_builds_and_says_what_it_skipped(
    tmp_path,
):
    # A user's release of new models with behaviour and preference predictions only: the
    # artefacts that need human raters are skipped with the reason in the manifest, and those
    # whose metric is the same for every model (emotion F1 without predictions) still build.
    from dataclasses import replace

    from attunestats.release.simulate import SCENARIOS, simulate_documents

    cfg = replace(SCENARIOS["null"], n_conversations=30, n_human_raters=0, messiness=0.0)
    docs = simulate_documents(cfg, rng=11)
    for files in docs.runs.values():
        for run in files.values():
            for turn in run["turns"]:
                turn["em_emotion_tags"] = []
    release = docs.write(tmp_path / "release")
    only = ["rater-agreement", "humans-vs-models", "discrimination-contrasts"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the load report of the stripped predictions
        result = build(release=release, out=tmp_path / "out", fast=True, rng=3, only=only,
                       progress=False)  # fmt: skip
    skipped = result.manifest["skipped"]
    for artefact in ("rater-agreement", "humans-vs-models"):
        for rel in get_artefact(artefact).outputs:
            assert "0 human rater(s)" in skipped[rel] and not (tmp_path / "out" / rel).exists()
    contrasts = pd.read_csv(tmp_path / "out" / "tables" / "03_discrimination_contrasts.csv")
    assert contrasts["ci_low"].isna().all() and contrasts["pvalue"].isna().all()
    assert contrasts["note"].str.contains("avg_emotion_f1").all()


def test_artefacts_the_release_cannot_support_are_skipped_with_a_warning(tmp_path, capsys,
                                                                        make_tmp_release):  # fmt: skip
    # 3 evaluated models and 1 human rater: no correlations across models (4 needed) and no
    # agreement among raters (2 needed); the build goes on and the manifest says why.
    from attunestats.errors import AttunestatsWarning

    release = make_tmp_release(rng=2)
    only = ["capability-independence", "rater-agreement"]
    with pytest.warns(AttunestatsWarning, match="capability-independence is not applicable"):
        result = build(release=release, out=tmp_path / "out", fast=True, rng=3, only=only,
                       progress=False)  # fmt: skip
    skipped = result.manifest["skipped"]
    assert set(skipped) == {rel for a in only for rel in get_artefact(a).outputs}
    for rel in get_artefact("capability-independence").outputs:
        assert "need at least 4 models" in skipped[rel]
    for rel in get_artefact("rater-agreement").outputs:
        assert "1 human rater(s)" in skipped[rel]
    assert result.manifest["outputs"] == {}
    # the command line says which files were not produced and why
    from attunestats.cli import main

    capsys.readouterr()
    assert main(["reproduce", "--release", str(release), "--out", str(tmp_path / "cli"),
                 "--fast", "--quiet", "--only", "rater-agreement"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    printed = captured.out
    # the CLI prints the warning as one formatted line (not Python's file:line form)
    assert "attunestats reproduce: warning: " in captured.err
    assert "rater-agreement is not applicable" in captured.err
    # in a notebook (ctx.build): the same skip, and asking for the figure says why it is absent
    from attunestats.errors import NotApplicable

    ctx = BuildContext(release=release, fast=True, rng=3)
    with pytest.warns(AttunestatsWarning, match="rater-agreement is not applicable"):
        built = ctx.build("rater-agreement")
    with pytest.raises(NotApplicable, match="07_rater_agreement not produced: the release has 1"):
        built.figure()
    built.show()  # prints the reasons instead of failing
    assert "not produced: the release has 1 human rater(s)" in capsys.readouterr().out
    n = len(get_artefact("rater-agreement").outputs)
    assert f"{n} declared output file(s) not produced" in printed
    assert f"{n} file(s), rater-agreement: the release has 1 human rater(s)" in printed


def test_only_into_an_existing_output_keeps_the_other_files_and_their_entries(
    tmp_path, release_small_path
):
    out = tmp_path / "figs"
    build(release=release_small_path, out=out, fast=True, rng=7, only=["01"], progress=False)
    before = _files(out)
    old = json.loads((out / "MANIFEST.json").read_text())
    build(release=release_small_path, out=out, fast=False, rng=7,
          only=["topics", "metric-registry"], progress=False)  # fmt: skip
    after = _files(out)
    manifest = json.loads((out / "MANIFEST.json").read_text())
    added = set(get_artefact("metric-registry").outputs)
    assert set(after) == set(before) | added
    for rel in before:
        if rel.startswith(("tables/", "figures/")):
            assert after[rel] == before[rel], rel  # rebuilt or kept, same bytes (no randomness)
    kept = set(old["outputs"]) - set(get_artefact("topics").outputs)
    assert all(manifest["outputs"][rel] == old["outputs"][rel] for rel in kept)
    assert manifest["outputs"]["tables/01_topics.csv"]["mode"] == "full"
    assert manifest["outputs"]["tables/02_metric_registry.csv"]["simulated"] is False
    assert manifest["consistent"] is False  # fast and full outputs side by side
    assert [p.name for p in tmp_path.iterdir()] == ["figs"]


def test_same_root_seed_same_bytes_other_seed_other_numbers(tmp_path, release_small_path):
    out = tmp_path / "figs"
    only = ["leaderboard-conditional"]  # the conversation bootstrap: random, seeded
    first = build(release=release_small_path, out=out, fast=True, rng=7, only=only, progress=False)
    assert first.used_settings == {"leaderboard-conditional": ("n_resamples",)}
    csv = out / "tables" / "02_leaderboard_conditional.csv"
    content = csv.read_text()
    build(release=release_small_path, out=out, fast=True, rng=7, only=only, progress=False)
    assert csv.read_text() == content
    build(release=release_small_path, out=out, fast=True, rng=8, only=only, progress=False)
    assert csv.read_text() != content
    # a notebook's context calls the same builder with the same seed: the same table
    ctx = BuildContext(release=release_small_path, fast=True, rng=7)
    frame = ctx.build("leaderboard-conditional").frame()
    build(release=release_small_path, out=out, fast=True, rng=7, only=only, progress=False)
    written = pd.read_csv(csv, comment="#")
    pd.testing.assert_frame_equal(frame.reset_index(drop=True), written, check_dtype=False)


def _boom(ctx):
    raise RuntimeError("boom in the builder")


def _wrong_name(ctx):
    return ctx.built(ctx.table("01_other", pd.DataFrame({"x": [1]}), "t"))


def test_failure_names_artefact_and_builder_and_keeps_previous_outputs(
    tmp_path, release_small_path
):
    out = tmp_path / "figs"
    build(release=release_small_path, out=out, fast=True, rng=7, only=["topics"], progress=False)
    before = _files(out)
    bad = Artefact(id="bad", title="t", paper_ref="p", builder=_boom, notebook="01_x",
                   inputs=("release",), tables=("01_bad",))  # fmt: skip
    registry = (get_artefact("release-summary"), bad)
    with pytest.raises(ArtefactFailed, match=r"(?s)artefact bad \(builder .*_boom.*boom in the"):
        build(release=release_small_path, out=out, fast=True, registry=registry, progress=False)
    wrong = Artefact(id="wrong", title="t", paper_ref="p", builder=_wrong_name, notebook="01_x",
                     inputs=(), tables=("01_declared",))  # fmt: skip
    with pytest.raises(ArtefactFailed, match=r"undeclared \[\('table', '01_other'\)\], "
                       r"missing \[\('table', '01_declared'\)\]"):  # fmt: skip
        build(release=release_small_path, out=out, fast=True, registry=[wrong], progress=False)
    assert _files(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["figs"]


def test_undeclared_setting_is_refused(release_small_path):
    sneaky = Artefact(id="sneaky", title="t", paper_ref="p", notebook="01_x", inputs=(),
                      builder=lambda ctx: ctx.setting("n_resamples"), tables=("01_s",))  # fmt: skip
    ctx = BuildContext(release=release_small_path, fast=True, rng=1)
    with pytest.raises(KeyError, match="does not declare it"):
        ctx.build("sneaky", registry=[sneaky])


# --------------------------------------------------------------------------- notebooks

GOOD = """# %% [markdown]
# # a tiny notebook

# %% tags=["parameters"]
release = None
fast = False
rng = 0
fit_cache = None
memo_dir = None

# %%
assert fast is True and rng == 7 and release.endswith("release_small"), (fast, rng, release)
print("parameters injected")
"""
BAD = (
    GOOD
    + """
# %%
x = 1

# %%
raise RuntimeError("boom in the notebook")
"""
)


def test_notebooks_run_with_the_build_parameters_and_failures_name_the_cell(
    tmp_path, release_small_path
):
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    (nbs / "01_good.py").write_text(GOOD, encoding="utf-8")
    (nbs / "02_bad.py").write_text(BAD, encoding="utf-8")

    def art(id: str, notebook: str) -> Artefact:
        return Artefact(id=id, title="t", paper_ref="p", builder=_topics, notebook=notebook,
                        inputs=("release",), tables=("01_topics",))  # fmt: skip

    out = tmp_path / "figs"
    result = build(release=release_small_path, out=out, fast=True, rng=7,
                   registry=[art("good", "01_good")], notebooks=True, notebooks_dir=nbs,
                   progress=False)  # fmt: skip
    assert result.manifest["notebooks"] == ["01_good"]
    assert "parameters injected" in (out / "notebooks" / "01_good.ipynb").read_text()
    assert not list(out.rglob(".memo")) and not list(out.rglob(".fit-cache"))
    before = _files(out)
    with pytest.raises(NotebookFailed, match=r"(?s)notebook 02_bad.py, cell 5 .*boom in the"):
        build(release=release_small_path, out=out, fast=True, rng=7,
              registry=[art("bad", "02_bad")], notebooks=True, notebooks_dir=nbs,
              progress=False)  # fmt: skip
    assert _files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figs", "nbs"]
    # a cell that shows an output the release cannot support stops its notebook, not the build
    (nbs / "03_stops.py").write_text(GOOD + """
# %%
from attunestats.errors import NotApplicable
raise NotApplicable("the release has 1 human rater(s)")

# %%
raise RuntimeError("never reached")
""", encoding="utf-8")  # fmt: skip
    result = build(release=release_small_path, out=out, fast=True, rng=7,
                   registry=[art("stops", "03_stops")], notebooks=True, notebooks_dir=nbs,
                   progress=False)  # fmt: skip
    assert result.manifest["notebooks"] == ["03_stops"]
    assert result.manifest["notebooks_stopped"] == {"03_stops": "the release has 1 human rater(s)"}
    saved = (out / "notebooks" / "03_stops.ipynb").read_text()
    assert "Stopped here: not applicable to this release" in saved and "never reached" in saved


def _topics(ctx):
    from attunestats.artifacts.builders.release_overview import topics

    return topics(ctx)


# --------------------------------------------------------------------------- command line


def test_cli_list_prints_the_paper_map(capsys):
    from attunestats.cli import main

    assert main(["list"]) == 0
    text = capsys.readouterr().out
    for a in REGISTRY:
        assert f"{a.id}  ({a.notebook}; builder {a.builder_name})" in text
        assert f"    paper:   {a.paper_ref}\n" in text
    assert text.rstrip().endswith(f"{len(REGISTRY)} artefacts; rebuild some with "
                                  "`attunestats reproduce --only ID ...`")  # fmt: skip
    assert main(["list", "03", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [a.id for a in select(["03"])]
    assert set(rows[0]) == {"id", "paper_ref", "outputs", "notebook", "builder", "title"}


def test_cli_reproduce_only_and_exit_statuses(tmp_path, capsys, release_small_path):
    from attunestats.cli import main

    out = tmp_path / "o"
    args = [
        "reproduce",
        "--release",
        str(release_small_path),
        "--out",
        str(out),
        "--fast",
        "--seed",
        "3",
    ]
    assert main([*args, "--only", "topics", "diagnosis-groups"]) == 0
    assert "built 2 artefacts" in capsys.readouterr().out
    assert sorted(p.name for p in (out / "tables").iterdir()) == [
        "01_diagnosis_groups.csv", "01_diagnosis_groups.json", "01_diagnosis_groups.tex",
        "01_topics.csv", "01_topics.json", "01_topics.tex",
    ]  # fmt: skip
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["root_seed"] == 3 and manifest["only"] == ["topics", "diagnosis-groups"]
    assert main([*args, "--only", "table3"]) == 2
    assert "matches no artefact" in capsys.readouterr().err
    # a failing notebook: exit status 1, the output left as it was
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    (nbs / "01_release_overview.py").write_text("# %%\n1 / 0\n", encoding="utf-8")
    before = _files(out)
    failing = [*args, "--only", "topics", "--notebooks", "--notebooks-dir", str(nbs)]
    assert main(failing) == 1
    err = capsys.readouterr().err
    assert "01_release_overview.py, cell 1" in err and "ZeroDivisionError" in err
    assert "left untouched" in err and _files(out) == before


def test_progress_bar_only_where_someone_watches(tmp_path, capsys, release_small_path):
    # a tqdm bar over the steps when asked (a terminal or a notebook by default); nothing on a
    # pipe or a log (progress=None here: pytest's captured stderr is not a terminal), or quiet
    build(release=release_small_path, out=tmp_path / "a", fast=True, rng=7, only=["topics"])
    assert capsys.readouterr().err == ""
    build(release=release_small_path, out=tmp_path / "b", fast=True, rng=7, only=["topics"],
          progress=True)  # fmt: skip
    err = capsys.readouterr().err
    assert "reproduce" in err and "1/1" in err and "topics" in err
    assert reproduce(release=release_small_path, out=str(tmp_path / "c"), fast=True, rng=7,
                     only=["topics"], quiet=True) == 0  # fmt: skip
    assert capsys.readouterr().err == ""
