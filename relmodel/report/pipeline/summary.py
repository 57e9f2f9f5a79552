"""Answer sentences from a report's recorded numbers, kept importable here from the summarise step.

They are built once, by :mod:`relmodel.report.pipeline.summarise` (the index page,
the notebooks and the terminal show those); :func:`clean` lives with the
records it makes JSON-safe, in :mod:`relmodel.report.kernels.records`.
:func:`record_decision` is how a page hands its one
:class:`~relmodel.scale.targets.decision.Decision` to the summary.
"""

from ..kernels.records import clean
from .summarise import (USEFUL_ETTR, answer_sentences, headline_of, null_reasons, recommendation, shape_supported,
                        simulation_sentence, today_sentence, warning_lines)

__all__ = ["USEFUL_ETTR", "answer_sentences", "recommendation", "shape_supported", "simulation_sentence",
           "warning_lines", "clean", "null_reasons", "headline_of", "today_sentence", "record_decision"]


def record_decision(dec, reason=None):
    """Record a page's decision for summary.json: the whole object, its headline, and the headline numbers."""
    from ..kernels.records import record
    record("decision", dec.to_dict())
    record("headline", dec.headline())
    record("job_mtbf_h", dec.job_mtbf_h)
    record("optimal_interval_h", dec.interval_h)
    record("ettr", dec.ettr)
    record("required_job_mtbf_h", dec.required_job_mtbf_h)
    record("required_node_mtbf_h", dec.required_node_mtbf_h,
           reason=reason or (None if dec.reachable else f"out of reach: per-job causes cap ETTR at {dec.cap_ettr:.1%}"))
