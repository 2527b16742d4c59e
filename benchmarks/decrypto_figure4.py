"""Figure 4 of the Decrypto paper: game length as the encoder's and decoder's prompts vary.

The paper hand-writes 5 system prompts and 5 user prompts ("modes") for the Encoder (Alice)
and the Decoder (Bob) and plays every combination: encoder system x decoder system x encoder
user x decoder user = 625 per model, 32 games over 3 model seeds each. It plots the
distribution of the number of turns per game in four classes: both the system and the user
modes of Alice and Bob match, only the system modes match, only the user modes match, neither
does. Its finding: Llama-3.1-8B and 70B are robust to the prompts; model size matters most.

Here the modes are the ``system_mode``/``user_mode`` options of the ``llm-cot`` Decrypto agent
(0 = the paper's Listings 1-3, 5, 6; 1-4 = ours, see
:mod:`cluegym.agents.llm.adapters.decrypto_variants`). Each prompt combination plays
``--games`` games per seed (``--seeds`` match seeds, shared by every combination, so each
combination meets the same keywords and codes); Eve is the same model with the paper's prompts
(``--eve same``, the default) or any agent spec (``--eve glove``). By default a few
combinations are drawn per class (``--per-class``, seeded); ``--all`` plays all 625.

Prints, per model and class, the games, the mean number of turns (+- standard error over
games), the median and the distribution over 1..8 turns, then the mean turns per mode of each
of the four prompts; draws one panel per model (box plot and games per class, as the paper's
figure) into a PNG.

Usage:
    python -m cluegym.benchmarks.decrypto_figure4 --base-url http://127.0.0.1:8000/v1 --model llama-3.1-8b
    python -m cluegym.benchmarks.decrypto_figure4 --base-url URL --model m8b --model m70b --all --games 32 --seeds 3
    python -m cluegym.benchmarks.decrypto_figure4 --backend local --per-class 1 --games 1   # packaged SmolLM2, offline
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from dataclasses import asdict, astuple, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from tqdm import tqdm

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.agents.llm.adapters.decrypto_variants import MODE_NAMES, MODES
from cluegym.benchmarks.plotting import figure_path, pyplot, save_figure
from cluegym.benchmarks.usage import check_outputs

#: The paper's four classes, in its order: which of Alice's and Bob's modes match.
MATCH_CLASSES: tuple[str, ...] = ("both match", "system only", "user only", "neither")


@dataclass(frozen=True)
class PromptCombo:
    """The prompt modes of one combination (each 0..4; 0 = the paper's listing)."""

    encoder_system: int
    decoder_system: int
    encoder_user: int
    decoder_user: int

    @property
    def match_class(self) -> str:
        """Which modes match between Alice and Bob: one of :data:`MATCH_CLASSES`.

        Example:
            >>> PromptCombo(1, 1, 2, 3).match_class
            'system only'
        """
        system, user = self.encoder_system == self.decoder_system, self.encoder_user == self.decoder_user
        return MATCH_CLASSES[0 if system and user else 1 if system else 2 if user else 3]

    @property
    def label(self) -> str:
        """``"A s1u2 / B s1u3"``: Alice's and Bob's system and user modes."""
        return f"A s{self.encoder_system}u{self.encoder_user} / B s{self.decoder_system}u{self.decoder_user}"


def all_combos() -> list[PromptCombo]:
    """Every combination: 5**4 = 625 (25 both match, 100 system only, 100 user only, 400 neither)."""
    return [PromptCombo(es, ds, eu, du) for es, ds, eu, du in itertools.product(range(MODES), repeat=4)]


def sample_combos(per_class: int | None, seed: int = 0) -> list[PromptCombo]:
    """``per_class`` combinations drawn without replacement from each class (all of a
    smaller class), seeded; ``None``: all 625. Ordered by class, then modes.

    Raises:
        ValueError: ``per_class`` < 1.

    Example:
        >>> [c.match_class for c in sample_combos(1, seed=0)]
        ['both match', 'system only', 'user only', 'neither']
    """
    combos = all_combos()
    if per_class is None:
        return sorted(combos, key=lambda c: (MATCH_CLASSES.index(c.match_class), astuple(c)))
    if per_class < 1:
        raise ValueError(f"per_class must be >= 1, got {per_class}")
    rng = np.random.default_rng(seed)
    picked: list[PromptCombo] = []
    for name in MATCH_CLASSES:
        members = [c for c in combos if c.match_class == name]
        chosen = rng.choice(len(members), size=min(per_class, len(members)), replace=False)
        picked += sorted((members[int(i)] for i in chosen), key=astuple)
    return picked


def model_spec(backend: str, model: str | None, base_url: str | None, options: str = "") -> str:
    """The ``llm-cot`` spec of a model, without prompt modes.

    Example:
        >>> model_spec("openai", "m", "http://127.0.0.1:8000/v1", "max_tokens=512")
        'llm-cot:backend=openai,base_url=http://127.0.0.1:8000/v1,model=m,max_tokens=512'
    """
    parts = [f"backend={backend}"]
    if base_url:
        parts.append(f"base_url={base_url}")
    if model:
        parts.append(f"model={model}")
    if options.strip():
        parts.append(options.strip().strip(","))
    return "llm-cot:" + ",".join(parts)


def seat_specs(spec: str, combo: PromptCombo, eve: str) -> dict[str, str]:
    """Alice and Bob with the combination's modes; Eve as given (``"same"``: ``spec`` with
    the paper's prompts)."""
    return {
        "alice": f"{spec},system_mode={combo.encoder_system},user_mode={combo.encoder_user}",
        "bob": f"{spec},system_mode={combo.decoder_system},user_mode={combo.decoder_user}",
        "eve": spec if eve == "same" else eve,
    }


def check_models(models: dict[str, str], combos: Sequence[PromptCombo], eve: str = "same") -> None:
    """Build each model's three agents once, as the first combination seats them (an LLM
    agent's model loads at its first request, not here), so that a bad spec or option of any
    model fails before the first match.

    Raises:
        ValueError: as ``model 'LABEL': why`` for the first model whose agents cannot be built.
    """
    if not combos:
        return
    seats = cluegym.make("decrypto")
    for label, spec in models.items():
        for seat, seat_spec in seat_specs(spec, combos[0], eve).items():
            try:
                make_agent(seat_spec, game="decrypto", seat=seat, action_space=seats.action_space(seat))
            except ValueError as exc:
                raise type(exc)(f"model {label!r}: {seat}: {exc}") from None


def run(models: dict[str, str], combos: Sequence[PromptCombo], *, games: int, seeds: int, eve: str = "same",
        concurrency: int = 1, env_kwargs: dict[str, Any] | None = None, progress: bool = True) -> list[dict[str, Any]]:
    """Play every (model, combination, seed) match.

    Args:
        models: label -> ``llm-cot`` spec (see :func:`model_spec`).
        combos: the prompt combinations.
        games: games per combination and seed.
        seeds: match seeds 0..seeds-1 (keywords, codes and agent sampling seeds).
        eve: Eve's spec, or ``"same"`` (each model with the paper's prompts).
        concurrency: games of one match played at once (their LLM requests overlap).
        env_kwargs: game options (default: the paper's game).
        progress: show a tqdm bar over matches.

    Returns:
        One row per finished game: ``{"model", "combo" (the four modes), "class", "seed",
        "game", "turns", "end_reason", "winner", "fallbacks", "forfeits"}``.

    Raises:
        ValueError: a model's or Eve's spec that cannot be built, as ``model 'LABEL': why``,
            before the first match (a later model's was found after the earlier models'
            matches had run).
    """
    check_models(models, combos, eve)
    rows: list[dict[str, Any]] = []
    bar = tqdm(total=len(models) * len(combos) * seeds, desc="figure 4", unit="match", disable=not progress)
    for label, spec in models.items():
        for combo in combos:
            for seed in range(seeds):
                def keep(index: int, record: dict[str, Any], combo: PromptCombo = combo, seed: int = seed) -> None:
                    result = record["result"]
                    rows.append({"model": label, "combo": asdict(combo), "class": combo.match_class, "seed": seed,
                                 "game": index, "turns": int(result["turns"]), "end_reason": result["end_reason"],
                                 "winner": result["winner"], "fallbacks": int(result.get("fallbacks", 0)),
                                 "forfeits": int(result.get("forfeits", 0))})

                run_match("decrypto", seat_specs(spec, combo, eve), games=games, seed=seed, env_kwargs=env_kwargs,
                          concurrency=concurrency, progress=False, on_game=keep)
                bar.update(1)
    bar.close()
    return rows


def class_stats(rows: Sequence[dict[str, Any]], max_turns: int = 8) -> dict[str, dict[str, dict[str, Any]]]:
    """Per model and class: ``combos``, ``games``, ``mean`` and ``sem`` of turns per game
    (standard error over games, ddof=1; 0 for one game), ``median``, ``histogram`` (games
    ending after 1..max_turns turns) and ``fallbacks`` per game (unusable answers)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for model in dict.fromkeys(r["model"] for r in rows):
        out[model] = {}
        for name in MATCH_CLASSES:
            members = [r for r in rows if r["model"] == model and r["class"] == name]
            if not members:
                continue
            turns = np.array([r["turns"] for r in members], dtype=float)
            out[model][name] = {
                "combos": len({tuple(r["combo"].values()) for r in members}),
                "games": len(members),
                "mean": float(turns.mean()),
                "sem": float(turns.std(ddof=1) / np.sqrt(len(turns))) if len(turns) > 1 else 0.0,
                "median": float(np.median(turns)),
                "histogram": [int((turns == t).sum()) for t in range(1, max_turns + 1)],
                "fallbacks": float(np.mean([r["fallbacks"] for r in members])),
            }
    return out


#: The four prompts of a combination, as named in the mode-effect table.
FACTORS: tuple[tuple[str, str], ...] = (("encoder_system", "Alice system"), ("decoder_system", "Bob system"),
                                        ("encoder_user", "Alice user"), ("decoder_user", "Bob user"))


def mode_effects(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, list[float | None]]]:
    """Per model and prompt (Alice/Bob x system/user), the mean turns per game of the games
    played with each mode 0..4 (None where no game used that mode)."""
    out: dict[str, dict[str, list[float | None]]] = {}
    for model in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == model]
        out[model] = {}
        for key, name in FACTORS:
            means: list[float | None] = []
            for mode in range(MODES):
                turns = [r["turns"] for r in mine if r["combo"][key] == mode]
                means.append(float(np.mean(turns)) if turns else None)
            out[model][name] = means
    return out


def format_table(rows: Sequence[dict[str, Any]], max_turns: int = 8) -> str:
    """The class table and the mode-effect table of every model, as text."""
    stats, effects = class_stats(rows, max_turns), mode_effects(rows)
    lines = []
    for model, classes in stats.items():
        lines.append(f"{model}: turns per game by prompt-match class (mean +- s.e. over games)")
        header = (f"{'class':>12} | {'combos':>6} | {'games':>5} | {'mean turns':>12} | {'median':>6} | "
                  f"{'games ending after 1..' + str(max_turns) + ' turns':<32} | fallbacks/game")
        lines += [header, "-" * len(header)]
        for name, s in classes.items():
            hist = " ".join(f"{h:>3}" for h in s["histogram"])
            lines.append(f"{name:>12} | {s['combos']:>6} | {s['games']:>5} | {s['mean']:5.2f} +- {s['sem']:4.2f} | "
                         f"{s['median']:>6.1f} | {hist:<32} | {s['fallbacks']:.2f}")
        lines.append("")
        lines.append(f"{model}: mean turns per game by mode (" + ", ".join(f"{i} {n}" for i, n in enumerate(MODE_NAMES))
                     + "; - = mode not played)")
        lines.append(f"{'prompt':>12} | " + " | ".join(f"{i:>5}" for i in range(MODES)))
        for name, means in effects[model].items():
            lines.append(f"{name:>12} | " + " | ".join("    -" if m is None else f"{m:5.2f}" for m in means))
        lines.append("")
    return "\n".join(lines)


def plot(rows: Sequence[dict[str, Any]], out: Path, title: str, max_turns: int = 8) -> None:
    """One panel per model: per class, a box plot of turns per game with every game as a dot
    (seeded jitter) and the mean as a diamond, as the paper's Figure 4 shows distributions."""
    plt = pyplot()

    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(1, len(models), figsize=(max(6.4, 5.2 * len(models)), 4.6), squeeze=False, sharey=True)
    jitter = np.random.default_rng(0)  # dots only; fixed so that the figure is reproducible
    for ax, model in zip(axes[0], models):
        names = [n for n in MATCH_CLASSES if any(r["model"] == model and r["class"] == n for r in rows)]
        data = [np.array([r["turns"] for r in rows if r["model"] == model and r["class"] == n], dtype=float)
                for n in names]
        ax.boxplot(data, positions=range(1, len(names) + 1), widths=0.5, showfliers=False)
        for i, values in enumerate(data, 1):
            ax.scatter(i + jitter.uniform(-0.18, 0.18, len(values)), values + jitter.uniform(-0.12, 0.12, len(values)),
                       s=10, alpha=0.45, color="tab:blue")
            ax.scatter([i], [values.mean()], marker="D", color="tab:red", zorder=3)
        ax.set_xticks(range(1, len(names) + 1), [f"{n}\n({len(d)} games)" for n, d in zip(names, data)], fontsize=8)
        ax.set(title=model, ylim=(0.5, max_turns + 0.5), xlabel="Alice and Bob prompt modes")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("turns per game")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("openai", "local"), default="openai",
                        help="openai: any OpenAI-compatible endpoint (default); local: the packaged SmolLM2 in-process")
    parser.add_argument("--base-url", help="the endpoint, e.g. http://127.0.0.1:8000/v1 (openai backend)")
    parser.add_argument("--model", action="append", metavar="[LABEL=]NAME",
                        help="a model served there (repeat for one panel per model; required for openai)")
    parser.add_argument("--llm-options", default="", metavar="K=V,...",
                        help="more llm-cot options for every seat, e.g. max_tokens=512,temperature=0.7,api_key_env=KEY")
    parser.add_argument("--eve", default="same", help="Eve's agent spec, or 'same' (the model, paper's prompts; default)")
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--per-class", type=int, default=2, help="combinations drawn per class (default 2)")
    sizes.add_argument("--all", action="store_true", help="all 625 combinations (the paper's)")
    parser.add_argument("--games", type=int, default=2, help="games per combination and seed (paper: 32 over 3 seeds)")
    parser.add_argument("--seeds", type=int, default=1, help="match seeds (paper: 3; default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the drawing of combinations")
    parser.add_argument("--concurrency", type=int, default=4, help="games of a match played at once (default 4)")
    parser.add_argument("--out", default="decrypto_figure4.png", help="PNG path")
    parser.add_argument("--json", help="also write every game's row here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.games < 1 or args.seeds < 1 or args.concurrency < 1 or (not args.all and args.per_class < 1):
        parser.error("--games, --seeds, --concurrency and --per-class must be >= 1")
    if args.backend == "openai" and (not args.base_url or not args.model):
        parser.error("the openai backend needs --base-url and at least one --model")
    models: dict[str, str] = {}
    for item in args.model or [None]:
        label, eq, name = (item or "").partition("=")
        label, name = (label, name) if eq else (item or "smollm2-135m", item)
        if eq and not (label.strip() and name.strip()):
            parser.error(f"--model {item!r}: expected LABEL=NAME or NAME")
        if label.strip() in models:  # the later one silently replaced the earlier panel
            parser.error(f"--model label {label.strip()!r} is given twice")
        models[label.strip()] = model_spec(args.backend, name, args.base_url, args.llm_options)
    # the paths written at the end, checked before the games
    try:
        args.out = figure_path(args.out)
    except ValueError as exc:
        parser.error(str(exc))
    check_outputs(parser, {"--out": args.out, "--json": args.json})
    try:
        combos = sample_combos(None if args.all else args.per_class, seed=args.seed)
    except ValueError as exc:  # numpy's "expected non-negative integer" for --seed -1
        parser.error(f"--seed: {exc}")
    start = time.perf_counter()
    try:
        rows = run(models, combos, games=args.games, seeds=args.seeds, eve=args.eve, concurrency=args.concurrency,
                   progress=not args.no_progress)
    except ValueError as exc:  # a bad spec or option, reported before any game runs
        parser.error(str(exc).splitlines()[0])
    elapsed = time.perf_counter() - start
    if not rows:
        raise SystemExit("no game finished (every game errored); see the harness's messages above")
    print(format_table(rows))
    print(f"{len(combos)} prompt combinations x {args.seeds} seeds x {args.games} games per model, Eve = {args.eve}; "
          f"{elapsed:.0f} s")
    plot(rows, Path(args.out), f"Decrypto prompt variants (Figure 4): {len(combos)} combinations, Eve = {args.eve}")
    print(f"plot written to {args.out}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
