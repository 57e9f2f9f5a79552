"""``relmodel requirements``: node, GPU and component reliability needed for a target ETTR."""

import json
import math

import click

from .common import (echo, echo_frame, format_option, load_source, log_options, observed_note, population_option,
                     scenario_from, scenario_option, unit_of, with_population)
from ..defaults import DEFAULTS
from ..errors import InfeasibleTargetError, ModelInputError, UnitError

__all__ = ["command", "as_source", "decision_lines"]

#: ``Cluster.presets()``, named here so that ``--help`` and option parsing do not load the scale layer (pandas);
#: tests/package/test_import_cost.py holds the two the same.
CLUSTER_PRESETS = ("llama3", "megascale", "nvl72")

_COLUMNS = ["component", "scales_with", "units", "observed_fit", "required_fit", "required_fit_lo",
            "required_fit_hi", "improvement", "share_fit"]


def _target(cluster, gpus):
    if cluster is None:
        return None
    from ..scale.clusters.cluster import Cluster
    return Cluster.presets()[cluster].with_gpus(gpus, name=f"{cluster} at {gpus:,} GPUs")


def _known_gpus(source):
    """GPUs the source says it was observed on, or None."""
    if getattr(source, "n_gpus", None):
        return int(source.n_gpus)
    nodes, gpn = getattr(source, "_n_nodes", None), getattr(source, "gpus_per_node", None)
    return int(nodes) * int(gpn) if nodes and gpn else None


def _source_cluster(source, source_gpus):
    if source_gpus is None:
        return None
    known = _known_gpus(source)
    if known is not None and known != source_gpus:
        raise ModelInputError(f"--source-gpus {source_gpus:,} contradicts {getattr(source, 'name', 'the source')}, "
                              f"observed on {known:,} GPUs; leave --source-gpus out for a bundled dataset")
    from ..scale.clusters.cluster import Cluster
    return Cluster(n_gpus=source_gpus, gpus_per_node=getattr(source, "gpus_per_node", None) or 8,
                   name=str(getattr(source, "name", "source")))


def _units(pairs):
    from ..scale.clusters.scaling import parse_units
    try:
        return parse_units(pairs)
    except ModelInputError as err:
        raise ModelInputError(str(err).replace("scale takes", "--scale takes")) from None


def as_source(data, source_gpus=None, source_gpus_per_node=None):
    """The log or count table a command read, with the cluster it was observed on (a report's Source).

    The size is ``source_gpus`` when given, else what the data say (a count
    table's GPUs, a data set's node count, or the nodes seen in the log); a
    log that names no nodes and gives no size is refused, as the report does.
    """
    from ..data.source import Source
    from ..errors import MissingColumnError
    is_log = hasattr(data, "events")
    gpn = int(source_gpus_per_node or getattr(data, "gpus_per_node", None) or 8)
    if source_gpus is not None and getattr(data, "_population", None):
        gpus, how = int(source_gpus), f"{data._population:,} nodes observed, as given"
    elif source_gpus is not None:
        gpus, how = int(source_gpus), "as given"
    elif getattr(data, "n_gpus", None):
        gpus, how = int(data.n_gpus), "as published"
    elif is_log and getattr(data, "_population", None):
        gpus, how = int(data.n_nodes) * gpn, f"{data._population:,} {unit_of(data)}s observed, as given"
    elif is_log and getattr(data, "_n_nodes", None):
        gpus, how = int(data.n_nodes) * gpn, "from the data set's description"
    elif is_log and "node" in data.events and data.events["node"].nunique() > 1:
        nodes = int(data.events["node"].nunique())
        gpus, how = nodes * gpn, f"{nodes:,} nodes seen in the log × {gpn} GPUs"
    else:
        raise MissingColumnError(f"{getattr(data, 'name', 'the log')}: the log names no nodes, so the GPUs it "
                                 "covers are unknown; pass --source-gpus (GPUs observed) or --node (the column "
                                 "naming the node of each outage)")
    n = len(data.interruptions()) if is_log else int(getattr(data, "n_unexpected", 0))
    return Source(data, "log" if is_log else "counts", str(getattr(data, "name", "source")), gpus, gpn, n,
                  float(data.duration_h), how, (), unit_of(data))


def decision_lines(dec):
    """The decision's answers, as the report's index says them, for the terminal."""
    from ..report.pipeline.summarise import answer_sentences
    from ..tables import duration
    said = dict(dec.sources)
    inputs = (f"Inputs: restart {duration(dec.restart_h)} ({said.get('restart')}: {dec.restart_note}); "
              f"observed cluster {dec.source_gpus:,} GPUs at {dec.source_gpus_per_node} a node; today's rate: "
              f"{dec.today_method}" + (f" ({dec.today_reason})" if dec.today_reason else "") + ".")
    return answer_sentences({"decision": dec.to_dict()}) + [inputs]


