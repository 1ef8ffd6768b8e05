"""Exception and warning types of attunestats."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

#: frames in files under this folder are skipped when a warning is attributed to a line
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class AttunestatsWarning(UserWarning):
    """Base class of the warnings attunestats emits (degenerate BCa, failed diagnostics, ...)."""


def warn(message: str, category: type[Warning] = AttunestatsWarning) -> None:
    """Emit ``message`` attributed to the caller's line, outside attunestats.

    Every warning of the package goes through here, so that the file and line Python prints
    with it (and that ``warnings.filterwarnings(..., module=...)`` matches) are the user's code
    that called into attunestats, however deep inside the package the warning was raised.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("something was skipped")
    >>> caught[0].category.__name__, str(caught[0].message)
    ('AttunestatsWarning', 'something was skipped')
    """
    warnings.warn(message, category, skip_file_prefixes=(_PACKAGE_DIR,))


@dataclass(frozen=True)
class Problem:
    """One problem found in a release: where it is and what is wrong.

    Attributes
    ----------
    file : str
        File path relative to the release root (or the release root itself).
    path : str
        JSON path inside the file, e.g. ``$.turns[3].moodShiftTags[0].intensity``; ``""`` for
        problems about the file as a whole.
    message : str
        What is wrong, in words.
    value : str
        A short ``repr`` of the offending value (``""`` when there is none).
    """

    file: str
    path: str
    message: str
    value: str = ""

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        shown = f" (got {self.value})" if self.value else ""
        return f"{where}: {self.message}{shown}"


class ReleaseError(ValueError):
    """A release could not be read; ``problems`` lists every problem found, not only the first.

    Each problem names the file, the JSON path and the offending value.
    """

    def __init__(self, problems: Iterable[Problem], *, max_shown: int = 50) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("ReleaseError needs at least one problem")
        lines = [str(p) for p in self.problems[:max_shown]]
        more = len(self.problems) - max_shown
        if more > 0:
            lines.append(f"... and {more} more problem(s)")
        n = len(self.problems)
        head = f"{n} problem{'s' if n != 1 else ''} in release:"
        super().__init__(head + "\n  " + "\n  ".join(lines))


class NotApplicable(ValueError):
    """The data cannot support this analysis at all (e.g. a single diagnosis group, fewer than
    4 models for correlations, fewer than 2 human raters for agreement).

    A ``ValueError``, so callers that catch bad input keep working; ``attunestats reproduce``
    catches it from a builder, skips that artefact's outputs and records the message in the
    manifest (``skipped``) instead of failing the build.
    """


class DiagnosticsError(RuntimeError):
    """MCMC diagnostics failed and the caller did not accept the fit explicitly."""
