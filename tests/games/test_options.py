"""Game options are checked and coerced against each env's declared signature (one mechanism,
``cluegym.envs.core.options``, shared with agent specs); ``cluegym list GAME`` shows them."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal, Sequence, get_args

import numpy as np
import pytest

import cluegym
from cluegym.agents import AgentSpecError, make_agent
from cluegym.cli import main
from cluegym.envs import decrypto_v0
from cluegym.envs.core.options import OptionError, check_init_options, coerce_value, docstring_args, type_name
from cluegym.envs.decrypto.env import DecryptoEnv
from cluegym.envs.dixit.rules import PRESETS, SCORINGS
from random_play import random_agents, start_game

GAMES = ("decrypto", "dixit", "taboo", "undercover")
TARGETS = ["apple", "river", "candle", "mountain"]


def _one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message and message.strip() == message
    return message


# -- unknown options ----------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_unknown_option_lists_every_valid_option(game: str):
    with pytest.raises(OptionError) as exc:
        cluegym.make(game, no_such_option=1)
    message = _one_line(exc)
    assert message.startswith(f"{game} has no option no_such_option; accepted: ")
    for name in cluegym.game_options(game):
        assert f"{name}=" in message
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize("game, typo, meant", [
    ("decrypto", "max_turn", "max_turns"),
    ("dixit", "num_player", "num_players"),
    ("taboo", "target", "targets"),
    ("undercover", "word_pair", "word_pairs"),
])
def test_unknown_option_suggests_the_closest(game: str, typo: str, meant: str):
    with pytest.raises(OptionError, match=f"has no option {typo};.*did you mean {meant}\\?$"):
        cluegym.make(game, **{typo: 2})


def test_direct_construction_paths_give_the_same_error_not_a_type_error():
    for build in (decrypto_v0.env, decrypto_v0.raw_env, DecryptoEnv):
        with pytest.raises(OptionError, match="decrypto has no option max_turn; .*did you mean max_turns"):
            build(max_turn=2)


# -- wrong types --------------------------------------------------------------------------------

@pytest.mark.parametrize("game, options, message", [
    ("decrypto", {"max_turns": "abc"}, "decrypto option max_turns='abc': expected int"),
    ("decrypto", {"max_turns": True}, "decrypto option max_turns=True: expected int"),
    ("decrypto", {"max_turns": 8.5}, "decrypto option max_turns=8.5: expected int"),
    ("decrypto", {"keywords": 5}, "decrypto option keywords=5: expected str | Path | Sequence[str] | None"),
    ("dixit", {"num_players": "four"}, "dixit option num_players='four': expected int | None"),
    ("dixit", {"num_players": float("nan")}, "dixit option num_players=nan: expected int | None"),
    ("dixit", {"rules": "house"}, "dixit option rules='house': expected 'dixitworld' | 'official'"),
    ("dixit", {"hand_swap": "maybe"}, "dixit option hand_swap='maybe': expected bool | None"),
    ("taboo", {"strict_word_check": 2}, "taboo option strict_word_check=2: expected bool"),
    ("taboo", {"targets": ["apple", 3]}, "taboo option targets=['apple', 3]: expected"),
    ("undercover", {"max_rounds": float("inf")}, "undercover option max_rounds=inf: expected int"),
    ("undercover", {"timeout_winner": "eve"},
     "undercover option timeout_winner='eve': expected 'civilians' | 'undercover' | 'none'"),
    ("undercover", {"undercover_seats": "3,4"}, "undercover option undercover_seats='3,4': expected"),
])
def test_wrong_type_is_a_one_line_error(game: str, options: dict[str, Any], message: str):
    with pytest.raises(OptionError) as exc:
        cluegym.make(game, **options)
    assert _one_line(exc).startswith(message)


def test_shown_values_are_short_and_safe():
    class Unprintable:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(OptionError, match=r"keywords=\[\[\.\.\.\]\]: expected"):
        cluegym.make("decrypto", keywords=looped)
    with pytest.raises(OptionError, match=r"max_turns=<Unprintable>: expected int"):
        cluegym.make("decrypto", max_turns=Unprintable())
    with pytest.raises(OptionError) as exc:
        cluegym.make("decrypto", max_turns="9" * 5000)
    assert len(_one_line(exc)) < 120


# -- coercion from text (what `cluegym run --env k=v` passes) -----------------------------------

def test_text_converts_to_the_declared_types():
    decrypto = cluegym.make("decrypto", max_turns="6", interception_limit=" 3 ", keywords="none").unwrapped
    assert decrypto.game_config.max_turns == 6 and decrypto.game_config.interception_limit == 3
    assert decrypto.config["keywords"] is None

    dixit = cluegym.make("dixit", rules="official", num_players="3", hand_swap="true", target_score="null",
                         image_size="48x32", reveal_captions="false").unwrapped
    assert dixit.game_config.num_players == 3 and dixit.game_config.hand_swap is True
    assert dixit.image_size == (48, 32) and dixit.reveal_captions is False
    assert cluegym.make("dixit", image_size=[40, 24]).unwrapped.image_size == (40, 24)

    taboo = cluegym.make("taboo", targets=TARGETS, max_turns="2", strict_word_check="yes").unwrapped
    assert taboo.game_config.max_turns == 2 and taboo.game_config.strict_word_check is True

    under = cluegym.make("undercover", num_players="4", num_undercover="1", undercover_seats="[3]",
                         word_pairs=[("car", "truck")], timeout_winner="undercover").unwrapped
    assert under.game_config.num_players == 4 and under.undercover_seats == [3]
    assert under.word_pairs == (("car", "truck"),) and under.game_config.timeout_winner == "undercover"


def test_cli_env_values_are_coerced_and_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "decrypto", "--env", "max_turns=abc", "--no-progress", "--no-show"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == "cluegym: error: decrypto option max_turns='abc': expected int"
    with pytest.raises(SystemExit):
        main(["run", "decrypto", "--env", "max_turn=2", "--no-progress", "--no-show"])
    assert "did you mean max_turns?" in capsys.readouterr().err


@pytest.mark.parametrize("game, options, words", [
    ("decrypto", {"max_turns": 0}, "max_turns"),
    ("dixit", {"num_players": 8}, "num_players"),
    ("taboo", {"max_turns": 0, "targets": TARGETS}, "max_turns"),
    ("undercover", {"num_undercover": 3}, "undercover"),
])
def test_range_errors_stay_with_the_game_and_are_one_line(game: str, options: dict[str, Any], words: str):
    with pytest.raises(ValueError, match=words) as exc:
        cluegym.make(game, **options)
    assert not isinstance(exc.value, OptionError)  # the type was right; the game judged the value
    _one_line(exc)


#: Every numeric game option that sizes what the env builds (spaces, prompts, the records of
#: every round): ``10**21`` overflowed numpy's C long with a traceback, ``10**8`` built for
#: minutes and ``10**5`` seats ran out of memory. Each now has an upper bound (the game's, or
#: the text one of :data:`~cluegym.envs.core.text.MAX_TEXT_OPTION_CHARS`).
SIZING_OPTIONS = [
    ("taboo", "max_turns", 1000), ("taboo", "max_utterance_chars", 100_000),
    ("dixit", "num_rounds", 1000), ("dixit", "max_clue_chars", 100_000),
    ("undercover", "num_players", 20), ("undercover", "max_rounds", 1000),
    ("undercover", "max_description_chars", 100_000),
]


@pytest.mark.parametrize("game, name, limit", SIZING_OPTIONS)
@pytest.mark.parametrize("over", [1, 10**8, 10**21])
def test_options_that_size_the_env_have_an_upper_bound(game: str, name: str, limit: int, over: int):
    value = over if over > limit else limit + over
    options = {"targets": TARGETS} if game == "taboo" else {}
    with pytest.raises(ValueError, match=rf"^{name} must be in \d+\.\.{limit}, got {value}$") as exc:
        cluegym.make(game, **options, **{name: value})
    assert not isinstance(exc.value, OptionError)
    _one_line(exc)


@pytest.mark.parametrize("game, name, limit", SIZING_OPTIONS)
def test_the_upper_bound_itself_builds_and_plays(game: str, name: str, limit: int):
    extra = {"num_undercover": 2} if name == "num_players" else {}
    env = cluegym.make(game, **{name: limit}, **extra)
    agents = random_agents(env, game)
    start_game(env, agents, 0)
    for moves in range(6):  # a few moves: the spaces and the first prompts at the bound work
        agent = env.agent_selection
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            break
        assert env.observation_space(agent).contains(observation)
        env.step(agents[agent].act(observation, info))
    assert moves >= 1 and getattr(env.unwrapped.game_config, name) == limit


def test_the_cli_refuses_an_option_over_its_bound_in_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["run", "undercover", "--env", f"max_rounds={10**21}", "--no-progress", "--no-show"])
    assert capsys.readouterr().err == "cluegym: error: max_rounds must be in 1..1000, got 1000000000000000000000\n"


# -- the shared mechanism -----------------------------------------------------------------------

@pytest.mark.parametrize("value, annotation, expected", [
    ("8", int, 8), (np.int64(7), int | None, 7), ("none", int | None, None), (None, int | None, None),
    ("0.5", float, 0.5), (2, float, 2.0), ("true", bool, True), ("off", bool, False), (1, bool, True),
    ("official", Literal["dixitworld", "official"], "official"), ("3", Literal[1, 2, 3], 3),
    ("[1, 2]", Sequence[int], [1, 2]), ((1, "2"), tuple[int, int], (1, 2)), ("96x64", Sequence[int] | str, "96x64"),
    ("a.txt", Path, Path("a.txt")), ("a.txt", str | Path, "a.txt"), ({"k": "1"}, dict[str, int], {"k": 1}),
    (object, Any, object),
])
def test_coerce_value_accepts(value: Any, annotation: Any, expected: Any):
    result = coerce_value(value, annotation)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("value, annotation", [
    (True, int), (False, int | None), (8.0, int), ("8.0", int), ("9" * 5000, int),
    ("nan", float), ("inf", float), ("-Infinity", float), ("1e400", float), (math.nan, float), (10**400, float),
    ("maybe", bool), (2, bool), ("", Path), (5, str), ("abc", Sequence[str]), (["a", 1], Sequence[str]),
    ((1, 2, 3), tuple[int, int]), ("house", Literal["dixitworld", "official"]), (True, Literal[1]),
])
def test_coerce_value_rejects(value: Any, annotation: Any):
    with pytest.raises(ValueError):
        coerce_value(value, annotation)


def test_agent_specs_use_the_same_mechanism():
    space = cluegym.make("decrypto").action_space("alice")
    with pytest.raises(AgentSpecError, match=r"parameter temperature='nan': expected float \(finite\)$"):
        make_agent("llm:temperature=nan", game="decrypto", seat="alice", action_space=space)
    with pytest.raises(AgentSpecError, match="has no parameter kk; accepted: .*; did you mean k\\?$"):
        make_agent("glove:kk=3", game="decrypto", seat="alice", action_space=space)
    assert issubclass(AgentSpecError, OptionError)


def test_any_class_can_check_its_options():
    @check_init_options
    class Table:
        def __init__(self, size: int = 3, *, lit: bool = False, **extra: Any) -> None:
            self.size, self.lit, self.extra = size, lit, extra

    table = Table(size="4", lit="on", colour="red")  # **extra: undeclared names pass unchecked
    assert (table.size, table.lit, table.extra) == (4, True, {"colour": "red"})
    assert Table(5).size == 5
    with pytest.raises(OptionError, match="Table option size='big': expected int"):
        Table(size="big")


def test_a_game_subclass_adds_options_and_keeps_the_game_checks():
    class BonusDecrypto(DecryptoEnv):
        def __init__(self, *, bonus: int = 0, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.bonus = bonus

    env = BonusDecrypto(bonus="2", max_turns="3")
    assert env.bonus == 2 and env.game_config.max_turns == 3
    with pytest.raises(OptionError, match="decrypto has no option max_turn;"):
        BonusDecrypto(max_turn=3)


def test_docstring_args_and_type_names():
    doc = """Title.

    Args:
        max_turns: turns to
            survive (default 8).
        deck: a ``folder``; see :func:`load_deck` for caption-
            based decks.

    Returns:
        nothing: not an option.
    """
    assert docstring_args(doc) == {"max_turns": "turns to survive (default 8).",
                                   "deck": "a folder; see load_deck for caption-based decks."}
    assert type_name(str | Path | Sequence[str] | None) == "str | Path | Sequence[str] | None"
    assert type_name(Literal["a", "b"] | None) == "'a' | 'b' | None"
    assert type_name(tuple[int, ...]) == "tuple[int, ...]"


@pytest.mark.parametrize("game", GAMES)
def test_every_option_is_declared_typed_and_described(game: str):
    options = cluegym.game_options(game)
    assert {"max_retries", "render_mode", "record_observations"} <= set(options)
    for option in options.values():
        assert option.annotation is not Any, option.name
        assert option.description, f"{game}.{option.name} has no description in the env's Args:"
        assert not option.required


def test_dixit_choices_match_the_rules():
    options = cluegym.game_options("dixit")
    assert get_args(options["rules"].annotation) == tuple(PRESETS)
    assert get_args(get_args(options["scoring"].annotation)[0]) == SCORINGS


# -- cluegym list -------------------------------------------------------------------------------

def test_cluegym_list_game_shows_every_option(capsys):
    assert main(["list", "decrypto"]) == 0
    out = capsys.readouterr().out
    assert "seats: alice, bob, eve" in out
    assert "  max_turns: int = 8\n      turns Alice and Bob must survive (default 8).\n" in out
    assert "  keywords: str | Path | Sequence[str] | None = None\n" in out
    for name in cluegym.game_options("decrypto"):
        assert f"\n  {name}: " in out


def test_cluegym_list_dixit_shows_literal_choices(capsys):
    assert main(["list", "dixit"]) == 0
    assert "  rules: 'dixitworld' | 'official' = 'dixitworld'\n" in capsys.readouterr().out


def test_cluegym_list_overview_points_to_game_options(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("games:\n") and "agents (name[:key=value,...]):" in out
    assert "`cluegym list GAME`" in out


def test_cluegym_list_shows_each_seats_agents_and_their_defaults_there(capsys):
    """The overview read one seat a game and merged them: glove showed Decrypto's k=8 (the Taboo
    attacker's default is 30) and not Bob's ``assign``; no listing showed a seat's agents."""
    assert main(["list"]) == 0
    glove = next(line for line in capsys.readouterr().out.splitlines() if "assign=None" in line)
    assert "k=<by seat>" in glove
    assert main(["list", "taboo"]) == 0
    out = capsys.readouterr().out
    attacker = out[out.index("  attacker:\n"):out.index("  defender:\n")]
    assert "    glove        embedding=None, k=30, seed=None" in attacker
    assert main(["list", "undercover"]) == 0
    assert "  player_0, player_1, player_2, player_3, player_4:\n    comet" in capsys.readouterr().out


