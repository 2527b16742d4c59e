"""CoMet for Undercover (seeds/comet.txt section 3): one prompt step per module.

Each module is its own LLM call with a JSON answer, logged under its name, in the paper's
order:

1. **Feature extractor** (``fe``, eq. 2): sorts every other player's descriptions into
   detailed / broad / mismatching for the agent's own word and guesses the other word.
2. **Hypothesis-based metaphor reasoner** (``met``, Algorithm 1): for descriptions that do not
   fit literally, tests H0 "describes my word" against H1 "describes another entity".
3. **Belief mapper** (``bm``, eq. 3): teammate / opponent / undecided for every other player.
4. **Self-monitor** (``sm``, eq. 4): civilian or undercover, from the beliefs and the
   majority rule ("most are civilians").
5. **Strategy planner** (``sp``, eqs. 5-6): a communication strategy with the paper's
   guidance (self-protection while unsure; balance detail and concealment as a civilian;
   describe the civilians' word once undercover), carried across rounds.
6. **Metaphor generator** (``met``, Figures 16-17, with the covert-communication goal that
   only CoMet is given): picks a feature and a metaphor type, then writes the metaphorical
   description, with examples drawn from the **experience pool**
   (:class:`~cluegym.agents.llm.comet.pool.ExperiencePool`, shared by the run's CoMet agents
   by default): after every game each metaphor is stored with the outcome, how the other
   players read it and the model's revision (:meth:`CoMetUndercoverAgent.observe_result`).
7. **Voter**: re-extracts features when new descriptions arrived, then votes.

Analysis runs once per new set of descriptions. The agent reports its beliefs in the
action's ``beliefs`` field (``self``, ``others``, ``other_word``, ``features``), so the env's
metrics compute SIAA, OIAA and FER. ``reasoning=direct|replace`` swaps the reasoner for
Figure 6(a)'s other methods. Ablations: ``ablate=met`` is "CoMet w/o Met." (no reasoner, no
generator), ``ablate=met+fe`` etc. drop further modules (Table 2 of the paper).

From the command line::

    cluegym run undercover --agent '*=comet:backend=openai,model=gpt-4o,experience=default' --games 20

Example:
    >>> from cluegym.agents import run_match
    >>> from cluegym.agents.llm.fault_server import serve_faults
    >>> with serve_faults() as server:  # a local stand-in that answers every module's prompt
    ...     summary = run_match("undercover", {"*": f"comet:backend=openai,base_url={server},model=m,"
    ...                                             f"experience=experience.jsonl"},
    ...                         games=1, seed=0, progress=False)
    >>> summary["ok"], summary["agent_stats"]["player_0"]["llm_calls"], summary["metrics"]["belief_reports"]
    (True, 130.0, 100)
    >>> from pathlib import Path
    >>> len(Path("experience.jsonl").read_text().splitlines())  # the metaphors the pool learned from
    50
"""

from __future__ import annotations

import json
import re
from typing import Any

from cluegym.agents.base import Forfeit
from cluegym.agents.llm.checks import check_number
from cluegym.agents.llm.adapters.undercover import SPEAK, beliefs_json, description_text, player_index, player_name
from cluegym.agents.llm.agent import DeadlineExpired, LLMAgent
from cluegym.agents.llm.backends import Message
from cluegym.agents.llm.comet.feedback import metaphor_feedback
from cluegym.agents.llm.comet.pool import ExperiencePool
from cluegym.agents.llm.comet.prompts import (
    BACKGROUND,
    BM_TASK,
    FE_TASK,
    METHOD_THEORY,
    METHODS,
    MG1_TASK,
    MG2_TASK,
    MR_TASK,
    REASONING_TASKS,
    REFLECT_TASK,
    SEED_EXAMPLES,
    SM_TASK,
    SP_TASK,
    SPEAK_TASK,
    VOTE_TASK,
)
from cluegym.agents.llm.parsing import ParseError, extract_dict
from cluegym.envs.core.text import quote_text

#: The CoMet modules that ``ablate=`` may drop.
MODULES = ("fe", "met", "bm", "sm", "sp")


