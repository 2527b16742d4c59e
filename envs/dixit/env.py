"""Dixit (DixitWorld's DixitArena) as a PettingZoo AEC environment (``cluegym.envs.dixit_v0``).

The game itself is :class:`~cluegym.envs.dixit.rules.DixitRules` (the rules protocol of
:mod:`cluegym.envs.core.rules`), which the shared adapter drives; this module adds the deck,
the spaces, the observations and prompts, the action checks with their fallback, and the
rendering (:mod:`cluegym.envs.dixit.render`).

Game card
---------
Seats: ``player_0`` .. ``player_{N-1}`` (default N = 4, any 3-6). Picture cards come from a
deck: the shipped default deck (96 dreamlike public-domain cards with captions) or your own
folder of images (``deck=``, with an optional ``captions=`` JSON file, id -> caption, as
DixitWorld's ``image_captions_dixit.json``).

Rules (``rules="dixitworld"``, the default, = the DixitWorld arena): hands of 4 kept for a
whole phase (played cards return to the hand), 24 rounds in two phases of 12, with every hand
passed on between them (P1<->P3, P2<->P4); the storyteller rotates seat by seat. Each round:

1. ``story``: the storyteller picks a card of its hand and gives a clue (free text);
2. ``distract``: each listener, in seat order after the storyteller, submits a card of its
   hand that fits the clue (it does not see the others' cards);
3. ``vote``: the storyteller's card and the distractors are shuffled into the candidates;
   each listener votes for one, never its own card, without seeing the others' votes;
4. scoring (``"dixitworld"``): some-but-not-all correct -> storyteller +3 and each correct
   listener +3; all correct -> storyteller 0, listeners +3; none -> storyteller 0,
   listeners +2; +1 to a distractor's owner per vote it gets. Then cards, owners and votes
   are revealed.

``rules="official"``: hands of 6 refilled from the deck after each round (played cards are
discarded), no hand swap, all-or-none correct -> storyteller 0 and listeners +2, the game
ends when someone reaches 30 points or the draw pile cannot refill every hand. Every rule is
also an option (``hand_size``, ``num_rounds``, ``scoring``, ``hand_swap``, ``refill``,
``target_score``).

Order per round: the storyteller, then each listener's distractor, then each listener's vote
(seat order after the storyteller). The distractors and the votes are simultaneous blocks
(``rules.simultaneous``): ``parallel_env()`` lets the listeners act in one step.

Observations (``Dict``), per seat:
    prompt: DixitWorld's prompts (appendix C) for the seat's decision now, with the rules,
        scores and every revealed round (Card k = ``hand[k-1]``, Candidate k =
        ``candidates[k-1]``; 1-based in text).
    phase: 0 story, 1 distract, 2 vote, 3 over.   round: current round (0-based).
    seat: the seat's index.   storyteller: this round's storyteller.
    hand: the seat's cards as images, ``uint8 (hand_size, H, W, 3)`` (``image_size``,
        default 144x96 thumbnails).   hand_ids: their deck indices.
    clue: this round's clue ("" before the storyteller gives it).
    candidates: the shuffled candidates as images ``uint8 (N, H, W, 3)`` during the vote
        (zeros before).   candidate_ids: their deck indices (-1 before the vote).
    own_candidate: index of the seat's own card among the candidates (-1 if none).
    card_mask: 1 for the ``card`` values the seat may choose now (all 0 when it does not act
        in the current simultaneous block).
    action_mask: PettingZoo's mask of the whole action, ``{"card": card_mask, "clue": (length,
        charset mask)}`` (any clue while the seat acts, else ``""``).
    scores: every seat's score.
    history_storytellers, history_clues, history_played (card per seat), history_votes
        (card each seat voted for, -1 storyteller), history_points: one row per revealed
        round (-1 / "" padded).
    hand_captions, candidate_captions: only with ``reveal_captions=True`` (the option is
        recorded in the game record); captions are never observed otherwise.
    The arrays are read-only and shared from step to step while they do not change (a
    hand's images are the same array object until the hand changes): copy one to change it.

Actions: ``Dict(card=Discrete(max(hand_size, N)), clue=Text)``. The phase says what counts:
``card`` is a hand slot in the story and distract phases and a candidate index in the vote;
``clue`` counts only for the storyteller. A bare int is accepted as ``{"card": int}`` from
listeners. ``infos[seat]["action_mask"] = {"card": card_mask}`` (the rules' ``legal_mask``);
``obs["action_mask"]`` adds the clue's ``Text`` mask, as ``action_space(seat).sample(mask=...)``
takes it.

Invalid actions (a slot or candidate out of range, a vote for one's own card, a missing or
empty clue, a wrong type) are rejected with the reason in ``infos[seat]["error"]`` and the
seat acts again, up to ``max_retries``. Fallbacks: a random legal card (and the clue
``"(pass)"`` when the clue was the problem).

Rewards: the points of each round, given when it is scored; a game's return is the final
score. ``infos[seat]["last_round"]`` holds the last revealed round (card ids).

Render modes: ``"ansi"``/``"human"`` (text) and ``"rgb_array"`` (the table: candidates with
owners and votes, the clue, the scores).

Example:
    >>> from cluegym.envs import dixit_v0
    >>> env = dixit_v0.env(reveal_captions=True)
    >>> env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> env.step({"card": 2, "clue": "a quiet storm"})
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Sequence

import gymnasium
import numpy as np

from cluegym.envs.core import ClueGameEnv, int_box, mask_space, pad_texts, read_only, text_space, text_tuple, wrap
from cluegym.envs.core.record import keep_stack_digest
from cluegym.envs.core.rng import integers
from cluegym.envs.core.text import describe, to_charset
from cluegym.envs.dixit.config import DixitConfig, preset_config
# get_deck and parse_image_size are re-exported: the benchmarks read the env's deck and options here.
from cluegym.envs.dixit.deck_options import get_deck, parse_image_size, random_vocabulary
from cluegym.envs.dixit.metrics import metrics
from cluegym.envs.dixit.prompts import assemble_prompt, request, rules_prompt, scores_line
from cluegym.envs.dixit.render import render_table, render_text
from cluegym.envs.dixit.rules import PASS_CLUE, PHASES, DixitRules
from cluegym.envs.dixit.view import FinishedRounds, printable

__all__ = [
    "DixitEnv", "env", "raw_env", "metrics", "random_vocabulary", "DEFAULT_AGENTS", "get_deck", "parse_image_size",
]

#: Agents used by ``cluegym run dixit`` for seats not given on the command line: the vision
#: baseline sees pixels only, so it plays with the default options (captions hidden).
DEFAULT_AGENTS: dict[str, str] = {"*": "vision"}
#: Default (height, width) of the card images in observations.
IMAGE_SIZE = (144, 96)
#: Longest caption put in an observation (longer ones are clipped).
CAPTION_MAX_CHARS = 300
#: ``obs["phase"]`` of each phase.
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}


class DixitEnv(ClueGameEnv):
    """Dixit, 3-6 seats (see the module docstring for the full game card).

    Args:
        rules: ``"dixitworld"`` (default) or ``"official"``: the preset the other rule options
            start from (None = the preset's value).
        num_players: players, 3-6 (default 4).
        hand_size: cards per hand (dixitworld 4, official 6).
        num_rounds: rounds, 1-1000 (dixitworld 24; official None = as many as the deck allows).
        scoring: ``"dixitworld"`` or ``"official"``.
        hand_swap: pass every hand on at half time (dixitworld True).
        refill: discard played cards and draw new ones (official True).
        target_score: end the game when a player reaches it (official 30; 0 disables).
        deck: a folder of card images; None for the shipped default deck.
        captions: a captions JSON file (card id -> caption); None -> ``captions.json`` in the
            deck folder when present.
        reveal_captions: put the cards' captions in observations and prompts (for caption-
            based baselines and text-only models); recorded with every game.
        image_size: (height, width) of the images in observations (default 144x96: large
            enough for the vision baseline's tiles, small enough for fast steps and RL), or
            ``"full"``: the deck's card size (460x305 for the shipped deck, DixitWorld's raw
            card size; part of :data:`~cluegym.envs.dixit.config.PAPER_ENV_OPTIONS`).
        max_clue_chars: longest clue accepted, 1-100000 (default 200).
        max_retries: resubmissions allowed after an invalid action (default 3).
        render_mode: ``"human"``, ``"ansi"`` or ``"rgb_array"``.

    ``reset(options={"hands": [[card, ...], ...]})`` deals fixed hands (card ids or deck
    indices), e.g. for scripted tests.
    """

    metadata = {"name": "dixit_v0", "render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False}
    game_id = "dixit_v0"
    frozen_arrays = True  # images, histories and masks are shared read-only arrays
    full_only_keys = ("prompt", "hand", "candidates")  # the prompt and the card images
    observes_lean = True  # _observe(agent, lean=True) builds neither

    def __init__(
        self,
        *,
        rules: Literal["dixitworld", "official"] = "dixitworld",
        num_players: int | None = None,
        hand_size: int | None = None,
        num_rounds: int | None = None,
        scoring: Literal["dixitworld", "official"] | None = None,
        hand_swap: bool | None = None,
        refill: bool | None = None,
        target_score: int | None = None,
        deck: str | Path | None = None,
        captions: str | Path | None = None,
        reveal_captions: bool = False,
        image_size: Sequence[int] | str = IMAGE_SIZE,
        max_clue_chars: int = 200,
        max_retries: int = 3,
        render_mode: str | None = None,
        record_observations: bool = True,
    ) -> None:
        self.deck = get_deck(None if deck is None else str(deck), None if captions is None else str(captions))
        self.image_size = parse_image_size(image_size, full=self.deck.image_size)
        self.game_config: DixitConfig = preset_config(
            rules, deck_size=len(self.deck), num_players=num_players, hand_size=hand_size,
            num_rounds=num_rounds, scoring=scoring, hand_swap=hand_swap, refill=refill,
            target_score=target_score, max_clue_chars=max_clue_chars,
        )
        cfg = self.game_config
        if len(self.deck) < cfg.cards_needed():
            raise ValueError(
                f"deck {self.deck.name!r} has {len(self.deck)} cards; {cfg.num_players} hands of {cfg.hand_size} "
                f"need {cfg.cards_needed()}"
            )
        if reveal_captions and not self.deck.captions:
            raise ValueError(f"reveal_captions=True but deck {self.deck.name!r} has no captions")
        self.reveal_captions = bool(reveal_captions)
        super().__init__(
            max_retries=max_retries, render_mode=render_mode, record_observations=record_observations,
            config={
                "rules": rules, "num_players": cfg.num_players, "hand_size": cfg.hand_size,
                "num_rounds": cfg.num_rounds, "scoring": cfg.scoring, "hand_swap": cfg.hand_swap,
                "refill": cfg.refill, "target_score": cfg.target_score or 0,
                "deck": None if deck is None else str(deck), "captions": None if captions is None else str(captions),
                "reveal_captions": self.reveal_captions, "image_size": list(self.image_size),
                "max_clue_chars": cfg.max_clue_chars,
            },
        )
        self.rules = DixitRules(cfg, self.deck.card_ids, deck_name=self.deck.name, reveal_captions=self.reveal_captions)
        self._id_chars = max(len(c) for c in self.deck.card_ids)
        self.prompt_max_chars = self._prompt_bound()
        space = self._observation_space()
        self.observation_spaces = {seat: space for seat in self.possible_agents}
        self.action_spaces = {
            seat: gymnasium.spaces.Dict({
                "card": gymnasium.spaces.Discrete(cfg.action_size),
                # min_length 0: only the storyteller's clue counts (the checks reject an empty
                # one with a reason), and a seat not acting samples "" from its all-zero mask.
                "clue": text_space(cfg.max_clue_chars),
            })
            for seat in self.possible_agents
        }
        self._no_candidates = read_only(np.zeros((cfg.num_players, *self.image_size, 3), dtype=np.uint8))
        self._no_candidate_ids = read_only(np.full(cfg.num_players, -1, dtype=np.int64))
        # What observations reuse from step to step (each is checked against the State it is
        # read from, so a copied or replayed State is always shown right):
        # the rules text (fixed per env), folded to the charset as the whole prompt is;
        self._rules_text = to_charset(rules_prompt(cfg))
        # the scored rounds (see FinishedRounds);
        self._finished: FinishedRounds | None = None
        # card indices -> (ids, images), read-only, for the hands and candidates now in play:
        # the same array objects while a hand does not change (the record digest hashes a
        # read-only array once), pruned to what is in play when a new one is built;
        self._card_arrays: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        # the last scores seen: their array and their prompt line (they change once per
        # round); and each card's observed caption.
        self._scores: tuple[tuple[int, ...], np.ndarray, str] | None = None
        self._captions: dict[int, str] = {}

    # ------------------------------------------------------------------ spaces
    def _prompt_bound(self) -> int:
        cfg = self.game_config
        n, h, r = cfg.num_players, cfg.hand_size, cfg.num_rounds
        caption = CAPTION_MAX_CHARS + 40 if self.reveal_captions else 40
        per_round = 160 + cfg.max_clue_chars + n * (80 + 2 * self._id_chars)
        return 6000 + cfg.max_clue_chars + (h + n) * caption + r * per_round

    def _observation_space(self) -> gymnasium.spaces.Dict:
        cfg = self.game_config
        n, h, r = cfg.num_players, cfg.hand_size, cfg.num_rounds
        last = len(self.deck) - 1
        images = lambda k: gymnasium.spaces.Box(0, 255, (k, *self.image_size, 3), dtype=np.uint8)  # noqa: E731
        spaces: dict[str, gymnasium.Space] = {
            "prompt": text_space(self.prompt_max_chars),
            "phase": gymnasium.spaces.Discrete(len(PHASES)),
            "round": gymnasium.spaces.Discrete(r + 1),
            "seat": gymnasium.spaces.Discrete(n),
            "storyteller": gymnasium.spaces.Discrete(n),
            "hand": images(h),
            "hand_ids": int_box(last, (h,), low=-1),
            "clue": text_space(cfg.max_clue_chars),
            "candidates": images(n),
            "candidate_ids": int_box(last, (n,), low=-1),
            "own_candidate": gymnasium.spaces.Discrete(n + 1, start=-1),
            "card_mask": mask_space(cfg.action_size),
            "scores": int_box(r * (cfg.listener_max_points + 3), (n,)),
            "history_storytellers": int_box(n - 1, (r,), low=-1),
            "history_clues": text_tuple(r, cfg.max_clue_chars),
            "history_played": int_box(last, (r, n), low=-1),
            "history_votes": int_box(last, (r, n), low=-1),
            "history_points": int_box(cfg.listener_max_points + 3, (r, n), low=-1),
        }
        if self.reveal_captions:
            spaces["hand_captions"] = text_tuple(h, CAPTION_MAX_CHARS)
            spaces["candidate_captions"] = text_tuple(n, CAPTION_MAX_CHARS)
        return gymnasium.spaces.Dict(spaces)

    # ------------------------------------------------------------------- cards
    def card_id(self, index: int) -> str:
        """The deck's id of card ``index`` (e.g. ``"card_014"``)."""
        return self.deck.card_ids[index]

    def caption(self, index: int) -> str:
        """The caption of card ``index`` as observed (charset-folded, clipped; "" if none)."""
        text = self._captions.get(index)
        if text is None:  # cached: a deck's captions never change
            text = self._captions[index] = to_charset(self.deck.caption(self.card_id(index)) or "", CAPTION_MAX_CHARS)
        return text

    def preload(self) -> None:
        """Read every card of the deck now, at the observations' size, with its record digest
        when observations are recorded (else each card is read when first dealt: ~5 ms a card
        of the shipped deck, so the first ~40 games of a process ran at half speed). The deck
        is shared by the process's envs that load it: once per process and image size.

        Example:
            >>> from cluegym.envs import dixit_v0
            >>> env = dixit_v0.env()
            >>> env.unwrapped.preload()
            >>> len(env.unwrapped.deck.card_ids)
            96
        """
        self.deck.preload(self.image_size)
        if self.record_observations:
            self.deck.digests(self.deck.card_ids, self.image_size)

    def _cards(self, cards: Sequence[int], images: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """Read-only ``(ids, images)`` of ``cards`` (a hand or the candidates), the same
        objects from step to step while those cards are in play; with ``images=False`` the
        images may be None (not stacked for a lean observation, see ``lean_observe``)."""
        key = tuple(cards)
        entry = self._card_arrays.get(key)
        if entry is None or (images and entry[1] is None):
            state = self.state
            live = {tuple(hand) for hand in state.hands}
            live.add(tuple(state.candidates))
            for old in [k for k in self._card_arrays if k not in live]:
                del self._card_arrays[old]
            stack = None
            if images:
                ids = [self.card_id(i) for i in key]
                stack = read_only(self.deck.images(ids, self.image_size))
                if self.record_observations:
                    # The stack's digest from its cards' (each card hashed once per deck): the
                    # record's digests never rehash the pixels of a new hand or candidates.
                    keep_stack_digest(stack, self.deck.digests(ids, self.image_size))
            entry = (read_only(np.array(key, dtype=np.int64)) if entry is None else entry[0], stack)
            self._card_arrays[key] = entry
        return entry

    def _finished_rounds(self) -> FinishedRounds:
        """The view of the current State's scored rounds (rebuilt once per round)."""
        history = self.state.history
        view = self._finished
        if view is None or history != view.records:
            view = self._finished = FinishedRounds(self, history, view)
        return view

    def _scores_view(self) -> tuple[tuple[int, ...], np.ndarray, str]:
        """``(scores, read-only array, folded prompt line)`` of the current scores."""
        key = tuple(self.state.scores)
        if self._scores is None or self._scores[0] != key:
            self._scores = (key, read_only(np.array(key, dtype=np.int64)), to_charset(scores_line(key)))
        return self._scores

    def _observe(self, agent: str, lean: bool = False) -> dict[str, Any]:
        state, cfg = self.state, self.game_config
        n, r = cfg.num_players, cfg.num_rounds
        p = self._rules.seat_index(agent)
        hand = state.hands[p]
        hand_ids, hand_images = self._cards(hand, not lean)
        voting = state.phase == "vote"
        own = state.own_candidate(p) if voting else None
        if voting:
            candidate_ids, candidate_images = self._cards(state.candidates, not lean)
            if len(candidate_ids) != n:
                candidate_ids = np.full(n, -1, dtype=np.int64)
                candidate_ids[: len(state.candidates)] = state.candidates
                candidate_ids.setflags(False)  # write=False (positional: faster)
        else:
            candidate_ids, candidate_images = self._no_candidate_ids, self._no_candidates
            if state.candidates:
                candidate_ids = np.full(n, -1, dtype=np.int64)
                candidate_ids[: len(state.candidates)] = state.candidates
                candidate_ids.setflags(False)  # write=False (positional: faster)
        finished = self._finished_rounds()
        _, scores, scores_text = self._scores_view()
        caption = self.caption if self.reveal_captions else None
        # to_charset(full prompt) piece by piece (folding is character by character): the rules
        # text, the scores and the scored rounds are folded once, the literals are in the
        # charset, and so is the request when its only free texts, the clue and the end
        # reason, are printable ASCII (captions come folded); it is folded otherwise.
        prompt = None
        if not lean:
            request_text = request(p, state, cfg, self.card_id, caption)
            if not (printable(state.clue) and printable(state.end_reason or "")):
                request_text = to_charset(request_text)
            prompt = assemble_prompt(self._rules_text, p, scores_text, finished.rounds, request_text)
            prompt = prompt[: self.prompt_max_chars]
        obs: dict[str, Any] = {
            "prompt": prompt,
            "phase": _PHASE_INDEX[state.phase],
            "round": min(state.round, r),
            "seat": p,
            "storyteller": state.storyteller,
            "hand": hand_images,
            "hand_ids": hand_ids,
            "clue": state.clue,
            "candidates": candidate_images,
            "candidate_ids": candidate_ids,
            "own_candidate": -1 if own is None else own,
            "card_mask": self._legal_mask(agent)["card"],  # rules.card_mask, asked once per State
            "scores": scores,
            "history_storytellers": finished.storytellers,
            "history_clues": finished.clues,
            "history_played": finished.played,
            "history_votes": finished.votes,
            "history_points": finished.points,
        }
        if self.reveal_captions:
            obs["hand_captions"] = tuple(self.caption(c) for c in hand)
            obs["candidate_captions"] = pad_texts([self.caption(c) for c in state.candidates], n)
        if lean:  # placeholders: the keys' places in the full observation, kept
            del obs["prompt"], obs["hand"], obs["candidates"]
        # obs["action_mask"] is added by the adapter's observe(), before the record's digest.
        return obs

    def _info(self, agent: str) -> dict[str, Any]:
        state = self.state
        if not state.history:
            return {"phase": state.phase}
        return {"phase": state.phase, "last_round": self._finished_rounds().last_round}

    def _check_action(self, agent: str, action: Any) -> tuple[Any, str | None]:
        state, p = self.state, self._rules.seat_index(agent)
        story = state.phase == "story"
        if type(action) is dict or isinstance(action, Mapping):  # a dict, mostly: no ABC check
            unknown = [key for key in action if key not in ("card", "clue")]
            if unknown:
                return None, f"unknown action field {describe(unknown[0])}; fields: card, clue"
            card, clue = action.get("card"), action.get("clue")
        elif story:
            return None, 'the storyteller answers {"card": hand slot, "clue": text}'
        else:
            card, clue = action, None
        if card is None:
            return None, f'{state.phase} phase: give a "card" ({"candidate index" if state.phase == "vote" else "hand slot"})'
        if isinstance(card, np.ndarray) and card.shape == ():
            card = card.item()
        card_error = self._rules.card_error(state, p, card)
        clue_error = None
        if story:
            clue_error = 'story phase: give a "clue" with the card' if clue is None else self._rules.clue_error(clue)
        if story and (card_error or clue_error):  # the fallback keeps the valid card or clue
            self._rejected_parts = {"card": None if card_error else int(card), "clue": None if clue_error else clue}
        if card_error or clue_error:
            return None, card_error or clue_error
        if story:
            return {"card": int(card), "clue": self._rules.normalize_clue(clue)}, None
        return {"card": int(card)}, None

    def _fallback_action(self, agent: str) -> tuple[Any, str]:
        p = self._rules.seat_index(agent)
        legal = np.flatnonzero(self._rules.card_mask(self.state, p))
        if self.state.phase == "story":
            rejected = self._rejected_parts or {}
            card = rejected.get("card")
            if card is None:
                card = int(legal[integers(self.rng, len(legal))])
            clue = rejected.get("clue") or PASS_CLUE
            return {"card": card, "clue": self._rules.normalize_clue(clue)}, f"card {card + 1} with clue {clue!r}"
        card = int(legal[integers(self.rng, len(legal))])
        what = "candidate" if self.state.phase == "vote" else "card"
        return {"card": card}, f"random legal {what} {card + 1}"

    # ------------------------------------------------------------------ render
    def _render_text(self) -> str:
        return render_text(self.state, self.game_config, self.card_id)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self.render_table()
        return super().render()

    def render_table(self) -> np.ndarray:
        """The table as an RGB image (see :func:`~cluegym.envs.dixit.render.render_table`)."""
        return render_table(self.state, self.game_config, self.deck)


def raw_env(**kwargs: Any) -> DixitEnv:
    """The unwrapped :class:`DixitEnv`."""
    return DixitEnv(**kwargs)


def env(**kwargs: Any):
    """:class:`DixitEnv` with PettingZoo's order-enforcing wrapper."""
    return wrap(raw_env(**kwargs))
