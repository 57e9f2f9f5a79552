"""Bounds on what a report run may ask for: Dask addresses and sweep lengths.

* :func:`connect_dask` checks a scheduler address before anything is submitted: its
  scheme (``tcp://`` or ``tls://``, with a host and a port), that something listens
  there, that it answers as a Dask scheduler, and that it has at least one worker,
  each step within :data:`DASK_TIMEOUT_S` seconds; the scheduler is asked from a child
  process that is killed after that timeout plus 15 s for it to start, so a plain web
  server or a silent listener cannot keep the run waiting.
* :data:`MAX_SWEEP` is the most report combinations one ``--sweep`` may render.
"""

import socket
from urllib.parse import urlsplit

from ...errors import ReportError
from ...base.escape import brief

__all__ = ["DASK_TIMEOUT_S", "DASK_SCHEMES", "MAX_SWEEP", "check_dask_address", "connect_dask",
           "check_sweep_size"]

#: Seconds each step of reaching a Dask scheduler may take.
DASK_TIMEOUT_S = 10.0
#: Address schemes a scheduler is reached by.
DASK_SCHEMES = ("tcp", "tls")
#: Seconds the child process that asks the scheduler may take to start (importing distributed).
_START_S = 15.0
#: Most combinations one sweep renders (each is a full report).
MAX_SWEEP = 64


def check_dask_address(address):
    """``(host, port)`` of a ``tcp://host:port`` address; ReportError saying what is valid."""
    valid = "give a scheduler address such as tcp://127.0.0.1:8786, or --dask alone for a local cluster"
    if not isinstance(address, str) or not address.strip():
        raise ReportError(f"--dask: an empty address; {valid}")
    parts = urlsplit(address.strip())
    if parts.scheme not in DASK_SCHEMES:
        scheme = f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        raise ReportError(f"--dask {brief(address)}: {scheme}; the address must start with "
                          f"{' or '.join(s + '://' for s in DASK_SCHEMES)}; {valid}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None or parts.path not in ("", "/"):
        raise ReportError(f"--dask {brief(address)}: expected host and port, as in tcp://127.0.0.1:8786")
    return host, port


def _reachable(address, host, port, timeout):
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ReportError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}") from None


_PROBE = """
import sys
from distributed import Client
address, timeout = sys.argv[1], float(sys.argv[2])
try:
    client = Client(address, timeout=f"{timeout}s")
except Exception as exc:
    print("not-a-scheduler", type(exc).__name__, str(exc)[:200], flush=True)
    sys.exit(0)
try:
    client.wait_for_workers(1, timeout=timeout)
    print("ok", flush=True)
except Exception:
    print("no-workers", flush=True)
finally:
    client.close(timeout=2)
"""


def _probe(address, timeout):
    """Ask ``address`` in a child process (killed after the timeout): "ok", "no-workers" or why not."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, address, str(timeout)], capture_output=True,
                              text=True, timeout=timeout + _START_S)
    except subprocess.TimeoutExpired:
        return f"no answer within {timeout + _START_S:g} s"
    lines = done.stdout.strip().splitlines()
    return lines[-1] if lines else f"the check stopped ({brief(done.stderr.strip()[-200:])})"


def connect_dask(address, timeout=DASK_TIMEOUT_S):
    """A ``distributed.Client`` on a checked scheduler with workers; ReportError within the timeouts.

    The scheduler is first asked from a child process, which is killed when it does not
    answer in time (a client waiting on a silent listener cannot be stopped otherwise).
    """
    host, port = check_dask_address(address)
    _reachable(address, host, port, timeout)
    answer = _probe(address, timeout)
    if answer == "no-workers":
        raise ReportError(f"the Dask scheduler at {address} has no workers (none joined within "
                          f"{timeout:g} s); start a 'dask worker {address}' first")
    if answer != "ok":
        raise ReportError(f"{address} does not answer as a Dask scheduler ({answer.replace('not-a-scheduler ', '')}); "
                          "give the address of a running 'dask scheduler'")
    from distributed import Client
    return Client(address, timeout=f"{timeout}s")


def check_sweep_size(n, limit=None):
    """ReportError when a sweep of ``n`` combinations is above ``limit`` (default :data:`MAX_SWEEP`)."""
    limit = MAX_SWEEP if limit is None else limit
    if n > limit:
        raise ReportError(f"a sweep of {n:,} combinations is more than the {limit:,} one run renders "
                          "(each is a full report); sweep fewer values, or split the sweep into several runs")
