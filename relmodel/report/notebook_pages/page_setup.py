"""The one setup call every report page makes after its parameters cell.

``src, caught = setup_page(globals())`` does what each notebook used to
repeat: inline figures at the report's resolution, Python warnings kept out
of the page (the ones a reader needs are caught and shown as notes), and the
data source read from the page's own parameters (``log`` and the column
mapping of :data:`~relmodel.report.kernels.source_cache.SOURCE_PARAMETERS`), once per
render (:func:`~relmodel.report.kernels.source_cache.shared_source`).  The source's
description is recorded for ``summary.json``.  A page without a source (the
lifetime-table page) passes ``source=False``.

The CLI and scripts can call :func:`page_source` with a dict of report
parameters to get the same source the pages use.
"""

import warnings
from typing import NamedTuple

from ..blocks import present as P
from ..kernels.source_cache import shared_source, source_arguments
from ...plots.legible import STYLE as LEGIBLE_STYLE

__all__ = ["PageSetup", "setup_page", "page_scenario", "page_source", "page_restart", "page_restart_base", "FIGURE_STYLE"]

#: The matplotlib settings of every report page: 90 dots per inch and text sizes a laptop reader can read
#: (:data:`relmodel.plots.legible.STYLE`).
FIGURE_STYLE = {"figure.dpi": 90, "figure.max_open_warning": 0, **LEGIBLE_STYLE}


class PageSetup(NamedTuple):
    """What :func:`setup_page` returns: the source (None on a page without one) and the warnings caught
    while loading it (for :func:`~relmodel.report.blocks.present.captured_notes`)."""

    src: object
    caught: list


def _figures():
    """Inline figures in a kernel, each PNG saying its smallest text's size; the report's figure settings everywhere."""
    import matplotlib

    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        shell = None
    if shell is not None and hasattr(shell, "run_line_magic"):
        shell.run_line_magic("matplotlib", "inline")
        _png_with_text_size(shell)
    matplotlib.rcParams.update(FIGURE_STYLE)


def _png_with_text_size(shell):
    """Inline PNGs drawn by :func:`~relmodel.plots.legible.figure_png` (its smallest text's size written in it)."""
    import base64

    from matplotlib.figure import Figure

    from ...plots.legible import figure_png

    def png(fig):
        data = figure_png(fig)
        return None if data is None else base64.b64encode(data).decode("ascii")

    formatters = getattr(getattr(shell, "display_formatter", None), "formatters", {})
    if "image/png" in formatters:
        formatters["image/png"].for_type(Figure, png)


def page_source(values):
    """The :class:`~relmodel.data.source.Source` a page with parameters ``values`` (a dict) reads."""
    log, kwargs = source_arguments(values)
    return shared_source(log, **kwargs)


def _restart(src, restart):
    """``(hours, observed GPUs it was measured on or 0)`` by the decision's rule."""
    from ...scale.targets.decision_inputs import MEASURED, restart_input
    r, r_from, _, _ = restart_input(None if src is None else src.data, restart)
    if restart is not None or r_from != MEASURED or src is None:
        return r, 0
    from ...scale.targets.decision import source_cluster
    return r, source_cluster(src).n_gpus


def page_restart(src, restart=None, n_gpus=None, grows=True):
    """Hours of the restart every page costs with, by the decision's own rule
    (:func:`~relmodel.scale.targets.decision_inputs.restart_input` and
    :func:`~relmodel.scale.targets.decision.decide`), so pages 03-06 use one restart.

    ``restart`` when given; else measured from the log (requeue gaps, plus the
    detection latency a joined kernel log measured), else 10 min.  With
    ``n_gpus`` and ``grows`` (a restart not given), the restart at that size:
    plus the start-up that grows with the ranks beyond what the observed
    cluster paid, the decision's ``restart_h``.
    """
    from ...scale.targets.restart_growth import planned_growth_h
    r, observed = _restart(src, restart)
    if restart is not None or n_gpus is None or not grows:
        return r
    return r + planned_growth_h(n_gpus, observed)


def page_restart_base(src, restart=None):
    """:func:`page_restart` with no start-up growth in it (a measured one less what its cluster's start-up
    took): the restart the designs page grows to each design's own size."""
    from ...scale.targets.restart_growth import planned_growth_h
    r, observed = _restart(src, restart)
    return r - planned_growth_h(observed)


def setup_page(values, *, source=True):
    """Set a report page up and load its source; return ``PageSetup(src, caught)``.

    ``values`` is the page's namespace (``globals()`` in a notebook) or a
    dict of its parameters; only the source parameters are read from it.
    Warnings are silenced for the rest of the page (it is a document: no
    stderr), after the load's own warnings were caught into ``caught``.
    Errors of the load (a missing column, a bad window...) propagate as the
    named :mod:`relmodel.errors` exceptions ``load_source`` raises.
    """
    from ..kernels.records import record

    _figures()
    warnings.simplefilter("ignore")
    if not source:
        return PageSetup(None, [])
    with P.catch() as caught:
        src = page_source(values)
    record("source", src.to_dict())
    return PageSetup(src, list(caught))


def page_scenario(values):
    """The page's :class:`~relmodel.scenario.Scenario`: its parameters named like the scenario's fields, parsed
    once (the report checked their values before any kernel started); recorded as ``scenario`` in hours."""
    from ...scenario import Scenario
    from ..kernels.records import record
    scenario = Scenario.from_params(values)
    record("scenario", scenario.to_dict())
    return scenario
