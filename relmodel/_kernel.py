"""The kernel reports run on: this interpreter's ipykernel, with robust message polling.

Imported only when a notebook is executed, so ``import relmodel`` stays light.

* :class:`KernelManager` starts ``sys.executable -m ipykernel_launcher`` without
  any installed kernelspec, so a fresh ``pip install`` is enough; it forces
  the inline matplotlib backend (even when MPLBACKEND=Agg is set) and puts
  this relmodel first on the kernel's import path.
* Its client's channels wait for a message in short slices instead of one
  unbounded wait. An unbounded asyncio wait on a ZeroMQ socket can miss the
  wake-up of a message that has already arrived, and notebook execution then
  hangs forever after a cell that opens widget comms (nbclient issue 312);
  polling again every half second picks such a message up.
"""

import os
import sys
import time
from pathlib import Path
from queue import Empty

from jupyter_client import AsyncKernelManager
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.kernelspec import KernelSpec
from traitlets import DottedObjectName, Type

__all__ = ["KernelManager", "KernelClient", "SlicedChannel", "kernel_env", "SLICE_S"]

#: Longest single wait on a socket, in seconds.
SLICE_S = 0.5


class SlicedChannel(AsyncZMQSocketChannel):
    """A channel whose waits are cut into slices of :data:`SLICE_S` seconds."""

    async def get_msg(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = SLICE_S if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await super().get_msg(timeout=min(SLICE_S, left))
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise


class KernelClient(AsyncKernelClient):
    """An asynchronous kernel client on :class:`SlicedChannel` channels."""

    shell_channel_class = Type(SlicedChannel)
    iopub_channel_class = Type(SlicedChannel)
    stdin_channel_class = Type(SlicedChannel)
    control_channel_class = Type(SlicedChannel)


def kernel_env():
    """Inline figures, and this relmodel first on the kernel's import path."""
    root = str(Path(__file__).resolve().parents[1])
    path = os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return {"MPLBACKEND": "module://matplotlib_inline.backend_inline", "PYTHONPATH": path}


class KernelManager(AsyncKernelManager):
    """Start this interpreter's ipykernel, whatever kernelspecs are installed."""

    client_class = DottedObjectName("relmodel._kernel.KernelClient")

    @property
    def kernel_spec(self):
        if self._kernel_spec is None:
            self._kernel_spec = KernelSpec(
                argv=[sys.executable, "-Xfrozen_modules=off", "-m", "ipykernel_launcher",
                      "--log-level=CRITICAL", "-f", "{connection_file}"],
                display_name="Python (relmodel)", language="python", name="python3",
                env=kernel_env())
        return self._kernel_spec
