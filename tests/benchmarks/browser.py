"""A headless Chromium for the page tests (Debian's ``chromium`` + ``chromium-driver``, driven
by selenium; nothing is downloaded: the driver path is given, so Selenium Manager never runs).

Example:
    >>> with chromium() as driver:
    ...     driver.get("file:///tmp/page.html")
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from typing import Iterator

import pytest

#: Where Debian installs the browser and its driver (``scripts/setup.sh --test`` installs them).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator[object]:
    """A headless Chromium WebDriver (skips the test when the Debian packages are missing)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("needs Debian chromium and chromium-driver (bash scripts/setup.sh --test)")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager reach the network
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    # Chromium leaves a folder (org.chromium.Chromium.*) in its TMPDIR at every launch: give it
    # one of its own, removed with the browser, so the tests leave nothing in the machine's /tmp.
    with tempfile.TemporaryDirectory(prefix="cluegym-chromium-", ignore_cleanup_errors=True) as scratch:
        service = Service(CHROMEDRIVER, env={**os.environ, "TMPDIR": scratch})
        driver = webdriver.Chrome(service=service, options=options)
        try:
            yield driver
        finally:
            driver.quit()


def screenshot_is_a_picture(png: bytes) -> bool:
    """A real rendering: a PNG whose pixels are not all one colour."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    return png[:8] == b"\x89PNG\r\n\x1a\n" and len(image.getcolors(maxcolors=1 << 20) or [0, 0]) > 1
