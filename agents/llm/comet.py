"""CoMet (Communicating with Metaphor, seeds/comet.txt section 3) for Undercover and Adversarial Taboo.

Undercover: each module is its own prompt step (one LLM call, JSON answer, logged under its
name), in the paper's order:

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
6. **Metaphor generator** (``met``, Figures 16-17): picks a feature and a metaphor type, then
   writes the metaphorical description, with examples drawn from a persistent **experience
   pool** (a JSONL file that grows after every game with each metaphor, its outcome and how
   the other players read it; ``reflect=true`` adds the model's suggested revision).
7. **Voter**: re-extracts features when new descriptions arrived, then votes.

Analysis runs once per new set of descriptions. The agent reports its beliefs in the
action's ``beliefs`` field (``self``, ``others``, ``other_word``), so the env's metrics
compute SIAA and OIAA. Ablations: ``ablate=met`` is "CoMet w/o Met." (no reasoner, no
generator), ``ablate=met+fe`` etc. drop further modules (Table 2 of the paper).

Adversarial Taboo: the paper's simplified CoMet (Figure 18): the attacker answers with
``<FOCUS>``/``<DISTRACT>``/``<DIALOGUE>`` given the dialogue and its previous output, the
defender with ``<STRATEGY>``/``<CANDIDATE>``/``<DIALOGUE>`` and may guess only when it
suspected the same word in the previous round. The experience pool gives the attacker past
games' utterances and outcomes.

Example:
    >>> cluegym run undercover --agent '*=comet:backend=openai,model=gpt-4o,experience=default' --games 20
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Sequence

from cluegym.agents.base import Forfeit
from cluegym.agents.llm.agent import DeadlineExpired, LLMAgent
from cluegym.agents.llm.backends import Message, cache_dir
from cluegym.agents.llm.parsing import ParseError, extract_dict, parse_tags
from cluegym.agents.llm.prompts.taboo import make_action
from cluegym.agents.llm.prompts.undercover import SPEAK, beliefs_json, description_text, player_index, player_name

COMET_GAMES = ("undercover", "taboo")
MODULES = ("fe", "met", "bm", "sm", "sp")
METHODS = ("ontological", "structural", "spatial")


# ------------------------------------------------------------------- experience pool
class ExperiencePool:
    """A JSONL file of metaphor experiences that grows from self-play outcomes.

    Each line: ``{"game", "role", "word", "feature", "method", "metaphor", "success",
    "won", "interpretation", "revision"}``. Lines are appended with one ``write`` in append
    mode, so concurrent games may share a file.

    Args:
        path: the JSONL file; None keeps experiences in memory only.
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None else Path(path).expanduser()
        self._memory: list[dict[str, Any]] = []

    @classmethod
    def from_option(cls, value: str | None) -> "ExperiencePool":
        """``None``/"off": in memory; ``"default"``: ``<cache_dir>/comet_experience.jsonl``; else a path."""
        if value is None or str(value).lower() in ("", "off", "none", "memory"):
            return cls(None)
        if str(value).lower() in ("default", "on", "true"):
            return cls(cache_dir() / "comet_experience.jsonl")
        return cls(value)

    def entries(self, game: str | None = None) -> list[dict[str, Any]]:
        rows = list(self._memory)
        if self.path is not None and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # a line cut short by a kill
        return [r for r in rows if game is None or r.get("game") == game]

    def add(self, entry: dict[str, Any]) -> None:
        if self.path is None:
            self._memory.append(entry)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(entry, ensure_ascii=True) + "\n"
        with open(self.path, "a+b") as fh:
            # After a kill mid-write the file ends in a partial line: start a new line, or this
            # entry would be glued to it and unreadable. (A racing writer may add a blank line,
            # which readers skip.)
            if fh.tell() > 0:
                fh.seek(-1, 2)
                if fh.read(1) != b"\n":
                    line = "\n" + line
            fh.write(line.encode("utf-8"))

    def examples(self, game: str, method: str | None = None, words: Sequence[str] = (), k: int = 3) -> list[dict[str, Any]]:
        """The ``k`` most useful experiences: successful ones first, same method and
        overlapping words preferred, most recent first among equals."""
        rows = self.entries(game)
        wanted = {w.lower() for w in words if w}

        def score(item: tuple[int, dict[str, Any]]) -> tuple:
            index, row = item
            text = " ".join(str(row.get(f, "")) for f in ("word", "feature", "metaphor", "target")).lower()
            overlap = sum(1 for w in wanted if w in text)
            return (bool(row.get("success")), method is not None and row.get("method") == method, overlap, index)

        ranked = sorted(enumerate(rows), key=score, reverse=True)
        return [row for _, row in ranked[:k]]

    def __len__(self) -> int:
        return len(self.entries())