@click.command("requirements")
@scenario_option("n_gpus", "--gpus", help="GPUs in the planned job (with --component, also marked in the 1k-1M "
                 "table).")
@scenario_option("target_ettr")
@scenario_option("ckpt_cost")
@scenario_option("restart")
@scenario_option("restart_grows")
@click.option("--mtbf", help="Today's job MTBF at --gpus, e.g. 3h (as for interval): answer from it alone, every "
              "interruption counted against the nodes, instead of from --log.")
@click.option("--gpus-per-node", type=click.IntRange(min=1),
              help="With --mtbf: GPUs per node of the job [default: 8].")
@click.option("--log", "log", default="llama3", show_default=True,
              help="Observed rates: llama3, stepfun, lanl, or a log file read with the column options.")
@click.option("--cluster", type=click.Choice(sorted(CLUSTER_PRESETS)),
              help="Design of the planned cluster (default: the observed cluster's, grown).")
@scenario_option("scale")
@click.option("--source-gpus", type=click.IntRange(min=1), help="GPUs the log was observed on (for files).")
@population_option
@click.option("--source-gpus-per-node", type=click.IntRange(min=1),
              help="GPUs per node of the observed cluster (for files) [default: 8].")
@scenario_option("units_per_node")
@click.option("--share", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.1,
              show_default=True, help="share_fit column: FIT keeping a cause under this share of interruptions.")
@scenario_option("conf")
@click.option("--n-boot", type=click.IntRange(min=100), default=2000, show_default=True,
              help="Parametric-bootstrap draws over the Poisson counts.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--component", type=click.Choice(["transceiver"]),
              help="Requirement on one part from 1k to 1M GPUs per fabric and tiers; --share is its budget share.")
@format_option
@log_options
def command(n_gpus, target_ettr, ckpt_cost, restart, restart_grows, mtbf, gpus_per_node, log, cluster, scale, source_gpus,
            source_gpus_per_node, units_per_node, share, conf, n_boot, seed, component, fmt, log_kwargs,
            population=None):
    """Per-node, per-GPU and per-component MTBF/FIT needed for a target ETTR.

    Observed rates are scaled to --gpus by component counts (GPU causes per
    GPU, host causes per node, network per link, software per job), the job
    MTBF that reaches the target at the optimal checkpoint interval is found,
    and what each part must achieve follows, with bootstrap intervals.
    FIT is failures per 10^9 unit-hours.  With --mtbf (today's job MTBF) no
    log is read: the closed form counts every interruption against the nodes.

    \b
    Examples:
      relmodel requirements --gpus 100000 --target-ettr 0.9 --ckpt-cost 1min --restart 10min
      relmodel requirements --gpus 100000 --mtbf 3h --ckpt-cost 1min --restart 10min
      relmodel requirements --gpus 100800 --cluster nvl72 --log stepfun
      relmodel requirements --gpus 20000 --log outages.csv --start began --node host --source-gpus 2048
      relmodel requirements --component transceiver --target-ettr 0.9 --share 0.1
    """
    gpus = n_gpus
    sc = scenario_from(n_gpus=n_gpus, target_ettr=target_ettr, ckpt_cost=ckpt_cost, restart=restart,
                       restart_grows=restart_grows, scale=scale, units_per_node=units_per_node, conf=conf)
    if mtbf is not None:
        _only_given(["log", "cluster", "scale", "source_gpus", "source_gpus_per_node", "units_per_node", "component"],
                    log_kwargs)
        return _from_mtbf(mtbf, gpus, gpus_per_node or DEFAULTS["gpus_per_node"], sc.target_ettr, sc.ckpt_cost,
                          DEFAULTS["restart"] if sc.restart is None else sc.restart, fmt)
    if gpus_per_node is not None:
        raise ModelInputError("--gpus-per-node goes with --mtbf; with --log the planned nodes are the observed "
                              "cluster's design, or --cluster's")
    if component == "transceiver":
        return _transceivers(gpus, sc.target_ettr, sc.ckpt_cost, DEFAULTS["restart"] if sc.restart is None
                             else sc.restart, share, fmt)
    source = load_source(log, {**log_kwargs, "source_gpus": source_gpus})
    gpu_figures = unit_of(source) == "gpu-node"
    if not gpu_figures and source_gpus is not None:
        raise UnitError(f"--unit {unit_of(source)}: a log of {unit_of(source)}s covers no GPUs; leave out "
                        "--source-gpus (the units are counted from the log)")
    source, source_gpus = with_population(source, population, source_gpus, source_gpus_per_node)
    _source_cluster(source, source_gpus)  # a size that contradicts the data is refused
    from ..scale.targets.decision import decide
    _units(scale)  # a malformed CAUSE=UNIT is refused with the option's name
    dec = decide(as_source(source, source_gpus, source_gpus_per_node), _target(cluster, gpus), scenario=sc,
                 share=share, n_boot=n_boot, seed=seed)
    plan = dec.plan
    if not plan.feasible:
        raise InfeasibleTargetError(plan.message)
    note = observed_note(source, source_gpus)
    if note:
        echo(f"relmodel: note: {note}", err=True)
    summary = plan.figures()
    if not gpu_figures:  # a per-GPU MTBF from the rates of disks or servers means nothing
        summary = summary[summary["quantity"] != "required GPU MTBF"]
    from ..scale.targets.vendor import vendor_requirement
    vendor = vendor_requirement(dec, n_boot=n_boot, seed=0 if seed is None else seed)
    if fmt == "json":
        out = {"decision": dec.headline(), "assumption": plan.assumption, "vendor": vendor.to_dict(),
               "summary": json.loads(summary.to_json(orient="records")),
               "components": json.loads(plan.components.to_json(orient="records"))}
        echo(json.dumps(out, indent=2))
        return
    if fmt == "csv":
        echo_frame(plan.components, fmt)
        return
    echo(f"Observed: {getattr(source, 'name', log)}")
    echo("\n".join(decision_lines(dec)))
    echo("\n".join(line for line in plan.text().splitlines()
                          if (gpu_figures or not line.startswith("required GPU MTBF"))
                          and not line.startswith("at observed rates")))
    if gpu_figures:
        echo(vendor.text())
    from ..tables import pct
    if plan.p_feasible < 1:
        echo(f"note: in {pct(1 - plan.p_feasible)} of bootstrap draws the per-job causes alone "
                   "miss the target, so the upper bounds are infinite")
    echo(f"\nPer component, FIT per unit with the others held at observed rates ({pct(conf, 0)} intervals).")
    echo("improvement = times fewer failures needed; impossible = the other causes alone miss the target.")
    echo(_component_text(plan.components, share))


