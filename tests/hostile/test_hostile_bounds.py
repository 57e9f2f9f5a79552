"""Bounded work: Dask addresses, sweep lengths and run counts (second hostile corpus, kind 5).

Every listener here is on the loopback interface and made by the test itself.
"""

import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from click.testing import CliRunner

from relmodel.cli import cli
from relmodel.errors import ReportError
from relmodel.report.safety import limits


@pytest.mark.parametrize("address, needle", [
    ("notaurl", "no scheme"), ("", "empty address"), ("   ", "empty address"),
    ("http://127.0.0.1:8786", "scheme 'http'"), ("ucx://127.0.0.1:8786", "scheme 'ucx'"),
    ("tcp://127.0.0.1", "host and port"), ("tcp://:8786", "host and port"),
    ("tcp://127.0.0.1:99999", "host and port"), ("tcp://127.0.0.1:8786/x", "host and port")])
def test_bad_dask_addresses_are_named_errors(address, needle, tmp_path):
    with pytest.raises(ReportError, match=needle):
        limits.check_dask_address(address)
    res = CliRunner().invoke(cli, ["report", "-q", "-n", "05", "--dask", address, "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert "Traceback" not in res.output and needle in res.output


@pytest.fixture
def silent_listener():
    """A TCP port that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    server.close()


class _Plain(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args):
        pass


@pytest.fixture
def web_server():
    server = HTTPServer(("127.0.0.1", 0), _Plain)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_nothing_listening_is_a_named_error():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # the port is now free: nothing listens
    with pytest.raises(ReportError, match="cannot reach"):
        limits.connect_dask(f"tcp://127.0.0.1:{port}", timeout=1)


@pytest.mark.parametrize("server", ["silent_listener", "web_server"])
def test_something_that_is_not_a_scheduler_is_refused_within_the_timeout(server, request, monkeypatch):
    # the asking child process never answers either listener and is killed after the timeout plus
    # its start-up allowance: a short allowance is the same refusal, sooner
    monkeypatch.setattr(limits, "_START_S", 3.0)
    address = request.getfixturevalue(server)
    with pytest.raises(ReportError, match="does not answer as a Dask scheduler"):
        limits.connect_dask(address, timeout=1)


def test_a_scheduler_without_workers_is_refused():
    from distributed import LocalCluster
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        with pytest.raises(ReportError, match="has no workers"):
            limits.connect_dask(cluster.scheduler_address, timeout=1)


def test_a_scheduler_with_a_worker_is_used():
    from distributed import LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as cluster:
        client = limits.connect_dask(cluster.scheduler_address, timeout=5)
        try:
            assert client.submit(sum, [1, 2, 3]).result() == 6
        finally:
            client.close()


def test_a_sweep_longer_than_the_cap_is_refused_before_anything_runs(tmp_path):
    values = ",".join(str(1024 * k) for k in range(1, limits.MAX_SWEEP + 2))
    res = CliRunner().invoke(cli, ["report", "-q", "--sweep", f"n_gpus={values}", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2, res.output
    assert f"{limits.MAX_SWEEP + 1:,} combinations" in res.output
    assert not (tmp_path / "r").exists()
    limits.check_sweep_size(limits.MAX_SWEEP)  # at the cap: accepted
