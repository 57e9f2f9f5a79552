"""The content blocks of report pages 01-05, by their former shared name.

The blocks now live in one module per page, like pages 06-08:
:mod:`.data_page` (01, and the source summary every page opens with),
:mod:`.fit_page` (02), :mod:`.interval_page` (03) and
:mod:`.requirement_page` (04).  This module re-exports them so code written
against ``relmodel.report.notebook_pages.pages`` keeps working.
"""

from .data_page import (cause_block, causes_block, counts_only, rates_block, repair_block,  # noqa: F401
                        source_block)
from .fit_page import fit_block, fit_records, trend_block  # noqa: F401
from .interval_page import (ETTR_STEP, interval_block, job_block, precision_sentence,  # noqa: F401
                            schemes_block, simulation_block, simulation_records)
from .requirement_page import decision_block, impact_block, sizes_block, spares_block  # noqa: F401

__all__ = ["source_block", "job_block", "cause_block", "causes_block", "rates_block", "repair_block", "counts_only",
           "fit_block", "fit_records", "trend_block", "interval_block", "schemes_block", "simulation_block",
           "simulation_records", "decision_block", "sizes_block", "impact_block", "spares_block", "ETTR_STEP",
           "precision_sentence"]