# --------------------------------------------------------------------- prompt texts
METAPHOR_THEORY = (
    '"The conceptual metaphor theory holds that metaphor is not only a rhetorical device, but also a concept and '
    "way of thinking. Metaphors have two domains: the target domain (composed of immediate themes) and the source "
    "domain, where important metaphorical reasoning occurs and provides source concepts for use in reason. "
    "Metaphorical language has a literal meaning in the source domain, and a metaphorical mapping is multiple, "
    "with two or more factors mapped to two or more factors, and the graphic structure is preserved in the "
    "mapping. Conventional metaphors can be classified into entity (ontological) metaphors, structural metaphors, "
    'and spatial metaphors based on the different source domains."'
)
METHOD_THEORY = {
    "ontological": (
        "Ontological metaphors are those in which abstract concepts or experiences are understood as having an "
        "existence or being in some form of object or substance: abstract phenomena are viewed as things or "
        "entities that can have properties, boundaries, and locations."
    ),
    "structural": (
        "Structural metaphors involve understanding one complex or abstract domain in terms of another more "
        "familiar domain that has a clear and defined structure, imposing its order, hierarchy and "
        "interrelationship among parts."
    ),
    "spatial": (
        "Spatial metaphors are based on the conceptualization of abstract experiences through spatial relations "
        "and positions: direction, location, movement and distance (up is positive, down is negative)."
    ),
}
#: Built-in examples for the {metaphor}/{word}/{explain} slots of Figures 16-17, used until
#: the experience pool holds successful metaphors of that type.
SEED_EXAMPLES = {
    "ontological": {"metaphor": "It keeps a little piece of summer locked inside a glass.", "word": "jam",
                    "feature": "preserved fruit", "explain": "Summer, a season, is treated as a substance that can be stored."},
    "structural": {"metaphor": "A tiny kingdom where everyone works for one queen.", "word": "bee",
                   "feature": "lives in a colony with a queen", "explain": "The structure of a kingdom is mapped onto a hive."},
    "spatial": {"metaphor": "It lives halfway between the clouds and a child's hand.", "word": "kite",
                "feature": "flies on a string", "explain": "Its tethered flight is described by its position in space."},
}
BACKGROUND = (
    "# BACKGROUND\n"
    "You are playing Undercover. At the beginning of the game, each player is randomly assigned one of two words "
    "that share some similarities. Players are divided into two teams based on their assigned words: the majority "
    "group (civilians) and the minority group (undercover). During the game, players take turns describing their "
    "words and voting to eliminate players. The team that eliminates all members of the opposing team wins (the "
    "undercover also win when only one civilian is left). Nobody is told which team they are on.\n"
    "In this game, there are {n} players in total. {c} players have the same word, and the other {u} have another "
    "same word."
)
FE_TASK = (
    "# TASK (Feature Extractor)\n"
    "Analyse the descriptions of the other players against your word '{word}'. Put each player's descriptions in "
    "one of three categories: \"detailed\" (a specific feature of your word), \"broad\" (true of your word but "
    "also of similar things), or \"mismatch\" (it does not fit your word: it describes the other word). Collect "
    "the features of the other word from the mismatching descriptions and guess the other word once you are "
    "confident (else \"unknown\").\n"
    'Answer in JSON: ANSWER: {{"features": {{"player_X": {{"category": "detailed|broad|mismatch", "feature": "..."}}}}, '
    '"other_word": "..."}}'
)
MR_TASK = (
    "# TASK (Hypothesis-based Metaphor Reasoner)\n"
    "Knowledge: " + METAPHOR_THEORY + "\n"
    "Some descriptions may be metaphors. For each of these descriptions: {suspects}\n"
    "test two hypotheses. H0: the speaker is describing your word '{word}'. H1: the speaker is describing another "
    "entity. Steps: (1) expand the features of '{word}' (behaviour, state, structure ...); (2) expand the "
    "metaphor's possible aspects (actions, emotions, states, structures); (3) match every feature against the "
    "aspects and record matches and mismatches; (4) weigh the evidence and choose the most convincing path. You "
    "do not need to decode the metaphor, only decide H0 or H1.\n"
    'Answer in JSON: ANSWER: {{"hypotheses": {{"player_X": "H0 or H1"}}}}'
)
BM_TASK = (
    "# TASK (Belief Mapper)\n"
    "Classify every other player: \"teammate\" (describes your word '{word}' in detail, or a metaphor accepted as "
    "H0), \"opponent\" (descriptions that do not match your word), or \"undecided\" (only vague descriptions so "
    "far). Use their votes as evidence too.\n"
    'Answer in JSON: ANSWER: {{"beliefs": {{"player_X": "teammate|opponent|undecided"}}}}'
)
SM_TASK = (
    "# TASK (Self-Monitor)\n"
    "Infer your own identity. Most players are civilians ({c} of {n}), few are undercover ({u}). If the players "
    "who share your word (your teammates, counting yourself) are the majority, you are a civilian; if they are "
    "the minority, you are undercover. Update your previous judgement ({previous}) with the new evidence.\n"
    'Answer in JSON: ANSWER: {{"identity": "civilian or undercover", "confidence": 0-100, "reason": "..."}}'
)
SP_TASK = (
    "# TASK (Strategy Planner)\n"
    "Plan how you will speak this round. Guidance:\n"
    "- While you are unsure of your identity, protect yourself: describe broad, vague features of your word so "
    "that you do not reveal it.\n"
    "- If you believe you are a civilian, balance giving details (so that teammates recognise you) with "
    "concealing the features the undercover could use to learn your word.\n"
    "- If you believe you are undercover and have worked out the civilians' word, stop describing your own word "
    "and describe the civilians' word instead, to blend in with them (never say your own word).\n"
    "Your strategies in earlier rounds: {history}\n"
    'Answer in JSON: ANSWER: {{"strategy": "...", "describe": "my_word or other_word", "reminder": "advice for later rounds"}}'
)
MG1_TASK = (
    "Your game goal now is to describe your word in one sentence, so that your teammates (those who share your "
    "word) understand that you are describing your word, but your opponents cannot obtain information about your "
    "word from your description. If you describe the features directly, your opponent can deduce the object "
    "based on the features. Now, let's try using metaphorical methods to describe and distract our opponents.\n"
    "Your analysis about the other word: {other}\n"
    "Your strategy: {strategy}\n"
    "# TASK (Metaphor Generator, step 1)\n"
    "Conduct a preliminary analysis of metaphor generation, then select a specific feature of '{target}' and a "
    "metaphor method. Steps:\n"
    "1. Understand the principle of metaphor: " + METAPHOR_THEORY + "\n"
    "2. Generate some features of '{target}' as candidates, which distinguish it from the other word, so your "
    "teammates can understand which word you describe.\n"
    "3. Understand three types of metaphor:\n{methods}\n"
    "4. Pick the single most suitable feature and method to convey information to teammates rather than opponents.\n"
    'Answer in JSON: ANSWER: {{"feature": "...", "method": "ontological|structural|spatial"}}'
)
MG2_TASK = (
    "Your secret word is '{word}'. Your analysis about the other word: {other}\n"
    "Your teammates will try to understand your metaphor by comparing each feature of the word with your "
    "description; your opponents must not be able to locate the feature and infer the word.\n"
    "# TASK (Metaphor Generator, step 2)\n"
    "Use a metaphor to describe the feature '{feature}' of '{target}' by using the {method} method. Theory: "
    "\"{theory}\"\nExamples:\n{examples}\n"
    "Write your own metaphorical description: one concise sentence that never contains '{word}' or any form of it.\n"
    'Answer in JSON: ANSWER: {{"description": "..."}}'
)
SPEAK_TASK = (
    "# TASK (Speaker)\n"
    "Following your strategy ({strategy}), describe {target_text} in one sentence, without ever saying your word "
    "'{word}' or any form of it.\n"
    'Answer in JSON: ANSWER: {{"description": "..."}}'
)
VOTE_TASK = (
    "# TASK (Voter)\n"
    "Vote to eliminate one living player other than yourself: {options}. You believe you are {identity}; your "
    "beliefs about the others: {beliefs}. Vote for the player most likely on the other team.\n"
    'Answer in JSON: ANSWER: {{"vote": "player_X"}}'
)
REFLECT_TASK = (
    "After the game: you described '{word}' with the metaphor \"{metaphor}\" ({method} metaphor of the feature "
    "'{feature}'). The other team's word was '{other_word}'. {interpretation} Your team {outcome}.\n"
    "In one sentence, suggest how to revise this metaphor so that teammates recognise it and opponents do not.\n"
    'Answer in JSON: ANSWER: {{"revision": "..."}}'
)


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
        lines += [f"  {player_name(p)}: {text}" for p, text in said]
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


