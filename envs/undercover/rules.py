"""Undercover rules (the CoMet setup), as pure Python: the rules protocol's verbs.

N players get a word from a pair of similar words (``bee`` / ``butterfly``): the civilians
(the majority) share one word, the undercover players (the minority) the other. Nobody is told
their role, not even about themselves. Each round every living player describes their word in
one sentence, in a freshly shuffled order, without saying it; then everyone votes at once for
another living player. The player with the most votes is eliminated; a tie eliminates nobody.
Civilians win when every undercover player is out; the undercover win when a single civilian
is left. After ``max_rounds`` rounds the game ends with ``timeout_winner`` (CoMet's code: the
civilians).

:class:`UndercoverRules` implements :class:`~cluegym.envs.core.rules.GameRules` over an
:class:`~cluegym.envs.undercover.state.UndercoverState`: seats are ``player_0`` ..
``player_{N-1}`` at the verbs (``to_move``, ``legal_mask``, ``apply``, ``simultaneous``) and
player numbers inside (``speak``, ``vote``, ``resolve_votes``). The votes of a round are one
simultaneous block. Belief reports attached to an action are scored and recorded (see
:mod:`cluegym.envs.undercover.beliefs`) and never change the game. The options live in
:mod:`~cluegym.envs.undercover.config` and the metrics in :mod:`~cluegym.envs.undercover.metrics`.

Example:
    >>> rules = UndercoverRules(UndercoverConfig(), word_pairs=[("bee", "butterfly")])
    >>> rng = np.random.default_rng(0)
    >>> state = rules.new_game(rng)
    >>> rules.apply(state, rules.to_move(state), {"description": "It makes a buzzing sound."}, rng)[0]["type"]
    'description'
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

try:
    import cython
except ImportError:  # no Cython at run time: the type declarations do nothing
    from cluegym.envs.core import cython_fallback as cython
import numpy as np

from cluegym.envs.core.matching import require_wordnet, says_word
from cluegym.envs.core.rng import choice_without_replacement, integers, permutation
from cluegym.envs.core.rules import GameRules, option_indices, option_texts
from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.text import collapse_text, describe, is_integer, to_charset, type_name
from cluegym.envs.undercover.beliefs import score_beliefs
from cluegym.envs.undercover.config import CIVILIAN, SILENCE, TEAMS, UNDERCOVER, UndercoverConfig
from cluegym.envs.undercover.state import RoundRecord, UndercoverState

# UndercoverConfig, SILENCE and CIVILIAN (from .config) are also imported from here by the
# embedding baselines and the learner task, which name this module.
__all__ = ["UndercoverRules", "UndercoverConfig", "SILENCE", "CIVILIAN"]


def _is_game_index(value: object) -> bool:
    """Whether ``value`` is a game's index in its match: an integer >= 0 (the reset's check
    and the every-pair schedule's, which word their errors for their own callers)."""
    return is_integer(value) and value >= 0