def test_cluegym_list_unknown_game(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["list", "chess"])
    assert exc.value.code == 2
    assert "unknown game 'chess'; registered games: decrypto, dixit, taboo, undercover" in capsys.readouterr().err


def test_a_huge_deck_caps_the_official_rounds_at_the_bound():
    from cluegym.envs.dixit.config import MAX_ROUNDS_LIMIT, preset_config
    assert preset_config("official", deck_size=84).num_rounds == 1 + (84 - 4 * 6) // 4  # as the deck allows
    assert preset_config("official", deck_size=100_000).num_rounds == MAX_ROUNDS_LIMIT == 1000


# -- options that name a file: a folder, a binary file or a missing one, in one line ------------

@pytest.mark.parametrize("argv, problem", [
    (["taboo", "--env", "targets={folder}"], "word list '{folder}' is a directory, not a file"),
    (["taboo", "--env", "targets={binary}"], "word list '{binary}' is not UTF-8 text (byte 0xff at offset 2)"),
    (["taboo", "--env", "targets={missing}"], "word list '{missing}' does not exist"),
    (["undercover", "--env", "word_pairs={folder}"], "word-pair list '{folder}' is a directory, not a file"),
    (["undercover", "--env", "word_pairs={binary}"], "word-pair list '{binary}' is not UTF-8 text"),
    (["decrypto", "--agent", "alice=glove:vocabulary={binary}"], "word list '{binary}' is not UTF-8 text"),
    (["decrypto", "--agent", "alice=glove:vectors={folder}"], "word vectors file '{folder}' is a directory, not a file"),
])
def test_a_file_option_that_names_no_text_file_is_one_line(tmp_path, argv, problem):
    paths = {"folder": tmp_path, "binary": tmp_path / "words.bin", "missing": tmp_path / "none.txt"}
    paths["binary"].write_bytes(b"ab\xff\xfe\x00")
    with pytest.raises(SystemExit) as exited:
        main(["run", *(a.format(**paths) for a in argv), "--games", "1", "--no-progress", "--no-show"])
    message = str(exited.value)
    assert message.startswith("cluegym: error: ") and problem.format(**paths) in message and "\n" not in message