def parse_attacker(text: str) -> dict[str, str]:
    """Figure 18's attacker reply: ``<FOCUS>``, ``<DISTRACT>`` and the required ``<DIALOGUE>``."""
    return parse_tags(text, ("FOCUS", "DISTRACT", "DIALOGUE"), required=("DIALOGUE",))


def parse_defender(text: str) -> dict[str, str]:
    """Figure 18's defender reply: ``<STRATEGY>``, the required ``<CANDIDATE>``, ``<DIALOGUE>``."""
    return parse_tags(text, ("STRATEGY", "CANDIDATE", "DIALOGUE"), required=("CANDIDATE",))


class CoMetUndercoverAgent(LLMAgent):
    """CoMet for Undercover (registered as ``comet``; see the module docstring).

    Args:
        ablate: modules to drop, joined by ``+`` or ``/``: ``met`` (metaphor reasoner and
            generator: "CoMet w/o Met."), ``fe``, ``bm``, ``sm``, ``sp``.
        experience: the experience pool: None/"off" (in memory, per agent), "default"
            (``~/.cache/cluegym/comet_experience.jsonl``) or a JSONL path.
        examples: experiences shown per metaphor method.
        reflect: after each game, ask the model for a revision of each metaphor and store it.
        **kwargs: the :class:`~cluegym.agents.llm.agent.LLMAgent` options.
    """

    games = ("undercover",)
    style = "comet"

    def __init__(self, game: str, seat: str, action_space: Any, *, ablate: str = "", experience: str | None = None,
                 examples: int = 3, reflect: bool = False, **kwargs: Any) -> None:
        super().__init__(game, seat, action_space, **kwargs)
        dropped = {m for m in re.split(r"[+/ ]", ablate.lower()) if m}
        unknown = sorted(dropped - set(MODULES))
        if unknown:
            raise ValueError(f"unknown CoMet module {unknown[0]!r}; modules: {', '.join(MODULES)}")
        self.modules = {m: m not in dropped for m in MODULES}
        self.pool = ExperiencePool.from_option(experience)
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
                hyp = (await self._step("metaphor_reasoner", background, information,
                                        MR_TASK.format(word=word, suspects=listing), "hypotheses", {})).get("hypotheses")
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
        """After a game: store each metaphor with its outcome and how the others read it
        (votes against us from teammates = misread; from opponents = seen through)."""
        if not self.metaphors:
            return
        result = record.get("result", {})
        roles = result.get("roles", {})
        role = roles.get(self.seat)
        winner = result.get("winner")
        won = (winner == "civilians" and role == "civilian") or (winner == "undercover" and role == "undercover")
        other_word = result.get("words", {}).get("undercover" if role == "civilian" else "civilian", "")
        history = result.get("history", [])
        for m in self.metaphors:
            votes = history[m["round"]]["votes"] if m["round"] < len(history) else {}
            against = [v for v, t in votes.items() if t == self.seat]
            by_team = sum(1 for v in against if roles.get(v) == role)
            by_opponents = len(against) - by_team
            interpretation = (f"In that round {by_team} teammate(s) and {by_opponents} opponent(s) voted against you.")
            entry = {"game": "undercover", "role": role, **m, "other_word": other_word, "won": won,
                     "success": by_team == 0 and won, "interpretation": interpretation}
            if self.reflect:
                prompt = REFLECT_TASK.format(word=m["word"], metaphor=m["metaphor"], method=m["method"], feature=m["feature"],
                                             other_word=other_word, interpretation=interpretation,
                                             outcome="won" if won else "lost")
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


