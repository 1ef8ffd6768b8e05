"""Builders of notebook 01 (release overview): counts, participants, topics, PANAS.

Nothing here is random; the tables describe the release as loaded.
"""

from __future__ import annotations

from attunestats.artifacts.context import ArtefactContext, Built
from attunestats.release import describe
from attunestats.report import figures


def release_summary(ctx: ArtefactContext) -> Built:
    summary = ctx.release.summary().astype({"value": "str"})
    return ctx.built(ctx.table("01_release_summary", summary, "Release summary"))


def participants(ctx: ArtefactContext) -> Built:
    parts = describe.participants_table(ctx.release)
    return ctx.built(ctx.table("01_participants", parts, "Participants"))


def diagnosis_groups(ctx: ArtefactContext) -> Built:
    groups = describe.diagnosis_table(ctx.release)
    return ctx.built(ctx.table("01_diagnosis_groups", groups, "Diagnosis groups"))


def topics(ctx: ArtefactContext) -> Built:
    table = describe.topics_table(ctx.release)
    return ctx.built(ctx.table("01_topics", table, "Topics"))


def turns_per_conversation(ctx: ArtefactContext) -> Built:
    lengths = describe.turn_length_table(ctx.release)
    return ctx.built(
        ctx.table("01_turns_per_conversation", lengths, "Number of turns per conversation")
    )


def load_report(ctx: ArtefactContext) -> Built:
    report = ctx.release.report.counts()
    caption = "What the loader normalised, clamped, derived or dropped"
    return ctx.built(ctx.table("01_load_report", report, caption))


def panas_trajectories(ctx: ArtefactContext) -> Built:
    traj = describe.panas_trajectories(ctx.release)
    caption = "PANAS totals before and after the conversation (t intervals over conversations)"
    fig = figures.panas_trajectories(traj, simulated=ctx.simulated)
    return ctx.built(
        ctx.table("01_panas_trajectories", traj, caption),
        ctx.figure(
            "01_panas_trajectories",
            fig,
            note=figures.figure_note(
                text="Means with 95% t intervals over conversations (treated as independent, so too "
                "narrow when participants differ: descriptive only)"
            ),
        ),  # fmt: skip
    )
