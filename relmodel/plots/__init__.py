"""Presentation layer, figures: every plot relmodel draws, and the interactive widgets.

Belongs here: functions that take ``ax=None`` and return the matplotlib
``Axes`` (:mod:`.fits` for probability paper and survival curves,
:mod:`.logs` for log exploration, :mod:`.checkpoint`, :mod:`.scaling`, :mod:`.designs`,
:mod:`.regression` for forest plots and group curves, :mod:`.stragglers`) and the JupyterLab controls of
:mod:`.interactive`; :mod:`.fleets` sets a cluster's rate beside the published fleets.  May import every lower
layer; matplotlib is imported inside the functions, so importing this
package stays cheap.  Nothing below presentation imports it.
"""

from . import checkpoint, designs, fits, fleets, logs, regression, scaling, stragglers
from .fits import (PAPERS, binned_hazard, cumulative_failures_plot, cumulative_incidence_plot, hazard_plot,
                   mcf_plot, plotting_positions, probability_plot, survival_plot)
from .regression import band_plot, forest_plot, group_survival_plot

__all__ = ["checkpoint", "designs", "fits", "logs", "scaling", "stragglers", "PAPERS", "binned_hazard", "cumulative_failures_plot",
           "cumulative_incidence_plot", "hazard_plot", "mcf_plot", "plotting_positions", "probability_plot",
           "survival_plot", "fleets", "regression", "forest_plot", "group_survival_plot", "band_plot"]
