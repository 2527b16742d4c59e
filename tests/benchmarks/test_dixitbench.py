"""DixitBench: building from a deck (ranks, seed, sizes, errors), evaluation strategies, CLI."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Callable, NoReturn

import numpy as np
import pytest
from PIL import Image

from cluegym.agents.base import Agent
from cluegym.benchmarks import dixitbench
from cluegym.benchmarks.dixitbench import (
    action_space, build_bench, caption_similarity, evaluate, format_table, item_observation, load_bench, save_bench,
)
from cluegym.cli import main
from cluegym.envs.dixit.deck import load_deck
from cluegym.envs.dixit.env import get_deck
from cluegym.harness import with_own_seed

pytestmark = pytest.mark.slow  # MiniLM embeds the captions


@pytest.fixture(scope="module")
def bench() -> dict[str, Any]:
    return build_bench()


def test_default_deck_gives_two_items_per_card(bench):
    deck = get_deck()
    meta, items = bench["metadata"], bench["items"]
    assert meta["cards"] == len(deck) == 96 and meta["items"] == len(items) == 192
    assert meta["seed"] == 42 and meta["clue"] == "caption" and meta["deck_folder"] is None
    assert sum(i["difficulty"] == "easy" for i in items) == sum(i["difficulty"] == "hard" for i in items) == 96
    for item in items:
        assert len(item["candidates"]) == 6 == len(set(item["candidates"]))
        assert item["candidates"][item["answer"]] == item["card"]
        assert item["clue"] == deck.caption(item["card"])
    positions = np.bincount([i["answer"] for i in items], minlength=6)
    assert positions.min() > 15  # shuffled, not always first


def test_hard_and_easy_follow_the_similarity_ranks(bench):
    deck = get_deck()
    ids = list(deck.card_ids)
    sim = caption_similarity([deck.caption(c) for c in ids])
    for item in bench["items"][:20]:
        i = ids.index(item["card"])
        order = [j for j in np.argsort(-sim[i], kind="stable") if j != i]
        rank = {ids[j]: r + 1 for r, j in enumerate(order)}
        ranks = sorted(rank[c] for c in item["candidates"] if c != item["card"])
        if item["difficulty"] == "hard":
            assert ranks == [1, 2, 3, 4, 5]
        else:
            assert all(30 <= r <= 80 for r in ranks)
    easy = [np.mean([sim[ids.index(i["card"]), ids.index(c)] for c in i["candidates"] if c != i["card"]])
            for i in bench["items"] if i["difficulty"] == "easy"]
    hard = [np.mean([sim[ids.index(i["card"]), ids.index(c)] for c in i["candidates"] if c != i["card"]])
            for i in bench["items"] if i["difficulty"] == "hard"]
    assert np.mean(hard) > np.mean(easy) + 0.1


def test_fixed_seed_is_reproducible_and_seeds_differ(bench, tmp_path: Path):
    again = build_bench()
    assert json.dumps(again) == json.dumps(bench)
    other = build_bench(seed=1)
    assert other["items"] != bench["items"]
    path = save_bench(bench, tmp_path / "sub" / "bench.json")
    assert load_bench(path) == bench


def test_word_clues():
    word = build_bench(clue="word", clue_rank=2)
    assert word["metadata"]["clue"] == "word" and word["metadata"]["clue_rank"] == 2
    assert all(" " not in item["clue"] for item in word["items"])


def _small_deck(folder: Path, n: int, captions: bool = True) -> Path:
    words = ["red", "blue", "green", "cat", "dog", "moon", "sun", "tree", "ship", "car", "bird", "fish"]
    for i in range(n):
        Image.new("RGB", (30, 45), (i * 7 % 255, 90, 40)).save(folder / f"c{i:02d}.png")
    if captions:
        caps = {f"c{i:02d}": f"a {words[i % 12]} {words[(i * 5) % 12]} and a {words[(i * 7 + 3) % 12]}"
                for i in range(n)}
        (folder / "captions.json").write_text(json.dumps(caps))
    return folder


def test_small_decks_need_other_ranks_and_decks_need_captions(tmp_path: Path):
    deck = load_deck(_small_deck(tmp_path, 20))
    with pytest.raises(ValueError, match="easy_ranks 30-80"):
        build_bench(deck)
    small = build_bench(deck, easy_ranks=(8, 19))
    assert small["metadata"]["items"] == 40 and small["metadata"]["deck_folder"] == str(tmp_path.resolve())
    bare = tmp_path / "bare"
    bare.mkdir()
    with pytest.raises(ValueError, match="needs captions"):
        build_bench(load_deck(_small_deck(bare, 10, captions=False)))
    with pytest.raises(ValueError, match="clue"):
        build_bench(deck, clue="poem", easy_ranks=(8, 19))
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):  # numpy's words alone
        build_bench(deck, seed=-1, easy_ranks=(8, 19))


def test_load_errors(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="dixitbench build"):
        load_bench(tmp_path / "none.json")
    (tmp_path / "x.json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a DixitBench"):
        load_bench(tmp_path / "x.json")


class Oracle(Agent):
    """Reads the captions: picks the candidate captioned like the clue; rates through its clue."""

    games = ("dixit",)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        captions = list(observation["candidate_captions"])
        if len(captions) == 1:  # entailment: answer like an LLM, the number in the text
            return {"card": 0, "clue": f"rating: {100 if captions[0] == observation['clue'] else 10}"}
        return {"card": captions.index(observation["clue"])}


class FirstCandidate(Agent):
    games = ("dixit",)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        return 0 if len(observation["candidate_ids"]) > 1 else {"clue": "no idea"}


def test_evaluate_strategies_with_scripted_agents(bench):
    oracle = evaluate(bench, Oracle("dixit", "player_1", action_space()), reveal_captions=True, limit=24)
    assert oracle["strategies"]["direct"] == {"easy": 100.0, "hard": 100.0, "total": 100.0, "invalid": 0.0}
    assert oracle["strategies"]["entailment"]["total"] == 100.0
    first = evaluate(bench, FirstCandidate("dixit", "player_1", action_space()), limit=24)
    expected = 100.0 * np.mean([i["answer"] == 0 for i in bench["items"][:24]])
    assert first["strategies"]["direct"]["total"] == pytest.approx(expected)
    assert first["strategies"]["entailment"]["invalid"] == 24  # no number in its answers
    assert "direct" in format_table(first)
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -2"):
        evaluate(bench, "random", seed=-2, limit=2)


class SeedNoter(FirstCandidate):
    """Notes the seed of every reset."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.resets = [*getattr(self, "resets", []), seed]


