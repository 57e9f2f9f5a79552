"""``relmodel interval``: checkpoint intervals, ETTR and where the lost time goes."""

import json

import click

from ..defaults import DEFAULTS
from ..errors import ModelInputError, UnitError
from .common import (echo, echo_frame, format_option, load_source, log_options, observed_note, population_option,
                     scenario_option, unit_of, with_population)

# The computing modules (numpy, pandas, the checkpoint and scale layers) are imported where they are used, so
# that `relmodel interval --help` and the parsing of its options load none of them.

__all__ = ["command"]

_MAX_REPLICAS = 1_000_000


def hours(value):
    """:func:`relmodel.units.hours`, imported when first used (numpy stays out of ``--help``)."""
    from ..units import hours as to_hours
    return to_hours(value)


def duration(h):
    """:func:`relmodel.tables.duration`, imported when first used (pandas stays out of ``--help``)."""
    from ..tables import duration as in_words
    return in_words(h)


#: Columns of the interval table as a person reads them: (column, header, formatter of relmodel.tables; intervals
#: with three digits, so that methods a few percent apart read apart).
_SHOWN = [("method", "method", None), ("interval_h", "interval", "duration3"), ("ettr", "ETTR", "pct"),
          ("checkpoint_share", "checkpoint", "pct"), ("lost_share", "lost", "pct"),
          ("restart_share", "restart", "pct"), ("failures_per_day", "failures a day", "number"),
          ("wall_h", "wall time", "duration")]


def _people_rows(rows):
    """The rows of :func:`relmodel.checkpoint.plan.interval_rows` as text for a person (no pandas): durations in
    the unit one says them in, percentages with one decimal, through the formatters of :mod:`relmodel.tables`."""
    from .. import tables
    shown = {"duration3": lambda h: tables.duration(h, digits=3), "duration": tables.duration, "pct": tables.pct,
             "number": tables.number}
    return [{head: (r[col] if how is None else shown[how](r[col])) for col, head, how in _SHOWN if col in r}
            for r in rows]


def _people_text(rows):
    """The interval table for a terminal."""
    from .plain import plain_text
    return plain_text(_people_rows(rows), str)


@click.command("interval")
@click.option("--mtbf", help="Job MTBF, e.g. 3h or 90min.")
@click.option("--log", "log", help="Take the job MTBF from a log or count table: llama3, stepfun, lanl, or a "
              "file read with the column options below.")
@click.option("--gpus", type=click.IntRange(min=1), help="With --log: scale the MTBF to a job on this many GPUs.")
@click.option("--gpus-per-node", type=int, default=DEFAULTS["gpus_per_node"], show_default=True, help="With --gpus.")
@click.option("--source-gpus", type=click.IntRange(min=1),
              help="With --gpus: GPUs the log was observed on [default: for a file, the nodes seen in it].")
@click.option("--source-gpus-per-node", type=click.IntRange(min=1),
              help="With --log: GPUs per node of the observed cluster (for files) [default: 8].")
@population_option
@scenario_option("units_per_node")
@scenario_option("target_ettr")
@scenario_option("scale")
@scenario_option("ckpt_cost")
@scenario_option("restart")
@click.option("--step", help="Training step time; adds the best whole-step interval.")
@click.option("--persist", help="Asynchronous checkpoints: background persist time (--ckpt-cost is the stall).")
@click.option("--fast-cost", help="Two-level: cost of a fast (in-memory or peer) checkpoint.")
@click.option("--fast-fraction", type=float, help="Two-level: share of failures the fast level can recover.")
@click.option("--fast-restart", default=DEFAULTS["restart"], show_default=True,
              help="Two-level: restart from the fast level.")
@click.option("--fit", "family", help="With --log: fit this distribution (e.g. weibull) to the times between "
              "interruptions and find the best interval by simulation, beside the exponential answer.")
