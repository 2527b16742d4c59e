"""The host line every throughput benchmark prints: the CPU, the cores, a calibration."""

import json

import pytest

from cluegym.benchmarks import host as host_module
from cluegym.benchmarks.host import CALIBRATION_CHECKSUM, Host, calibration_workload, describe_host


def test_calibration_does_the_same_work_every_time():
    assert calibration_workload() == calibration_workload() == CALIBRATION_CHECKSUM
    assert calibration_workload(10) != CALIBRATION_CHECKSUM  # the checksum follows the work


def test_describe_host_times_the_workload_and_names_the_machine():
    host = describe_host(repeats=3)
    assert host.cores >= 1 and host.calibration_us > 0 and host.cpu and host.python.split()[1][0].isdigit()
    line = host.line()
    assert line.startswith(f"host: {host.cpu}, {host.cores} CPUs, ") and "calibration" in line
    assert json.loads(json.dumps(host.as_dict())) == host.as_dict()
    with pytest.raises(ValueError, match="repeats"):
        describe_host(repeats=0)


def test_a_workload_that_does_other_work_is_refused(monkeypatch):
    monkeypatch.setattr(host_module, "calibration_workload", lambda: 7)
    with pytest.raises(RuntimeError, match="checksum 7"):
        describe_host(repeats=1)


def test_line_format():
    assert Host("X (family 1, model 2)", 4, "CPython 3.11.7", 1234.4).line() == (
        "host: X (family 1, model 2), 4 CPUs, CPython 3.11.7; calibration 1234 us (lower: faster host)")


def test_line_names_the_interpreter_file_when_known():
    host = Host("X", 2, "CPython 3.11.2", 1171.0, "/usr/bin/python3.11")
    assert host.line() == "host: X, 2 CPUs, CPython 3.11.2 (/usr/bin/python3.11); calibration 1171 us (lower: faster host)"
    assert host.as_dict()["interpreter"] == "/usr/bin/python3.11"


def test_the_host_carries_the_build_its_figures_came_from():
    # A build that lost its profile-guided optimization or runs an edited module as Python
    # reads 10-20% slow: each throughput benchmark prints the build's line under the host's.
    from cluegym.compiled import build_summary

    host = describe_host(repeats=1)
    assert host.build == build_summary() and host.build.startswith("build: ")
    assert host.lines() == f"{host.line()}\n{host.build}" and host.as_dict()["build"] == host.build
    assert describe_host(repeats=1, build=False).build == ""
    assert Host("X", 2, "CPython 3.11.2", 1171.0).lines() == Host("X", 2, "CPython 3.11.2", 1171.0).line()


def test_describe_host_names_this_interpreter_resolved():
    import os
    import sys

    interpreter = describe_host(repeats=1).interpreter
    assert os.path.isfile(interpreter) and interpreter == os.path.realpath(interpreter)
    # in a venv, the base interpreter: the file whose build decides the speed
    assert os.path.samefile(interpreter, getattr(sys, "_base_executable", sys.executable))


def test_run_as_a_script_it_prints_the_calibration_for_setup_sh():
    """scripts/setup.sh compares interpreters by `python -I benchmarks/host.py --probe` before
    anything is installed: the file must run alone, on the standard library."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(host_module.__file__).with_suffix(".py")
    out = subprocess.run([sys.executable, "-I", str(script), "--probe"], capture_output=True, text=True,
                         check=True).stdout
    calibration, interpreter = out.strip().split(" ", 1)
    assert calibration.isdigit() and int(calibration) > 0
    assert interpreter == describe_host(repeats=1).interpreter  # a venv's base interpreter, resolved
    line = subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True, check=True).stdout
    assert line.startswith("host: ") and "calibration" in line
    wrong = subprocess.run([sys.executable, "-I", str(script), "--fast"], capture_output=True, text=True)
    assert wrong.returncode != 0 and "usage" in wrong.stderr
