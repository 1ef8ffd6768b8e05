"""Artefacts: the registry of every table and figure, their builders, and ``reproduce``.

- :mod:`~attunestats.artifacts.registry`: every table and figure declared once (id, the paper
  result it stands for, builder, inputs, outputs, fast/full settings, notebook);
- :mod:`~attunestats.artifacts.builders`: one module per topic, the functions that make them;
- :mod:`~attunestats.artifacts.context`: the build context (release, settings, seeds, memo of
  shared intermediate results) and the outputs a builder returns;
- :mod:`~attunestats.artifacts.reproduce`: ``attunestats reproduce`` (atomic build, manifest);
- :mod:`~attunestats.artifacts.notebooks`: reading and executing the jupytext notebooks.

May import every other layer (release, metrics, the statistics packages, report) except ``cli``.
Heavy modules are imported on first use, so ``attunestats list`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Artefact": "attunestats.artifacts.registry",
    "REGISTRY": "attunestats.artifacts.registry",
    "get_artefact": "attunestats.artifacts.registry",
    "select": "attunestats.artifacts.registry",
    "paper_map": "attunestats.artifacts.registry",
    "BuildContext": "attunestats.artifacts.context",
    "ArtefactContext": "attunestats.artifacts.context",
    "Built": "attunestats.artifacts.context",
    "FAST": "attunestats.artifacts.context",
    "FULL": "attunestats.artifacts.context",
    "DEFAULT_ROOT_SEED": "attunestats.artifacts.context",
    "build": "attunestats.artifacts.reproduce",
    "reproduce": "attunestats.artifacts.reproduce",
    "BuildResult": "attunestats.artifacts.reproduce",
    "ArtefactFailed": "attunestats.artifacts.reproduce",
    "NotebookFailed": "attunestats.artifacts.notebooks",
    "execute_notebook": "attunestats.artifacts.notebooks",
    "list_notebooks": "attunestats.artifacts.notebooks",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'attunestats.artifacts' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
