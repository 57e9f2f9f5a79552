"""PyTorch profiler (Kineto) traces of one step per rank, read as an op-level trace.

A Kineto trace is Chrome trace-event JSON: ``traceEvents`` holds complete
events (``"ph": "X"``) with a ``name``, a category ``cat``, a start ``ts`` and
a duration ``dur`` in microseconds, and, when ``torch.distributed`` is
running, ``distributedInfo`` gives the ``rank``.  The mapping to relmodel's
op types is the one a training loop documents itself: each operation wrapped
in ``torch.profiler.record_function(name)`` with ``name`` one of the op types
(``forward-compute``, ``backward-send``, ``grads-reduce-scatter``...; see
:mod:`.graph`), or any names with a ``names`` mapping {event name: op type}.
Those annotations appear as ``gpu_user_annotation`` events (the time on the
GPU) and ``user_annotation`` events (on the CPU); the GPU ones are used when
present.  Ranks map to (DP rank, stage) in Megatron-LM's order, tensor
parallel fastest, then data parallel, then pipeline:
rank = stage x dp x tp + DP rank x tp + TP rank; only TP rank 0 is kept.
"""

import json
import re
from pathlib import Path

import pandas as pd

from ..base.outputs import write_output
from ..errors import LogFileNotFound, OpTraceError
from .graph import COMPUTE, DP_COLLECTIVES, P2P, TAIL
from .ops import read_ops

__all__ = ["read_kineto", "kineto_frame", "write_kineto_example"]

KNOWN = set(COMPUTE + P2P + DP_COLLECTIVES + TAIL)
STEP = re.compile(r"ProfilerStep#(\d+)")


def _load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise LogFileNotFound(str(path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise OpTraceError(f"{path}: not a Kineto (Chrome trace-event) JSON file: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise OpTraceError(f"{path}: no 'traceEvents' list; expected a PyTorch profiler trace")
    return doc


def _rank(doc, path, given):
    if given is not None:
        return int(given)
    info = doc.get("distributedInfo") or {}
    if "rank" not in info:
        raise OpTraceError(f"{path}: no distributedInfo.rank; pass the files as {{rank: path}}")
    return int(info["rank"])


def _events(doc, path, names):
    xs = [e for e in doc["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X"]
    step = next((int(m.group(1)) for e in xs if (m := STEP.fullmatch(str(e.get("name", ""))))), 0)
    mapped = [(e, names.get(e.get("name"), e.get("name"))) for e in xs]
    mapped = [(e, t) for e, t in mapped if t in KNOWN]
    gpu = [(e, t) for e, t in mapped if e.get("cat") == "gpu_user_annotation"]
    use = gpu or [(e, t) for e, t in mapped if e.get("cat") == "user_annotation"] or mapped
    if not use:
        raise OpTraceError(f"{path}: no events named as op types ({', '.join(sorted(KNOWN)[:4])}, ...); "
                           "annotate them with torch.profiler.record_function or pass names=")
    return step, [(t, float(e["ts"]) / 1e6, float(e["dur"]) / 1e6) for e, t in use]


def kineto_frame(files, *, dp, pp, tp=1, names=None):
    """The op-level rows (see :mod:`.ops`) of Kineto traces, one file per rank; times in seconds.

    ``files`` is a list of paths (each with ``distributedInfo.rank``) or a
    mapping {rank: path}.  Returns a DataFrame for :func:`read_ops`.
    """
    items = files.items() if isinstance(files, dict) else ((None, f) for f in files)
    rows = []
    for given, path in items:
        doc = _load(Path(path))
        rank = _rank(doc, path, given)
        if not 0 <= rank < dp * pp * tp:
            raise OpTraceError(f"{path}: rank {rank} is outside 0..{dp * pp * tp - 1} for dp {dp} x pp {pp} x tp {tp}")
        if rank % tp:
            continue  # tensor-parallel peers run the same operations
        step, events = _events(doc, path, names or {})
        stage, dp_rank = rank // (dp * tp), (rank // tp) % dp
        rows += [(dp_rank, stage, rank, step, t, ts, d) for t, ts, d in events]
    df = pd.DataFrame(rows, columns=["dp_rank", "stage", "rank", "step", "optype", "start_ts", "duration"])
    df = df.sort_values(["rank", "step", "optype", "start_ts"], kind="stable")
    df["seq_id"] = df.groupby(["rank", "step", "optype"]).cumcount()
    return df.reset_index(drop=True)


def read_kineto(files, *, dp, pp, tp=1, names=None, name="Kineto traces"):
    """Read PyTorch profiler traces (one step per rank) as an :class:`~relmodel.stragglers.ops.OpTrace`.

    See the module notes for the mapping of events to op types and of ranks to
    workers.  Times in the files are microseconds; the trace keeps seconds.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> from relmodel.stragglers.synthetic_ops import synthetic_ops, to_frame
    >>> from relmodel.stragglers.kineto import write_kineto_example
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> files = write_kineto_example(to_frame(synthetic_ops(dp=2, pp=2, n_micro=2, n_steps=1, seed=1)), folder)
    >>> t = read_kineto(files, dp=2, pp=2)
    >>> t.n_workers, t.n_steps
    (4, 1)
    """
    return read_ops(kineto_frame(files, dp=dp, pp=pp, tp=tp, names=names), dp=dp, pp=pp, tp=tp, name=name)


def write_kineto_example(source, folder, *, step=None):
    """Write one Kineto-style JSON file per worker of an op-level frame (one step); returns the paths.

    For examples and tests: each operation becomes a ``gpu_user_annotation``
    event named by its op type, plus a ``ProfilerStep#N`` event.
    """
    step = source["step"].iloc[0] if step is None else step
    one = source[source["step"] == step]
    paths = []
    for rank, ops in one.groupby("rank"):
        events = [{"ph": "X", "cat": "gpu_user_annotation", "name": r.optype, "ts": r.start_ts * 1e6,
                   "dur": r.duration * 1e6, "pid": 0, "tid": 0} for r in ops.itertuples()]
        events.append({"ph": "X", "cat": "cpu_op", "name": f"ProfilerStep#{step}", "ts": 0.0, "dur": 1.0})
        path = Path(folder) / f"rank{rank}.pt.trace.json"  # a new file: never over one, never through a link
        paths.append(write_output(path, json.dumps({"distributedInfo": {"rank": int(rank)}, "traceEvents": events}),
                                  "write_kineto_example:"))
    return paths
