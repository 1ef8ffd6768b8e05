"""The human baseline: agreement among human raters, with participants, and humans vs models.

May import: ``attunestats.release``, ``attunestats.metrics``, ``attunestats.agreement``,
``attunestats.inference`` and the shared modules. Never ``report``, ``artifacts`` or ``cli``.
"""

from attunestats.baseline.core import *  # noqa: F403  (split into modules by the layout work)
from attunestats.baseline.core import (  # noqa: F401
    HUMAN_MEAN,
    MODEL_MEAN,
    __all__,
    _AlphaKernel,
)
