"""Undercover rules (the CoMet setup), as pure Python.

N players get a word from a pair of similar words (``bee`` / ``butterfly``): the civilians
(the majority) share one word, the undercover players (the minority) the other. Nobody is told
their role, not even about themselves. Each round every living player describes their word in
one sentence, in a freshly shuffled order, without saying it; then everyone votes at once for
another living player. The player with the most votes is eliminated; a tie eliminates nobody.
Civilians win when every undercover player is out; the undercover win when a single civilian
is left. After ``max_rounds`` rounds the game ends with ``timeout_winner`` (CoMet's code: the
civilians).

Players may attach *beliefs* to any action (who they think they are, who the others are,
what the other word is). They are recorded for the CoMet identity metrics and never change
the game.

Example:
    >>> rules = UndercoverRules(UndercoverConfig())
    >>> state = rules.new_game(np.random.default_rng(0), pairs=[("bee", "butterfly")])
    >>> rules.speak(state, rules.to_move(state), "It makes a buzzing sound.")
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.text import describe, to_charset, type_name
from cluegym.envs.core.matching import is_same_word_guess, require_wordnet, says_word

CIVILIAN, UNDERCOVER = "civilian", "undercover"
ROLES: tuple[str, str] = (CIVILIAN, UNDERCOVER)
#: Team names used for winners (``winner`` is one of these, or None for a draw).
TEAMS: dict[str, str] = {CIVILIAN: "civilians", UNDERCOVER: "undercover"}
#: The description applied after too many invalid ones (the fallback): it says nothing.
SILENCE = "(silence)"
#: Relative labels a player may use for another player in its beliefs.
_RELATIVE = {"teammate": True, "same": True, "ally": True, "opponent": False, "different": False, "enemy": False}
_UNDECIDED = {"undecided", "unknown", "unsure", ""}


@dataclass(frozen=True)
class UndercoverConfig:
    """Game options. Defaults are CoMet's (5 players, 2 undercover, 10 rounds).

    Attributes:
        num_players: players N (>= 3).
        num_undercover: undercover players, 1..N/2 (they are the minority or a tie).
        max_rounds: rounds before the game ends on timeout.
        timeout_winner: who wins at timeout: ``"civilians"`` (CoMet's code), ``"undercover"``
            or ``"none"`` (a draw, rewards 0).
        max_description_chars: longest description accepted.
        max_description_words: most words in a description (one sentence).
        strict_word_check: also reject descriptions containing the word inside another word
            (``beehive`` for ``bee``) or one word of a multi-word word (``otter`` for ``sea
            otter``); by default only the word and its derivatives are rejected.
    """

    num_players: int = 5
    num_undercover: int = 2
    max_rounds: int = 10
    timeout_winner: str = "civilians"
    max_description_chars: int = 200
    max_description_words: int = 40
    strict_word_check: bool = False

    def __post_init__(self) -> None:
        if self.num_players < 3:
            raise ValueError(f"num_players must be >= 3, got {self.num_players}")
        if not 1 <= self.num_undercover <= self.num_players // 2:
            raise ValueError(
                f"num_undercover must be in 1..{self.num_players // 2} for {self.num_players} players "
                f"(the undercover are the minority), got {self.num_undercover}"
            )
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be >= 1, got {self.max_rounds}")
        if self.timeout_winner not in ("civilians", "undercover", "none"):
            raise ValueError(f"timeout_winner must be 'civilians', 'undercover' or 'none', got {self.timeout_winner!r}")
        if self.max_description_chars < 10 or self.max_description_words < 1:
            raise ValueError("max_description_chars must be >= 10 and max_description_words >= 1")

    @property
    def num_civilians(self) -> int:
        return self.num_players - self.num_undercover


@dataclass
class RoundRecord:
    """One finished round: who spoke in what order and said what, the votes, the outcome."""

    round: int
    order: tuple[int, ...]
    descriptions: dict[int, str]
    votes: dict[int, int | None]  # voter -> target (None: no valid vote, the fallback)
    eliminated: int | None  # None: a tie (or no votes), nobody is eliminated

    def tally(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for target in self.votes.values():
            if target is not None:
                counts[target] = counts.get(target, 0) + 1
        return dict(sorted(counts.items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round, "order": list(self.order),
            "descriptions": {seat_name(p): d for p, d in self.descriptions.items()},
            "votes": {seat_name(v): (None if t is None else seat_name(t)) for v, t in self.votes.items()},
            "tally": {seat_name(p): n for p, n in self.tally().items()},
            "eliminated": None if self.eliminated is None else seat_name(self.eliminated),
        }


@dataclass
class UndercoverState:
    """Everything about one game. ``phase`` is ``"speak"``, ``"vote"`` or ``"over"``."""

    civilian_word: str
    undercover_word: str
    roles: tuple[str, ...]
    alive: list[bool]
    order: tuple[int, ...]
    round: int = 0
    phase: str = "speak"
    descriptions: dict[int, str] = field(default_factory=dict)
    votes: dict[int, int | None] = field(default_factory=dict)  # this round's, hidden until all voted
    history: list[RoundRecord] = field(default_factory=list)
    eliminated_round: dict[int, int] = field(default_factory=dict)
    winner: str | None = None  # "civilians", "undercover", or None (draw / running)
    end_reason: str | None = None  # "undercover_eliminated", "one_civilian_left", "timeout"
    beliefs: list[dict[str, Any]] = field(default_factory=list)

    def word_of(self, player: int) -> str:
        return self.civilian_word if self.roles[player] == CIVILIAN else self.undercover_word

    def living(self) -> list[int]:
        return [p for p, a in enumerate(self.alive) if a]

    def count_alive(self, role: str) -> int:
        return sum(1 for p in self.living() if self.roles[p] == role)

    @property
    def speaker(self) -> int | None:
        """Who speaks next this round, or None when everyone has spoken."""
        for p in self.order:
            if p not in self.descriptions:
                return p
        return None


class UndercoverRules:
    """The transitions of Undercover. All randomness comes from the generator passed in.

    Args:
        config: the game options.

    Raises:
        WordNetMissingError: Debian's WordNet database (the word judge's data) is missing.
    """

    def __init__(self, config: UndercoverConfig | None = None) -> None:
        require_wordnet()  # the word judge needs WordNet: fail before play, not mid-game
        self.config = config or UndercoverConfig()

    # ----------------------------------------------------------------- setup
    def new_game(
        self,
        rng: np.random.Generator,
        pairs: Sequence[Sequence[str]] | None = None,
        *,
        words: Sequence[str] | None = None,
        undercover: Sequence[int] | None = None,
    ) -> UndercoverState:
        """Deal a game: a pair from ``pairs`` (which word is the undercover one is drawn at
        random), the undercover seats, and round 1's speaking order.

        Args:
            rng: the game's generator.
            pairs: word pairs to draw from.
            words: fix the words instead: ``(civilian_word, undercover_word)``.
            undercover: fix the undercover seats (indices) instead of drawing them.
        """
        cfg = self.config
        if words is None:
            if not pairs:
                raise ValueError("need at least one word pair")
            pair = [str(w).strip().lower() for w in pairs[int(rng.integers(len(pairs)))]]
            if int(rng.integers(2)):
                pair.reverse()
            words = pair
        civilian_word, undercover_word = (to_charset(str(w)).strip().lower() for w in words)
        if not civilian_word or not undercover_word or civilian_word == undercover_word:
            raise ValueError(f"need two different non-empty words, got {list(words)}")
        if undercover is None:
            undercover = [int(i) for i in rng.choice(cfg.num_players, size=cfg.num_undercover, replace=False)]
        undercover = sorted({int(i) for i in undercover})
        if len(undercover) != cfg.num_undercover or not all(0 <= i < cfg.num_players for i in undercover):
            raise ValueError(
                f"need {cfg.num_undercover} distinct undercover seats in 0..{cfg.num_players - 1}, got {undercover}"
            )
        roles = tuple(UNDERCOVER if p in undercover else CIVILIAN for p in range(cfg.num_players))
        state = UndercoverState(
            civilian_word=civilian_word, undercover_word=undercover_word, roles=roles,
            alive=[True] * cfg.num_players, order=(),
        )
        state.order = self._shuffled_order(state, rng)
        return state

    @staticmethod
    def _shuffled_order(state: UndercoverState, rng: np.random.Generator) -> tuple[int, ...]:
        living = state.living()
        return tuple(living[int(i)] for i in rng.permutation(len(living)))

    # ------------------------------------------------------------ validation
    def normalize_description(self, text: str) -> str:
        """``text`` in the shared charset with whitespace collapsed to single spaces."""
        return " ".join(to_charset(text).split())

    def description_error(self, state: UndercoverState, player: int, text: object) -> str | None:
        """Why ``text`` is not a valid description for ``player``, or None if it is.

        A description is a non-empty string of at most ``max_description_chars`` characters
        and ``max_description_words`` words that does not say the player's own word or a
        derivative of it (plural, -ing, -ed, same stem; see :mod:`cluegym.envs.core.matching`).
        """
        cfg = self.config
        if not isinstance(text, str):
            return f"a description must be a string, got {type_name(text)}"
        clean = self.normalize_description(text)
        if not clean:
            return "a description must not be empty"
        if len(clean) > cfg.max_description_chars:
            return f"the description is longer than {cfg.max_description_chars} characters"
        if len(clean.split()) > cfg.max_description_words:
            return f"the description has more than {cfg.max_description_words} words; use one sentence"
        word = state.word_of(player)
        if says_word(clean, word, strict=cfg.strict_word_check):
            return f"the description says your own word {word!r} (or a form of it); describe it without saying it"
        return None

    def vote_error(self, state: UndercoverState, voter: int, target: object) -> str | None:
        """Why ``target`` is not a valid vote for ``voter``, or None: it must name another living player."""
        if isinstance(target, (bool, np.bool_)) or not isinstance(target, (int, np.integer)):
            return f"a vote must be a player index in 0..{self.config.num_players - 1}, got {describe(target)}"
        target = int(target)
        if not 0 <= target < self.config.num_players:
            return f"vote {target} is out of range 0..{self.config.num_players - 1}"
        if target == voter:
            return "you cannot vote for yourself"
        if not state.alive[target]:
            return f"{seat_name(target)} is already eliminated"
        return None

    def vote_mask(self, state: UndercoverState, voter: int) -> np.ndarray:
        """1 for the players ``voter`` may vote for (the other living players)."""
        mask = np.array(state.alive, dtype=np.int8)
        mask[voter] = 0
        return mask

    # ----------------------------------------------------------- transitions
    def speak(self, state: UndercoverState, player: int, text: str) -> None:
        """``player``'s description (already validated, or the fallback)."""
        if state.phase != "speak" or player != state.speaker:
            raise RuntimeError(f"{seat_name(player)} cannot speak now (phase {state.phase!r})")
        state.descriptions[player] = self.normalize_description(text) or SILENCE
        if state.speaker is None:
            state.phase = "vote"

    def next_voter(self, state: UndercoverState) -> int | None:
        """The next living player (in seat order) who has not voted this round."""
        for p in state.living():
            if p not in state.votes:
                return p
        return None

    def vote(self, state: UndercoverState, voter: int, target: int | None) -> None:
        """Record ``voter``'s vote (None: no valid vote, the fallback). Votes stay hidden
        until :meth:`resolve_votes`."""
        if state.phase != "vote" or voter != self.next_voter(state):
            raise RuntimeError(f"{seat_name(voter)} cannot vote now (phase {state.phase!r})")
        if target is not None and self.vote_error(state, voter, target) is not None:
            raise ValueError(self.vote_error(state, voter, target))
        state.votes[voter] = None if target is None else int(target)

    def resolve_votes(self, state: UndercoverState, rng: np.random.Generator) -> RoundRecord:
        """Count the votes, eliminate the single most-voted player (nobody on a tie), decide
        the winner, or start the next round with a new speaking order."""
        record = RoundRecord(
            round=state.round, order=state.order, descriptions=dict(state.descriptions), votes=dict(state.votes),
            eliminated=None,
        )
        tally = record.tally()
        if tally:
            top = max(tally.values())
            leaders = [p for p, n in tally.items() if n == top]
            if len(leaders) == 1:
                record.eliminated = leaders[0]
                state.alive[leaders[0]] = False
                state.eliminated_round[leaders[0]] = state.round
        state.history.append(record)
        if state.count_alive(UNDERCOVER) == 0:
            state.winner, state.end_reason = "civilians", "undercover_eliminated"
        elif state.count_alive(CIVILIAN) <= 1:
            state.winner, state.end_reason = "undercover", "one_civilian_left"
        elif state.round + 1 >= self.config.max_rounds:
            timeout = self.config.timeout_winner
            state.winner, state.end_reason = (None if timeout == "none" else timeout), "timeout"
        state.round += 1
        state.descriptions, state.votes = {}, {}
        if state.end_reason is not None:
            state.phase, state.order = "over", ()
        else:
            state.phase = "speak"
            state.order = self._shuffled_order(state, rng)
        return record

    def to_move(self, state: UndercoverState) -> int | None:
        """The player to act: the next speaker, else the next voter; None when over."""
        if state.phase == "speak":
            return state.speaker
        if state.phase == "vote":
            return self.next_voter(state)
        return None

    # --------------------------------------------------------------- beliefs
    def record_beliefs(self, state: UndercoverState, player: int, beliefs: dict[str, Any]) -> dict[str, Any]:
        """Score and store a belief report (it never affects the game). Returns the entry."""
        entry: dict[str, Any] = {
            "player": seat_name(player), "round": state.round, "phase": state.phase,
            "role": state.roles[player], "beliefs": beliefs,
        }
        claimed = beliefs.get("self")
        if claimed is not None:
            entry["self_correct"] = claimed == state.roles[player]
        judged = correct = 0
        for other, label in (beliefs.get("others") or {}).items():
            index = int(other)
            if index == player or not 0 <= index < self.config.num_players:
                continue
            judged += 1
            if label in _RELATIVE:
                correct += (state.roles[index] == state.roles[player]) == _RELATIVE[label]
            else:
                correct += label == state.roles[index]
        if judged:
            entry["others_judged"], entry["others_correct"] = judged, correct
        other_word = beliefs.get("other_word")
        if other_word:
            true_other = state.undercover_word if state.roles[player] == CIVILIAN else state.civilian_word
            entry["other_word_correct"] = is_same_word_guess(str(other_word), true_other)
        state.beliefs.append(entry)
        return entry

    # --------------------------------------------------------------- results
    def rewards(self, state: UndercoverState) -> dict[str, float]:
        """+1 to every player of the winning team (eliminated or not), -1 to the losers,
        0 to all on a draw or while the game runs."""
        if state.winner is None:
            return {seat_name(p): 0.0 for p in range(self.config.num_players)}
        return {
            seat_name(p): 1.0 if TEAMS[role] == state.winner else -1.0 for p, role in enumerate(state.roles)
        }

    def result(self, state: UndercoverState) -> dict[str, Any]:
        """The outcome of a finished game, for :func:`metrics`."""
        return {
            "winner": state.winner,
            "end_reason": state.end_reason,
            "rounds": len(state.history),
            "words": {CIVILIAN: state.civilian_word, UNDERCOVER: state.undercover_word},
            "roles": {seat_name(p): r for p, r in enumerate(state.roles)},
            "eliminated": [
                {"player": seat_name(r.eliminated), "round": r.round, "role": state.roles[r.eliminated]}
                for r in state.history if r.eliminated is not None
            ],
            "ties": sum(1 for r in state.history if r.eliminated is None),
            "survivors": [seat_name(p) for p in state.living()],
            "history": [r.as_dict() for r in state.history],
            "beliefs": list(state.beliefs),
        }