def transcript_from_observation(observation: dict[str, Any]) -> str:
    """The public record of an Undercover game rebuilt from the structured fields."""
    n = len(observation["alive"])
    current = int(observation["round"])
    votes = observation["votes"]
    eliminated = list(observation["eliminated_round"])
    lines = []
    for r, row in enumerate(observation["descriptions"]):
        said = [(p, text) for p, text in enumerate(row) if text]
        if not said and r > current:
            break
        if not said:
            continue
        lines.append(f"Round {r + 1}:")
        lines += [f"  {player_name(p)}: {quote_text(text)}" for p, text in said]
        cast = [(v, int(votes[r][v])) for v in range(n) if int(votes[r][v]) >= 0]
        if cast:
            lines.append("  Votes: " + ", ".join(f"{player_name(v)} -> {player_name(t)}" for v, t in cast))
        out = [player_name(p) for p in range(n) if eliminated[p] == r]
        if out:
            lines.append(f"  Eliminated: {', '.join(out)}")
    alive = [player_name(p) for p in range(n) if observation["alive"][p]]
    lines.append(f"Still in the game: {', '.join(alive)}.")
    return "\n".join(lines)


def _jsonish(value: Any, limit: int = 2000) -> str:
    """A module's answer shown in later prompts (bounded: a runaway answer must not grow
    every prompt after it)."""
    if value in (None, "", {}, []):
        return "none yet"
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (ValueError, TypeError, RecursionError):
        text = "unreadable"
    return text if len(text) <= limit else text[:limit] + "...(cut)"


def _text(value: Any, limit: int) -> str:
    """A module's free-text field for later prompts: strings only, whitespace collapsed, cut."""
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


# ------------------------------------------------------------------ answer parsers
def parse_vote(text: str, observation: dict[str, Any]) -> int:
    """The voter's ``ANSWER: {"vote": "player_X"}``: a living player other than oneself.

    Raises:
        ParseError: no vote, or one naming nobody who can be voted for.
    """
    vote = extract_dict(text, "vote")["vote"]
    return player_index(vote, len(observation["alive"]), observation.get("vote_mask"))


def parse_description(text: str) -> str:
    """``ANSWER: {"description": "..."}`` (speaker, metaphor generator): a non-empty string.

    Raises:
        ParseError: no description, or one that is not text.
    """
    return description_text(extract_dict(text, "description")["description"])