# ----------------------------------------------------------------------------- Taboo
TABOO_ATTACKER = (
    "You are guiding the other person to say the secret word [{word}], with the aim of making them unconsciously "
    "say the word. If the other party guesses the word before speaking, then you lose. Never say the secret word "
    "or any form of it yourself. Please follow the following rules:\n"
    "[Basic Rules]\n1. It is necessary to imply based on real information and not fabricate false facts\n"
    "When the other party suspects a certain word, they can choose:\n"
    "Adversarial Strategy\nThink according to this process:\n"
    "1. Analyze the other party's last two responses to determine if they are suspecting a certain word and "
    "preparing for speculation\n"
    "2. If the suspected word is close to the target word:\n  - You can choose:\n"
    "    - a) Continuing to guide using metaphors\n"
    "    - b) Introduce concepts that fit the context but differ from the secret word for interference\n"
    "3. If the suspected word deviates from the target word:\n"
    "  - Think about the scenarios in which your words will be used, then combine the guidance direction from the "
    "previous round and engage in dialogue and guide the other person to say the words.\n"
    "{experience}"
    "[Output Format]\nStrictly use the following format:\n"
    "<RESPONSE>\n<FOCUS>Core guidance scenario</FOCUS>\n<DISTRACT>Interference direction</DISTRACT>\n"
    "<DIALOGUE>Natural dialogue content (including the above two elements)</DIALOGUE>\n</RESPONSE>\n"
    "[Reference Information]\nHistorical dialogue content:\n{history}\nYour output in the previous round:\n{response}"
)
TABOO_DEFENDER = (
    "You are participating in a word attack and defense game, with the following rules:\n"
    "1. The attacker will try to guide you to say a secret word\n"
    "2. You need to analyze the conversation to identify possible secret word\n"
    "3. You can only apply for guessing if you suspect the same word in both this round and the last round\n"
    "Otherwise, you need to delve deeper into the current topic [Can only answer, not ask back questions], but be "
    "aware that words that you suspect should not appear in your conversation, and instead be replaced with "
    "metaphors.\n"
    "[Thinking Framework]\nEach reply strictly follows the following steps:\n<THINK>\n"
    "1. Analyze the guidance direction of the last three rounds of conversations\n"
    "2. List 1-3 possible candidate words [sorted by likelihood]\n"
    "3. Comparing historical suspicion records:\n  -If a candidate word appears for the first time -> continue to "
    "delve deeper\n  -If the candidate word is the same as last time -> apply for guessing [format: guess:[word]]\n"
    "4. Choose a response strategy\n</THINK>\n"
    "[Output Format]\nThe following format must be used, including XML tags:\n"
    "<RESPONSE>\n<STRATEGY>[continue|guess]</STRATEGY>\n<CANDIDATE>words of doubt</CANDIDATE>\n"
    "<DIALOGUE>Actual reply content [using daily conversation format, **cannot use words of doubt**]</DIALOGUE>\n"
    "</RESPONSE>\n"
    "[Reference Information]\nHistorical dialogue content:\n{history}\nYour output in the previous round:\n{response}"
)