def parse_beliefs(text: object, num_players: int) -> tuple[dict[str, Any] | None, str | None]:
    """Read an optional belief report: JSON like
    ``{"self": "civilian", "others": {"player_1": "undercover", "3": "teammate"}, "other_word": "tiger"}``.

    ``self`` is ``"civilian"`` or ``"undercover"``; each of ``others`` is a role, a relative
    label (``"teammate"``/``"opponent"``) or ``"undecided"`` (which counts as a judgment that
    is not correct, as in CoMet's OIAA); ``other_word`` is the player's guess of the other
    team's word. Every key is optional. A dict is read like its JSON text.

    Never raises: any report that cannot be read (not JSON, nested too deep, a number too
    long to read, a value whose text cannot be taken) gives a reason instead.

    Returns:
        ``(beliefs, None)`` with players as integer-string keys, ``(None, None)`` for an empty
        report, or ``(None, reason)`` when it cannot be read (recorded, never rejected).
    """
    try:
        return _parse_beliefs(text, num_players)
    except (ValueError, RecursionError) as exc:
        return None, f"beliefs cannot be read ({type(exc).__name__})"
    except Exception as exc:  # noqa: BLE001 - a belief report never crashes the game
        return None, f"beliefs cannot be read ({type_name(exc)})"


def _label(value: object) -> str:
    """A belief label as lowercase text (only plain JSON scalars are read)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return to_charset(str(value)).strip().lower()
    raise ValueError(f"a label must be text, got {type_name(value)}")


def _parse_beliefs(text: object, num_players: int) -> tuple[dict[str, Any] | None, str | None]:
    if text is None or (isinstance(text, str) and not text.strip()):
        return None, None
    if isinstance(text, str):
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            return None, f"beliefs are not JSON ({exc.msg})"
    else:
        raw = text
    if not isinstance(raw, dict):
        return None, "beliefs must be a JSON object"
    out: dict[str, Any] = {}
    claimed = raw.get("self")
    if claimed is not None:
        claimed = _label(claimed)
        if claimed not in ROLES:
            return None, f"beliefs.self must be 'civilian' or 'undercover', got {describe(claimed)}"
        out["self"] = claimed
    others = raw.get("others")
    if others is not None:
        if not isinstance(others, dict):
            return None, "beliefs.others must map players to roles"
        parsed: dict[str, str] = {}
        for key, label in others.items():
            name = _label(key).removeprefix("player_").removeprefix("player ")
            if not (name.isascii() and name.isdigit() and len(name) <= 6) or not 0 <= int(name) < num_players:
                return None, f"beliefs.others names an unknown player {describe(key)}"
            label = _label(label)
            if label not in ROLES and label not in _RELATIVE and label not in _UNDECIDED:
                return None, f"beliefs.others[{describe(key)}] must be a role, 'teammate', 'opponent' or 'undecided'"
            parsed[str(int(name))] = "undecided" if label in _UNDECIDED else label
        out["others"] = parsed
    if raw.get("other_word") is not None:
        out["other_word"] = _label(raw["other_word"])[:60]
    return (out or None), None


def _balanced(a: float | None, b: float | None) -> float | None:
    """CoMet's balanced metric of two per-role values: their mean minus their variance."""
    if a is None or b is None:
        return None
    return float(np.mean([a, b]) - np.var([a, b]))


