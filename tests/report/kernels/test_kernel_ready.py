"""Readying a kernel without waiting for silence: the notebook's client and the pool's own requests."""

import asyncio
import os
import signal

import pytest

from relmodel.report.kernels import pool
from relmodel.report.kernels.executors import cleanup_run, new_run_id
from relmodel.report.kernels.kernel import KernelManager


async def _outputs(client, msg_id):
    """Every IOPub message read up to the idle status of request ``msg_id``."""
    seen = []
    while True:
        msg = await client.iopub_channel.get_msg(timeout=60)
        seen.append(msg)
        if (msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"
                and msg["parent_header"].get("msg_id") == msg_id):
            return seen


async def _ready_then_print(manager):
    await manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=120)
        msg_id = client.execute("print('first output')")
        return await _outputs(client, msg_id)
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)


def test_a_ready_client_reads_the_first_cell_and_nothing_of_kernel_info():
    seen = asyncio.run(_ready_then_print(KernelManager()))
    parents = {m["parent_header"].get("msg_type") for m in seen}
    assert parents == {"execute_request"}  # the kernel_info request's messages were all read while readying
    text = "".join(m["content"]["text"] for m in seen if m["msg_type"] == "stream")
    assert text == "first output\n"  # nothing of the first cell's output was lost


async def _requests(manager):
    await manager.start_kernel()
    try:
        await manager._run_in_kernel("x = 1 + 1", timeout=120)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            await manager._run_in_kernel("1 / 0", timeout=120)
        os.kill(manager.provisioner.process.pid, signal.SIGKILL)
        with pytest.raises(RuntimeError, match="died"):  # not a TimeoutError: noticed, not waited out
            await manager._run_in_kernel("x", timeout=120)
    finally:
        await manager.shutdown_kernel(now=True)


def test_pool_requests_report_errors_and_a_dead_kernel_at_once(monkeypatch):
    monkeypatch.delenv(pool.ENV_SWITCH, raising=False)
    run_id = new_run_id()
    try:
        asyncio.run(_requests(pool.kernel_manager_for(run_id)()))
    finally:
        pool.retire_all()
        cleanup_run(run_id)
