"""Progress on a terminal: the elapsed time of a command that can take more than 2 s, on stderr.

Only when stderr is a terminal (never in a pipe, a log or a test), with tqdm: a bar without a total
that counts seconds, drawn from a background thread and erased when the command ends.  It shows
time only, never anything computed from the data.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator

#: The commands that can take more than 2 s.
SLOW_COMMANDS = frozenset({"pmf", "accuracy", "compare", "posterior", "privacy"})


@contextlib.contextmanager
def progress(command: str | None, stream=None) -> Iterator[None]:
    """Show ``dpposterior COMMAND: 12 s`` on ``stream`` (stderr) while the body runs, if it is a terminal."""
    stream = sys.stderr if stream is None else stream
    if command not in SLOW_COMMANDS or not getattr(stream, "isatty", lambda: False)():
        yield
        return
    from tqdm import tqdm

    start = time.time()
    done = threading.Event()
    lock = threading.Lock()
    bars: list = []

    def tick() -> None:
        if done.wait(2.0):  # nothing at all for a command done within 2 s
            return
        with lock:
            if done.is_set():
                return
            bars.append(tqdm(desc=f"dpposterior {command}", file=stream, leave=False, bar_format="{desc}: {elapsed}",
                             initial=0))
            bars[0].start_t = start  # the elapsed time of the command, not of the display
        while not done.wait(0.5):
            with lock:
                if not done.is_set():
                    bars[0].refresh()

    def stop() -> None:
        with lock:
            if not done.is_set():
                done.set()
                for bar in bars:
                    bar.close()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    out = sys.stdout
    sys.stdout = _StopFirst(out, stop)  # the bar is erased before the first line of output
    try:
        yield
    finally:
        sys.stdout = out
        stop()
        thread.join()


class _StopFirst:
    """stdout, which stops the progress display before its first write."""

    def __init__(self, out, stop) -> None:
        self._out, self._stop = out, stop

    def write(self, text: str) -> int:
        self._stop()
        return self._out.write(text)

    def __getattr__(self, name: str):
        return getattr(self._out, name)