def taboo_history(observation: dict[str, Any]) -> str:
    lines = []
    for i, text in enumerate(observation["dialogue"]):
        if text:
            lines.append(f"{'Attacker' if i % 2 == 0 else 'Defender'}: {text}")
    return "\n".join(lines) if lines else "(the conversation has not started)"


class CoMetTabooAgent(LLMAgent):
    """CoMet for Adversarial Taboo (Figure 18), registered as ``comet`` for taboo.

    Args:
        experience: experience pool (see :class:`CoMetUndercoverAgent`); the attacker sees
            past games' utterances and outcomes.
        examples: experiences shown to the attacker.
        **kwargs: the :class:`~cluegym.agents.llm.agent.LLMAgent` options.
    """

    games = ("taboo",)
    style = "comet"

    def __init__(self, game: str, seat: str, action_space: Any, *, experience: str | None = None, examples: int = 3,
                 **kwargs: Any) -> None:
        super().__init__(game, seat, action_space, **kwargs)
        self.pool = ExperiencePool.from_option(experience)
        self.examples = int(examples)
        self.previous = "(none)"
        self.candidates: list[str] = []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.previous, self.candidates = "(none)", []

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        history = taboo_history(observation)
        if self.seat == "attacker":
            target = str(observation["target"])
            shown = self.pool.examples("taboo", None, (target,), self.examples)
            experience = ""
            if shown:
                experience = "[Reference experience from earlier games]\n" + "\n".join(
                    f"- target '{e.get('target')}': you said {json.dumps(e.get('utterances', [])[:3])}; "
                    f"result: {e.get('outcome')}" for e in shown) + "\n"
            prompt = TABOO_ATTACKER.format(word=target, history=history, response=self.previous, experience=experience)
            parsed = await self.ask([{"role": "user", "content": prompt}], parse_attacker, step="comet_attacker")
            self.previous = f"<FOCUS>{parsed.get('focus', '')}</FOCUS><DIALOGUE>{parsed['dialogue']}</DIALOGUE>"
            return make_action("attacker", parsed["dialogue"])
        prompt = TABOO_DEFENDER.format(history=history, response=self.previous)
        parsed = await self.ask([{"role": "user", "content": prompt}], parse_defender, step="comet_defender")
        candidate = re.split(r"[,;/\n]", parsed["candidate"].strip("[] "))[0].strip().strip("[]").lower()
        turn = int(observation["turn"])
        max_turns = len(observation["dialogue"]) // 2
        wants_guess = "guess" in parsed.get("strategy", "").lower()
        # The framework's rule: guess only on a repeated suspicion (or with no turn left).
        confirmed = bool(self.candidates) and self.candidates[-1] == candidate
        guess = candidate if candidate and ((wants_guess and confirmed) or turn + 1 >= max_turns) else ""
        self.candidates.append(candidate)
        self.previous = f"<STRATEGY>{'guess' if guess else 'continue'}</STRATEGY><CANDIDATE>{candidate}</CANDIDATE>"
        utterance = parsed.get("dialogue", "")
        if not utterance and not guess:
            utterance = "I see, tell me more."
        return make_action("defender", utterance, guess)

    async def observe_result(self, record: dict[str, Any]) -> None:
        """Attacker: store this game's utterances and outcome in the experience pool."""
        if self.seat != "attacker":
            return
        result = record.get("result", {})
        utterances = [u.get("text") for u in result.get("dialogue", []) if u.get("speaker") == "attacker"]
        outcome = {"attacker": "won", "defender": "lost"}.get(result.get("winner"), "draw")
        self.pool.add({"game": "taboo", "role": "attacker", "target": result.get("target"), "utterances": utterances,
                       "outcome": f"{outcome} ({result.get('end_reason')})", "success": outcome == "won"})


def comet_class(game: str, seat: str) -> type[LLMAgent]:
    """The CoMet agent class for ``game`` (Undercover or Adversarial Taboo)."""
    if game == "undercover":
        return CoMetUndercoverAgent
    if game == "taboo":
        return CoMetTabooAgent
    raise ValueError(f"CoMet plays {' and '.join(COMET_GAMES)}, not {game!r}")
