"""The in-kernel API: what a notebook calls to hand numbers and figures to its report.

``record(name, value)`` and ``key_figure(fig, name)`` attach a value to the
cell's outputs under :data:`MIMETYPE` (invisible in the HTML); the execute step
reads them back from the executed notebook (:func:`read_records`), and the
summarise step puts them into ``summary.json``.  Outside a kernel the values are
kept in this process (:func:`recorded`).  Notebooks import these as
``from relmodel.report import record``.
"""

import base64
import json
import math
import numbers

from ...errors import InputTypeError

__all__ = ["MIMETYPE", "FIGURE_PREFIX", "record", "key_figure", "recorded", "forget", "read_records", "clean"]

#: Output mimetype that carries a recorded number inside an executed notebook.
MIMETYPE = "application/vnd.relmodel.record+json"

#: Record names that carry a key figure (PNG, base64) rather than a number.
FIGURE_PREFIX = "figure:"

_RECORDED = {}


def _plain(value):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if hasattr(value, "item"):  # a numpy scalar or 0-d array
        return value.item()
    return value


def record(name, value, reason=None):
    """Record a headline number from inside a notebook.

    In a kernel the value is attached to the cell's outputs (invisible in the
    HTML) and the report reads it back into ``summary.json``; outside a kernel
    it is kept in memory (see :func:`recorded`). ``value`` must be JSON-able
    and in the units its name says (``_h`` for hours); None, NaN and infinity
    are stored as None with ``reason`` (default "out of reach" for infinity)
    in the summary's ``reasons``.

    Examples
    --------
    >>> record("node_mtbf_h", 16595.4)      # hours, say
    >>> recorded()["node_mtbf_h"]
    16595.4
    """
    reasons = {}
    value = clean(_plain(value), reasons, name)
    if reason is not None and (value is None or reasons):
        reasons = {k: reason for k in reasons} or {name: reason}
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        raise InputTypeError(f"record({name!r}, ...): a {type(value).__name__} cannot be recorded; record "
                             "a number, text, true/false, None, or a list or dict of those") from None
    _RECORDED[name] = value
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    if get_ipython() is not None:
        from IPython.display import display
        display({MIMETYPE: {"name": name, "value": value, "reasons": reasons}}, raw=True)


def key_figure(fig, name, dpi=80):
    """Mark a matplotlib figure as a key figure of the report's summary page.

    The figure is kept as PNG bytes in the notebook's records; the process
    that writes the report folder saves it as ``key-<name>.png`` beside
    ``index.html`` (so workers need no shared folder).  ``name`` orders the
    figures (e.g. ``"1-ettr-against-interval"``); ``dpi`` is a count of dots
    per inch of the PNG.  In a kernel with the inline backend, a pyplot figure
    is drawn once: the record names its place among the figures the cell
    shows, and :func:`read_records` takes that PNG from the cell's outputs.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1)); _ = fig.subplots().plot([0, 1])
    >>> key_figure(fig, "1-demo")
    >>> recorded()["figure:1-demo"][:8]      # base64 of a PNG signature
    'iVBORw0K'
    """
    shown = _inline_position(fig)
    if shown is not None:
        record(FIGURE_PREFIX + str(name), {CELL_FIGURE: shown})
        return
    from ...plots.legible import figure_png  # the PNG says its smallest text's size, as inline figures do

    record(FIGURE_PREFIX + str(name), base64.b64encode(figure_png(fig, dpi=dpi) or b"").decode("ascii"))


#: Key of a figure record that points at the cell's own displayed PNG (its place among them).
CELL_FIGURE = "cell_figure"


def _inline_position(fig):
    """Where ``fig`` comes among the figures the inline backend shows at the cell's end, or None."""
    import sys
    if "matplotlib_inline.backend_inline" not in sys.modules or "IPython" not in sys.modules:
        return None
    from IPython import get_ipython
    import matplotlib
    if get_ipython() is None or "inline" not in str(matplotlib.get_backend()):
        return None
    from matplotlib._pylab_helpers import Gcf
    shown = [m.canvas.figure for m in Gcf.get_all_fig_managers()]
    return shown.index(fig) if fig in shown else None


def recorded():
    """Numbers recorded in this process outside a kernel, as a dict.

    Values are as recorded (numbers in the units their names say, e.g. ``_h`` for hours).

    Examples
    --------
    >>> record("ettr", 0.85)
    >>> recorded()["ettr"]
    0.85
    """
    return dict(_RECORDED)


def forget():
    """Clear the records kept in this process (a warm kernel does between notebooks)."""
    _RECORDED.clear()


def read_records(nb):
    """The records in an executed notebook's outputs, with their ``reasons`` merged under that key."""
    found, reasons = {}, {}
    for cell in nb.cells:
        outputs = cell.get("outputs", [])
        pngs = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
        for output in outputs:
            data = output.get("data", {})
            if MIMETYPE in data:
                item = data[MIMETYPE]
                value = item["value"]
                if item["name"].startswith(FIGURE_PREFIX) and isinstance(value, dict):
                    k = value.get(CELL_FIGURE)
                    if not (isinstance(k, int) and 0 <= k < len(pngs)):
                        continue  # the cell showed no such figure: no key figure
                    value = "".join(pngs[k]) if isinstance(pngs[k], list) else pngs[k].replace("\n", "")
                found[item["name"]] = value
                reasons.update(item.get("reasons") or {})
    if reasons:
        found["reasons"] = reasons
    return found


def clean(value, reasons, key="value"):
    """``value`` with non-finite floats replaced by None; each replacement's reason goes into ``reasons``."""
    if isinstance(value, dict):
        return {k: clean(v, reasons, f"{key}.{k}" if key != "value" else k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v, reasons, key) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        reasons.setdefault(key, "out of reach" if value == math.inf else "not defined for this data")
        return None
    if isinstance(value, str) and value.strip().lower() in ("inf", "nan", "-inf"):
        reasons.setdefault(key, "out of reach" if "inf" in value.lower() else "not defined for this data")
        return None
    return value
