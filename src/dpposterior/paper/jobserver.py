"""A pre-imported fork server for the pipeline's jobs: each job forked from one process that has imported the stack.

Every job of a local pipeline run is a fresh ``python -m dpposterior.paper <stage> ...`` process, and each pays
for importing numpy, scipy, pandas, pyarrow and the library (a render job: papermill, nbformat, nbconvert and
jupytext) before it does any work: about 0.6 CPU s for a stage job and 1.6 s for a render process on the hosts
of docs/pipeline.md, over some 245 jobs.  The pattern here is Android's zygote and Python's own
``multiprocessing`` forkserver: one server imports all of that once, and every job is a child forked from it.

The server (:func:`serve`) imports the stack (:data:`PRELOAD`), listens on a Unix socket in a private temporary
folder (mode 0700) and, for each connection, forks a fresh child from itself as it was after the imports: a
worker serves exactly one job and exits, so nothing a job does (a module global, a cache, the random state, an
open file) reaches another job.  The worker (:func:`_work`) receives the client's argv, working directory, whole
environment, umask, ``sys.path`` and its stdin, stdout and stderr (``SCM_RIGHTS``), which it puts onto its own
0, 1 and 2; it replaces ``os.environ`` (``tempfile.tempdir`` and the time zone follow), restores the default
signal handlers, runs the same :func:`dpposterior.paper.__main__.main` the in-process entry runs, and exits as a
process would: ``SystemExit`` codes, a traceback and status 1 for an exception, death by SIGINT after a
``KeyboardInterrupt``, the ``atexit`` handlers, flushed streams.  It sends its exit status back and ends with
``os._exit``; if its client disappears (the connection closes), it kills itself.

The client (:func:`hand_over`) is the normal entry: ``python -m dpposterior.paper`` hands its job over when
:data:`ENV` names a socket it can connect to, forwards SIGTERM, SIGINT and SIGHUP to the worker, and exits with
the worker's status (or dies of the worker's forwarded signal).  It imports nothing but the standard library's
socket layer; numpy is not loaded on that path (``dpposterior.paper`` defers numpy's unused submodules with an
import hook, :mod:`.startup`).  With no server, a refused connection, a stale socket or a worker that declines
the job, the job runs in-process exactly as without the server.

What a job sees is what it would see in its own process, because the worker declines (and the client runs the
job in-process) unless everything fixed at the server's start equals the client's: the interpreter, ``sys.path``
past its first entry (the working directory, set per job), and :data:`IMPORT_TIME`, the environment read when a
module is imported or when the process starts (the BLAS thread counts Snakemake sets for every shell job, glibc's
``MALLOC_*`` settings of :data:`dpposterior.paper.limits.JOB_ALLOCATOR`, the hash seed, the Python paths).  The
server sets the thread counts to the rules' ``threads: 1`` before it imports numpy, and the Snakefile starts it
after :func:`dpposterior.paper.limits.apply`, so its allocator settings are the jobs'.  Random state: Python's
``random`` reseeds itself after a fork, numpy's global ``RandomState`` is reseeded from the OS in each worker
(the library's draws take their own generators or ``secrets``); the hash seed of every worker is the server's
(random unless ``PYTHONHASHSEED`` is set, and then equal to the job's).

CPU is counted as before: the workers are the server's children, reaped by it, and the server is the child of
the Snakemake process that started it (:func:`start`), which stops and waits for it (:func:`stop`), so every
worker's CPU is in the run's total (``/usr/bin/time snakemake``).  A worker is not in its client's process tree,
so Snakemake's benchmark files (which sample that tree) miss it: each worker writes its own CPU (user + system of
itself and its reaped children, ``getrusage``) as the last line of its stderr, the job's log (:data:`CPU_LINE`),
which ``benchmarks/pipeline_cpu.py`` adds to the job's benchmark row.  The server stops when the Snakemake process
that started it closes its end of the server's stdin (:func:`stop`, from the ``onsuccess`` and ``onerror`` hooks
and at exit) or dies (the pipe closes with it); it then removes its socket and folder and reaps its workers.

A render job's notebook kernel is forked the same way from a second server (:func:`start_kernels`: ipykernel,
matplotlib, seaborn, pandas, scipy and the modules the templates import, :data:`KERNEL_PRELOAD`, imported under the
kernel's environment, :data:`dpposterior.paper.render.KERNEL_ENVIRONMENT`: hash seed 0, the inline backend).  Its
kernel manager (:func:`dpposterior.paper.render.kernel_manager_class`) launches ``python -m
dpposterior.paper.jobserver kernel -f CONNECTION_FILE`` instead of ``python -m ipykernel_launcher``: a client that
hands the kernel to a worker, which runs :func:`kernel_main` (ipykernel's ``IPKernelApp`` on that connection file:
its ZeroMQ context, sockets and event loop are made in the worker, never in the server), or else execs the usual
``ipykernel_launcher``.  jupyter_client's interrupt (SIGINT to the client's process group) and kill (SIGKILL) reach
the worker through the client (forwarded, or the closed connection); its shutdown request is the kernel's own; and
the client ends the worker when the render process is gone, as ipykernel's parent poller ends a kernel.  The
kernel worker's CPU line goes to the kernel's stderr, the render job's log.

Measured gain (docs/pipeline.md, "The job server"; ``/usr/bin/time -v snakemake --cores 2 --configfile
workflow/quick.yaml`` in fresh clones, one after the other on the shared 2-core host, 2026-11-28): 406.6 CPU s
without the servers, 272.1 with the job server, 218.5 with the kernels forked too (0.54x), every result file the
same but for measured seconds.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

#: the environment variable naming the server's socket (set by the Snakefile for its jobs); "off" turns it off
ENV = "DPPOSTERIOR_JOBSERVER"

#: the thread counts Snakemake's shell sets for each job to the rule's ``threads`` (snakemake/shell.py), 1 here
THREADS = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

#: environment read at process start or at import: a worker serves a job only if the client's values equal its own
IMPORT_TIME = THREADS + ("MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_ARENA_MAX",
                         "PYTHONHASHSEED", "PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "PYTHONWARNINGS", "PYTHONUTF8",
                         "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE", "LANG", "LC_ALL", "LC_CTYPE", "LD_PRELOAD",
                         "LD_LIBRARY_PATH", "GLIBC_TUNABLES", "MPLBACKEND", "MPLCONFIGDIR", "NPY_DISABLE_CPU_FEATURES")

#: what the server imports once: every module a stage, verdicts, index or render process imports
PRELOAD = ("numpy", "scipy.special", "scipy.stats", "scipy.optimize", "pandas", "pyarrow.parquet",
           "dpposterior.paper.__main__", "dpposterior.paper.experiments", "dpposterior.paper.coverage",
           "dpposterior.paper.beyond", "dpposterior.paper.report", "dpposterior.paper.render",
           "jupytext", "nbformat", "papermill", "nbconvert", "papermill.translators", "jinja2",
           "dpposterior.paper.render:warm_up")

#: the worker's last line on stderr (the job's log): its CPU, which Snakemake's benchmark file does not see
CPU_LINE = "dpposterior.paper.jobserver: worker cpu_seconds={cpu:.3f} user={user:.3f} system={system:.3f} " \
           "max_rss_kb={rss}\n"
CPU_PREFIX = CPU_LINE.split("cpu_seconds=")[0]
_CPU_FIELDS = r"cpu_seconds=([0-9.]+) user=([0-9.]+) system=([0-9.]+) max_rss_kb=([0-9]+)"

_INT = struct.Struct("!q")
_REPORT_FD = [2]  # a worker's CPU line goes here (set per job in _work)
_DECLINED = -1  # the worker's answer when the job must run in-process (IMPORT_TIME differs)


def worker_usage(log_text: str) -> dict | None:
    """What the workers of a job reported in its log (:data:`CPU_LINE`; a render job's log has two, its own worker's
    and its kernel's): ``cpu_seconds``, ``user`` and ``system`` summed, the largest ``max_rss_kb``, ``workers``
    their number; None if no worker ran it (it ran in-process).  A line is found wherever it starts: a worker
    writes it in one ``write`` at its exit, which may land after another process's unfinished line (a render job's
    kernel and the render process share one stderr)."""
    import re  # here, not at the top: a job's hand-over imports this module and needs none of it

    got = [{"cpu_seconds": float(m[1]), "user": float(m[2]), "system": float(m[3]), "max_rss_kb": int(m[4])}
           for m in re.finditer(re.escape(CPU_PREFIX) + _CPU_FIELDS, log_text)]
    if not got:
        return None
    total = {k: sum(g[k] for g in got) for k in ("cpu_seconds", "user", "system")}
    return total | {"max_rss_kb": max(g["max_rss_kb"] for g in got), "workers": len(got)}


def worker_cpu(log_text: str) -> float | None:
    """The CPU seconds the workers of a job reported in its log, or None (:func:`worker_usage`)."""
    usage = worker_usage(log_text)
    return None if usage is None else usage["cpu_seconds"]


# ---- the client: the normal entry's first step


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        try:
            part = sock.recv(n - len(buf))
        except InterruptedError:
            continue
        if not part:
            return None
        buf += part
    return buf


def hand_over(argv: list[str], variable: str = ENV, watch_parent: bool = False) -> int | None:
    """Run this job in a worker of the server the environment variable ``variable`` names; its exit status, or None
    if there is no server to take it (then the caller runs the job in-process).  A signal forwarded to the worker
    that killed it kills this process the same way.  With ``watch_parent``, the worker is killed when this process's
    parent exits (as ipykernel's parent poller ends a kernel whose parent is gone)."""
    path = os.environ.get(variable, "")
    if not path or path == "off":
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:  # no server, a stale socket, a stopped server: in-process
        sock.close()
        return None
    umask = os.umask(0)
    os.umask(umask)
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask,
                          "executable": sys.executable, "path": sys.path}).encode()
    try:
        socket.send_fds(sock, [_INT.pack(len(request))], [0, 1, 2])
        sock.sendall(request)
    except OSError:  # e.g. a closed stdin (EBADF): in-process
        sock.close()
        return None
    try:
        got = _recv_exact(sock, _INT.size)
    except OSError:  # a server stopping with this connection not yet accepted
        got = None
    if got is None:
        sock.close()
        return None
    pid = _INT.unpack(got)[0]
    if pid == _DECLINED:
        sock.close()
        return None
    forwarded: list[int] = []

    def forward(signum, frame):
        forwarded.append(signum)
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)
    parent = os.getppid()
    sock.settimeout(1.0 if watch_parent else None)
    while True:
        try:
            got = _recv_exact(sock, _INT.size)
            break
        except TimeoutError:  # nothing received in the last second (a status is 8 bytes: never split)
            if os.getppid() != parent:
                os.kill(pid, signal.SIGKILL)
                os._exit(1)
        except OSError:  # the connection reset: as a worker gone without a status
            got = None
            break
    sock.close()
    if got is not None:
        return _INT.unpack(got)[0]
    # the worker died without a status: by the signal forwarded to it, or by one sent to it directly
    signum = forwarded[-1] if forwarded else signal.SIGKILL
    if signum != signal.SIGKILL:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    print("python -m dpposterior.paper: the job server's worker was killed", file=sys.stderr)
    return 128 + signal.SIGKILL


