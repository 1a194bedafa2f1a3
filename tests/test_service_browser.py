"""The web page in real headless Chromium (Debian's chromium and chromedriver, driven by Selenium):
upload a sample photo, see the overlay and the total, correct one tile's level, see the total change
to the right value; at a phone's width and a desktop's.

Set BABYLON_SCREENSHOTS=DIR to keep the screenshots (the README's come from there).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from service_support import SAMPLES, TruthReader

from scoring import Garden, garden_from_dict, load, score_garden
from service.api import create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="no chromium/chromedriver binary here (CI installs Debian's chromium and chromium-driver)",
)
PHOTO = SAMPLES / "05-level-3.jpg"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The service on loopback, in a thread, with a stand-in reader that answers with the photo's
    ground truth: the page's behaviour is what is tested here (the real reader through the service:
    test_service_api.py)."""
    reader = TruthReader([PHOTO])
    port = _free_port()
    config = uvicorn.Config(create_app(reader=reader), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


def _driver(width: int, height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--hide-scrollbars", f"--window-size={max(width, 500)},{height}",
                "--force-device-scale-factor=1"):
        options.add_argument(arg)
    if width < 500:  # narrower than a desktop window can be: a phone's screen, touch and all
        metrics = {"width": width, "height": height, "pixelRatio": 1.0, "touch": True}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def _page_garden(driver) -> Garden:
    return garden_from_dict(json.loads(driver.find_element("id", "garden-json").get_attribute("textContent")))


def _shown_total(driver, player: int = 0) -> int | None:
    """The total on the score pad (read in one script: the page redraws it often)."""
    value = driver.execute_script(f"return document.getElementById('total-{player}')?.dataset.total ?? null")
    return int(value) if value else None


def _raise_tile(garden: Garden, row: int, col: int, level: int) -> Garden:
    """The garden with the tile at (row, col, level) one level up, and the pieces standing on it with it."""
    data = garden.to_dict()
    for t in data["tiles"]:
        if (t["row"], t["col"], t["level"]) == (row, col, level):
            t["level"] = level + 1
    for d in data["decorations"]:
        on = [row <= r <= row + 1 and col <= c <= col + 1 for r, c in d["cells"]]
        if "levels" in d:
            d["levels"] = [lv + 1 if o and lv == level else lv for o, lv in zip(on, d["levels"], strict=True)]
        elif any(on) and d["level"] == level:
            d["level"] = level + 1
    return garden_from_dict(data)


def _screenshot(driver, name: str, tmp: Path) -> None:
    """A full-page PNG (Chromium's DevTools capture beyond the viewport)."""
    import base64

    height = driver.execute_script("return document.documentElement.scrollHeight")
    width = driver.execute_script("return document.documentElement.clientWidth")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
    })
    data = base64.b64decode(shot["data"])
    (tmp / f"{name}.png").write_bytes(data)
    keep = os.environ.get("BABYLON_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        (Path(keep) / f"{name}.png").write_bytes(data)


@pytest.mark.parametrize(("name", "width", "height"), [("phone", 390, 844), ("desktop", 1280, 900)])
def test_photo_overlay_correct_a_level(server: str, tmp_path: Path, name: str, width: int,
                                       height: int) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    driver = _driver(width, height)
    try:
        driver.get(server + "/")
        wait = WebDriverWait(driver, 60)
        driver.find_element("id", "file-input").send_keys(str(PHOTO))
        loaded = "return document.getElementById('overlay').dataset.loaded === '1'"
        wait.until(lambda d: d.execute_script(loaded))
        wait.until(lambda d: _shown_total(d) is not None)
        assert driver.find_element("id", "overlay").is_displayed()
        read = _page_garden(driver)
        before = _shown_total(driver)
        assert before == score_garden(read).total

        # tap the highest tile on the overlay, then raise it one level
        top = max(read.tiles, key=lambda t: t.level)
        css = f'#hits polygon.tile[data-row="{top.row}"][data-col="{top.col}"][data-level="{top.level}"]'
        ActionChains(driver).move_to_element(driver.find_element("css selector", css)).click().perform()
        wait.until(lambda d: d.find_element("id", "editor").is_displayed())
        assert driver.find_element("id", "level-value").text == str(top.level)
        if width < 600:
            _screenshot(driver, f"page-{name}-editor", tmp_path)
        driver.find_element("id", "level-up").click()
        wait.until(lambda d: _shown_total(d) != before)

        corrected = _page_garden(driver)
        assert corrected == _raise_tile(read, top.row, top.col, top.level)
        expected = score_garden(corrected).total
        wait.until(lambda d: _shown_total(d) == expected)
        assert score_garden(corrected).highest_level == score_garden(read).highest_level + 2
        # the changed tile is marked on the overlay, and the page fits the screen's width
        assert driver.find_elements("css selector", "#hits polygon.tile.changed")
        scroll_width = driver.execute_script("return document.documentElement.scrollWidth")
        assert scroll_width <= width + 1
        _screenshot(driver, f"page-{name}", tmp_path)
    finally:
        driver.quit()


def test_players_are_ranked(server: str) -> None:
    """Two players' garden files: the ranking appears and follows the totals."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver = _driver(390, 844)
    try:
        driver.get(server + "/")
        wait = WebDriverWait(driver, 30)
        driver.find_element("id", "file-input").send_keys(str(SAMPLES / "15-one-tile.json"))
        wait.until(lambda d: _shown_total(d, 0) is not None)
        driver.find_element("id", "add-player").click()
        driver.find_element("id", "file-input").send_keys(str(SAMPLES / "14-sixteen-tiles.json"))
        wait.until(lambda d: _shown_total(d, 1) is not None)
        files = ["15-one-tile.json", "14-sixteen-tiles.json"]
        totals = {f"Player {i + 1}": score_garden(load(SAMPLES / f)).total for i, f in enumerate(files)}
        assert [_shown_total(driver, 0), _shown_total(driver, 1)] == list(totals.values())
        winner = max(totals, key=totals.get)
        first = "return document.querySelector('#ranking-box:not([hidden]) #ranking li')?.textContent ?? ''"
        wait.until(lambda d: d.execute_script(first).startswith(f"1. {winner}: {totals[winner]} points"))
    finally:
        driver.quit()
