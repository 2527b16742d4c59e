"""The machine a benchmark ran on: its CPU, its cores, the Python, and a calibration figure.

Throughput figures move with the host far more than with run-to-run noise: on a 2 GHz Zen 1
EPYC (the twenty-second pass's host) every env ran 2.7-4.0x slower than on the host of the
earlier passes, and TextArena's Taboo-v0 2.4x slower, so even the ratios to the peer moved.
Each throughput benchmark prints this line above its table (and writes it into its JSON),
so that figures from two runs can be told apart by their hosts before they are compared.

The calibration is the best of a few timings of one fixed pure-Python workload (dict and
attribute lookups, small tuples and lists, string joins: the interpreter work the envs'
steps are made of); lower is a faster host. It measures the host, not cluegym: two runs
whose calibrations differ by more than a few percent ran on different machines (or one of
them on a busy one). It moves with the interpreter's build as much as with the CPU: on the
same host, Debian's CPython 3.11 (a profile-guided build) runs it in 1,052-1,215 us and a
plain pyenv build of 3.11.7 in 1,912-1,983 (docs/performance.md, "Twenty-ninth pass"), so the
line names the interpreter's file too. ``scripts/setup.sh`` runs this module as a script
(``python -I benchmarks/host.py --probe``: the calibration and the interpreter's file) to
choose the interpreter of a new ``.venv``.

Example:
    >>> host = describe_host(repeats=1)
    >>> host.cores >= 1 and host.calibration_us > 0
    True
"""

from __future__ import annotations

import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Host", "describe_host", "calibration_workload", "CALIBRATION_CHECKSUM"]


class _Seat:
    __slots__ = ("name", "score")

    def __init__(self, name: str) -> None:
        self.name = name
        self.score = 0


def calibration_workload(rounds: int = 2_000) -> int:
    """The fixed pure-Python work that :func:`describe_host` times; returns a checksum
    (:data:`CALIBRATION_CHECKSUM` for the default ``rounds``), so that the work is done and
    the same on every host.

    Example:
        >>> calibration_workload() == CALIBRATION_CHECKSUM
        True
    """
    seats = [_Seat(f"player_{i}") for i in range(5)]
    table: dict[str, int] = {}
    lines: list[str] = []
    checksum = 0
    for step in range(rounds):
        seat = seats[step % 5]
        seat.score += step & 7
        key = seat.name
        table[key] = table.get(key, 0) + seat.score
        row = (step, key, seat.score)
        lines.append(" ".join((key, "said", str(row[2]))))
        if len(lines) > 16:
            checksum += len("\n".join(lines))
            lines = []
    return checksum + sum(table.values())


#: :func:`calibration_workload`'s checksum for its default rounds.
CALIBRATION_CHECKSUM = 1_437_493


@dataclass(frozen=True)
class Host:
    """The machine a benchmark ran on (see the module docstring).

    Attributes:
        cpu: the CPU's model name, with its family and model numbers where the OS gives them
            (``AMD EPYC (family 23, model 1)``).
        cores: the logical CPUs this process may run on.
        python: the Python implementation and version.
        calibration_us: microseconds of :func:`calibration_workload`, best of the repeats.
        interpreter: the interpreter's file, links resolved (a venv's base interpreter's): two
            builds of one version can differ by 1.7x ("" when unknown).
        build: cluegym's compiled build (:func:`cluegym.compiled.build_summary`): a build
            that lost its profile-guided optimization for a changed module, or runs an edited
            one as Python, reads 10-20% slow ("" when not asked or cluegym is not installed).
    """

    cpu: str
    cores: int
    python: str
    calibration_us: float
    interpreter: str = ""
    build: str = ""

    def line(self) -> str:
        """One line for a benchmark's output.

        Example:
            >>> Host("AMD EPYC (family 23, model 1)", 2, "CPython 3.11.2", 1171.0, "/usr/bin/python3.11").line()
            'host: AMD EPYC (family 23, model 1), 2 CPUs, CPython 3.11.2 (/usr/bin/python3.11); calibration 1171 us (lower: faster host)'
        """
        python = f"{self.python} ({self.interpreter})" if self.interpreter else self.python
        return f"host: {self.cpu}, {self.cores} CPUs, {python}; calibration {self.calibration_us:.0f} us (lower: faster host)"

    def lines(self) -> str:
        """:meth:`line`, and the build's line under it where there is one: what a benchmark
        prints above its table.

        Example:
            >>> print(Host("AMD EPYC", 2, "CPython 3.11.2", 1171.0, build="build: 44 modules compiled, plain").lines())
            host: AMD EPYC, 2 CPUs, CPython 3.11.2; calibration 1171 us (lower: faster host)
            build: 44 modules compiled, plain
        """
        return f"{self.line()}\n{self.build}" if self.build else self.line()

    def as_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return asdict(self)


def _cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, else ``platform.processor()``)."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if not line.strip():
                    break  # the first processor's block is enough
                name, _, value = line.partition(":")
                fields.setdefault(name.strip(), value.strip())
    except OSError:
        pass
    model = fields.get("model name") or platform.processor() or platform.machine() or "unknown CPU"
    if "cpu family" in fields and "model" in fields:
        return f"{model} (family {fields['cpu family']}, model {fields['model']})"
    return model


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _interpreter() -> str:
    """The running interpreter's file, links resolved; in a venv, its base interpreter's."""
    path = getattr(sys, "_base_executable", "") or sys.executable
    return os.path.realpath(path) if path else ""


def describe_host(repeats: int = 20, build: bool = True) -> Host:
    """The :class:`Host` this process runs on, its calibration timed ``repeats`` times;
    ``build``: with cluegym's build (:attr:`Host.build`).

    Raises:
        ValueError: ``repeats`` below 1.
        RuntimeError: the workload's checksum is not :data:`CALIBRATION_CHECKSUM`.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        checksum = calibration_workload()
        best = min(best, time.perf_counter() - start)
        if checksum != CALIBRATION_CHECKSUM:
            raise RuntimeError(f"calibration checksum {checksum}, expected {CALIBRATION_CHECKSUM}")
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return Host(_cpu_name(), _cores(), python, best * 1e6, _interpreter(), _build() if build else "")


def _build() -> str:
    """:func:`cluegym.compiled.build_summary`, or "" where cluegym is not importable (this
    module runs as a script before it is installed)."""
    try:
        from cluegym.compiled import build_summary  # noqa: PLC0415 - see the docstring
    except ImportError:
        return ""
    return build_summary()


def main(argv: list[str] | None = None) -> None:
    """Print the host line, or with ``--probe`` the calibration in whole microseconds and the
    interpreter's file, on one line (what ``scripts/setup.sh`` compares interpreters by; stdlib
    only, so any Python 3 runs it before cluegym is installed)."""
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--probe"]):
        raise SystemExit("usage: python benchmarks/host.py [--probe]")
    host = describe_host(build=not args)
    print(f"{round(host.calibration_us)} {host.interpreter}" if args else host.lines())


if __name__ == "__main__":
    main()
