"""Screenshots of a replay page and of the play page for the docs (docs/img/), in headless Chromium.

Plays one seeded Dixit game between random agents, writes its replay page and screenshots it a
few steps in; then serves the play page for ``player_0`` and screenshots the first question.
Needs Debian's ``chromium`` and ``chromium-driver`` and selenium (``bash scripts/setup.sh --test``).

Usage:
    .venv/bin/python scripts/page_screenshots.py --out docs/img
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from cluegym.agents import run_match
from cluegym.benchmarks.play_server import PlaySession
from cluegym.benchmarks.replay_html import load_record, replay_html


def chromium(width: int, height: int) -> webdriver.Chrome:
    """Debian's headless Chromium (no browser download: the driver path is given)."""
    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/img", help="folder for replay_page.png and play_page.png")
    parser.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "dixit.jsonl"
        run_match("dixit", {"*": "random"}, games=1, seed=args.seed, env_kwargs={"num_rounds": 4},
                  results_path=results, progress=False)
        page = Path(tmp) / "dixit.html"
        page.write_text(replay_html(load_record(results, 0), title="dixit: game 0 (random agents)"))
        driver = chromium(1400, 1050)
        try:
            driver.get(page.as_uri())
            for _ in range(4):  # a listener's vote: its hand and the candidates
                driver.find_element(By.ID, "next").click()
            driver.save_screenshot(str(out / "replay_page.png"))
            session = PlaySession("dixit", "player_0", {"*": "random"}, seed=args.seed, env_kwargs={"num_rounds": 2})
            session.start()
            try:
                driver.get(session.url)
                deadline = time.monotonic() + 60
                while driver.find_element(By.ID, "status").text != "your turn" and time.monotonic() < deadline:
                    time.sleep(0.1)
                driver.find_elements(By.CSS_SELECTOR, "img.card[data-card]")[1].click()
                driver.find_element(By.ID, "answer").send_keys("; clue=a quiet evening")
                driver.save_screenshot(str(out / "play_page.png"))
            finally:
                session.close()
        finally:
            driver.quit()
    print(f"written {out / 'replay_page.png'} and {out / 'play_page.png'}")


if __name__ == "__main__":
    main()
