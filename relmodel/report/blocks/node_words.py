"""The index's sentences on which nodes to pull and what retiring them buys, from page 09's records."""

import math

from . import present as P

__all__ = ["nodes_sentences"]


def _ok(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def nodes_sentences(records):
    """Which nodes to pull, and what retiring buys, from page 09's records (empty when it did not run on nodes)."""
    b = records.get("bad_nodes")
    if not isinstance(b, dict):
        return []
    p = b.get("p_value")
    p_text = ("p not computed" if not _ok(p) else "p below 0.001" if p < 0.001 else "p = 1" if p >= 0.995
              else f"p = {p:.3f}")   # as page 09 writes it
    if not b.get("heterogeneous"):
        return [f"No bad nodes stand out: the {P.count(b.get('nodes'))} nodes' failures vary no more than "
                f"interchangeable nodes' would (test {p_text}); no node to pull."]
    pull = b.get("to_pull") or []
    out = [f"Bad nodes: the {P.count(b.get('nodes'))} nodes' failures vary more than interchangeable nodes' would "
           f"(test {p_text}). "
           + (f"Pull {', '.join(pull[:8])}{' and more' if len(pull) > 8 else ''}: each is more likely bad than good "
              f"now." if pull else "No node is more likely bad than good now, so none is named to pull.")]
    was = b.get("was_bad") or []
    if was:
        out[0] += (f" Watch {', '.join(was[:8])}{' and more' if len(was) > 8 else ''}: likely bad during the log, "
                   f"they look fixed since.")
    r = records.get("retirement")
    if isinstance(r, dict) and r.get("policies"):
        best = next((x for x in r["policies"] if x.get("policy") == r.get("best")), None)
        if best and r["best"] != r["policies"][0].get("policy"):
            out.append(f"At the planned size, retiring by \"{best['policy']}\" buys {100 * best['change']:+.2f} points "
                       f"of ETTR ({100 * best['change_lo']:+.2f} to {100 * best['change_hi']:+.2f}) over never "
                       f"retiring (page 09).")
        else:
            out.append("At the planned size no retirement policy clearly beats never retiring (page 09).")
    out.append("The headline above takes the nodes as interchangeable; page 09 runs the same plan (interval, "
               "checkpoint cost, restart, today's rates) with the bad nodes, the repairs that leave their fault and "
               "the spare pool at the planned size.")
    return out
