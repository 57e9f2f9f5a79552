"""Presentation layer, figures: every plot relmodel draws, and the interactive widgets.

Belongs here: functions that take ``ax=None`` and return the matplotlib
``Axes`` (:mod:`.fits` for probability paper and survival curves,
:mod:`.logs` for log exploration, :mod:`.checkpoint`, :mod:`.scaling`, :mod:`.designs`,
:mod:`.regression` for forest plots and group curves, :mod:`.stragglers`, :mod:`.nodes` for bad nodes) and the JupyterLab controls of
:mod:`.interactive`; :mod:`.fleets` sets a cluster's rate beside the published fleets. :mod:`.legible` holds the report's text sizes and writes
each PNG's smallest text size into it.  May import every lower
layer; matplotlib is imported inside the functions, and each plot module when
one of its names is first used, so importing this package stays cheap.  Nothing below presentation imports it.
"""

from ..base import lazy as _lazy

#: (module, names) this package re-exports; each plot module (and the layer it draws) is imported the
#: first time one of its names is used.
EXPORTS = [(".", "checkpoint designs fits fleets forecasts logs regression scaling stragglers"),
           (".forecasts", "calibration_plot held_out_plot self_check"),
           (".fits", "PAPERS binned_hazard cumulative_failures_plot cumulative_incidence_plot hazard_plot"),
           (".fits", "mcf_plot plotting_positions probability_plot survival_plot"),
           (".regression", "band_plot forest_plot group_survival_plot"),
           (".nodes", "worst_share_plot policy_plot")]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)

__all__ = ["checkpoint", "designs", "fits", "logs", "scaling", "stragglers", "PAPERS", "binned_hazard", "cumulative_failures_plot",
           "cumulative_incidence_plot", "hazard_plot", "mcf_plot", "plotting_positions", "probability_plot",
           "survival_plot", "fleets", "regression", "forest_plot", "group_survival_plot", "band_plot"]
__all__ += ["forecasts", "calibration_plot", "held_out_plot", "self_check", "worst_share_plot", "policy_plot"]
