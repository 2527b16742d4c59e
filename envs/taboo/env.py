"""Adversarial Taboo as a PettingZoo AEC environment (``cluegym.envs.taboo_v0``).

Game card
---------
Seats: ``attacker`` (knows the target word) and ``defender`` (does not). The target is drawn
from a shipped list of ~400 common nouns (or yours). The attacker speaks first and they
alternate, ``max_turns`` (5) utterances each. The attacker steers the talk towards the target
without saying it; the defender tries to work it out without saying it, and may guess once.

Judging (derivatives = plural, -ing, -ed, same Snowball stem, WordNet lemma; see
:mod:`cluegym.envs.core.matching`):
    - the attacker says the target or a derivative: a rule break, the defender wins;
    - the defender's utterance says it: the attacker wins (judged before its guess);
    - the defender guesses: right (up to inflection, ``"apples"`` for ``apple``) -> the
      defender wins; wrong -> the attacker wins; the game ends at the guess;
    - no guess by the turn limit: a draw.

Observations (``Dict``):
    prompt: CoMet's rules (appendix C), the role and what it knows and wins by, the dialogue,
        the request (no strategy: that is the agents' business).
    target: the target word (attacker only).
    turn: utterances the seat has made.
    dialogue: every utterance so far, attacker first, alternating ("" padded).

Actions:
    attacker: ``Dict(utterance=Text)`` (a bare string is accepted too).
    defender: ``Dict(utterance=Text, guess=Text)``; an empty ``guess`` is no guess. The
        utterance may be empty only with a guess.

Invalid actions (wrong types, unknown fields, an empty or too long utterance, a guess longer
than ``max_guess_words``) are rejected with the reason in ``infos[seat]["error"]`` and the seat
acts again, up to ``max_retries``; the fallback is the utterance ``"(silence)"`` (and no
guess). Saying the target is not an invalid action but a game event that ends the game.

Rewards: +1 to the winner and -1 to the loser at the end; 0 to both on a draw.

Example:
    >>> from cluegym.envs import taboo_v0
    >>> env = taboo_v0.env(targets=["apple", "river", "piano"])
    >>> env.reset(seed=0)
    >>> env.step({"utterance": "What did you have for lunch today?"})
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Sequence

import gymnasium

from cluegym.envs.core import ClueGameEnv, pad_texts, text_space, text_tuple, wrap
from cluegym.envs.core.data import checked_game_words, shipped_word_list, word_list_option
from cluegym.envs.core.text import describe, type_name
from cluegym.envs.taboo.prompts import dialogue, full_prompt
from cluegym.envs.taboo.rules import SILENCE, TabooConfig, TabooRules, TabooState, metrics
from cluegym.envs.taboo.rules import _normalize_target as normalize_target  # the rules' own folding

__all__ = ["TabooEnv", "env", "raw_env", "metrics", "random_vocabulary", "DEFAULT_AGENTS"]

#: Agents used by ``cluegym run taboo`` for seats not given on the command line.
DEFAULT_AGENTS: dict[str, str] = {"attacker": "glove", "defender": "glove"}
WORD_MAX_CHARS = 60
PROMPT_BASE_CHARS = 5000


def random_vocabulary() -> tuple[str, ...]:
    """The shipped target nouns (the random agent speaks and guesses with them)."""
    return shipped_word_list("cluegym.envs.taboo", "targets.txt")


class TabooEnv(ClueGameEnv):
    """Adversarial Taboo, 2 seats (see the module docstring for the full game card).

    Args:
        max_turns: utterances per player before a draw, 1-1000 (default 5).
        targets: target list: None for the shipped nouns, a path to a word-list file, or a
            list of words. ``reset(options={"target": "apple"})`` fixes one game's target.
        max_utterance_chars: longest utterance accepted, 10-100000 (default 300).
        max_guess_words: most words in a guess (default 3).
        strict_word_check: also count words containing the target (``firefighter`` for
            ``fire``) as saying it.
        max_retries: resubmissions allowed after an invalid action (default 3).
        render_mode: ``"human"`` or ``"ansi"``.
    """

    metadata = {"name": "taboo_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    game_id = "taboo_v0"
    word_judge = True  # utterances are checked against the target word
    frozen_arrays = True  # its observations are texts and numbers; no legal mask
    observes_lean = True  # _observe(agent, lean=True) builds no prompt

    def __init__(
        self,
        *,
        max_turns: int = 5,
        targets: str | Path | Sequence[str] | None = None,
        max_utterance_chars: int = 300,
        max_guess_words: int = 3,
        strict_word_check: bool = False,
        max_retries: int = 3,
        render_mode: str | None = None,
        record_observations: bool = True,
    ) -> None:
        self.game_config = TabooConfig(
            max_turns=max_turns, max_utterance_chars=max_utterance_chars, max_guess_words=max_guess_words,
            strict_word_check=strict_word_check,
        )
        self.targets = word_list_option(targets, "cluegym.envs.taboo", "targets.txt")
        # As the rules use them (folded, lower case): a target that folds to nothing failed at
        # the reset of the seeds that drew it, a long one left the attacker's space.
        checked_game_words(self.targets, normalize_target, WORD_MAX_CHARS, "target")
        super().__init__(
            max_retries=max_retries, render_mode=render_mode, record_observations=record_observations,
            config={
                "max_turns": max_turns, "max_utterance_chars": max_utterance_chars,
                "max_guess_words": max_guess_words, "strict_word_check": strict_word_check,
                "targets": None if targets is None else (
                    str(targets) if isinstance(targets, (str, Path)) else list(self.targets)
                ),
            },
        )
        self.rules = TabooRules(self.game_config, self.targets)
        cfg = self.game_config
        prompt_max = PROMPT_BASE_CHARS + 2 * max_turns * (cfg.max_utterance_chars + WORD_MAX_CHARS + 40)
        history = text_tuple(2 * max_turns, cfg.max_utterance_chars)
        self.observation_spaces = {
            "attacker": gymnasium.spaces.Dict({
                "prompt": text_space(prompt_max), "target": text_space(WORD_MAX_CHARS),
                "turn": gymnasium.spaces.Discrete(max_turns + 1), "dialogue": history,
            }),
            "defender": gymnasium.spaces.Dict({
                "prompt": text_space(prompt_max),
                "turn": gymnasium.spaces.Discrete(max_turns + 1), "dialogue": history,
            }),
        }
        self.action_spaces = {
            "attacker": gymnasium.spaces.Dict({"utterance": text_space(cfg.max_utterance_chars)}),
            "defender": gymnasium.spaces.Dict({
                "utterance": text_space(cfg.max_utterance_chars, min_length=0),
                "guess": text_space(WORD_MAX_CHARS, min_length=0),
            }),
        }
        self.state: TabooState | None = None

    def check_optioned_game(self, state: TabooState) -> None:
        """A ``target`` reset option fits the target's Text space, as the list's targets do."""
        checked_game_words((state.target,), str, WORD_MAX_CHARS, "target")

    # ------------------------------------------------------------------ hooks
    def _observe(self, agent: str, lean: bool = False) -> dict[str, Any]:
        state, cfg = self.state, self.game_config
        obs: dict[str, Any] = {
            "prompt": None if lean else full_prompt(agent, state, cfg),
            "turn": min(state.turns_taken(agent), cfg.max_turns),
            "dialogue": pad_texts([u.text for u in state.dialogue], 2 * cfg.max_turns),
        }
        if agent == "attacker":
            obs["target"] = state.target
        if lean:
            del obs["prompt"]  # a placeholder: the key's place in the full observation, kept
        return obs

    def _info(self, agent: str) -> dict[str, Any]:
        last = self.state.dialogue[-1].as_dict() if self.state.dialogue else None
        return {"last_utterance": last} if last is not None else {}

    def _bare_text_key(self, agent: str) -> str | None:
        return "utterance"

    def _check_action(self, agent: str, action: Any) -> tuple[Any, str | None]:
        allowed = ("utterance",) if agent == "attacker" else ("utterance", "guess")
        if type(action) is dict or isinstance(action, Mapping):  # a plain dict skips the ABC check
            unknown = [key for key in action if key not in allowed]
            if unknown:
                return None, f"unknown action field {describe(unknown[0])}; the {agent} gives: {', '.join(allowed)}"
            utterance, guess = action.get("utterance", ""), action.get("guess")
        elif isinstance(action, str):
            utterance, guess = action, None
        else:
            fields = " and ".join(repr(a) for a in allowed)
            return None, f"an action must be a dict with {fields}, got {type_name(action)}"
        rules = self._rules
        normalize = rules.normalize
        # Each text normalized once (the checks and the normalized action share it).
        clean_guess = normalize(guess) if agent == "defender" and isinstance(guess, str) and guess else None
        error = rules.guess_error(guess, normalized=clean_guess) if agent == "defender" else None
        if error:
            return None, error
        has_guess = bool(guess and clean_guess)
        clean = normalize(utterance) if isinstance(utterance, str) else None
        error = rules.utterance_error(utterance, allow_empty=has_guess, normalized=clean)
        if error:
            return None, error
        normalized = {"utterance": clean}
        if agent == "defender":
            normalized["guess"] = clean_guess if has_guess else ""
        return normalized, None

    def _fallback_action(self, agent: str) -> tuple[Any, str]:
        action = {"utterance": SILENCE} if agent == "attacker" else {"utterance": SILENCE, "guess": ""}
        return action, f"utterance replaced by {SILENCE!r}" + ("" if agent == "attacker" else ", no guess")

    def _render_text(self) -> str:
        state = self.state
        lines = [f"Adversarial Taboo - target '{state.target}'", dialogue(state)]
        if state.end_reason is not None:
            lines.append(f"winner: {state.winner or 'nobody (draw)'} ({state.end_reason})")
        return "\n".join(lines)


def raw_env(**kwargs: Any) -> TabooEnv:
    """The unwrapped :class:`TabooEnv`."""
    return TabooEnv(**kwargs)


def env(**kwargs: Any):
    """:class:`TabooEnv` with PettingZoo's order-enforcing wrapper."""
    return wrap(raw_env(**kwargs))
