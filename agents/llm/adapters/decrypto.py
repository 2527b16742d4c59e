"""Decrypto prompts for LLM agents: the paper's harness (appendix A.2/A.3) and its ToM probes.

* Generalist (``llm``): the observation's prompt, verbatim, as one user message.
* Specialist (``llm-cot``): the paper's split: system = rules (Listing 1) + the role's
  instructions and worked example (Listings 2-4); user = turn summaries + the turn request
  (Listings 5-7), rebuilt from the observation's structured fields (keywords, code, hints,
  hint/code/guess histories, tokens) — never by reading the prompt text.
* Prompt variants (Figure 4): ``system_mode=0..4`` and ``user_mode=0..4`` pick Alice's and
  Bob's system and user prompts (0 = the paper's listings, 1-4 = ours; see
  :mod:`cluegym.agents.llm.adapters.decrypto_variants`).
* Options of the specialist: ``reconsider=true`` makes Alice re-examine her hints from Bob's
  and Eve's perspectives (Listing 8) before answering; ``tom=true`` adds the paper's theory-
  of-mind probes: Alice predicts Eve's guess (Listing 9, Table 2); Eve, from turn 2 on, is
  asked the four keywords in a branch of her context, and after the game the same context
  is probed for representational change and false belief (section 5, Table 3; see
  :mod:`cluegym.benchmarks.decrypto_tom`).

Answers are read as ``ANSWER: {"hints": [...]}`` / ``ANSWER: {"guess": "X-Y-Z"}`` by the
tolerant parsers of :mod:`cluegym.agents.llm.parsing`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from cluegym.agents.base import Forfeit
from cluegym.agents.llm.agent import DeadlineExpired, LLMAgent
from cluegym.agents.llm.backends import Message
from cluegym.agents.llm.parsing import ParseError, extract_dict, parse_code, parse_hints
from cluegym.agents.llm.checks import check_number
from cluegym.agents.llm.adapters.decrypto_variants import MODE_NAMES, check_mode, system_prompt_variant, user_prompt
from cluegym.envs.decrypto.prompts import hint_dict, keyword_dict
from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState, TurnRecord, all_codes, format_code


# ------------------------------------------------------------------------- generalist
def generalist_messages(observation: dict[str, Any], info: dict[str, Any], seat: str) -> list[Message]:
    """The env's prompt, verbatim, as the single user message."""
    return [{"role": "user", "content": str(observation["prompt"])}]


def game_shape(observation: dict[str, Any]) -> tuple[int, int, int]:
    """(num_keywords, code_length, max_turns) read from the observation's field shapes."""
    return len(observation["hint_history"]), len(observation["hints"]), int(np.asarray(observation["code_history"]).shape[0])


def parse_action(text: str, observation: dict[str, Any], info: dict[str, Any], seat: str) -> Any:
    """Alice: a tuple of hints. Bob/Eve: the Discrete index of the guessed code.

    Raises:
        ParseError: no hints/code, or a code that cannot occur (already revealed: the
            observation's ``action_mask``).
    """
    n, k, _ = game_shape(observation)
    if seat == "alice":
        return parse_hints(text, count=k)
    return code_index(parse_code(text, code_length=k, num_keywords=n), observation)


def code_index(code: tuple[int, ...], observation: dict[str, Any]) -> int:
    """The Discrete index of ``code``, checked against the observation's mask of codes that
    can still occur (revealed codes never recur).

    Raises:
        ParseError: the code was already revealed.
    """
    n, k, _ = game_shape(observation)
    index = all_codes(n, k).index(code)
    mask = observation.get("action_mask")
    if mask is not None and not np.asarray(mask)[index]:
        raise ParseError(f"the code {format_code(code)} was already used in an earlier turn and cannot occur again; "
                         "guess another code")
    return index