def _component_text(components, share):
    """The per-component table in words: counts and FIT to three significant digits with thousands separators,
    "impossible" where the other causes alone miss the target, "no upper bound" for an infinite one."""
    from ..tables import count, number, pct, sig
    from .plain import plain_text
    fit = ["observed_fit", "required_fit", "required_fit_lo", "required_fit_hi"]
    heads = {"share_fit": f"fit_for_{pct(share, 0)}_share"}
    rows = []
    for r in components[_COLUMNS + ["feasible"]].to_dict("records"):
        row = {}
        for c in _COLUMNS:
            v = r[c]
            if c in fit[1:] + ["improvement"] and not r["feasible"]:
                v = "impossible"
            elif c == "units":
                v = count(v)
            elif c in fit + ["share_fit"]:
                v = sig(v, missing="no upper bound")
            elif c == "improvement":
                v = f"{number(v, 2)}×" if math.isfinite(v) else "no upper bound"
            row[heads.get(c, c)] = v
        rows.append(row)
    return plain_text(rows, str)


def _only_given(names, log_kwargs):
    """Refuse, with --mtbf, an option that picks or reads a log (the answer takes no log)."""
    ctx = click.get_current_context()
    given = [f"--{n.replace('_', '-')}" for n in names
             if ctx.get_parameter_source(n) not in (None, click.core.ParameterSource.DEFAULT)]
    given += [f"--{k.replace('_', '-')}" for k in log_kwargs]
    if given:
        raise ModelInputError(f"--mtbf answers without a log; leave out {', '.join(given)} (or --mtbf, to read "
                              "the rates from the log)")


