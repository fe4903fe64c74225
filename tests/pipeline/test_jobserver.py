"""The job server (dpposterior.paper.jobserver): a job handed to a forked worker is the job run in its own process.

One server of the real stack (the stage CLI) for the byte comparisons, and a small one whose entry is a probe
(jobserver_probe.py) for what a worker sees: argv, cwd, environment, file descriptors, state, signals."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpposterior.paper import jobserver
from dpposterior.paper.limits import apply
from dpposterior.paper.render import KERNEL_ENVIRONMENT, kernel_manager_class

SRC = Path(__file__).resolve().parents[2] / "src"
HERE = Path(__file__).resolve().parent


def job_env(**extra) -> dict:
    """A pipeline job's environment: the pipeline's budgets and allocator, Snakemake's thread counts."""
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{HERE}", **{name: "1" for name in jobserver.THREADS})
    env.pop(jobserver.ENV, None)
    saved = dict(os.environ)
    try:
        apply()
        env |= {k: os.environ[k] for k in os.environ if k.startswith(("MALLOC_", "DPPOSTERIOR_MAX_"))}
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return env | extra


def job(args, server=None, cwd=None, stdin=None, env=None, **popen):
    env = dict(env or job_env())
    if server is not None:
        env[jobserver.ENV] = server.socket
    return subprocess.run([sys.executable, "-m", "dpposterior.paper", *args], env=env, cwd=cwd, capture_output=True,
                          stdin=stdin if stdin is not None else subprocess.DEVNULL, **popen)


def without_cpu_line(stderr: bytes) -> tuple[bytes, float | None]:
    text = stderr.decode()
    cpu = jobserver.worker_cpu(text)
    if cpu is not None:
        text = text.rstrip("\n").rpartition("\n")[0] + "\n" if "\n" in text.rstrip("\n") else ""
    return text.encode(), cpu


def installed(modules: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of ``modules`` whose package is installed: the tests command installs the `test` extra only, so the
    render modules of the server's list are missing there (.ci/run runs this file again with the `pipeline` extra)."""
    plain = tuple(m for m in modules if ":" not in m)
    present = tuple(m for m in plain if importlib.util.find_spec(m.partition(".")[0]) is not None)
    # a `module:function` entry (a warm-up) uses the whole stack: kept only where all of it is installed
    return present + (tuple(m for m in modules if ":" in m) if present == plain else ())


@pytest.fixture(scope="module")
def stack():
    server = jobserver.start(env=job_env(), modules=installed(jobserver.PRELOAD))
    assert server is not None
    yield server
    jobserver.stop(server)
    assert not Path(server.folder).exists()  # the private folder, socket included, is gone


@pytest.fixture(scope="module")
def probe():
    server = jobserver.start(entry="jobserver_probe:main", modules=("dpposterior.paper.__main__", "jobserver_probe"),
                             env=job_env(GONE="the server's, not a job's"))
    assert server is not None
    assert os.stat(server.folder).st_mode & 0o777 == 0o700
    yield server
    jobserver.stop(server)


def test_a_stage_job_through_the_server_writes_the_same_bytes_and_status(stack, tmp_path):
    spec = json.dumps({"kind": "n-series", "n": [10, 30], "prior": [1, 1, 1], "proportions": [0.2, 0.3, 0.5]})
    got = {}
    for how, server in (("in-process", None), ("server", stack)):
        out = tmp_path / f"{how}.parquet"
        proc = job(["data", "--experiment", "x", "--spec", spec, "--out", str(out)], server=server)
        err, cpu = without_cpu_line(proc.stderr)
        got[how] = (proc.returncode, proc.stdout, err, out.read_bytes())
        assert (cpu is not None) == (server is not None), proc.stderr  # a worker reports its CPU, an in-process job does not
    assert got["server"] == got["in-process"]
    assert got["server"][0] == 0


@pytest.mark.parametrize("args", [["data", "--experiment", "x"], ["data", "--experiment", "x", "--spec", "{",
                                                                  "--out", "/nonexistent/x.parquet"]])
def test_a_failing_job_fails_alike(stack, args):
    # an argparse refusal (exit 2, its message on stderr) and an exception (traceback, exit 1)
    inproc, served = job(args), job(args, server=stack)
    err, cpu = without_cpu_line(served.stderr)
    assert cpu is not None and cpu > 0
    assert (served.returncode, served.stdout) == (inproc.returncode, inproc.stdout)
    assert served.returncode in (1, 2)
    if served.returncode == 2:
        assert err == inproc.stderr and err.decode().splitlines()[-1].startswith("python -m dpposterior.paper data: error:")
    else:  # the same traceback, but for the worker's own frames above main()
        assert err.decode().splitlines()[-1] == inproc.stderr.decode().splitlines()[-1]


def test_without_a_server_the_job_runs_in_process(tmp_path):
    stale = tmp_path / "stale.socket"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(stale))
    s.close()  # the file stays, nobody listens: connection refused
    for value in (str(tmp_path / "missing.socket"), str(stale), "off"):
        proc = job(["--help"], env=job_env(**{jobserver.ENV: value}))
        assert proc.returncode == 0 and proc.stdout.startswith(b"usage: python -m dpposterior.paper")
        assert jobserver.worker_cpu(proc.stderr.decode()) is None


