"""Progress bars for long work (simulation studies, long bootstrap runs, reproduce), with tqdm.

One rule everywhere: a bar is shown only where someone watches, on a terminal (the stream is a
TTY) or in a Jupyter notebook (tqdm's notebook widget when ipywidgets is installed, its text bar
otherwise), and never when the caller passes ``enabled=False`` (the CLI's ``--quiet`` /
``--no-progress``) or the environment sets ``ATTUNESTATS_QUIET=1``. Logs and CI output stay clean.
MCMC sampling shows its sampler's own progress (nutpie, PyMC).

May import: only the standard library and tqdm (every layer may import it).
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

__all__ = ["in_notebook", "progress_bar", "should_show"]


def in_notebook() -> bool:
    """True inside a Jupyter kernel (ipykernel's ZMQ shell)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()  # type: ignore[attr-defined]
    except Exception:  # pragma: no cover - IPython internals
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def should_show(enabled: bool | None = None, stream: TextIO | None = None) -> bool:
    """Whether to draw a bar: ``enabled`` if given, else a terminal or a notebook, never quiet."""
    if os.environ.get("ATTUNESTATS_QUIET", "").strip() not in ("", "0"):
        return False
    if enabled is not None:
        return bool(enabled)
    stream = sys.stderr if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)()) or in_notebook()


class _NoBar:
    """The bar's interface, doing nothing."""

    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress_bar(
    total: int | None,
    *,
    desc: str,
    unit: str = "it",
    initial: int = 0,
    enabled: bool | None = None,
    stream: TextIO | None = None,
) -> Any:
    """A tqdm bar (``update()``, ``set_postfix_str()``, ``close()``), or a silent stand-in.

    Parameters
    ----------
    total : int or None
        Number of steps (None: unknown).
    desc, unit : str
        Label and unit of a step (e.g. ``"replicates"``).
    initial : int
        Steps already done (a resumed study).
    enabled : bool, optional
        True/False forces the bar on/off; None (default) shows it on a terminal or in a notebook.
    stream : file, optional
        Where a text bar goes (default ``sys.stderr``).

    Examples
    --------
    >>> bar = progress_bar(3, desc="demo", enabled=False)
    >>> for _ in range(3):
    ...     bar.update()
    >>> bar.n
    3
    """
    stream = sys.stderr if stream is None else stream
    if not should_show(enabled, stream):
        bar = _NoBar()
        bar.n = initial
        return bar
    options = {"total": total, "desc": desc, "unit": unit, "initial": initial,
               "dynamic_ncols": True, "leave": True}  # fmt: skip
    if in_notebook():
        try:
            import ipywidgets  # noqa: F401
            from tqdm.notebook import tqdm as notebook_tqdm

            return notebook_tqdm(**options)
        except ImportError:
            pass
    from tqdm import tqdm

    return tqdm(file=stream, **options)