def _from_mtbf(mtbf, gpus, gpus_per_node, target_ettr, ckpt_cost, restart, fmt):
    """The requirement from today's job MTBF alone: closed forms on numpy, no pandas or scipy.

    Every interruption is counted against the nodes (no per-job rate is held), so the node and GPU MTBF needed
    are the job MTBF needed times the nodes and the GPUs, as :func:`relmodel.scale.targets.requirements.
    required_node_mtbf` with ``fixed_rate_per_h=0`` gives them.
    """
    import math

    from ..checkpoint.costs import cost_hours
    from ..checkpoint.intervals import _optimal
    from ..scale.targets.goodput import _best_ettr, assumption, required_job_mtbf
    from ..units import hours
    m_today = float(hours(mtbf))
    if not (m_today > 0 and math.isfinite(m_today)):
        raise ModelInputError(f"--mtbf must be a positive duration, e.g. 3h; got {mtbf!r}")
    d, r = cost_hours(ckpt_cost, gpus, "ckpt_cost"), cost_hours(restart, gpus, "restart")
    m_req = required_job_mtbf(target_ettr, d, r)
    nodes = math.ceil(gpus / gpus_per_node)
    out = {"gpus": gpus, "gpus_per_node": gpus_per_node, "nodes": nodes, "target_ettr": float(target_ettr),
           "ckpt_cost_h": float(d), "restart_h": float(r), "assumption": assumption(0.0), "mtbf_h": m_today,
           "mtbf_source": "given", "ettr_today": float(_best_ettr(m_today, d, r)),
           "interval_today_h": float(_optimal(m_today, d)), "required_job_mtbf_h": m_req,
           "interval_at_requirement_h": float(_optimal(m_req, d)), "improvement": m_req / m_today,
           "node_mtbf_today_h": nodes * m_today, "required_node_mtbf_h": nodes * m_req,
           "gpu_mtbf_today_h": gpus * m_today, "required_gpu_mtbf_h": gpus * m_req}
    if fmt == "json":
        echo(json.dumps(out, indent=2))
    elif fmt == "csv":
        import csv
        import io
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerows([list(out), list(out.values())])
        echo(buf.getvalue(), nl=False)
    else:
        echo("\n".join(_mtbf_lines(out)))


def _mtbf_lines(o):
    """The --mtbf answer in a few sentences, every number in words for a person."""
    from ..tables import duration, hours_text, number, pct, target_pct
    target = target_pct(o["target_ettr"])  # as asked: "90%", "99.9999%" (never a rounded "100%")
    lines = [f"Target ETTR {target} at {o['gpus']:,} GPUs ({o['nodes']:,} node{'s' * (o['nodes'] != 1)} of "
             f"{o['gpus_per_node']:,} GPUs), checkpoint {duration(o['ckpt_cost_h'])}, restart "
             f"{duration(o['restart_h'])}; {o['assumption']}.",
             f"Today: job MTBF {duration(o['mtbf_h'])} (given), ETTR {pct(o['ettr_today'])} checkpointing every "
             f"{duration(o['interval_today_h'])}."]
    if o["improvement"] <= 1:
        lines.append(f"Today's job MTBF already meets the target: it needs {duration(o['required_job_mtbf_h'])} "
                     f"(checkpoint every {duration(o['interval_at_requirement_h'])}).")
    else:
        lines.append(f"Required job MTBF {duration(o['required_job_mtbf_h'])} (checkpoint every "
                     f"{duration(o['interval_at_requirement_h'])}), {number(o['improvement'], 2)}× today's.")
    lines += [f"Required node MTBF {hours_text(o['required_node_mtbf_h'])} (today "
              f"{hours_text(o['node_mtbf_today_h'])}).",
              f"Required GPU MTBF {hours_text(o['required_gpu_mtbf_h'])} (today "
              f"{hours_text(o['gpu_mtbf_today_h'])}), every fault counted per GPU."]
    return lines


def _transceivers(gpus, target_ettr, ckpt_cost, restart, share, fmt):
    from ..scale.targets.optics import optics_requirements
    sizes = sorted({1_000, 10_000, 100_000, 1_000_000} | ({gpus} if gpus else set()))
    req = optics_requirements(sizes, target_ettr=target_ettr, ckpt_cost=ckpt_cost, restart=restart, share=share)
    if fmt != "table":
        echo_frame(req.rows, fmt)
        return
    from ..tables import duration, pct
    echo(f"Transceiver FIT and MTBF needed for ETTR {pct(target_ettr).replace('.0%', '%')} (job MTBF "
               f"{duration(req.job_mtbf_h)}), optics taking {pct(share, 0)} of the failure budget; FIT = failures "
               "per 10^9 transceiver-hours.")
    echo(req.table().to_string(index=False))
    echo("\nPublished field rates for comparison:")
    for row in req.field.itertuples():
        echo(f"  {row.what}: {row.fit:,.0f} FIT per {row.per} ({row.mtbf_h / 8766:,.0f} years); {row.source}")
