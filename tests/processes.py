"""Helpers for tests that start real processes: servers (Ray) on 127.0.0.1, runs to interrupt."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def interrupted_run(command: list[str], results: Path, rows: int, timeout: float = 30) -> tuple[int, str]:
    """Start ``command`` (a run writing ``results``) with Ctrl-C's default handler (a
    background job inherits SIGINT ignored), send it SIGINT once ``results`` holds ``rows``
    lines, and return its exit code and stderr; a run that does not stop within ``timeout``
    seconds is killed and fails the test."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if results.exists() and results.read_bytes().count(b"\n") >= rows:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err


def wait_for_line(process: subprocess.Popen, text: str, timeout: float) -> None:
    """Wait until ``process`` prints a line holding ``text``; fail with its output so far. A
    thread reads the output to its end, so the process never blocks on a full pipe."""
    seen: list[str] = []
    found = threading.Event()

    def read() -> None:
        for line in process.stdout:
            seen.append(line)
            if text in line:
                found.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not found.wait(0.5):
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no {text!r} from {process.args[0]} within {timeout}s:\n{''.join(seen)[-3000:]}")


@contextlib.contextmanager
def ray_on_loopback(num_cpus: int = 2) -> Iterator[Any]:
    """An in-process Ray of this machine (loopback, no dashboard) for a block of tests."""
    ray = pytest.importorskip("ray")
    with pytest.MonkeyPatch.context() as patch:
        # Ray switches token mode on for a new local cluster by setting RAY_AUTH_MODE in the
        # environment; undone after the block (setenv first records the variable's state).
        patch.setenv("RAY_AUTH_MODE", "token")
        patch.delenv("RAY_AUTH_MODE")
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, _node_ip_address="127.0.0.1")
        try:
            yield ray
        finally:
            ray.shutdown()
