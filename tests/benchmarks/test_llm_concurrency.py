"""The LLM-harness concurrency benchmark runs against its fake server and reports its figures."""

import json

from cluegym.benchmarks import llm_concurrency


def test_levels_overlap_and_report_cpu_and_efficiency(tmp_path, capsys):
    out = tmp_path / "rows.json"
    assert llm_concurrency.main(["--delay", "0.2", "--levels", "1", "4", "--games", "4", "--max-turns", "1",
                                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "scaling efficiency at 4 concurrent games" in text and "ms per request" in text
    rows = {r["concurrency"]: r for r in json.loads(out.read_text())}
    assert rows[1]["efficiency"] == 1.0 and rows[4]["games"] == 4
    # Four games at once against a 0.2 s server overlap: far more than one game's rate.
    assert rows[4]["speedup"] > 2.0
    assert all(r["cpu_ms_per_request"] > 0 and r["calls_per_game"] >= 3 for r in rows.values())