# ---- the worker: one job in a child forked from the server


def _declines(request: dict) -> bool:
    """True if the job must run in-process: an interpreter, import path or import-time setting not the server's."""
    if os.path.realpath(request["executable"]) != os.path.realpath(sys.executable):
        return True
    if request["path"][1:] != sys.path[1:]:
        return True
    env = request["env"]
    return any(env.get(name) != os.environ.get(name) for name in IMPORT_TIME)


def _streams() -> None:
    """New sys.stdin/stdout/stderr over fds 0, 1, 2, buffered as Python's start-up buffers them (line-buffered on a
    terminal; stderr always line-buffered)."""
    import io

    def wrap(fd, mode, old):
        raw = io.FileIO(fd, mode, closefd=False)
        tty = raw.isatty()
        buffered = io.BufferedReader(raw) if mode == "rb" else io.BufferedWriter(raw)
        return io.TextIOWrapper(buffered, encoding=old.encoding, errors=old.errors,
                                line_buffering=(fd == 2 or tty) and mode == "wb", write_through=False)

    sys.stdin = sys.__stdin__ = wrap(0, "rb", sys.__stdin__)
    sys.stdout = sys.__stdout__ = wrap(1, "wb", sys.__stdout__)
    sys.stderr = sys.__stderr__ = wrap(2, "wb", sys.__stderr__)