# ------------------------------------------------------------------------- specialist
def rebuild_state(observation: dict[str, Any], seat: str) -> DecryptoState:
    """A :class:`DecryptoState` holding what ``seat`` sees (unknown keywords are ``?``)."""
    n, k, _ = game_shape(observation)
    turn = int(observation["turn"])
    codes = np.asarray(observation["code_history"])
    guesses = np.asarray(observation["guess_history"])
    hint_history = [list(h) for h in observation["hint_history"]]
    used = [0] * n
    history: list[TurnRecord] = []
    for i in range(turn):
        code = tuple(int(d) for d in codes[i])
        if not all(code):
            break
        hints = []
        for d in code:
            hints.append(hint_history[d - 1][used[d - 1]] if used[d - 1] < len(hint_history[d - 1]) else "")
            used[d - 1] += 1
        history.append(TurnRecord(
            turn=i, code=code, hints=tuple(hints),
            bob_guess=tuple(int(x) for x in guesses[i, 0]), eve_guess=tuple(int(x) for x in guesses[i, 1]),
        ))
    tokens = np.asarray(observation["tokens"])
    keywords = tuple(observation["keywords"]) if "keywords" in observation else tuple("?" * (i + 1) for i in range(n))
    given = tuple(h for h in observation["hints"] if h)
    return DecryptoState(
        keywords=keywords, turn=turn, phase="encode" if seat == "alice" else "decode",
        code=tuple(int(d) for d in observation["code"]) if "code" in observation else (),
        hints=given if len(given) == k else (), history=history,
        miscommunications=int(tokens[0]), interceptions=int(tokens[1]),
    )


def paper_messages(observation: dict[str, Any], seat: str, config: DecryptoConfig, *, system_mode: int = 0,
                   user_mode: int = 0) -> list[Message]:
    """The paper's system prompt (Listing 1 + role Listing 2-4) and user prompt (Listings 5-7);
    with ``system_mode``/``user_mode`` 1-4, our variants of them for Alice and Bob (Figure 4,
    :mod:`cluegym.agents.llm.adapters.decrypto_variants`).

    Raises:
        ValueError: a mode out of 0-4, or a mode other than 0 for Eve.
    """
    state = rebuild_state(observation, seat)
    system = system_prompt_variant(config, seat, system_mode)
    user = user_prompt(config, seat, user_mode, state)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def reconsider_prompt(code: Sequence[int], hints: Sequence[str], keywords: Sequence[str]) -> str:
    """Listing 8: Alice analyses her hints from the Decoder's and Interceptor's perspectives."""
    k = len(hints)
    names = ", ".join(f'\\"hint_{"XYZUVW"[i % 6]}\\"' for i in range(k))
    return (
        f"As the Encoder, you've provided the following hints for the code {format_code(code)}:\n"
        f"{{{', '.join(hints)}}}\n"
        "Now, let's analyze how the Decoder and Interceptor might interpret these hints:\n"
        "1. Decoder's perspective:\n"
        f"   - The Decoder knows the keywords: {keyword_dict(keywords)}\n"
        "   - Think step-by-step about how the Decoder might connect each hint to a keyword.\n"
        "   - What is the most likely code the Decoder would guess? Why?\n"
        "2. Interceptor's perspective:\n"
        "   - The Interceptor doesn't know the keywords but has access to past hints.\n"
        "   - Consider how the Interceptor might interpret your hints based on previous rounds.\n"
        "   - What is the most likely code the Interceptor would guess? why?\n"
        "3. Hint effectiveness:\n"
        "   - Are your hints clear enough for the Decoder but ambiguous for the Interceptor?\n"
        "   - Is there a risk of miscommunication with the Decoder or successful Interceptor?\n"
        "4. Potential improvements:\n"
        "   - If you think your hints might be too easy for the Interceptor or too difficult for the Decoder, "
        "suggest alternative hints that could be more effective.\n"
        "After your analysis, decide if you want to keep your original hints or provide new ones.\n"
        f'Provide your final {k} hints like "ANSWER: {{\\"hints\\": [{names}]}}", where each hint is one or two words.'
    )


def predict_eve_prompt(code: Sequence[int], hints: Sequence[str]) -> str:
    """Listing 9: Alice predicts the Interceptor's guess."""
    example = "-".join("XYZUVW"[i % 6] for i in range(len(code)))
    return (
        f"As the Encoder, you've provided the following hints for the code {format_code(code)}:\n"
        f"{{{', '.join(hints)}}}\n"
        "What do you predict will be the guess of the Interceptor when seeing those hints? Think step-by-step.\n"
        f'Then, give your prediction of the Interceptor\'s guess as "ANSWER: {{\\"guess\\": \\"{example}\\"}}"'
    )


