"""The observer page in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`, installed by .ci/run) driven by Selenium opens the page of a running
supervision tree, waits for live data, checks what it shows against what the program did,
clicks an actor and saves a screenshot that must not be blank (docs/observer.md), served by
`lp run` and by a binary built with `lp build --observable`."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.observe.observed import MODES, Observed
from tests.observe.test_feed import TREE, TREE_ACTORS

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    if os.environ.get("CI"):
        raise RuntimeError("CI must install chromium and chromium-driver (.ci/run)")
    pytest.skip("needs chromium and chromium-driver (apt install chromium chromium-driver)",
                allow_module_level=True)

from PIL import Image  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1400"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


@pytest.mark.parametrize("mode", MODES)     # the same page reads `lp run` and a binary
def test_the_page_shows_the_running_tree(browser, tmp_path, mode):
    with Observed(TREE, mode=mode) as o:
        o.wait_ready()
        browser.get(o.url)
        wait = WebDriverWait(browser, 30, poll_frequency=0.2, ignored_exceptions=[StaleElementReferenceException])
        wait.until(lambda d: text_of(d, "status") == "live")
        wait.until(lambda d: text_of(d, "t-actors") == str(TREE_ACTORS))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-supervisor='pool']"))
        root = browser.find_element(By.CSS_SELECTOR, "[data-supervisor='root'] > .restarts")
        assert root.get_attribute("data-restarts") == "3" and root.text == "3 restarts"
        pool = browser.find_element(By.CSS_SELECTOR, "[data-supervisor='root'] [data-supervisor='pool'] > .restarts")
        assert pool.get_attribute("data-restarts") == "0"
        wait.until(lambda d: "nobody watches me" in text_of(d, "deaths"))
        assert "tests/observe/tree.lp:33:21" in text_of(browser, "deaths")

        # sort by mailbox (largest first) and click the busiest actor
        browser.find_element(By.CSS_SELECTOR, "#actors th[data-key='mailbox']").click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#actors tbody tr td:nth-child(4)").text == "7")
        row = browser.find_element(By.CSS_SELECTOR, "#actors tbody tr")
        actor = row.get_attribute("data-actor")
        row.click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#details-list[data-actor='{actor}']"))
        details = text_of(browser, "details")
        assert "tests/observe/tree.lp:31" in details and "7 waiting" in details
        assert text_of(browser, "details-messages") == ", ".join(["Symbol"] * 7)
        ticks = int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-ticks"))
        wait.until(lambda d: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-ticks")) > ticks + 2)

        shot = tmp_path / "observer.png"
        assert browser.save_screenshot(str(shot))
    image = Image.open(shot).convert("RGB")
    assert image.size[0] >= 1000
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50        # text, bars, chart: not a blank page
    assert max(n for n, _ in colours) < 0.95 * image.size[0] * image.size[1]
    target = os.environ.get("LP_OBSERVER_SCREENSHOT")
    if target and mode == "run":
        Path(target).write_bytes(shot.read_bytes())
