"""The covariates page (08) in plain words: which covariates change how long units live, said first.

:func:`plain_verdict` reads the Cox regression (each covariate allowing for the others) and says which levels
fail sooner or later, by how much, and which make no clear difference; then how the failure rate moves with age
(the Weibull model's shape); then the terms the page uses below, each explained once.
"""

import math

from ...tables import number
from ..blocks import present as P

__all__ = ["plain_verdict", "TERMS"]

#: The statistics vocabulary the page uses below its verdict, each term explained once.
TERMS = ("Terms used below: the log-rank test compares the groups' failures at every failure time with those "
         "expected if the covariate did not matter; a Cox regression gives each covariate's hazard ratio (the "
         "failure rate against a reference level, allowing for the other covariates; above 1 fails sooner); its "
         "proportional-hazards check asks whether those ratios hold at every age; an accelerated-failure-time "
         "(AFT) model gives time ratios instead (how much longer or shorter a life is; below 1 fails sooner).")


def _said(row):
    """One clear coefficient in words: 'units with cage 2 (against cage 0) fail sooner: 1.61 times the failure
    rate (1.37–1.89)', or for a number, 'each step up in cabinet_row multiplies the failure rate by ...'."""
    r, lo, hi = (number(row[k], 3) for k in ("ratio", "lower", "upper"))
    if row["level"] is None or row["reference"] is None:
        return f"each step up in {row['covariate']} multiplies the failure rate by {r} ({lo}–{hi})"
    way = "fail sooner" if row["ratio"] > 1 else "fail later"
    cov = row["covariate"]
    return f"units with {cov} {row['level']} (against {cov} {row['reference']}) {way}: {r} times the failure rate ({lo}–{hi})"


def plain_verdict(cox, aft=None, example=None, alpha=0.05):
    """The page's answer first: the covariates whose Cox interval excludes 1 (failing sooner or later, by how
    much), the rest as making no clear difference, the Weibull shape's reading, and the terms used below."""
    c = cox.coefficients
    clear = c[(c["lower"] > 1) | (c["upper"] < 1)]
    order = (-clear["ratio"].astype(float).map(math.log).abs()).argsort(kind="stable")
    parts = [_said(row) for _, row in clear.iloc[order].iterrows()]
    others = sorted(set(c["covariate"]) - set(clear["covariate"]))
    if parts:
        text = "In plain words: " + "; ".join(parts) + "."
        if others:
            text += f" The other covariate{'s' if len(others) > 1 else ''} ({', '.join(others)}) make" \
                    f"{'' if len(others) > 1 else 's'} no clear difference."
    else:
        text = ("In plain words: no covariate clearly changes how long units live (every hazard ratio's interval "
                "holds 1).")
    if aft is not None and "rho" in getattr(aft, "scale", {}):
        rho = float(aft.scale["rho"])
        text += (f" The failure rate {'rises' if rho > 1 else 'falls'} with age (Weibull shape {number(rho, 3)}: "
                 f"{'wear-out' if rho > 1 else 'infant mortality'}).")
    if example:
        text = "This is an example, not your data. " + text
    return P.blocks(P.note(text, "answer"), P.paragraph(TERMS))