def _entry(entry: str):
    """The function ``module:name`` names (imported in the server, by :func:`preload`)."""
    import importlib

    module, _, name = entry.partition(":")
    return getattr(importlib.import_module(module), name)


def _run_main(argv: list[str], main) -> int:
    """``sys.exit(main(argv))`` as the interpreter runs it: the exit status; a KeyboardInterrupt kills by SIGINT."""
    import traceback

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:  # the interpreter's way: the traceback, then death by SIGINT
        traceback.print_exc()
        _finish()
        _report_cpu(_REPORT_FD[0])
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        os._exit(128 + signal.SIGINT)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _finish() -> None:
    """What the interpreter does at exit: non-daemon threads joined, atexit handlers run, streams flushed."""
    import atexit
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _report_cpu(fd: int = 2) -> None:
    """Write :data:`CPU_LINE` to ``fd`` (the job's stderr as the worker received it)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = me.ru_utime + kids.ru_utime, me.ru_stime + kids.ru_stime
    line = CPU_LINE.format(cpu=user + system, user=user, system=system, rss=max(me.ru_maxrss, kids.ru_maxrss))
    try:
        os.write(fd, line.encode())
    except OSError:
        pass


def _work(conn: socket.socket, main) -> None:
    """The forked child: read one request, become the client's process, run its job, answer, exit."""
    status = 1
    try:
        head, fds, _, _ = socket.recv_fds(conn, _INT.size, 3)
        head += _recv_exact(conn, _INT.size - len(head)) or b""
        request = json.loads(_recv_exact(conn, _INT.unpack(head)[0]))
        if len(fds) != 3 or _declines(request):
            conn.sendall(_INT.pack(_DECLINED))
            os._exit(0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        report = os.dup(2)  # the job's stderr, for the CPU line even if the job redirects fd 2 (ipykernel does)
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(s, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import tempfile
        import time

        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None
        time.tzset()
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        sys.path[0] = request["path"][0]
        sys.argv = [getattr(sys.modules.get("dpposterior.paper.__main__"), "__file__", ""), *request["argv"]]
        _streams()
        if "numpy.random" in sys.modules:  # as a fresh process: numpy's global state from the OS, per job
            sys.modules["numpy.random"].seed()
        conn.sendall(_INT.pack(os.getpid()))
        _watch(conn)
        _REPORT_FD[0] = report
        status = _run_main(request["argv"], main)
        _finish()
    except BaseException:  # a failure of the hand-over itself: say so on the job's stderr
        import traceback

        traceback.print_exc()
        _finish()
    _report_cpu(_REPORT_FD[0])
    try:
        conn.sendall(_INT.pack(status))
    finally:
        os._exit(status)


def _watch(conn: socket.socket) -> None:
    """Kill this worker when its client disappears (the client never writes after its request: EOF means gone)."""
    import threading

    def wait():
        try:
            while conn.recv(1):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=wait, name="jobserver-client-watch", daemon=True).start()


# ---- notebook kernels: a render job's kernel forked from a second server


#: the environment variable naming the kernel server's socket
KERNEL_ENV = "DPPOSTERIOR_KERNELSERVER"

#: what a kernel server imports once: ipykernel and what the notebook templates' first cells import, in their order
KERNEL_PRELOAD = ("ipykernel.kernelapp", "matplotlib.pyplot", "numpy", "pandas", "scipy.stats", "seaborn",
                  "dpposterior.paper.claims", "dpposterior.paper.items", "dpposterior.paper.style",
                  "dpposterior.paper.tables", "dpposterior.paper.variants", "pyarrow.parquet",
                  "dpposterior.paper.style:warm_up")

#: a kernel worker's entry: ipykernel's, as ``python -m ipykernel_launcher`` runs it
KERNEL_ENTRY = "dpposterior.paper.jobserver:kernel_main"


#: how long a kernel worker waits for ipykernel's control thread to end after the kernel's main loop stopped
CONTROL_JOIN_SECONDS = 10.0


def kernel_main(argv: list[str]) -> int:
    """``python -m ipykernel_launcher ARGV`` in a kernel worker: the working directory off ``sys.path`` while
    ipykernel starts (it puts it back), then the kernel until it is shut down, then its control and shell-channel
    threads joined (up to :data:`CONTROL_JOIN_SECONDS` each) before the exit's teardown.

    Why the join: ipykernel answers a shutdown request on its control thread, which stops the main loop and then
    still publishes its last status on IOPub.  The main thread, its loop stopped, goes on to the exit handlers,
    where ``IPKernelApp.close`` stops the IOPub thread and closes its socket; a control thread still sending on
    that socket (directly, once the IOPub thread is stopped) races the close, and libzmq aborts the process
    ("Assertion failed: pfd.revents & POLLIN (src/signaler.cpp)"), before the worker's CPU line is written.
    Measured with the teardown's steps marked, 2026-12-01: the control thread was still alive when the main loop
    returned in most shutdowns, and the abort came once in about 100 renders, at ``control_thread.join()``
    inside ``close``.  Joining first lets the control thread finish while every socket is open."""
    import importlib.util

    sys.argv[0] = importlib.util.find_spec("ipykernel_launcher").origin  # ipykernel's, as `-m` sets it
    if sys.path and (sys.path[0] == "" or os.path.realpath(sys.path[0]) == os.path.realpath(os.getcwd())):
        del sys.path[0]
    from ipykernel import kernelapp

    # two traits whose defaults ipykernel reads from the environment when it is imported (in the server): read
    # them from the kernel's own, as a kernel started by ipykernel_launcher does
    kernelapp.launch_new_instance(argv=argv, parent_handle=int(os.environ.get("JPY_PARENT_PID") or 0),
                                  interrupt=int(os.environ.get("JPY_INTERRUPT_EVENT") or 0))
    app = kernelapp.IPKernelApp.instance()
    for thread in (getattr(app, "control_thread", None), getattr(app, "shell_channel_thread", None)):
        if thread is not None and thread.is_alive():
            thread.join(timeout=CONTROL_JOIN_SECONDS)
    return 0


def kernel_client(argv: list[str]) -> None:
    """A kernel's launch command (``python -m dpposterior.paper.jobserver kernel -f CONNECTION_FILE``, the render
    job's kernel manager, :func:`dpposterior.paper.render.kernel_manager_class`): hand the kernel to a worker of the
    kernel server, or else become ``python -m ipykernel_launcher`` (exec)."""
    status = hand_over(argv, KERNEL_ENV, watch_parent=True)
    if status is None:
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])
    sys.exit(status)