@pytest.mark.parametrize("game, options, message", [
    # each passed construction and failed at the reset of some seeds only (or left the space)
    ("decrypto", {"keywords": ["apple", "Apple", "pear", "plum"]}, "keyword list has 3 distinct words"),
    ("decrypto", {"keywords": ["café", "naive", "rose", "moon"]}, "keyword 'café' has characters outside printable"),
    ("decrypto", {"keywords": ["x" * 41, "moon", "star", "tree"]}, "is longer than 40 characters"),
    ("taboo", {"targets": ["apple", "日本"]}, "target '日本' is empty once normalized"),
    ("taboo", {"targets": ["y" * 61]}, "is longer than 60 characters"),
    ("undercover", {"word_pairs": [["z" * 61, "dog"]]}, "is longer than 60 characters"),
    ("undercover", {"word_pairs": [["café", "cafe"]]}, "word pair ['café', 'cafe'] is one word once normalized"),
])
def test_a_word_list_no_game_can_use_is_refused_when_the_env_is_built(game, options, message):
    with pytest.raises(ValueError, match=message.replace("[", "\\[").replace("]", "\\]")):
        cluegym.make(game, **options)


def test_a_keyword_given_twice_in_two_cases_is_one_keyword():
    env = cluegym.make("decrypto", keywords=["apple", "Apple", "pear", "plum", "fig"])
    assert env.unwrapped.keyword_pool == ("apple", "pear", "plum", "fig")
    for seed in range(8):  # seed 1 drew "apple" and "Apple": a ValueError at reset
        env.reset(seed=seed)
        assert len(set(env.unwrapped.state.keywords)) == 4