def _rate(hits: float, total: float) -> float | None:
    return float(hits / total) if total else None


def metrics(results: Sequence[dict]) -> dict[str, Any]:
    """CoMet's Undercover metrics over finished games' results (``record["result"]``).

    Returns:
        games; ``civilian_win_rate``, ``undercover_win_rate``, ``draw_rate`` (team level);
        ``balanced_win_rate`` = mean minus variance of the two teams' win rates (CoMet's
        balanced metric); per seat ``seat_win_rate_civilian``, ``seat_win_rate_undercover``
        and ``seat_balanced_win_rate`` (the seat's agent as either role; roles are dealt at
        random, so mixed matches compare agents); ``avg_rounds`` (game length) and its SEM;
        ``tie_rate`` (rounds without elimination); ``undercover_hit_rate`` (eliminations that
        removed an undercover player); ``end_*`` shares; where agents reported beliefs:
        ``self_identity_accuracy`` (SIAA), ``others_identity_accuracy`` (OIAA),
        ``other_word_accuracy``, each also per role and balanced; invalid actions,
        fallbacks and forfeits per game.
    """
    n = len(results)
    if n == 0:
        return {"games": 0}
    winners = [r["winner"] for r in results]
    civ = float(np.mean([w == "civilians" for w in winners]))
    und = float(np.mean([w == "undercover" for w in winners]))
    rounds = np.array([r["rounds"] for r in results], dtype=float)
    out: dict[str, Any] = {
        "games": n,
        "civilian_win_rate": civ,
        "undercover_win_rate": und,
        "draw_rate": float(np.mean([w is None for w in winners])),
        "balanced_win_rate": _balanced(civ, und),
        "avg_rounds": float(rounds.mean()),
        "avg_rounds_sem": float(rounds.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
    }
    for reason in ("undercover_eliminated", "one_civilian_left", "timeout"):
        out[f"end_{reason}"] = float(np.mean([r["end_reason"] == reason for r in results]))
    total_rounds = float(rounds.sum())
    out["tie_rate"] = float(sum(r.get("ties", 0) for r in results) / total_rounds) if total_rounds else 0.0
    eliminations = [e for r in results for e in r.get("eliminated", [])]
    out["undercover_hit_rate"] = _rate(sum(e["role"] == UNDERCOVER for e in eliminations), len(eliminations))

    seats = sorted({s for r in results for s in r["roles"]}, key=lambda s: int(s.rsplit("_", 1)[1]))
    per_role: dict[str, dict[str, float | None]] = {CIVILIAN: {}, UNDERCOVER: {}, "balanced": {}}
    for seat in seats:
        for role in ROLES:
            games = [r for r in results if r["roles"].get(seat) == role]
            wins = sum(r["winner"] == TEAMS[role] for r in games)
            per_role[role][seat] = _rate(wins, len(games))
        per_role["balanced"][seat] = _balanced(per_role[CIVILIAN][seat], per_role[UNDERCOVER][seat])
    out["seat_win_rate_civilian"] = per_role[CIVILIAN]
    out["seat_win_rate_undercover"] = per_role[UNDERCOVER]
    out["seat_balanced_win_rate"] = per_role["balanced"]

    reports = [b for r in results for b in r.get("beliefs", [])]
    if reports:
        out["belief_reports"] = len(reports)
        for name, hit_key, total_key in (
            ("self_identity_accuracy", "self_correct", None),
            ("others_identity_accuracy", "others_correct", "others_judged"),
            ("other_word_accuracy", "other_word_correct", None),
        ):
            by_role: dict[str, float | None] = {}
            for role in (None, *ROLES):
                rows = [b for b in reports if hit_key in b and (role is None or b["role"] == role)]
                hits = sum(float(b[hit_key]) for b in rows)
                total = sum(float(b[total_key]) for b in rows) if total_key else len(rows)
                by_role[role or "all"] = _rate(hits, total)
            out[name] = by_role["all"]
            out[f"{name}_civilian"] = by_role[CIVILIAN]
            out[f"{name}_undercover"] = by_role[UNDERCOVER]
            out[f"{name}_balanced"] = _balanced(by_role[CIVILIAN], by_role[UNDERCOVER])
    out["invalid_actions"] = float(np.mean([r.get("invalid_actions", 0) for r in results]))
    out["fallbacks"] = float(np.mean([r.get("fallbacks", 0) for r in results]))
    out["forfeits"] = float(np.mean([r.get("forfeits", 0) for r in results]))
    return out