def _keywords_format(n: int) -> str:
    names = ", ".join(f'\\"keyword_{i}\\"' for i in range(1, n + 1))
    return f'"ANSWER: {{\\"keywords\\": [{names}]}}", in the order of the digits 1 to {n}'


def keywords_probe_prompt(n: int) -> str:
    """Section 5, question 1: Eve's current belief about the keywords."""
    return (
        f"Before you guess the code: what do you think the {n} secret keywords are? Think step-by-step about "
        "the hint history, then give your best guess for every keyword as " + _keywords_format(n) + "."
    )


def belief_reveal_prompt(keywords: Sequence[str]) -> str:
    """Section 5, question 2 (representational change): the keywords are revealed; what did
    you think before?"""
    return (
        f"The game master now reveals the secret keywords: {keyword_dict(keywords)}.\n"
        "Before this reveal, what did you think the keywords were? Report your belief from just before the "
        "reveal as " + _keywords_format(len(keywords)) + "."
    )


def false_belief_prompt(keywords: Sequence[str]) -> str:
    """Section 5, question 3 (false belief): what does a second Interceptor, who has seen
    everything except the reveal, think the keywords are?"""
    return (
        f"The game master now reveals the secret keywords to you: {keyword_dict(keywords)}.\n"
        "A second Interceptor has seen everything you have seen in this game, except this reveal. What does this "
        "second Interceptor think the keywords are? Answer as " + _keywords_format(len(keywords)) + "."
    )


def parse_keywords(text: str, n: int) -> tuple[str, ...]:
    """``ANSWER: {"keywords": [...]}`` with ``n`` non-empty words.

    Raises:
        ParseError: missing or the wrong number of keywords.
    """
    value = extract_dict(text, "keywords")["keywords"]
    if isinstance(value, dict):
        value = [value[k] for k in sorted(value, key=lambda x: str(x))]
    if isinstance(value, str):
        value = [v for v in value.replace(";", ",").split(",")]
    words: tuple[str, ...] = ()
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        words = tuple(" ".join(v.strip().lower().split()) for v in value)
    if len(words) != n or not all(words) or any(len(w) > 60 for w in words):
        raise ParseError(f"give exactly {n} keywords as {_keywords_format(n)}")
    return words