def test_an_agent_seed_of_its_own_is_mixed_into_its_item_seeds(bench):
    def resets(**seed: int) -> list[int | None]:
        agent = SeedNoter("dixit", "player_1", action_space(), **seed)
        evaluate(bench, agent, limit=3, strategies=("direct",))
        return agent.resets

    plain = resets()
    assert resets(seed=5) == [with_own_seed(drawn, 5) for drawn in plain] != resets(seed=6)
    assert resets() == plain  # an agent without a seed: as before


def test_item_observations_match_a_dixit_vote(bench):
    item = bench["items"][0]
    deck = get_deck()
    obs = item_observation(item, deck, image_size=(48, 32))
    assert obs["phase"] == 2 and obs["candidates"].shape == (6, 48, 32, 3)
    assert obs["card_mask"].tolist() == [1] * 6 and "candidate_captions" not in obs
    assert item["clue"] in obs["prompt"] and "1-6" in obs["prompt"]
    one = item_observation(item, deck, strategy="entailment", candidate=2, reveal_captions=True)
    assert one["candidates"].shape[0] == 1 and "0-100" in one["prompt"]
    assert one["candidate_captions"][0] == deck.caption(item["candidates"][2])


def test_real_baselines_on_a_slice(bench):
    caption = evaluate(bench, "caption", reveal_captions=True, limit=12, strategies=("direct",))
    assert caption["strategies"]["direct"]["total"] == 100.0  # the clue is the target's own caption
    vision = evaluate(bench, "vision:grid=0", limit=6)
    assert set(vision["strategies"]) == {"direct", "entailment"}
    assert vision["strategies"]["direct"]["invalid"] == 0


def test_cli_build_and_eval(tmp_path: Path, capsys):
    out = tmp_path / "bench.json"
    assert main(["dixitbench", "build", "--out", str(out)]) == 0
    assert "192 items from 96 cards" in capsys.readouterr().out
    results = tmp_path / "res.json"
    assert main(["dixitbench", "eval", "--agent", "random", "--bench", str(out), "--limit", "8",
                 "--no-progress", "--out", str(results)]) == 0
    printed = capsys.readouterr().out
    assert "Easy" in printed and "entailment" in printed
    assert json.loads(results.read_text())["agent"] == "random"
    with pytest.raises(SystemExit, match="reveal_captions"):
        main(["dixitbench", "eval", "--agent", "caption", "--bench", str(out), "--limit", "2", "--no-progress"])
    with pytest.raises(SystemExit, match="does not exist"):
        main(["dixitbench", "eval", "--agent", "random", "--bench", str(tmp_path / "nope.json")])


def _must_not_run(*args: Any, **kwargs: Any) -> NoReturn:
    raise AssertionError("the command started its work before refusing its arguments")


def _eval_argv(bench_path: Path, *more: str) -> list[str]:
    return ["dixitbench", "eval", "--agent", "random", "--bench", str(bench_path), "--limit", "2", "--no-progress",
            *more]


def _one_line_error(capsys: pytest.CaptureFixture[str], count: int = 1) -> None:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("cluegym: error:") == count == len(err.splitlines()), err