# ---- the server


def preload(modules: tuple[str, ...] = PRELOAD) -> None:
    """Import ``modules`` under a job's import-time settings (the rules' ``threads: 1``); an entry
    ``module:function`` also calls that function (no arguments) once imported, in order."""
    import importlib

    from .render import skip_iri_format_checkers

    for name in THREADS:
        os.environ[name] = "1"
    skip_iri_format_checkers()  # as a render job does before nbformat imports jsonschema
    for name in modules:
        module, _, function = name.partition(":")
        loaded = importlib.import_module(module)
        if function:
            getattr(loaded, function)()
    import gc

    gc.collect()
    if hasattr(gc, "freeze"):  # keep the children from touching (copying) the server's objects in a collection
        gc.freeze()


#: the function a worker runs with the job's argv: the stage CLI's, as ``python -m dpposterior.paper`` runs it
ENTRY = "dpposterior.paper.__main__:main"


def serve(path: str, entry: str = ENTRY, modules: tuple[str, ...] = PRELOAD) -> None:
    """Import ``modules``, listen on ``path``, print ``ready`` on stdout, then fork one worker per connection, which
    runs ``entry``, until stdin closes (the starting process stopped it or died) or SIGTERM; then end and reap the
    workers left."""
    import select

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    preload(modules)
    main = _entry(entry)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    workers: set[int] = set()
    try:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        while True:
            readable, _, _ = select.select([listener, sys.stdin], [], [], 1.0)
            _reap(workers, block=False)
            if sys.stdin in readable and not os.read(0, 4096):
                return
            if listener in readable:
                conn, _ = listener.accept()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    listener.close()
                    _work(conn, main)  # never returns
                workers.add(pid)
                conn.close()
    finally:
        listener.close()
        for leftover in (os.unlink, os.rmdir):  # the socket, then its private folder (made for this server)
            try:
                leftover(path if leftover is os.unlink else os.path.dirname(path))
            except OSError:
                pass
        for pid in workers:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        _reap(workers, block=True)


