"""A key figure drawn once in a kernel: its record points at the PNG the cell shows, read back here."""

import base64

import nbformat

from relmodel.report.kernels.records import CELL_FIGURE, FIGURE_PREFIX, MIMETYPE, key_figure, read_records, recorded

PNG_A = base64.b64encode(b"\x89PNG\r\n\x1a\nfirst").decode()
PNG_B = base64.b64encode(b"\x89PNG\r\n\x1a\nsecond").decode()


def _cell(*outputs):
    cell = nbformat.v4.new_code_cell("...")
    cell.outputs = [nbformat.v4.new_output("display_data", data=d) for d in outputs]
    return cell


def _record(name, value):
    return {MIMETYPE: {"name": name, "value": value, "reasons": {}}}


def test_a_cell_figure_record_takes_that_cells_png():
    nb = nbformat.v4.new_notebook()
    nb.cells = [_cell({"image/png": PNG_A}),                                  # another cell's figure
                _cell(_record(FIGURE_PREFIX + "2-b", {CELL_FIGURE: 1}), _record("ettr", 0.9),
                      {"image/png": PNG_A}, {"image/png": PNG_B + "\n"}),
                _cell(_record(FIGURE_PREFIX + "3-gone", {CELL_FIGURE: 0}))]     # the cell showed none
    got = read_records(nb)
    assert base64.b64decode(got[FIGURE_PREFIX + "2-b"]) == b"\x89PNG\r\n\x1a\nsecond"
    assert got["ettr"] == 0.9 and FIGURE_PREFIX + "3-gone" not in got


def test_outside_a_kernel_the_figure_is_drawn_into_the_record():
    from matplotlib.figure import Figure
    fig = Figure(figsize=(2, 1))
    fig.subplots().plot([0, 1])
    key_figure(fig, "9-here")
    assert base64.b64decode(recorded()[FIGURE_PREFIX + "9-here"])[:8] == b"\x89PNG\r\n\x1a\n"
