"""Every page says where it came from, figures say what they show, and print keeps every column."""

import hashlib
import json
import re

import nbformat
from click.testing import CliRunner

from relmodel import __version__
from relmodel.cli.main import cli


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell("log: str = 'llama3'  # data\nn_gpus: int = 16384  # GPUs")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny page"), params,
                nbformat.v4.new_markdown_cell("## Failures by month"),
                nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
                                          "ax.plot([1, 2, 3])\nplt.show()")]
    nbformat.write(nb, path)
    return path


def test_footer_summary_alt_text_and_print_rules(tmp_path):
    table = tmp_path / "counts.csv"
    table.write_text("component,count,n_gpus,days\nGPU,10,4096,30\nNetwork,4,4096,30\n")
    nb = _notebook(tmp_path / "tiny.ipynb")
    out = tmp_path / "r"
    res = CliRunner().invoke(cli, ["report", "-q", "-n", str(nb), "-p", f"log={table}", "-p", "n_gpus=4096",
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    sha = hashlib.sha256(table.read_bytes()).hexdigest()
    summary = json.loads((out / "summary.json").read_text())
    prov = summary["provenance"]
    assert prov["relmodel"] == __version__
    assert prov["data"] == {"name": "counts.csv", "bytes": table.stat().st_size, "sha256": sha, "bundled": False}
    assert prov["parameters"]["n_gpus"] == 4096
    for name in ("index.html", "tiny.html"):
        page = (out / name).read_text(encoding="utf-8")
        foot = re.search(r"<footer.*?</footer>", page, flags=re.S).group(0)
        assert f"relmodel {__version__}" in foot and sha in foot and "counts.csv" in foot
        assert f"{table.stat().st_size:,} bytes" in foot and "n_gpus = 4096" in foot
        assert "@media print" in page and "landscape" in page
    page = (out / "tiny.html").read_text(encoding="utf-8")
    assert "No description has been provided" not in page
    assert 'alt="Chart: Failures by month (Tiny page)"' in page


def test_a_lives_or_steps_file_is_named_with_its_own_checksum(tmp_path):
    import hashlib

    from relmodel.report.pipeline.provenance import footer, provenance

    lives = tmp_path / "lives.csv"
    lives.write_text("hours,died\n10,1\n20,0\n", encoding="utf-8")
    want = hashlib.sha256(lives.read_bytes()).hexdigest()  # independent of the code under test
    prov = provenance({"lives": str(lives), "steps": str(tmp_path / "gone.csv")})
    assert prov["inputs"]["lives"] == {"name": "lives.csv", "bytes": lives.stat().st_size, "sha256": want,
                                       "bundled": False}
    assert prov["inputs"]["steps"]["name"] == "gone.csv"     # a file that went away is still named
    text = footer(prov)
    assert f"lives file lives.csv ({lives.stat().st_size:,} bytes, SHA-256 {want})" in text
    assert "inputs" not in provenance({"n_gpus": 4096})