@click.option("--work", help="Hours of training work; adds the expected wall time (e.g. 54d).")
@click.option("--simulate", "replicas", type=int, default=None,
              help="Also simulate this many runs of --work, 2 or more (with --fit: replicas per interval tried).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=None, help="Seed of the simulation.")
@format_option
@log_options
def command(mtbf, log, gpus, gpus_per_node, source_gpus, source_gpus_per_node, units_per_node, target_ettr, scale,
            ckpt_cost, restart, step, persist, fast_cost, fast_fraction, fast_restart, family, work, replicas, seed,
            fmt, log_kwargs, population=None):
    """Checkpoint intervals (Young, Daly, exact) with ETTR and the lost-time breakdown.

    The exact interval maximises Daly's expected-wall-time model for
    exponential failures; shares are of the expected wall time.

    \b
    Examples:
      relmodel interval --mtbf 3h --ckpt-cost 45s --restart 10min
      relmodel interval --log llama3 --gpus 32768 --ckpt-cost 45s --restart 10min
      relmodel interval --log outages.csv --start began --ckpt-cost 1min --restart 10min
      relmodel interval --mtbf 3h --ckpt-cost 45s --step 4s --work 54d --simulate 1000
      relmodel interval --mtbf 3h --ckpt-cost 5s --persist 2min --restart 10min
      relmodel interval --mtbf 3h --ckpt-cost 2min --fast-cost 5s --fast-fraction 0.8 --fast-restart 2min
      relmodel interval --log stepfun --fit weibull --ckpt-cost 2min --restart 10min
    """
    from ..tables import duration
    from ..units import hours
    if replicas is not None and not 2 <= replicas <= _MAX_REPLICAS:
        raise ModelInputError(f"--simulate takes a number of runs from 2 to {_MAX_REPLICAS:,}; got {replicas}")
    if (mtbf is None) == (log is None):
        raise ModelInputError("give the MTBF with exactly one of --mtbf or --log")
    if gpus is not None and log is None:
        raise ModelInputError("--gpus needs --log (the source whose rates are scaled)")
    if family is not None and log is None:
        raise ModelInputError("--fit needs --log (the interruptions to fit)")
    where, source, dec = "given", None, None
    if log is None and restart is None:
        restart = DEFAULTS["restart"]
    if log is not None:
        source = load_source(log, {**log_kwargs, "source_gpus": source_gpus})
        if source_gpus is not None and unit_of(source) != "gpu-node":
            raise UnitError(f"--unit {unit_of(source)}: a log of {unit_of(source)}s covers no GPUs; leave out "
                            "--source-gpus (the units are counted from the log)")
        if source_gpus is not None and gpus is None:
            raise ModelInputError("--source-gpus needs --gpus (the job size the observed rates are scaled to)")
        source, source_gpus = with_population(source, population, source_gpus, source_gpus_per_node)
        dec = _decision(source, gpus, gpus_per_node, source_gpus, source_gpus_per_node, units_per_node, target_ettr,
                        scale, ckpt_cost, restart, seed)
        mtbf, restart = dec.job_mtbf_h, dec.restart_h
        note = observed_note(source, source_gpus) if gpus else None
        if note:
            echo(f"relmodel: note: {note}", err=True)
        where = f"from {log}" + (f" scaled to {gpus:,} GPUs" if gpus else "")
        where += f" observed on {source_gpus:,} GPUs" if source_gpus else ""
    if log is None and not replicas and family is None and fast_cost is None \
            and fast_fraction is None and _plain_answer(mtbf, ckpt_cost, restart, work, step, persist, fmt):
        return
    from ..checkpoint.plan import compare_intervals
    df = compare_intervals(mtbf, ckpt_cost, restart, work=work, step=step, persist=persist)
    plain = replicas and (work is not None or family is None)  # with --fit alone, --simulate sizes the search
    sim = _simulate(df, mtbf, ckpt_cost, restart, work, replicas, seed) if plain else None
    two = _two_level(mtbf, ckpt_cost, restart, fast_cost, fast_fraction, fast_restart)
    search = _search(source, family, mtbf, ckpt_cost, restart, work, replicas or 1000, seed) if family else None
    if fmt == "json":
        out = {"mtbf_h": hours(mtbf), "mtbf_source": where, "ckpt_cost_h": hours(ckpt_cost),
               "restart_h": hours(restart), "methods": json.loads(df.to_json(orient="records"))}
        if sim is not None:
            out["simulation"] = sim
        if two is not None:
            out["two_level"] = json.loads(two.to_frame().to_json(orient="records"))
        if search is not None:
            out["fitted"] = {"family": family, "source": search.source,
                             "intervals": json.loads(search.to_frame().to_json(orient="records"))}
        if dec is not None:
            out["decision"] = dec.headline()
        echo(json.dumps(out, indent=2))
        return
    if dec is not None and fmt == "table":
        from .requirements import decision_lines
        echo("\n".join(decision_lines(dec)) + "\n")
    if fmt == "table":
        from ..tables import pct as share
        law = (f"; exponential formulas, beside the answer's {dec.law} law (every {duration(dec.interval_h)}, ETTR "
               f"{share(dec.ettr)})" if dec is not None and dec.basis == "simulation" else "")
        echo(f"job MTBF {duration(hours(mtbf))} ({where}), checkpoint {duration(hours(ckpt_cost))}, "
                   f"restart {duration(hours(restart))}{law}")
        echo(_people_text(df.to_dict("records")))
    else:
        echo_frame(df, fmt)
    if sim is not None and fmt == "table":
        from ..report.pipeline.summarise import noise_range
        from ..tables import count, pct
        echo(f"simulated at the exact interval, {count(sim['replicas'])} runs: ETTR {pct(sim['ettr'])} "
                   f"(99% interval {noise_range(sim['ettr_lo'], sim['ettr_hi'])}), "
                   f"wall time median {duration(sim['wall_p50_h'])}")
    if two is not None and fmt == "table":
        b = _two_level_shares(two, mtbf, ckpt_cost, restart, fast_cost, fast_restart)
        from ..tables import pct
        echo(f"two-level: fast checkpoint every {duration(two.fast_interval_h)}, 1 in {two.k} "
                   f"to storage (every {duration(two.slow_interval_h)}): ETTR {pct(two.ettr)} "
                   f"(storage only: {pct(two.single_level_ettr)}); checkpoint {pct(b[0])}, "
                   f"lost {pct(b[1])}, restart {pct(b[2])}")
    elif two is not None:
        echo_frame(two.to_frame(), fmt)
    if search is not None:
        if fmt == "table":
            echo(f"simulated with {search.source} between interruptions (99% intervals):")
            echo(_search_text(search.to_frame().to_dict("records")))
        else:
            echo_frame(search.to_frame(), fmt)


def _plain_answer(mtbf, ckpt_cost, restart, work, step, persist, fmt):
    """Print a ``--mtbf`` answer (one table) without pandas; False, with nothing printed, when it is not plain."""
    from ..checkpoint.plan import interval_rows
    from . import plain
    rows = interval_rows(mtbf, ckpt_cost, restart, work=work, step=step, persist=persist)
    if not plain.is_plain(rows):
        return False
    if fmt == "json":
        records = plain.plain_records(rows)
        if records is None:
            return False
        echo(json.dumps({"mtbf_h": hours(mtbf), "mtbf_source": "given", "ckpt_cost_h": hours(ckpt_cost),
                               "restart_h": hours(restart), "methods": records}, indent=2))
    elif fmt == "csv":
        text = plain.plain_csv(rows)
        if text is None:
            return False
        echo(text, nl=False)
    else:
        echo(f"job MTBF {duration(hours(mtbf))} (given), checkpoint {duration(hours(ckpt_cost))}, "
                   f"restart {duration(hours(restart))}")
        echo(_people_text(rows))
    return True


def _search_text(rows):
    """The simulated interval search's two rows for a terminal: interval, simulated ETTR with its range, and what
    the exponential model says at that interval."""
    from ..report.pipeline.summarise import noise_range
    from ..tables import duration as in_words, pct
    from .plain import plain_text
    return plain_text([{"interval": r["interval"], "every": in_words(r["interval_h"], digits=3),
                        "ETTR simulated": pct(r["ettr_sim"]),
                        "99% interval": noise_range(r["ettr_lo"], r["ettr_hi"]),
                        "ETTR if exponential": pct(r["ettr_if_exponential"])} for r in rows], str)


def _decision(source, gpus, gpus_per_node, source_gpus, source_gpn, units_per_node, target_ettr, scale, ckpt_cost,
              restart, seed):
    """The one decision for the log at ``gpus`` GPUs (the observed size without --gpus), as the report makes it."""
    from ..scale.targets.decision import decide
    from .requirements import _source_cluster, _units, as_source
    _source_cluster(source, source_gpus)  # a size that contradicts the data is refused
    src = as_source(source, source_gpus, source_gpn)
    return decide(src, gpus or src.source_gpus, target_ettr, ckpt_cost, restart,
                  gpus_per_node=gpus_per_node if gpus else None, units=_units(scale), units_per_node=units_per_node,
                  seed=0 if seed is None else seed)


def _search(source, family, mtbf, ckpt_cost, restart, work, replicas, seed):
    """Fit the times between interruptions and search the best interval by simulation."""
    from ..stats.lifetimes.fitting import fit
    from ..checkpoint.search import best_interval
    from ..checkpoint.sources import Rescaled
    from ..units import hours
    if not hasattr(source, "interarrivals"):
        raise ModelInputError("--fit needs an interruption log with times (stepfun, lanl or a file), "
                              "not a count table")
    f = fit(source.interarrivals(), family)
    return best_interval(Rescaled(f, hours(mtbf)), ckpt_cost, restart, work=work, n_runs=replicas,
                         seed=0 if seed is None else seed)


def _two_level_shares(plan, mtbf, slow_cost, slow_restart, fast_cost, fast_restart):
    from ..checkpoint.multilevel import two_level_breakdown
    from ..units import hours
    b = two_level_breakdown(1.0, plan.fast_interval_h, hours(mtbf), fast_cost, slow_cost, fast_restart,
                            slow_restart, k=plan.k, fast_fraction=plan.fast_fraction)
    return [float(x / b.wall_h) for x in (b.checkpoint_h, b.lost_h, b.restart_time_h)]


def _two_level(mtbf, slow_cost, slow_restart, fast_cost, fast_fraction, fast_restart):
    if fast_cost is None and fast_fraction is None:
        return None
    if fast_cost is None or fast_fraction is None:
        raise ModelInputError("two-level checkpointing needs both --fast-cost and --fast-fraction")
    from ..checkpoint.multilevel import two_level_optimum
    from ..units import hours
    if not 0 <= fast_fraction <= 1:
        raise ModelInputError(f"--fast-fraction must be between 0 and 1; got {fast_fraction}")
    return two_level_optimum(hours(mtbf), fast_cost, slow_cost, fast_restart, slow_restart,
                             fast_fraction=fast_fraction)


def _simulate(df, mtbf, ckpt_cost, restart, work, replicas, seed):
    import numpy as np
    from ..checkpoint.simulate import simulate_training
    from ..units import hours
    if work is None:
        raise ModelInputError("--simulate needs --work (how much training to simulate)")
    tau = float(df.loc[df["method"] == "exact", "interval_h"].iloc[0])
    s = simulate_training(work, tau, hours(mtbf), ckpt_cost, restart, n_runs=replicas, seed=seed)
    return {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in s.summary().items()}