def _reap(workers: set[int], block: bool) -> None:
    for pid in list(workers):
        try:
            done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            workers.discard(pid)


# ---- life cycle, from the Snakefile


class Server:
    """A running server: its process (a child of the caller) and its private folder."""

    def __init__(self, proc, folder: str):
        self.proc, self.folder = proc, folder

    @property
    def socket(self) -> str:
        return os.path.join(self.folder, "socket")


def start(timeout: float = 120.0, entry: str = ENTRY, modules: tuple[str, ...] = PRELOAD,
          env: dict | None = None) -> Server | None:
    """Start a server as a child of this process and wait until it listens; None (and no server) if it fails.

    Its environment is this process's or ``env`` (call :func:`dpposterior.paper.limits.apply` first, so glibc
    reads the jobs' allocator settings when it starts); ``entry`` and ``modules`` as :func:`serve` (tests)."""
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix="dpposterior-jobs-")  # mode 0700
    path = os.path.join(folder, "socket")
    env = dict(os.environ if env is None else env)
    env.pop(ENV, None)
    proc = subprocess.Popen([sys.executable, "-m", "dpposterior.paper.jobserver", path, entry, ",".join(modules)],
                            stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, start_new_session=True)
    ready = ""
    import select

    if select.select([proc.stdout], [], [], timeout)[0]:
        ready = proc.stdout.readline().decode().strip()
    proc.stdout.close()
    server = Server(proc, folder)
    if ready != "ready":
        stop(server)
        return None
    return server