# -- reset options ------------------------------------------------------------------------------

@pytest.mark.parametrize("game, options, error, message", [
    # each was taken before: str() of any value, True as seat 1, a string as a list of letters
    ("taboo", {"target": 5}, TypeError, "reset option 'target' must be a string, got 5"),
    ("taboo", {"target": ["apple"]}, TypeError, "reset option 'target' must be a string, got a list of 1 item"),
    ("decrypto", {"keywords": [1, 2, 3, 4]}, TypeError, "reset option 'keywords' must hold strings, got 1"),
    ("decrypto", {"keywords": "moon"}, TypeError, "reset option 'keywords' must be a list of 4 strings, got 'moon'"),
    ("decrypto", {"keywords": ["moon", "star", "tree"]}, ValueError, "reset option 'keywords' must hold 4 strings, got 3"),
    ("undercover", {"undercover": [True, 2]}, TypeError, "reset option 'undercover' must hold integers, got True"),
    ("undercover", {"undercover": [1.5, 2]}, TypeError, "reset option 'undercover' must hold integers, got 1.5"),
    ("undercover", {"undercover": 3}, TypeError, "reset option 'undercover' must be a list of integers, got 3"),
    ("undercover", {"words": ["cat"]}, ValueError, "reset option 'words' must hold 2 strings, got 1"),
    ("undercover", {"words": "cat"}, TypeError, "reset option 'words' must be a list of 2 strings, got 'cat'"),
    ("undercover", {"words": ["cat", 5]}, TypeError, "reset option 'words' must hold strings, got 5"),
    ("undercover", {"game_index": "a"}, ValueError, "reset option 'game_index' must be an integer >= 0, got 'a'"),
    ("dixit", {"hands": "x"}, TypeError, "reset option 'hands' must be a list of lists of cards, got 'x'"),
    ("dixit", {"hands": [[0.0, 1.0, 2.0, 3.0]] * 4}, TypeError, "a card is its deck id (a string) or index (an integer), got 0.0"),
    # words the constructor refuses in a list left the observation space as reset options
    ("taboo", {"target": "y" * 61}, ValueError, "target 'yyy...' is longer than 60 characters"),
    ("decrypto", {"keywords": ["café", "moon", "star", "tree"]}, ValueError, "keyword 'café' has characters outside printable ASCII"),
    ("decrypto", {"keywords": ["x" * 41, "moon", "star", "tree"]}, ValueError, "keyword 'xxx...' is longer than 40 characters"),
    ("undercover", {"words": ["cat", "z" * 61]}, ValueError, "word 'zzz...' is longer than 60 characters"),
])
def test_reset_options_are_checked_like_the_constructors_and_change_nothing(game, options, error, message):
    env = cluegym.make(game)
    env.reset(seed=7)
    before = env.unwrapped.game_record()
    with pytest.raises(error) as raised:
        env.reset(seed=8, options=options)
    assert _one_line(raised).startswith(message)
    assert env.unwrapped.game_record() == before


@pytest.mark.parametrize("game, options", [
    ("taboo", {"target": "apple"}),
    ("decrypto", {"keywords": ("Moon", "star", "tree", "river")}),
    ("undercover", {"words": ("Cat", "dog"), "undercover": (np.int64(0), 3), "game_index": np.int64(2)}),
    ("dixit", {"hands": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, np.int64(15)]]}),
])
def test_well_formed_reset_options_still_play_in_the_spaces(game, options):
    env = cluegym.make(game)
    env.reset(seed=3, options=options)
    agent = env.agent_selection
    assert env.observation_space(agent).contains(env.observe(agent))
