"""How many runs the spare-domain simulation needs: its cost is the parts in repair it simulates.

Imports only :mod:`relmodel.units`, :mod:`relmodel.budget_guard` and the repair models of :mod:`.sparing.spares`.
"""

from ...budget_guard import current_budget, runs_within
from ...units import hours
from ..sparing.spares import _mean_repair

__all__ = ["ENOUGH_ITEMS", "expected_items", "runs_for", "run_cost"]


#: Parts in repair simulated in all runs together past which more runs add little to the simulated check of
#: the closed form (see :func:`runs_for`): at a quarter of a million parts the simulated chance of finding no
#: spare has a standard error near 0.0015, a check of the closed form's two printed digits; each part costs
#: a few hundred bytes while it is simulated, so this also bounds a report page's memory (about 60 MB).
ENOUGH_ITEMS = 250_000


def _kinds(model, repair, group_repair):
    m = model
    n_dom = m.groups // m.need if m.split_groups else m.groups
    kinds = [("tray", m.groups * m.trays * m.tray_rate, repair, 1), ("group", n_dom * m.group_rate, group_repair, 1),
             ("spare", m.pool * m.pool_rate, repair, 1)]
    return kinds + [("burst", float(rate), rep, int(span)) for rate, span, rep in m.bursts]


def expected_items(model, repair, group_repair=None, horizon="7d"):
    """Expected parts in repair in one simulated run (those in repair at its start and those failing during it)."""
    h, group_repair = float(hours(horizon)), repair if group_repair is None else group_repair
    return float(sum(rate * (h + _mean_repair(rep)) * span for _, rate, rep, span in _kinds(model, repair, group_repair)
                     if rate > 0))


def run_cost(items):
    """(work, bytes) of one simulated run holding ``items`` parts in repair."""
    return 200 + 60 * items, 128 + 160 * items


def runs_for(model, repair, n_runs, group_repair=None, horizon="7d", enough=ENOUGH_ITEMS):
    """``n_runs``, or fewer (at least 10) when that many runs would hold more than ``enough`` parts in repair,
    and never more than the budget (:mod:`relmodel.budget_guard`) holds: 0 when not even one run fits.

    At a million GPUs one week holds hundreds of thousands of repairs; the simulated chance of no spare is
    then as precise as printed after a few runs, so more runs only cost memory and time.

    Examples
    --------
    >>> from relmodel.scale.design.compound import DomainModel
    >>> m = DomainModel(groups=10, trays=18, spares=1, tray_rate=1e-3)
    >>> runs_for(m, "24h", 5_000), runs_for(m, "24h", 10_000, enough=10_000)   # 0.18 per h x (168 + 24) h a run
    (5000, 289)
    """
    items = expected_items(model, repair, group_repair, horizon)
    runs = runs_within(n_runs, items, enough, least=10)
    work, size = run_cost(items)
    budget = current_budget()
    return int(min(runs, budget["work"] // work, budget["memory"] // size))
