"""Write the numbered notebooks from the cell lists below (run: python notebooks/make_notebooks.py).

The notebooks are thin: they call attunestats and its report functions; no statistics are
defined in a cell. Each has a papermill-style cell tagged ``parameters`` that
``attunestats reproduce`` overrides. Edit the cells here, then regenerate, so the notebooks stay
consistent with each other.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent

PARAMETERS = '''# Parameters (overridden by `attunestats reproduce`)
release = None  # release directory; None = the bundled SIMULATED release
out_dir = "../paper_figures"  # where tables/ and figures/ are written
fast = True  # CI mode: few resamples, short MCMC
seed = 20260521  # seed of this notebook's random draws
n_resamples = 400  # bootstrap resamples (full build: 10,000)
mcmc_draws = 150  # posterior draws per chain (full build: 1,000)
mcmc_tune = 150  # tuning steps per chain (full build: 1,000)
mcmc_chains = 2  # chains (full build: 4)'''

SETUP = '''import attunestats as at
from attunestats.constants import SIMULATED_LABEL
from attunestats.report import figures, tables

rel = at.load_release(release) if release else at.load_bundled_release()
SIM = rel.simulated
if SIM:
    print(f"*** {SIMULATED_LABEL} ***")'''

NOTEBOOKS: dict[str, tuple[str, list[str]]] = {
    "01_release_overview": (
        "# 01 Release overview\n\nConversations, turns, participants, topics, diagnosis groups and "
        "PANAS trajectories of the release.",
        [
            SETUP,
            '''from attunestats import describe

summary = rel.summary().astype({"value": "str"})
tables.write_table(summary, "01_release_summary", out_dir, simulated=SIM, caption="Release summary")
summary''',
            '''parts = describe.participants_table(rel)
tables.write_table(parts, "01_participants", out_dir, simulated=SIM, caption="Participants")
groups = describe.diagnosis_table(rel)
tables.write_table(groups, "01_diagnosis_groups", out_dir, simulated=SIM, caption="Diagnosis groups")
topics = describe.topics_table(rel)
tables.write_table(topics, "01_topics", out_dir, simulated=SIM, caption="Topics")
lengths = describe.turn_length_table(rel)
tables.write_table(lengths, "01_turns_per_conversation", out_dir, simulated=SIM,
                   caption="Number of turns per conversation")
groups''',
            '''report = rel.report.counts()
tables.write_table(report, "01_load_report", out_dir, simulated=SIM,
                   caption="What the loader normalised, clamped, derived or dropped")
report''',
            '''traj = describe.panas_trajectories(rel)
tables.write_table(traj, "01_panas_trajectories", out_dir, simulated=SIM,
                   caption="PANAS totals before and after the conversation (t intervals over conversations)")
fig = figures.panas_trajectories(traj, simulated=SIM)
figures.save_figure(fig, "01_panas_trajectories", out_dir)''',
        ],
    ),
}


def write_all() -> list[Path]:
    """Regenerate every notebook; returns the paths written."""
    written = []
    for stem, (title, cells) in NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells.append(nbformat.v4.new_markdown_cell(title))
        params = nbformat.v4.new_code_cell(PARAMETERS)
        params.metadata["tags"] = ["parameters"]
        nb.cells.append(params)
        nb.cells.extend(nbformat.v4.new_code_cell(src) for src in cells)
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"{stem[:2]}-{i:02d}"
        path = HERE / f"{stem}.ipynb"
        nbformat.write(nb, path)
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_all():
        print(f"wrote {p}")