def test_cli_refuses_an_out_that_is_the_bench(bench, tmp_path: Path, capsys):
    path = save_bench(bench, tmp_path / "b.json")
    before = path.read_bytes()
    for out in (path, tmp_path / "sub" / ".." / "b.json"):  # the same file, spelled another way
        with pytest.raises(SystemExit, match="is the --bench file") as exc:
            main(_eval_argv(path, "--out", str(out)))
        assert exc.value.code == 2
    _one_line_error(capsys, 2)
    assert path.read_bytes() == before


def test_cli_build_refuses_an_out_that_is_its_captions(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setattr(dixitbench, "build_bench", _must_not_run)
    captions = _small_deck(tmp_path, 12) / "captions.json"
    before = captions.read_bytes()
    for given, name in (["--captions", str(captions)], "--captions file"), ([], "deck's captions.json"):
        with pytest.raises(SystemExit, match=f"is the {name}") as exc:
            main(["dixitbench", "build", "--deck", str(tmp_path), *given, "--out", str(captions)])
        assert exc.value.code == 2
    _one_line_error(capsys, 2)
    assert captions.read_bytes() == before


@pytest.mark.parametrize("where", ["a folder", "under a file"])
def test_cli_checks_out_before_any_work(where, bench, tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setattr(dixitbench, "build_bench", _must_not_run)
    monkeypatch.setattr(dixitbench, "evaluate", _must_not_run)
    path = save_bench(bench, tmp_path / "b.json")
    (tmp_path / "file.txt").write_text("x")
    out, expected = (tmp_path, "is a directory") if where == "a folder" else (tmp_path / "file.txt" / "r.json",
                                                                               "is not writable")
    for argv in (["dixitbench", "build", "--out", str(out)], _eval_argv(path, "--out", str(out))):
        with pytest.raises(SystemExit, match=f"--out {re.escape(str(out))} {expected}") as exc:
            main(argv)
        assert exc.value.code == 2
    _one_line_error(capsys, 2)


@pytest.mark.parametrize("limit", ["-190", "0"])
def test_cli_limit_must_be_at_least_one(limit, bench, tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setattr(dixitbench, "evaluate", _must_not_run)
    path = save_bench(bench, tmp_path / "b.json")
    argv = [a if a != "2" else limit for a in _eval_argv(path)]
    with pytest.raises(SystemExit, match=f"--limit must be a whole number >= 1 .*got {limit}$") as exc:
        main(argv)
    assert exc.value.code == 2
    _one_line_error(capsys)


def test_evaluate_limit_must_be_at_least_one(bench):
    for limit in (-190, 0, True, 2.5):  # a slice took 0 as every item and -190 as the first 2
        with pytest.raises(ValueError, match="limit must be a whole number >= 1"):
            evaluate(bench, "random", limit=limit)


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda bench: bench.update({key: value})


def _set_item(index: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda bench: bench["items"][index].update({key: value})


MALFORMED: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "metadata a list": (_set("metadata", [1]), "metadata must be an object, got [1]"),
    "metadata without clue": (lambda b: b["metadata"].pop("clue"), "metadata has no clue"),
    "deck_folder a number": (lambda b: b["metadata"].update(deck_folder=5),
                             "metadata: deck_folder must be a folder path or null, got 5"),
    "items a number": (_set("items", 5), "items must be a list, got 5"),
    "no items": (_set("items", []), "no items"),
    "item a string": (lambda b: b["items"].__setitem__(4, "x"), "item 4 must be an object, got 'x'"),
    "item without candidates": (lambda b: b["items"][3].pop("candidates"), "item 3 has no candidates"),
    "empty candidates": (_set_item(0, "candidates", []), "item 0: candidates must be a list of 2 or more distinct"),
    "repeated candidates": (_set_item(1, "candidates", ["c1", "c1"]), "item 1: candidates must be"),
    "answer out of range": (_set_item(2, "answer", 6), "item 2: answer must be the index of the target among its 6"),
    "answer a string": (_set_item(2, "answer", "1"), "item 2: answer must be"),
    "unknown difficulty": (_set_item(5, "difficulty", "medium"), "item 5: difficulty must be one of 'easy', 'hard'"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_load_bench_names_the_first_problem(case, bench, tmp_path: Path):
    spoil, problem = MALFORMED[case]
    broken = copy.deepcopy(bench)
    spoil(broken)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(ValueError, match=f"^{re.escape(f'{path}: {problem}')}"):
        load_bench(path)


def test_cli_reports_a_malformed_bench_or_a_results_file_in_one_line(bench, tmp_path: Path, capsys):
    broken = copy.deepcopy(bench)
    del broken["items"][3]["candidates"]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(SystemExit, match=f"{re.escape(str(path))}: item 3 has no candidates$") as exc:
        main(_eval_argv(path))
    assert exc.value.code == 2
    _one_line_error(capsys)
    results = tmp_path / "r.json"
    assert main(_eval_argv(save_bench(bench, path), "--out", str(results))) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit, match="results .*not a benchmark") as exc:  # was KeyError: 'candidates'
        main(_eval_argv(results))
    assert exc.value.code == 2
    _one_line_error(capsys)
