"""The interactive notebook's widgets run in a kernel and respond to a slider, as in JupyterLab.

The cells of notebooks/05_interactive.ipynb run in a kernel of this
interpreter; the test then plays the browser's part: it takes the widget
models the kernel opens (``comm_open`` on iopub), moves the GPU slider the way
JupyterLab does (a ``comm_msg`` "update" of the slider's state), and checks
that the kernel answers with a new figure for the image widget.
"""

import asyncio
import json

from conftest import REPO
from relmodel.report.kernels.kernel import KernelManager

NOTEBOOK = REPO / "notebooks" / "05_interactive.ipynb"


def _cells():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


async def _drain(kc, until, timeout=120):
    """iopub messages until ``until(msg)`` is true (that message included)."""
    seen = []
    while True:
        msg = await kc.get_iopub_msg(timeout=timeout)
        seen.append(msg)
        if until(msg):
            return seen


def _idle(parent_id):
    return lambda m: (m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                      and m["parent_header"].get("msg_id") == parent_id)


async def _session():
    km = KernelManager()
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=120)
        models, latest, errors = {}, {}, []  # widget states; last buffer each model sent (the image's PNG)
        for code in _cells():
            mid = kc.execute(code)
            for m in await _drain(kc, _idle(mid)):
                if m["msg_type"] in ("comm_open", "comm_msg") and m["buffers"]:
                    latest[m["content"]["comm_id"]] = bytes(m["buffers"][0])
                if m["msg_type"] == "comm_open":
                    models[m["content"]["comm_id"]] = (m["content"]["data"]["state"], m["buffers"])
                elif m["msg_type"] == "error":
                    errors.append(m["content"]["ename"] + ": " + m["content"]["evalue"])
        assert not errors, errors
        slider = next(cid for cid, (st, _) in models.items()
                      if st.get("_model_name") == "SelectionSliderModel" and st.get("description") == "GPUs")
        image = next(cid for cid, (st, _) in models.items() if st.get("_model_name") == "ImageModel")
        first_png = latest[image]
        labels = models[slider][0]["_options_labels"]
        new = (models[slider][0]["index"] + 2) % len(labels)
        msg = kc.session.msg("comm_msg", {"comm_id": slider,
                                          "data": {"method": "update", "state": {"index": new}, "buffer_paths": []}})
        kc.shell_channel.send(msg)
        got = await _drain(kc, lambda m: m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == image
                           and m["content"]["data"].get("method") == "update" and m["buffers"], timeout=60)
        new_png = bytes(got[-1]["buffers"][0])
        return first_png, new_png, labels[new]
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=True)


def test_moving_the_gpu_slider_redraws_the_figure():
    first, second, label = asyncio.run(_session())
    assert first[:8] == second[:8] == b"\x89PNG\r\n\x1a\n"  # both are PNG figures
    assert first != second, f"moving the GPU slider to {label} left the figure unchanged"


def test_controls_start_from_the_image_already_drawn(monkeypatch):
    """The page draws the dashboard once: the widget's first image is the picture shown, not a second drawing."""
    from relmodel.plots import interactive

    picture = interactive.dashboard_image(16_384, "1min", "10min", 0.9)
    drawn = []
    real = interactive.dashboard
    monkeypatch.setattr(interactive, "dashboard", lambda *a, **k: drawn.append(a) or real(*a, **k))
    box = interactive.controls(16_384, "1min", "10min", 0.9, image=picture)
    slider, image = box.children[0].children[0], box.children[2]
    assert drawn == [] and image.value == picture.data and picture.data[:8] == b"\x89PNG\r\n\x1a\n"
    slider.value = 65_536  # moving a slider still draws the dashboard for the new values
    assert [a[0] for a in drawn] == [65_536] and image.value != picture.data