def test_a_job_whose_import_time_settings_differ_runs_in_process(stack):
    proc = job(["--help"], server=stack, env=job_env(OMP_NUM_THREADS="2"))
    assert proc.returncode == 0 and jobserver.worker_cpu(proc.stderr.decode()) is None
    proc = job(["--help"], server=stack)
    assert proc.returncode == 0 and jobserver.worker_cpu(proc.stderr.decode()) is not None


def test_the_worker_has_the_clients_argv_cwd_environment_and_descriptors(probe, tmp_path):
    (tmp_path / "in.txt").write_text("from stdin")
    env = job_env(PROBE="seen", TMPDIR=str(tmp_path))
    with (tmp_path / "in.txt").open("rb") as fh:
        proc = job(["echo", "a b", "--flag"], server=probe, cwd=tmp_path, stdin=fh, env=env,
                   preexec_fn=lambda: os.umask(0o077))  # the server's umask is the test's (022)
    got = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert got == {"argv": ["echo", "a b", "--flag"], "cwd": str(tmp_path), "probe": "seen", "gone": False,
                   "umask": 0o077, "stdin": "from stdin", "tmp": str(tmp_path), "argv0": "__main__.py"}
    err, cpu = without_cpu_line(proc.stderr)
    assert err == b"to stderr\n" and cpu is not None
    assert "GONE" not in env  # the server's own variable (its fixture): not the job's


def test_no_state_crosses_two_jobs(probe):
    first = job(["set", "one"], server=probe)
    second = job(["set", "two"], server=probe)
    assert json.loads(first.stdout) is None and json.loads(second.stdout) is None  # each worker starts pristine


def test_a_failing_probe_job_gives_its_status_and_its_one_line(probe):
    proc = job(["fail"], server=probe)
    assert proc.returncode == 2
    assert without_cpu_line(proc.stderr)[0] == b"probe: error: one line\n"