def stop(server: Server | None) -> None:
    """Stop ``server`` and wait for it (its workers' CPU then counts in this process's children), remove its
    folder."""
    if server is None:
        return
    import shutil

    try:
        server.proc.stdin.close()
    except OSError:
        pass
    try:
        server.proc.wait(timeout=60)
    except Exception:
        server.proc.kill()
        server.proc.wait()
    shutil.rmtree(server.folder, ignore_errors=True)


def start_kernels(timeout: float = 120.0) -> Server | None:
    """Start a kernel server (:data:`KERNEL_PRELOAD`, :func:`kernel_main`) under the environment a render job
    gives its kernel (:data:`dpposterior.paper.render.KERNEL_ENVIRONMENT`)."""
    from .render import KERNEL_ENVIRONMENT

    return start(timeout, KERNEL_ENTRY, KERNEL_PRELOAD, env=dict(os.environ, **KERNEL_ENVIRONMENT))


def for_workflow(workflow) -> list[Server]:
    """Start the servers for a Snakemake run that executes its jobs here: the main process, local execution, not a
    dry run or ``--touch`` (``--report``, ``--lint`` and a run with nothing to do never reach the ``onstart``
    hook), unless :data:`ENV` is ``off``; set :data:`ENV` and :data:`KERNEL_ENV` for the jobs.  The servers
    started."""
    if os.environ.get(ENV) == "off":
        return []
    if not (workflow.is_main_process and workflow.local_exec) or workflow.dryrun or workflow.touch:
        return []
    import atexit

    servers = []
    for variable, begin in ((ENV, start), (KERNEL_ENV, start_kernels)):
        server = begin()
        if server is not None:
            os.environ[variable] = server.socket
            servers.append(server)
    atexit.register(stop_for_workflow, servers)  # also when Snakemake fails before its onerror hook
    return servers


def stop_for_workflow(servers: list[Server]) -> None:
    """Stop the servers :func:`for_workflow` started and wait for them (again: a no-op)."""
    for variable in (ENV, KERNEL_ENV):
        os.environ.pop(variable, None)
    while servers:
        stop(servers.pop())


if __name__ == "__main__":
    if sys.argv[1:2] == ["kernel"]:
        kernel_client(sys.argv[2:])
    else:
        serve(sys.argv[1], sys.argv[2], tuple(m for m in sys.argv[3].split(",") if m))
