"""The report's Papermill engine writes the executed notebook once, and still keeps what ran when it stops."""

import nbformat
import papermill
import pytest

from relmodel.report.kernels import engine as E


def _notebook(path, *sources):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, str(path))
    return path


def _count_writes(monkeypatch):
    writes = []
    real = E.NotebookExecutionManager.save

    def counted(self, **kwargs):
        writes.append(1)
        return real(self, **kwargs)

    monkeypatch.setattr(E.NotebookExecutionManager, "save", counted)
    return writes


def test_written_once_and_the_same_outputs(tmp_path, monkeypatch):
    src = _notebook(tmp_path / "in.ipynb", "x = 6 * 7", "print(x)", "x + 1")
    writes = _count_writes(monkeypatch)
    papermill.execute_notebook(str(src), str(tmp_path / "plain.ipynb"), kernel_name="python3", progress_bar=False)
    plain = len(writes)
    writes.clear()
    papermill.execute_notebook(str(src), str(tmp_path / "once.ipynb"), kernel_name="python3", progress_bar=False,
                               engine_name=E.ENGINE)
    assert plain >= 2 * 3 and writes == []          # nbclient's engine writes per cell; this one leaves it to the end
    a, b = (nbformat.read(str(tmp_path / f), 4) for f in ("plain.ipynb", "once.ipynb"))
    assert [c.outputs[0].get("text") or c.outputs[0]["data"]["text/plain"] for c in b.cells[1:]] == ["42\n", "43"]
    assert [len(c.outputs) for c in a.cells] == [len(c.outputs) for c in b.cells]


def test_a_dead_kernel_still_leaves_the_cells_that_ran(tmp_path):
    src = _notebook(tmp_path / "in.ipynb", "print('before')", "import os; os._exit(1)", "print('never')")
    out = tmp_path / "out.ipynb"
    with pytest.raises(Exception):
        papermill.execute_notebook(str(src), str(out), kernel_name="python3", progress_bar=False,
                                   engine_name=E.ENGINE)
    nb = nbformat.read(str(out), 4)
    assert nb.cells[0].outputs[0]["text"] == "before\n" and nb.cells[2].outputs == []