def gone(pid: int, within: float = 10.0) -> bool:
    """True once ``pid`` has exited (gone, or a zombie its parent has yet to reap)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def wait_for(path: Path, within: float = 30.0) -> int:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if path.is_file() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_killed_client_ends_its_worker(probe, tmp_path, how):
    pidfile = tmp_path / "pid"
    env = job_env(**{jobserver.ENV: probe.socket})
    client = subprocess.Popen([sys.executable, "-m", "dpposterior.paper", "sleep", str(pidfile)], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = wait_for(pidfile)
    assert worker != client.pid
    client.send_signal(getattr(signal, how))  # SIGKILL: the worker sees its client gone; SIGTERM: forwarded
    assert client.wait(timeout=30) == -getattr(signal, how)  # the client dies as the worker did
    assert gone(worker)


def test_the_per_rule_table_adds_each_workers_cpu_from_its_log(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("pipeline_cpu", HERE.parents[1] / "benchmarks" / "pipeline_cpu.py")
    pipeline_cpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pipeline_cpu)
    head = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for job_name, cpu, log in (("served", 0.02, "a warning\n" + jobserver.CPU_LINE.format(
            cpu=3.25, user=3.0, system=0.25, rss=512000)), ("inproc", 1.5, "a warning\n"), ("nolog", 0.75, None)):
        (tmp_path / "benchmarks" / "data").mkdir(parents=True, exist_ok=True)
        (tmp_path / "benchmarks" / "data" / f"{job_name}.tsv").write_text(head + f"4.0\t0:00:04\t30.0\t1\t1\t1\t0\t0\t0\t{cpu}\n")
        if log is not None:
            (tmp_path / "logs" / "data").mkdir(parents=True, exist_ok=True)
            (tmp_path / "logs" / "data" / f"{job_name}.log").write_text(log)
    rows = {r["job"]: r for r in pipeline_cpu.job_table(tmp_path)}
    assert rows["data/served"]["cpu"] == pytest.approx(0.02 + 3.25) and rows["data/served"]["worker"]
    assert rows["data/served"]["max_rss"] == pytest.approx(500.0)  # MB, the worker's (its client's is 30)
    assert (rows["data/inproc"]["cpu"], rows["data/nolog"]["cpu"]) == (1.5, 0.75)
    assert not rows["data/inproc"]["worker"] and not rows["data/nolog"]["worker"]



def test_a_workers_cpu_line_is_read_where_it_lands_in_a_shared_log():
    # a render job's kernel writes its line at its exit, possibly after the render process's unfinished line
    kernel = jobserver.CPU_LINE.format(cpu=0.5, user=0.25, system=0.25, rss=1000)
    render = jobserver.CPU_LINE.format(cpu=2.0, user=1.5, system=0.5, rss=3000)
    log = "[W] a warning\n" + "progress 3/5 " + kernel + "...done\n" + render
    assert jobserver.worker_usage(log) == {"cpu_seconds": 2.5, "user": 1.75, "system": 0.75, "max_rss_kb": 3000,
                                           "workers": 2}
    assert jobserver.worker_usage("[W] a warning\nprogress 3/5 done\n") is None

# ---- a render job's kernel, forked from the kernel server

TEMPLATE = '''# %% tags=["parameters"]
item = "probe"
inputs = {}
outputs = {}

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpposterior.paper import items, style, tables

# %%
fig, ax = plt.subplots()
ax.plot(np.arange(10) ** 2)
print(sorted({"b", "a", "c"}), hash("abc"), np.random.default_rng(7).integers(100))
pd.DataFrame({"x": [1, 2]})
'''


@pytest.fixture(scope="module")
def kernels():
    for name in ("ipykernel", "matplotlib", "seaborn", "papermill", "nbformat"):  # the `pipeline` extra
        pytest.importorskip(name)
    server = jobserver.start(entry=jobserver.KERNEL_ENTRY, modules=jobserver.KERNEL_PRELOAD,
                             env=job_env() | KERNEL_ENVIRONMENT)
    assert server is not None
    yield server
    jobserver.stop(server)


def test_a_notebook_run_by_a_forked_kernel_is_byte_identical(stack, kernels, tmp_path):
    (tmp_path / "t.py").write_text(TEMPLATE)
    (tmp_path / "p.json").write_text(json.dumps({"item": "probe", "inputs": {}, "outputs": {}}))
    got = {}
    # in-process; the kernel forked; the render process and its kernel forked (each worker's CPU line in the log)
    for how, servers, workers in (("in-process", {}, 0), ("kernel", {jobserver.KERNEL_ENV: kernels.socket}, 1),
                                  ("both", {jobserver.KERNEL_ENV: kernels.socket, jobserver.ENV: stack.socket}, 2)):
        proc = job(["render", "--template", str(tmp_path / "t.py"), "--parameters", str(tmp_path / "p.json"),
                    "--notebook", str(tmp_path / f"{how}.ipynb"), "--html", str(tmp_path / f"{how}.html")],
                   env=job_env(**servers))
        assert proc.returncode == 0, proc.stderr[-2000:]
        usage = jobserver.worker_usage(proc.stderr.decode())
        assert (usage or {}).get("workers", 0) == workers, proc.stderr.decode()[-3000:]
        assert b"--existing" not in proc.stdout  # the kernel knows its parent (no stand-alone kernel's banner)
        got[how] = ((tmp_path / f"{how}.ipynb").read_bytes(), (tmp_path / f"{how}.html").read_bytes())
    assert b"image/png" in got["both"][0]
    assert got["kernel"] == got["in-process"] and got["both"] == got["in-process"]


def test_a_forked_kernel_is_interrupted_and_shut_down_through_its_client(kernels):
    import asyncio

    async def session():
        os.environ[jobserver.KERNEL_ENV] = kernels.socket  # the kernel's environment is this process's
        try:
            km = kernel_manager_class()(kernel_name="python3")
            await km.start_kernel(env=job_env(**{jobserver.KERNEL_ENV: kernels.socket},
                                              **KERNEL_ENVIRONMENT))
        finally:
            del os.environ[jobserver.KERNEL_ENV]
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=60)
        reply = await kc.execute_interactive("import os; print(os.getpid(), os.getppid())", timeout=60,
                                             output_hook=lambda msg: seen.append(msg))
        assert reply["content"]["status"] == "ok"
        worker, parent = map(int, next(m["content"]["text"] for m in seen if m["msg_type"] == "stream").split())
        assert worker != km.provisioner.process.pid and parent == kernels.proc.pid  # forked from the kernel server
        kc.execute("while True: pass")
        await asyncio.sleep(1)
        await km.interrupt_kernel()  # SIGINT to the client's process group, forwarded to the worker
        reply = await kc._async_get_shell_msg(timeout=60)
        while reply["msg_type"] != "execute_reply" or reply["content"]["status"] == "ok":
            reply = await kc._async_get_shell_msg(timeout=60)
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        kc.stop_channels()
        await km.shutdown_kernel(now=False)
        return worker

    seen: list = []
    worker = asyncio.run(session())
    assert gone(worker)


def test_a_kernels_worker_ends_when_the_render_process_is_gone(probe, tmp_path):
    # the kernel's client (the kernel's launch command) watches its parent, as ipykernel's parent poller does: here
    # the probe stands for the kernel, a shell for the render process that launched it
    pidfile = tmp_path / "pid"
    env = job_env(**{jobserver.KERNEL_ENV: probe.socket})
    parent = subprocess.Popen(["bash", "-c", f"{sys.executable} -m dpposterior.paper.jobserver kernel sleep {pidfile}"
                               " & wait"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    worker = wait_for(pidfile)
    parent.kill()
    parent.wait()
    assert gone(worker)


def test_a_kernel_worker_waits_for_the_control_thread_before_the_teardown(monkeypatch):
    # ipykernel's control thread answers the shutdown request and still publishes on IOPub after the main loop has
    # stopped; the exit's teardown closes that socket, and a send racing the close aborts the process in libzmq.
    # Here a control thread that ends 0.5 s after the kernel's main loop: kernel_main returns only once it has ended.
    kernelapp = pytest.importorskip("ipykernel.kernelapp")
    import threading

    ended = threading.Event()

    class App:
        control_thread = threading.Thread(target=lambda: (time.sleep(0.5), ended.set()))
        shell_channel_thread = None

    def launch(**_):
        App.control_thread.start()

    monkeypatch.setattr(kernelapp, "launch_new_instance", launch)
    monkeypatch.setattr(kernelapp.IPKernelApp, "instance", classmethod(lambda cls: App))
    monkeypatch.setattr(sys, "argv", list(sys.argv))  # kernel_main sets argv[0] and may take the cwd off the path
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert jobserver.kernel_main([]) == 0
    assert ended.is_set()