class UndercoverRules(GameRules[UndercoverState]):
    """The transitions of Undercover. All randomness comes from the generator passed in.

    Args:
        config: the game options.
        word_pairs: the pairs a new game draws its words from (``reset(options={"words":
            ...})`` fixes them instead).
        undercover_seats: fix the undercover players (numbers) of every game instead of
            drawing them (``reset(options={"undercover": ...})`` fixes one game's).

    Raises:
        WordNetMissingError: Debian's WordNet database (the word judge's data) is missing.
    """

    plain_json = True  # events and result: new plain JSON (see GameRules.plain_json)
    reset_options = ("words", "undercover", "game_index")

    def __init__(
        self,
        config: UndercoverConfig | None = None,
        word_pairs: Sequence[Sequence[str]] = (),
        undercover_seats: Sequence[int] | None = None,
    ) -> None:
        require_wordnet()  # the word judge needs WordNet: fail before play, not mid-game
        self.config = config or UndercoverConfig()
        self.word_pairs = tuple(tuple(pair) for pair in word_pairs)
        self.undercover_seats = None if undercover_seats is None else [int(i) for i in undercover_seats]
        self.seats = tuple(seat_name(p) for p in range(self.config.num_players))
        self._seat_index = {seat: p for p, seat in enumerate(self.seats)}
        # legal_mask's {"vote": mask} by (who is alive, voter), and its all-zeros: never changed.
        self._vote_legal_masks: dict[tuple[tuple[bool, ...], int], dict[str, np.ndarray]] = {}
        nobody = np.zeros(len(self.seats), dtype=np.int8)
        nobody.setflags(write=False)
        self._nobody_mask = {"vote": nobody}

    def seat_index(self, seat: str) -> int:
        """The player number of ``seat``: ``"player_3"`` -> ``3``."""
        return self._seat_index[seat]

    # ----------------------------------------------------------------- setup
    def new_game(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> UndercoverState:
        """Deal a game: a pair from ``word_pairs`` (which word is the undercover one is drawn
        at random), the undercover players, and round 1's speaking order.

        Args:
            rng: the game's generator.
            options: ``{"words": [civilian_word, undercover_word]}`` fixes the words,
                ``{"undercover": [3, 4]}`` the undercover players (numbers),
                ``{"game_index": i}`` the game's index in its match (needed by the
                ``"every_pair"`` schedule; the match harness passes it).

        Raises:
            TypeError: ``words`` or ``undercover`` of the wrong type (see
                :func:`~cluegym.envs.core.rules.option_texts`, :func:`~cluegym.envs.core.rules.option_indices`).
            ValueError: two words that are one once normalized, undercover seats that are not
                ``num_undercover`` distinct seats, or a ``game_index`` that is not an integer >= 0.
        """
        cfg, options = self.config, options or {}
        game_index = options.get("game_index")
        if game_index is not None and not _is_game_index(game_index):
            raise ValueError(f"reset option 'game_index' must be an integer >= 0, got {describe(game_index)}")
        words = options.get("words")
        if words is None:
            if not self.word_pairs:
                raise ValueError("need at least one word pair")
            drawn = integers(rng, len(self.word_pairs))  # drawn under either schedule: same stream
            if cfg.pair_schedule == "every_pair":
                drawn = self.scheduled_pair(game_index)
            pair = [str(w).strip().lower() for w in self.word_pairs[drawn]]
            if integers(rng, 2):
                pair.reverse()
            words = pair
        else:
            words = option_texts(words, "words", 2)
        civilian_word, undercover_word = (to_charset(w).strip().lower() for w in words)
        if not civilian_word or not undercover_word or civilian_word == undercover_word:
            raise ValueError(f"need two different non-empty words, got {list(words)}")
        undercover = options.get("undercover")
        if undercover is not None:
            undercover = option_indices(undercover, "undercover")
        elif self.undercover_seats is not None:
            undercover = self.undercover_seats
        else:
            undercover = choice_without_replacement(rng, cfg.num_players, cfg.num_undercover)
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

    def scheduled_pair(self, game_index: object) -> int:
        """The pair index game ``game_index`` plays under the ``"every_pair"`` schedule:
        ``game_index // episodes_per_pair``, cycling through the pairs.

        Raises:
            ValueError: no game index (or not a non-negative integer).
        """
        if not _is_game_index(game_index):
            raise ValueError(
                "pair_schedule='every_pair' needs the game's index in its match: "
                f"reset(options={{'game_index': i}}) with i >= 0, got {describe(game_index)}"
            )
        return (int(game_index) // self.config.episodes_per_pair) % len(self.word_pairs)

    @staticmethod
    @cython.locals(state=UndercoverState)
    def _shuffled_order(state: UndercoverState, rng: np.random.Generator) -> tuple[int, ...]:
        living = state.living()
        return tuple([living[i] for i in permutation(rng, len(living))])

    # -------------------------------------------------------------- who acts
    @cython.locals(state=UndercoverState)
    def player_to_move(self, state: UndercoverState) -> int | None:
        """The player to act: the next speaker, else the next voter (seat order); None when over."""
        phase = state.phase
        if phase == "speak":
            return state.speaker
        if phase == "vote":
            # voters_left[0], without building the tuple (this is asked several times a step).
            votes = state.votes
            for p, alive in enumerate(state.alive):
                if alive and p not in votes:
                    return p
        return None

    @cython.locals(state=UndercoverState)
    def to_move(self, state: UndercoverState) -> str | None:
        player = self.player_to_move(state)
        return None if player is None else self.seats[player]

    @cython.locals(state=UndercoverState)
    def simultaneous(self, state: UndercoverState) -> tuple[str, ...]:
        """While voting, every living player still to vote (seat order, as the AEC env asks
        them): nobody sees a vote of the round before all have voted (only how many have).
        While speaking, the speaker alone (each description is heard by the next speakers)."""
        phase, seats = state.phase, self.seats
        if phase == "vote":
            votes = state.votes  # state.voters_left, by name
            return tuple([seats[p] for p, alive in enumerate(state.alive) if alive and p not in votes])
        speaker = state.speaker if phase == "speak" else None
        return () if speaker is None else (seats[speaker],)

    # ------------------------------------------------------------ validation
    def normalize_description(self, text: str) -> str:
        """``text`` in the shared charset with whitespace collapsed to single spaces."""
        return collapse_text(text)

    @cython.locals(state=UndercoverState)
    def description_error(self, state: UndercoverState, player: int, text: object) -> str | None:
        """Why ``text`` is not a valid description for ``player``, or None if it is.

        A description is a non-empty string of at most ``max_description_chars`` characters
        and ``max_description_words`` words that does not say the player's own word or a
        derivative of it (plural, -ing, -ed, same stem; see :mod:`cluegym.envs.core.matching`).
        """
        return self.check_description(state, player, text)[1]

    @cython.locals(state=UndercoverState)
    def check_description(self, state: UndercoverState, player: int, text: object) -> tuple[str | None, str | None]:
        """``(normalized description, None)`` when ``text`` is a valid description for
        ``player`` (see :meth:`description_error`), else ``(None, why not)``."""
        cfg = self.config
        if not isinstance(text, str):
            return None, f"a description must be a string, got {type_name(text)}"
        clean = self.normalize_description(text)
        if not clean:
            return None, "a description must not be empty"
        if len(clean) > cfg.max_description_chars:
            return None, f"the description is longer than {cfg.max_description_chars} characters"
        if clean.count(" ") >= cfg.max_description_words:  # words - 1 (clean has single spaces)
            return None, f"the description has more than {cfg.max_description_words} words; use one sentence"
        word = state.word_of(player)
        if says_word(clean, word, strict=cfg.strict_word_check):
            return None, f"the description says your own word {word!r} (or a form of it); describe it without saying it"
        return clean, None

    @cython.locals(state=UndercoverState)
    def vote_error(self, state: UndercoverState, voter: int, target: object) -> str | None:
        """Why ``target`` is not a valid vote for ``voter``, or None: it must name another living player."""
        if type(target) is not int:  # a plain int (most votes) needs none of these checks
            if not is_integer(target):
                return f"a vote must be a player index in 0..{self.config.num_players - 1}, got {describe(target)}"
            target = int(target)
        if not 0 <= target < self.config.num_players:
            return f"vote {target} is out of range 0..{self.config.num_players - 1}"
        if target == voter:
            return "you cannot vote for yourself"
        if not state.alive[target]:
            return f"{seat_name(target)} is already eliminated"
        return None

    @cython.locals(state=UndercoverState)
    def vote_mask(self, state: UndercoverState, voter: int) -> np.ndarray:
        """1 for the players ``voter`` may vote for (the other living players); read-only."""
        return self._vote_legal(state, voter)["vote"]

    @cython.locals(state=UndercoverState)
    def _vote_legal(self, state: UndercoverState, voter: int) -> dict[str, np.ndarray]:
        """``{"vote": vote mask}``, one per distinct mask (the mask read-only, the dict never
        changed: observations and infos show copies of it)."""
        key = (tuple(state.alive), voter)
        legal = self._vote_legal_masks.get(key)
        if legal is None:
            mask = np.array(state.alive, dtype=np.int8)
            mask[voter] = 0
            mask.setflags(write=False)  # observations and infos show it, so it can be shared
            if len(self._vote_legal_masks) >= 4096:
                self._vote_legal_masks.clear()
            legal = self._vote_legal_masks[key] = {"vote": mask}
        return legal

    @cython.locals(state=UndercoverState)
    def legal_mask(self, state: UndercoverState, seat: str) -> dict[str, np.ndarray]:
        """``{"vote": mask}``, the action's one discrete entry: the other living players for
        a seat of the current :meth:`simultaneous` block, all zeros otherwise. (While the seat
        speaks its ``vote`` entry is ignored; the mask still names valid players, so that a
        sampled action is well formed.)"""
        # One dict per distinct mask, shared (see GameRules.legal_mask): read-only.
        p = self._seat_index.get(seat)
        if p is None or not self._acts_now(state, p):
            return self._nobody_mask
        return self._vote_legal(state, p)

    @cython.locals(state=UndercoverState)
    def acts_now(self, state: UndercoverState, seat: str) -> bool:
        """``seat in self.simultaneous(state)``, without building the block."""
        p = self._seat_index.get(seat)
        return p is not None and self._acts_now(state, p)

    @staticmethod
    @cython.locals(state=UndercoverState)
    def _acts_now(state: UndercoverState, p: int) -> bool:
        # the speaker while speaking, a living player that has not voted while voting
        phase = state.phase
        return state.speaker == p if phase == "speak" else phase == "vote" and state.alive[p] and p not in state.votes

    # ----------------------------------------------------------- transitions
    @cython.locals(state=UndercoverState)
    def apply(self, state: UndercoverState, seat: str, action: Any, rng: np.random.Generator) -> list[dict[str, Any]]:
        """Apply ``seat``'s checked action: ``{"description": text}`` while speaking,
        ``{"vote": player or None}`` while voting, each with the ``beliefs`` (or the
        ``beliefs_error``) the env read. The last vote of a round resolves it (and may end the
        game or draw the next speaking order from ``rng``).

        Returns:
            The move's events: the description or vote, then the scored beliefs (or why they
            are unreadable), then the finished round and the game's end.
        """
        p = self.seat_index(seat)
        events: list[dict[str, Any]] = []
        state.unreadable_beliefs = None
        beliefs, beliefs_error = action.get("beliefs"), action.get("beliefs_error")
        if beliefs is not None:
            entry = score_beliefs(state, p, beliefs)
            state.beliefs.append(entry)
            events.append({"type": "beliefs", **{k: v for k, v in entry.items() if k != "role"}})
        elif beliefs_error is not None:
            state.unreadable_beliefs = (seat, beliefs_error)
            events.append({"type": "beliefs_unreadable", "player": seat, "reason": beliefs_error})
        if state.phase == "speak":
            self.speak(state, p, action["description"])
            events.insert(0, {"type": "description", "player": seat, "round": state.round,
                              "text": state.descriptions[p]})
            return events
        self.vote(state, p, action["vote"])
        events.insert(0, {"type": "vote", "player": seat, "round": state.round})
        if self.player_to_move(state) is None:  # nobody left to vote (state.voters_left is empty)
            record = self.resolve_votes(state, rng)
            events.append({"type": "round_over", **record.as_dict(self.seats)})
            if state.phase == "over":
                events.append({"type": "game_over", "winner": state.winner, "reason": state.end_reason})
        return events

    @cython.locals(state=UndercoverState)
    def speak(self, state: UndercoverState, player: int, text: str) -> None:
        """``player``'s description (already validated, or the fallback)."""
        if state.phase != "speak" or player != state.speaker:
            raise RuntimeError(f"{seat_name(player)} cannot speak now (phase {state.phase!r})")
        state.descriptions[player] = self.normalize_description(text) or SILENCE
        if state.speaker is None:
            state.phase = "vote"

    @cython.locals(state=UndercoverState)
    def vote(self, state: UndercoverState, voter: int, target: int | None) -> None:
        """Record ``voter``'s vote (None: no valid vote, the fallback). Votes stay hidden
        until :meth:`resolve_votes`."""
        if voter != self.player_to_move(state) or state.phase != "vote":
            raise RuntimeError(f"{seat_name(voter)} cannot vote now (phase {state.phase!r})")
        if target is not None and self.vote_error(state, voter, target) is not None:
            raise ValueError(self.vote_error(state, voter, target))
        state.votes[voter] = None if target is None else int(target)

    @cython.locals(state=UndercoverState)
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

    # --------------------------------------------------------------- results
    @cython.locals(state=UndercoverState)
    def rewards(self, state: UndercoverState) -> dict[str, float]:
        """+1 to every player of the winning team (eliminated or not), -1 to the losers,
        0 to all on a draw or while the game runs."""
        if state.winner is None:
            return {seat: 0.0 for seat in self.seats}
        return {self.seats[p]: 1.0 if TEAMS[role] == state.winner else -1.0 for p, role in enumerate(state.roles)}

    @cython.locals(state=UndercoverState)
    def result(self, state: UndercoverState) -> dict[str, Any]:
        """The outcome of a finished game, for :func:`~cluegym.envs.undercover.metrics.metrics`."""
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
            "history": [r.as_dict(self.seats) for r in state.history],
            "beliefs": list(state.beliefs),
        }
