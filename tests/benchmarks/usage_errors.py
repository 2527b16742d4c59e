"""What the benchmark commands' argument tests share: a command refused with argparse's
one-line usage error (exit 2), before any of its work ran."""

from __future__ import annotations

from typing import Any, Callable

import pytest


def no_work(*args: Any, **kwargs: Any) -> Any:
    """Patched over a command's work (its games, server, training): reaching it fails the test."""
    raise AssertionError("the work started before the arguments were checked")


def refused(main: Callable[[list[str]], Any], argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> str:
    """``main(argv)`` exits 2 with ``message`` in its last (error) line and no traceback; the line."""
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert "error: " in last and message in last, err
    return last
