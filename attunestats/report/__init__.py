"""Tables and figures: the only place where numbers are rounded and plotted.

``tables`` writes CSV (full precision) and LaTeX (rounded for display); ``figures`` has one
function per figure, all drawn with the package style (``attunestats.mplstyle``) and marked as
simulated when the release is. matplotlib is imported only here.

May import every statistics package (to read their results) and matplotlib; never
``artifacts`` or ``cli``. Statistics packages never import it.
"""
