"""The CoMet Table 1 driver: its table layout with the embedding baselines (no LLM), and clear errors."""

from __future__ import annotations

import json

from cluegym.benchmarks import comet_table1
from cluegym.benchmarks.comet_common import parse_methods, with_endpoint


def test_table1_runs_offline_with_embedding_baselines(tmp_path, capsys):
    out = tmp_path / "table1.json"
    assert comet_table1.main(["--methods", "GloVe=glove;Random=random", "--baselines", "GloVe", "--pairs", "1",
                              "--episodes", "1", "--concurrency", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    for row in ("against GloVe", "Und. (GloVe)", "Civ. (Random)", "Bal. (Random)"):
        assert row in text
    table = json.loads(out.read_text())
    random_civ = table["against"]["GloVe"]["Random"]["civilian"]
    assert random_civ["players"] == 3 and random_civ["FER"] is None  # no features reported: n/a
    assert "n/a" in text


def test_driver_errors_are_one_line(capsys):
    assert comet_table1.main(["--methods", "CoT=llm-cot", "--baselines", "CoT"]) == 2
    assert "give --base-url and --model" in capsys.readouterr().err
    assert comet_table1.main(["--methods", "A=glove", "--baselines", "B"]) == 2
    assert with_endpoint("comet:ablate=met", "http://h/v1", "m") == "comet:ablate=met,backend=openai,base_url=http://h/v1,model=m"
    assert with_endpoint("glove", None, None) == "glove"
    assert parse_methods("A=llm-cot; B=comet:ablate=met") == {"A": "llm-cot", "B": "comet:ablate=met"}
