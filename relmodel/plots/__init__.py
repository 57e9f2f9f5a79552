"""Presentation layer, figures: every plot relmodel draws, and the interactive widgets.

Belongs here: functions that take ``ax=None`` and return the matplotlib
``Axes`` (:mod:`.fits` for probability paper and survival curves,
:mod:`.logs` for log exploration, :mod:`.checkpoint`, :mod:`.scaling`,
:mod:`.stragglers`) and
the JupyterLab controls of :mod:`.interactive`.  May import every lower
layer; matplotlib is imported inside the functions, so importing this
package stays cheap.  Nothing below presentation imports it.
"""

from . import checkpoint, fits, logs, scaling, stragglers
from .fits import (PAPERS, binned_hazard, cumulative_failures_plot, cumulative_incidence_plot, hazard_plot,
                   mcf_plot, plotting_positions, probability_plot, survival_plot)

__all__ = ["checkpoint", "fits", "logs", "scaling", "stragglers", "PAPERS", "binned_hazard", "cumulative_failures_plot",
           "cumulative_incidence_plot", "hazard_plot", "mcf_plot", "plotting_positions", "probability_plot",
           "survival_plot"]