class DecryptoPaperAgent(LLMAgent):
    """Decrypto with the paper's prompts (registered as ``llm-cot`` for decrypto).

    Args:
        reconsider: (Alice) re-examine the hints from the Decoder's and Interceptor's
            perspective before answering (Listing 8).
        tom: theory-of-mind probes: Alice predicts Eve's guess after each set of hints
            (Listing 9); Eve is asked the keywords from turn 2 on (question 1 of section 5,
            the rest is asked after the game by :meth:`belief_probes`, run by :mod:`cluegym.benchmarks.decrypto_tom`).
        system_mode: (Alice, Bob) the system prompt's mode for the prompt-variant study
            (Figure 4): 0 = the paper's Listings 1-3 (default), 1-4 = our variants
            ``concise``, ``briefing``, ``story``, ``checklist``; Eve has mode 0 only.
        user_mode: (Alice, Bob) likewise for the user prompt (Listings 5 and 6).
        miscommunication_limit: the game's limit, stated in the rules prompt (default 2).
        interception_limit: likewise (default 2).
        **kwargs: the :class:`~cluegym.agents.llm.agent.LLMAgent` options.
    """

    games = ("decrypto",)
    style = "decrypto-paper"

    def __init__(self, game: str, seat: str, action_space: Any, *, reconsider: bool = False, tom: bool = False,
                 system_mode: int = 0, user_mode: int = 0, miscommunication_limit: int = 2, interception_limit: int = 2,
                 **kwargs: Any) -> None:
        # checked before the backend is built: a bad mode is a one-line error, not a half-built agent
        self.system_mode = check_mode(system_mode, "system_mode", seat)
        self.user_mode = check_mode(user_mode, "user_mode", seat)
        # The game's own rule (a limit >= 1), here: inside decide() it made every decision an error.
        check_number("miscommunication_limit", miscommunication_limit, low=1, integer=True, what="an integer >= 1")
        check_number("interception_limit", interception_limit, low=1, integer=True, what="an integer >= 1")
        super().__init__(game, seat, action_space, **kwargs)
        if self.system_mode or self.user_mode:  # recorded with every call, so a record says which prompts it used
            self.style = f"decrypto-paper[system={MODE_NAMES[self.system_mode]},user={MODE_NAMES[self.user_mode]}]"
        self.reconsider = bool(reconsider)
        self.tom = bool(tom)
        self.limits = {"miscommunication_limit": int(miscommunication_limit), "interception_limit": int(interception_limit)}
        #: Eve's keyword-belief branches: (turn, context messages, answer to question 1).
        self.belief_contexts: list[dict[str, Any]] = []

    def config_for(self, observation: dict[str, Any]) -> DecryptoConfig:
        n, k, turns = game_shape(observation)
        return DecryptoConfig(num_keywords=n, code_length=k, max_turns=turns, **self.limits)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.belief_contexts = []

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        config = self.config_for(observation)
        n, k = config.num_keywords, config.code_length
        messages = paper_messages(observation, self.seat, config, system_mode=self.system_mode, user_mode=self.user_mode)
        turn = int(observation["turn"])
        if self.seat == "alice":
            hints = await self.ask(messages, lambda t: parse_hints(t, count=k), step="hints")
            code = tuple(int(d) for d in observation["code"])
            if self.reconsider:
                follow_up = self._dialogue + [{"role": "user", "content": reconsider_prompt(code, hints, observation["keywords"])}]
                hints = await self.ask(follow_up, lambda t: parse_hints(t, count=k), step="reconsider")
            if self.tom:
                probe = self._dialogue + [{"role": "user", "content": predict_eve_prompt(code, hints)}]
                await self.ask(probe, lambda t: parse_code(t, k, n), step="tom_predict_eve", final=False, on_failure=None,
                               extra={"tom": {"probe": "predict_eve", "turn": turn, "hints": list(hints)}})
            return hints
        if self.seat == "eve" and self.tom and turn >= 1 and not self._env_error:
            question = messages + [{"role": "user", "content": keywords_probe_prompt(n)}]
            answer = await self.ask(question, lambda t: parse_keywords(t, n), step="tom_keywords", final=False,
                                    on_failure=None, extra={"tom": {"probe": "keywords_q1", "turn": turn}})
            self.belief_contexts.append({"turn": turn, "context": messages, "q1": answer})
        return await self.ask(messages, lambda t: code_index(parse_code(t, k, n), observation), step="guess")

    async def belief_probes(self, keywords: Sequence[str]) -> list[dict[str, Any]]:
        """After the game, ask questions 2 and 3 of section 5 in every branch where Eve was
        asked question 1, with the real ``keywords`` revealed.

        Returns:
            One row per probed turn: ``{"turn", "q1", "q2", "q3", "truth"}`` (None where an
            answer could not be read or the endpoint gave none in ``decision_timeout``).
        """
        rows = []
        n = len(keywords)
        truth = [str(k).lower() for k in keywords]
        for branch in self.belief_contexts:
            answers = []
            for name, prompt in (("q2", belief_reveal_prompt(truth)), ("q3", false_belief_prompt(truth))):
                messages = branch["context"] + [{"role": "user", "content": prompt}]
                probe = self.ask(messages, lambda t: parse_keywords(t, n), step=f"tom_{name}", final=False,
                                 on_failure=None, extra={"tom": {"probe": f"keywords_{name}", "turn": branch["turn"]}})
                try:  # bounded like a decision; an endpoint that refuses leaves this answer unreadable
                    answers.append(await self.within_deadline(probe, self.decision_timeout))
                except (Forfeit, DeadlineExpired):
                    answers.append(None)
            rows.append({"turn": branch["turn"], "q1": _listed(branch["q1"]), "q2": _listed(answers[0]),
                         "q3": _listed(answers[1]), "truth": truth})
        return rows


def _listed(value: Sequence[str] | None) -> list[str] | None:
    return None if value is None else list(value)


def specialist_class(seat: str) -> type[LLMAgent]:
    """One class serves every Decrypto seat."""
    return DecryptoPaperAgent


__all__ = [
    "DecryptoPaperAgent", "generalist_messages", "parse_action", "paper_messages", "rebuild_state",
    "specialist_class", "hint_dict",
]
