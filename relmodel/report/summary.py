"""Answer sentences from a report's recorded numbers, kept importable here from the summarise step.

They are built once, by :mod:`relmodel.report.summarise` (the index page,
the notebooks and the terminal show those); :func:`clean` lives with the
records it makes JSON-safe, in :mod:`relmodel.report.records`.
"""

from .records import clean
from .summarise import (USEFUL_ETTR, answer_sentences, null_reasons, recommendation, shape_supported,
                        simulation_sentence, warning_lines)

__all__ = ["USEFUL_ETTR", "answer_sentences", "recommendation", "shape_supported", "simulation_sentence", "warning_lines", "clean", "null_reasons"]
