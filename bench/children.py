"""One child process, measured: the benchmark scripts' common way to run a command.

The output goes to temporary files rather than pipes, so that the child never blocks on a
full pipe and this process can reap it itself with ``os.wait4``, which hands back the
resource usage of that one child (its CPU time and peak RSS), not of every child so far.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Sample", "run_child"]


@dataclass(frozen=True)
class Sample:
    """One child process: how long it ran, its CPU time (user + system) and peak RSS, how it
    ended, what it printed."""

    wall_s: float
    cpu_s: float
    max_rss_bytes: int
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str


def run_child(cmd: Sequence[str], timeout_s: float) -> Sample:
    """Run ``cmd`` to completion, killed after ``timeout_s``, and measure it with
    ``os.wait4``."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        killed = threading.Event()
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, stdin=subprocess.DEVNULL)

        def kill() -> None:
            killed.set()
            proc.kill()

        timer = threading.Timer(timeout_s, kill)  # a hung child is killed, not waited for
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        scale = 1 if sys.platform == "darwin" else 1024
        return Sample(
            wall_s=wall,
            cpu_s=usage.ru_utime + usage.ru_stime,
            max_rss_bytes=usage.ru_maxrss * scale,
            returncode=proc.returncode,
            timed_out=killed.is_set(),
            stdout=out.read(),
            stderr=err.read(),
        )
