"""Play the games of a match as Ray tasks, across the workers of a Ray cluster.

One task per game: the worker builds the game's env and agents itself, through the match's
agent factory (a module-level function such as :func:`cluegym.agents.make_agent` travels by
reference and must be importable on every node; a closure travels by value), and returns the
row the local runner would write for that game (:func:`play_match_game_until_stopped`, the
local runner's game ended early when the run is stopped); the driver writes rows as they arrive.
:func:`cluegym.harness.run_match` with ``ray_address`` uses this, so resume, errored games and
the summary work as in a local run, and the records are the same byte for byte.

Every node needs cluegym and the model packages its agents load (``scripts/setup.sh``);
nothing is shipped to the workers and nothing is fetched from a model hub. Agents registered
at run time with :func:`cluegym.agents.register_agent` exist only in the driver: declare
plug-in agents as entry points so that workers find them too. Agents that learn across games
through a file (CoMet's ``experience=``) use the file of the node where each game runs.

Ray is an optional dependency (``pip install 'cluegym[rllib]'``).

Example:
    >>> from cluegym.agents import run_match
    >>> summary = run_match("decrypto", {"*": "glove"}, games=64, ray_address="auto",  # doctest: +SKIP
    ...                     results_path="games.jsonl")
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any, Callable

from cluegym.harness.agent_protocol import AgentFactory
from cluegym.harness.match_game import play_match_game
from cluegym.harness.results import error_text, game_row

__all__ = ["GAME_TASK_RETRIES", "RAY_INSTALL", "STOP_POLL_S", "WAIT_S", "RayNotInstalledError", "StopSignal",
           "check_ray_address", "connect_ray", "import_ray", "play_games_on_ray", "play_match_game_until_stopped"]

#: The install line named when Ray is missing.
RAY_INSTALL = "pip install 'cluegym[rllib]'"
#: Times Ray reruns a game whose worker died (out of memory, node lost) before it is logged as
#: errored; a rerun plays the same game (same seeds), so a retried game's row is unchanged.
GAME_TASK_RETRIES = 2
#: Seconds between checks for finished games (a Ctrl-C is seen within this).
WAIT_S = 0.5
#: Seconds between a running game's checks of its run's stop signal (while the game awaits
#: its agents, e.g. an LLM's reply).
STOP_POLL_S = 1.0


class StopSignal:
    """The stop flag of one Ray run, held by a Ray actor: the driver raises it when the run
    is stopped, and each game in flight sees it at its next check and ends (its agents'
    awaits, LLM requests included, are cancelled; no row is written: a rerun plays it)."""

    def __init__(self) -> None:
        self._raised = False

    def raise_flag(self) -> None:
        self._raised = True

    def raised(self) -> bool:
        return self._raised


def play_match_game_until_stopped(stop: Any, game: str, seats: dict[str, str], index: int,
                                  **game_args: Any) -> tuple[dict[str, Any], str] | None:
    """A Ray task's game: :func:`~cluegym.harness.match_game.play_match_game`, ended early
    (None) once the run's :class:`StopSignal` actor ``stop`` is raised, checked every
    :data:`STOP_POLL_S` seconds while the game awaits its agents (``stop`` None: no checks).
    A signal that cannot be read (its actor lost with a node) lets the game play on.

    Args:
        game_args: ``seed``, ``env_kwargs``, ``signature`` and ``make_agent``, as
            :func:`~cluegym.harness.match_game.play_match_game` takes them.

    Example:
        >>> from cluegym.agents import make_agent
        >>> seats = {"alice": "random", "bob": "random", "eve": "random"}
        >>> signature = {"game": "decrypto", "seats": seats, "seed": 0, "env": {}}
        >>> row, line = play_match_game_until_stopped(None, "decrypto", seats, 3, seed=0, env_kwargs={},
        ...                                           signature=signature, make_agent=make_agent)
        >>> row["index"], row["record"]["result"]["winner"], row["record"]["returns"]
        (3, 'interceptor', {'alice': -1.0, 'bob': -1.0, 'eve': 1.0})
    """

    async def stopped() -> bool:
        try:
            return bool(await stop.raised.remote())
        except Exception:  # noqa: BLE001 - an unreadable signal is not a stop
            return False

    return play_match_game(game, seats, index, **game_args, stopped=None if stop is None else stopped,
                           poll_s=STOP_POLL_S)


class RayNotInstalledError(ModuleNotFoundError):
    """Ray is not installed; the message names the install line (:data:`RAY_INSTALL`)."""


def import_ray() -> ModuleType:
    """The ``ray`` module.

    Raises:
        RayNotInstalledError: one line naming ``pip install 'cluegym[rllib]'``.
    """
    try:
        import ray  # optional dependency (cluegym[rllib]): needed by distributed runs only
    except ImportError as exc:
        raise RayNotInstalledError(f"playing games on Ray needs Ray, which is not installed: {RAY_INSTALL}",
                                   name="ray") from exc
    return ray


def check_ray_address(address: str) -> None:
    """Fail now, before models load or games run, on an empty address or a missing Ray.

    Raises:
        ValueError: an empty address.
        RayNotInstalledError: Ray is missing.

    Example:
        >>> check_ray_address(" ")
        Traceback (most recent call last):
        ValueError: ray_address must be HOST:PORT, 'auto' or 'local', got ' '
    """
    if not isinstance(address, str) or not address.strip():
        raise ValueError(f"ray_address must be HOST:PORT, 'auto' or 'local', got {address!r}")
    import_ray()


def connect_ray(address: str) -> bool:
    """Connect this process to the Ray cluster at ``address``, unless it is connected already.

    Args:
        address: ``"HOST:PORT"`` of a head node, ``"auto"`` (the cluster that ``ray start``
            started on this machine), or ``"local"``: a new single-node Ray in this process,
            with this machine's CPUs, without dashboard or usage reports (Ray's own token
            authentication applies, so other machines cannot submit work to it).

    Returns:
        True when this call connected (the caller calls ``ray.shutdown()`` when done); False
        when the process was connected already (that connection is kept, whatever ``address``).

    Raises:
        RayNotInstalledError: Ray is missing.
        ConnectionError: no Ray cluster answers at ``address``.
        ValueError: an empty or malformed address.
    """
    check_ray_address(address)
    ray = import_ray()
    if ray.is_initialized():
        return False
    address = address.strip()
    if address == "local":
        # Ray reads its usage-report switch from the environment; a cluster started here for
        # one match reports nothing (a user who wants reports sets the variable to 1). Ray
        # 2.60 advertises the machine's own address even when asked for loopback.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1")
    else:
        ray.init(address=address)
    return True


def play_games_on_ray(
    address: str,
    indices: list[int],
    *,
    game: str,
    seats: dict[str, str],
    seed: int,
    env_kwargs: dict[str, Any],
    signature: dict[str, Any],
    make_agent: AgentFactory,
    on_row: Callable[[int, dict[str, Any], str], None],
) -> None:
    """Play games ``indices`` of a match as Ray tasks; hand each game's row to ``on_row`` as it finishes.

    The games run on as many workers as the cluster gives (one CPU each); at most two games
    per cluster CPU (counted when the run starts) are submitted at a time, one running and one
    ready to start, the next one as a game comes back. A game whose task fails outside the
    game (its worker died :data:`GAME_TASK_RETRIES` + 1 times, cluegym is missing on a node)
    gets an errored row saying why, which a rerun replays. When ``on_row`` raises or the run is stopped (Ctrl-C),
    no further game is submitted and the games already submitted end without a row (a rerun
    plays them): they stop with this call's Ray connection when it opened one (the ``cluegym``
    command always does), and otherwise at their next check of the run's
    :class:`StopSignal` (within :data:`STOP_POLL_S` of an await: an LLM agent's request is
    cancelled; a game whose agents never await plays to its end, unrecorded). They are not
    ``ray.cancel``-ed: in Ray 2.60 a cancel that races a finishing task aborts the driver
    (``Check failed: it != submissible_tasks_.end()``, ray-project/ray#54846).

    Args:
        address: the Ray cluster (see :func:`connect_ray`).
        indices: the game indices to play.
        game: registered game name.
        seats: seat -> agent spec, every seat filled.
        seed: the match seed.
        env_kwargs: game options.
        signature: the match signature written in every row.
        make_agent: the agent factory; picklable and importable on every node.
        on_row: called in this process with ``(index, row, line)`` of each finished game.
    """
    ray = import_ray()
    connected = connect_ray(address)
    try:
        play_game_task = ray.remote(max_retries=GAME_TASK_RETRIES)(play_match_game_until_stopped)
        # A stop signal only where a stop leaves games running: on a connection the caller
        # keeps (one this call opened ends with it, and its games). It lives while a handle
        # does: this function's, and those of the tasks in flight.
        stop = None if connected else ray.remote(num_cpus=0)(StopSignal).remote()
        window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        waiting = list(reversed(indices))  # popped from the end: games start in index order
        pending: dict[Any, int] = {}
        try:
            while waiting or pending:
                while waiting and len(pending) < window:
                    index = waiting.pop()
                    ref = play_game_task.remote(stop, game, seats, index, seed=seed, env_kwargs=env_kwargs,
                                                signature=signature, make_agent=make_agent)
                    pending[ref] = index
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=WAIT_S)
                for ref in ready:
                    index = pending.pop(ref)
                    row, line = _task_row(ray, ref, signature, index)
                    on_row(index, row, line)
        finally:
            if pending and stop is not None:
                # Stopped on a connection the caller keeps: tell the games in flight.
                try:
                    ray.get(stop.raise_flag.remote(), timeout=10)
                except Exception:  # noqa: BLE001 - the stop itself must not fail on its signal
                    pass
    finally:
        if connected:
            ray.shutdown()


def _task_row(ray: ModuleType, ref: Any, signature: dict[str, Any], index: int) -> tuple[dict[str, Any], str]:
    """The row a finished task returned, or an errored row when the task itself failed."""
    try:
        result = ray.get(ref)
        if result is None:  # ended by the run's stop signal (raised only once the run stops)
            return game_row(signature, index, {}, error="the game was stopped with its run")
        return result
    except ray.exceptions.RayError as exc:
        # A task error wraps the worker's exception (e.g. cluegym missing on a node): name that one.
        cause = getattr(exc, "cause", None)
        reason = error_text(cause if isinstance(cause, BaseException) else exc)
        return game_row(signature, index, {}, error=f"Ray task failed: {reason}")
