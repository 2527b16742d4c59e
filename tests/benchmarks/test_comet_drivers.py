"""The CoMet Table 1 and Figure 5 drivers: Table 1's layout with the embedding baselines (no
LLM) and with LLM methods through the scripted fake server, Figure 5's radar from Table 1's
JSON, and one-line errors."""

from __future__ import annotations

import json

import pytest
from comet_replies import comet_reply

from cluegym.agents.llm.fake_server import FakeChatServer
from cluegym.benchmarks import comet_figure5, comet_table1
from cluegym.benchmarks.comet_common import own_pool, parse_labels, parse_methods, with_endpoint

PNG = b"\x89PNG\r\n\x1a\n"


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
    # Figure 5 from that JSON: FER is n/a for both methods, so its axis is left out (never drawn as 0)
    png = tmp_path / "figure5.png"
    assert comet_figure5.main(["--table", str(out), "--out", str(png)]) == 0
    assert png.read_bytes().startswith(PNG)
    assert comet_figure5.axes_of(table["against"]["GloVe"])[1][0] == "FER"


def test_table1_llm_path_through_the_fake_server_and_figure5(tmp_path, capsys):
    out, png = tmp_path / "table1.json", tmp_path / "figure5.png"
    with FakeChatServer(comet_reply) as server:
        assert comet_table1.main(["--methods", "CoT=llm-cot;CoMet=comet", "--baselines", "CoT", "--pairs", "1",
                                  "--episodes", "1", "--concurrency", "2", "--base-url", server.base_url,
                                  "--model", "fake-model", "--json", str(out)]) == 0
        asked = [r["messages"][-1]["content"] for r in server.requests]
        assert {r["model"] for r in server.requests} == {"fake-model"}
    assert any("(Metaphor Generator, step 2)" in a for a in asked) and any("step by step" in a for a in asked)
    text = capsys.readouterr().out
    for row in ("Und. (CoT)", "Und. (CoMet)", "Civ. (CoMet)", "Bal. (CoMet)"):
        assert row in text
    rows = json.loads(out.read_text())["against"]["CoT"]
    comet, cot = rows["CoMet"], rows["CoT"]
    # one game per role: CoMet played 3 civilian seats and 2 undercover seats
    assert comet["civilian"]["players"] == 3 and comet["undercover"]["players"] == 2
    assert comet["civilian"]["FER"] is not None and cot["civilian"]["FER"] is None  # CoT reports no features
    for role in ("civilian", "undercover", "balanced"):
        assert all(v is None or 0.0 <= v <= 1.0 for k, v in comet[role].items() if k != "players")
    assert comet_figure5.main(["--table", str(out), "--out", str(png)]) == 0
    assert png.read_bytes().startswith(PNG)
    assert "against CoT" in capsys.readouterr().out


def test_driver_errors_are_one_line(tmp_path, capsys):
    assert comet_table1.main(["--methods", "CoT=llm-cot", "--baselines", "CoT"]) == 2
    assert "give --base-url and --model" in capsys.readouterr().err
    assert comet_table1.main(["--methods", "A=glove", "--baselines", "B"]) == 2
    assert "'B' is not one of the methods" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": []}')
    assert comet_figure5.main(["--table", str(bad), "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "is not comet_table1 --json output" in err and len(err.strip().splitlines()) == 1


def test_method_specs():
    assert with_endpoint("comet:ablate=met", "http://h/v1", "m") == "comet:ablate=met,backend=openai,base_url=http://h/v1,model=m"
    assert with_endpoint("glove", None, None) == "glove"
    assert with_endpoint("llm", None, None, local=True) == "llm:backend=local"
    assert parse_methods("A=llm-cot; B=comet:ablate=met") == {"A": "llm-cot", "B": "comet:ablate=met"}
    with pytest.raises(ValueError, match="given twice"):
        parse_methods("A=llm;A=glove")
    with pytest.raises(ValueError, match="LABEL=SPEC"):
        parse_methods("llm")
    assert parse_labels("A; B", ["A", "B"]) == ["A", "B"]
    # every CoMet method reads and grows its own run pool; other agents and explicit pools are left alone
    assert own_pool("comet", "CoMet w/o Met.") == "comet:experience=run:CoMet_w_o_Met."
    assert own_pool("comet:experience=off", "X") == "comet:experience=off"
    assert own_pool("llm-cot", "CoT") == "llm-cot"