class CoMetUndercoverAgent(LLMAgent):
    """CoMet for Undercover (registered as ``comet``; see the module docstring).

    Args:
        ablate: modules to drop, joined by ``+`` or ``/``: ``met`` (metaphor reasoner and
            generator: "CoMet w/o Met."), ``fe``, ``bm``, ``sm``, ``sp``.
        reasoning: the metaphor reasoner's method (Figure 6(a)): ``"hypothesis"`` (HR, the
            paper's), ``"direct"`` (DU) or ``"replace"`` (RR).
        experience: the experience pool (see :mod:`~cluegym.agents.llm.comet.pool`): "run"
            (default: shared in memory by the run's CoMet agents, so it persists across
            games), "run:<name>", "off", "default" (``~/.cache/cluegym/comet_experience.jsonl``)
            or a JSONL path.
        max_experiences: only the pool's first N experiences are shown (Figure 6(b)); None: all.
        learn: store this agent's metaphors in the pool after each game.
        examples: experiences shown per metaphor method.
        reflect: after each game, ask the model to revise each metaphor from the feedback (the
            outcome and the others' interpretations, see
            :mod:`~cluegym.agents.llm.comet.feedback`), as the paper's loop does; false skips
            that call (the entry is stored without a revision).
        **kwargs: the :class:`~cluegym.agents.llm.agent.LLMAgent` options.
    """

    games = ("undercover",)
    style = "comet"

    def __init__(self, game: str, seat: str, action_space: Any, *, ablate: str = "", reasoning: str = "hypothesis",
                 experience: str = "run", max_experiences: int | None = None, learn: bool = True, examples: int = 3,
                 reflect: bool = True, **kwargs: Any) -> None:
        # -1 showed every experience but one: prompts that grew over a run
        check_number("examples", examples, low=0, integer=True, what="an integer >= 0")
        super().__init__(game, seat, action_space, **kwargs)
        dropped = {m for m in re.split(r"[+/ ]", ablate.lower()) if m}
        unknown = sorted(dropped - set(MODULES))
        if unknown:
            raise ValueError(f"unknown CoMet module {unknown[0]!r}; modules: {', '.join(MODULES)}")
        self.modules = {m: m not in dropped for m in MODULES}
        if reasoning not in REASONING_TASKS:
            raise ValueError(f"unknown reasoning {reasoning!r}; choose one of: {', '.join(REASONING_TASKS)}")
        self.reasoning = reasoning
        self.pool = ExperiencePool.from_option(experience, max_experiences, write=bool(learn))
        self.learn = bool(learn)
        self.examples = int(examples)
        self.reflect = bool(reflect)
        self._new_game_state()

    def _new_game_state(self) -> None:
        self.features: dict[str, Any] = {}
        self.other_word = "unknown"
        self.hypotheses: dict[str, str] = {}
        self.beliefs: dict[str, str] = {}
        self.identity = "unknown"
        self.strategies: list[dict[str, Any]] = []
        self.metaphors: list[dict[str, Any]] = []
        self._analysed: str | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._new_game_state()

    # ------------------------------------------------------------------- helpers
    def _context(self, observation: dict[str, Any]) -> tuple[str, str]:
        n = len(observation["alive"])
        c, u = (int(x) for x in observation["team_sizes"])
        me = player_name(int(observation["player"]))
        background = BACKGROUND.format(n=n, c=c, u=u)
        information = (
            f"# INFORMATION\nYou are {me}. Your secret word is '{observation['word']}'.\n"
            f"Game so far:\n{transcript_from_observation(observation)}"
        )
        return background, information

    async def _step(self, name: str, background: str, information: str, task: str, key: str, default: Any) -> Any:
        messages: list[Message] = [
            {"role": "system", "content": "You are a player in a multi-agent language game. " + background},
            {"role": "user", "content": information + "\n\n" + task},
        ]

        # The whole answer dictionary (it must hold ``key``), or ``default`` when unreadable.
        return await self.ask(messages, lambda text: extract_dict(text, key), step=name, final=False, on_failure=default)

    def _others(self, observation: dict[str, Any]) -> list[str]:
        me = int(observation["player"])
        return [player_name(p) for p in range(len(observation["alive"])) if p != me]

    async def analyse(self, observation: dict[str, Any]) -> None:
        """Feature extractor, metaphor reasoner, belief mapper and self-monitor, once per new
        set of descriptions (re-run before voting when others spoke after us)."""
        seen = transcript_from_observation(observation)
        if seen == self._analysed:
            return
        self._analysed = seen
        background, information = self._context(observation)
        word = str(observation["word"])
        n = len(observation["alive"])
        c, u = (int(x) for x in observation["team_sizes"])
        if self.modules["fe"]:
            answer = await self._step("feature_extractor", background, information, FE_TASK.format(word=word),
                                      "features", {})
            if isinstance(answer.get("features"), dict):
                self.features = answer["features"]
            guess = answer.get("other_word")
            if isinstance(guess, str) and 0 < len(guess) <= 60 and guess.lower() not in ("unknown", "none", word.lower()):
                self.other_word = guess
        if self.modules["met"]:
            suspects = [p for p, f in self.features.items() if isinstance(f, dict) and f.get("category") != "detailed"]
            if suspects:
                listing = "; ".join(f"{p}: {self.features[p].get('feature', '')}" for p in suspects)
                task = REASONING_TASKS[self.reasoning] or MR_TASK
                hyp = (await self._step("metaphor_reasoner", background, information,
                                        task.format(word=word, suspects=listing), "hypotheses", {})).get("hypotheses")
                if isinstance(hyp, dict):
                    self.hypotheses = {str(k): str(v).upper() for k, v in hyp.items()}
        analysis = f"\nYour analysis: features {_jsonish(self.features)}; metaphor hypotheses {_jsonish(self.hypotheses)}."
        if self.modules["bm"]:
            beliefs = (await self._step("belief_mapper", background, information + analysis, BM_TASK.format(word=word),
                                        "beliefs", {})).get("beliefs")
            if isinstance(beliefs, dict):
                self.beliefs = {str(k): str(v).lower() for k, v in beliefs.items()}
        if self.modules["sm"]:
            extra = f"\nYour beliefs about the others: {_jsonish(self.beliefs)}."
            identity = (await self._step("self_monitor", background, information + analysis + extra,
                                         SM_TASK.format(n=n, c=c, u=u, previous=self.identity), "identity", {})).get("identity")
            if identity is not None and str(identity).lower() in ("civilian", "undercover"):
                self.identity = str(identity).lower()

    def beliefs_report(self, observation: dict[str, Any]) -> str | None:
        """The action's ``beliefs`` JSON: self-identity, the others' labels, the other word."""
        n = len(observation["alive"])
        others = {}
        for name, label in self.beliefs.items():
            try:
                index = player_index(name, n)
            except ParseError:
                continue
            if index != int(observation["player"]) and label in ("teammate", "opponent", "undecided", "civilian", "undercover"):
                others[player_name(index)] = label
        report: dict[str, Any] = {}
        if self.identity in ("civilian", "undercover"):
            report["self"] = self.identity
        if others:
            report["others"] = others
        if self.other_word not in ("unknown", ""):
            report["other_word"] = self.other_word
        features = {}
        for name, found in self.features.items():
            text = found.get("feature") if isinstance(found, dict) else found
            try:
                index = player_index(name, n)
            except ParseError:
                continue
            if isinstance(text, str) and text.strip() and index != int(observation["player"]):
                features[player_name(index)] = " ".join(text.split())[:120]
        if features:
            report["features"] = features  # what the feature extractor read: FER's numerator
        return beliefs_json(report)

    # -------------------------------------------------------------------- acting
    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        await self.analyse(observation)
        background, information = self._context(observation)
        word = str(observation["word"])
        state = (f"\nYour analysis: the other word may be '{self.other_word}'; you believe you are {self.identity}; "
                 f"beliefs about the others: {_jsonish(self.beliefs)}.")
        if int(observation["phase"]) == SPEAK:
            action = await self._speak(observation, background, information + state, word)
        else:
            living = [player_name(p) for p, a in enumerate(observation["alive"]) if a and p != int(observation["player"])]
            messages = [
                {"role": "system", "content": "You are a player in a multi-agent language game. " + background},
                {"role": "user", "content": information + state + "\n\n" + VOTE_TASK.format(
                    options=", ".join(living), identity=self.identity, beliefs=_jsonish(self.beliefs))},
            ]
            vote = await self.ask(messages, lambda t: parse_vote(t, observation), step="voter")
            action = {"vote": vote}
        beliefs = self.beliefs_report(observation)
        if beliefs:
            action["beliefs"] = beliefs
        return action

    async def _speak(self, observation: dict[str, Any], background: str, information: str, word: str) -> dict[str, Any]:
        strategy: dict[str, Any] = {"strategy": "describe broad features of my word", "describe": "my_word"}
        if self.modules["sp"]:
            planned = await self._step("strategy_planner", background, information,
                                       SP_TASK.format(history=_jsonish([s.get("strategy") for s in self.strategies])),
                                       "strategy", {})
            strategy.update({k: _text(v, 300) for k, v in planned.items() if k in ("strategy", "describe", "reminder")})
            self.strategies.append(strategy)
        use_other = str(strategy.get("describe", "")).lower().startswith("other") and self.other_word != "unknown"
        target = self.other_word if use_other else word
        system = {"role": "system", "content": "You are a player in a multi-agent language game. " + background}
        if not self.modules["met"]:
            task = SPEAK_TASK.format(strategy=strategy.get("strategy", ""), word=word,
                                     target_text=f"'{target}'" + (" (the other team's word)" if use_other else " (your word)"))
            description = await self.ask([system, {"role": "user", "content": information + "\n\n" + task}], parse_description,
                                         step="speaker")
            return {"description": description}
        methods = "\n".join(f"- {m.upper()} METAPHOR: {METHOD_THEORY[m]} For example: \"{SEED_EXAMPLES[m]['metaphor']}\" "
                            f"This metaphor is describing {SEED_EXAMPLES[m]['word']}. {SEED_EXAMPLES[m]['explain']}"
                            for m in METHODS)
        step1 = MG1_TASK.format(other=self.other_word, strategy=strategy.get("strategy", ""), target=target, methods=methods)
        choice = await self.ask([system, {"role": "user", "content": information + "\n\n" + step1}],
                                lambda t: extract_dict(t, "feature"), step="metaphor_plan", final=False, on_failure={})
        method = _text(choice.get("method"), 20).lower()
        method = method if method in METHODS else METHODS[int(self.rng.integers(len(METHODS)))]
        feature = _text(choice.get("feature"), 200) or f"a typical feature of {target}"
        pool = self.pool.examples("undercover", method, (target, feature), self.examples)
        shown = pool + [SEED_EXAMPLES[method]] * max(0, 1 - len(pool))
        examples = "\n".join(
            f"- \"{e.get('metaphor')}\" This metaphor is describing {e.get('word')}. {e.get('explain') or e.get('revision') or ''}"
            for e in shown
        )
        step2 = MG2_TASK.format(word=word, other=self.other_word, feature=feature, target=target, method=method,
                                theory=METHOD_THEORY[method], examples=examples)
        description = await self.ask([system, {"role": "user", "content": information + "\n\n" + step2}], parse_description,
                                      step="metaphor_generator")
        self.metaphors.append({"round": int(observation["round"]), "word": target, "feature": feature, "method": method,
                               "metaphor": description, "identity": self.identity})
        return {"description": description}

    # ------------------------------------------------------------------ learning
    async def observe_result(self, record: dict[str, Any]) -> None:
        """After a game, the paper's feedback loop: for each metaphor, the outcome and how the
        others read it (:func:`~cluegym.agents.llm.comet.feedback.metaphor_feedback`: their
        features, labels, word guesses and votes; success = recognized by teammates and
        misleading opponents), then (with ``reflect``) the model's revision; stored in the pool."""
        if not self.metaphors or not self.learn or not self.pool.enabled:
            return
        result = record.get("result", {})
        role = result.get("roles", {}).get(self.seat)
        if role is None:
            return
        other_word = result.get("words", {}).get("undercover" if role == "civilian" else "civilian", "")
        for m in self.metaphors:
            feedback = metaphor_feedback(result, self.seat, m["round"])
            interpretation = "; ".join(
                f"{i['player']} ({i['team']}) read '{i['feature'] or 'nothing reported'}', labelled you "
                f"{i['label'] or 'nothing'}{', voted against you' if i['voted_against'] else ''}"
                for i in feedback["interpretations"]
            ) or "nobody heard it"
            entry = {"game": "undercover", "role": role, **m, "other_word": other_word, "won": feedback["won"],
                     "recognized": feedback["recognized"], "misled": feedback["misled"],
                     "success": feedback["success"], "interpretation": interpretation}
            if self.reflect:
                verdict = ("succeeded: recognized by teammates and misleading opponents" if feedback["success"] else
                           f"failed: {'recognized' if feedback['recognized'] else 'not recognized'} by teammates, "
                           f"{'misleading' if feedback['misled'] else 'seen through by'} opponents")
                prompt = REFLECT_TASK.format(word=m["word"], metaphor=m["metaphor"], method=m["method"], feature=m["feature"],
                                             other_word=other_word, interpretation=interpretation,
                                             outcome="won" if feedback["won"] else "lost", verdict=verdict)
                reflection = self.ask([{"role": "user", "content": prompt}],
                                      lambda t: extract_dict(t, "revision")["revision"], step="reflection",
                                      final=False, on_failure=None)
                try:  # after the game: bounded like a decision, and an endpoint failure only skips it
                    revision = await self.within_deadline(reflection, self.decision_timeout)
                except (Forfeit, DeadlineExpired):
                    revision = None
                if isinstance(revision, str) and revision.strip():
                    entry["revision"] = " ".join(revision.split())[:500]
            self.pool.add(entry)
