"""The web page at ``/`` (issue 13, item 4), in a real headless browser against the real server.

The test starts ``oracle-tools serve`` on a free loopback port with the sample database, drives
Debian's Chromium through chromedriver (selenium), fills in the forms as a person would and reads
the rendered DOM. It writes a screenshot under the test's tmp dir. It skips only when Chromium or
chromedriver is absent (``.ci/run`` installs them).
"""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
# The flags this machine needs (no sandbox as root, no background network: the network is closed).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)

needs_browser = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium and chromedriver are not installed (apt-get install chromium chromium-driver; .ci/run does it)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real ``oracle-tools serve`` process on a free loopback port; yields its base URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "oracle_tools.interfaces.cli",
                "serve",
                "--port",
                str(port),
                "--db",
                str(sample_db_path),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                pytest.fail(f"oracle-tools serve exited with {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                if httpx.get(base + "/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"oracle-tools serve did not answer within 30 s: {log.read_text()[-2000:]}")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _texts(driver: object, selector: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]  # type: ignore[attr-defined]


def _click_and_wait(driver: object, element: object) -> None:
    """Click a submit button or link and wait until the browser has loaded the next page."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # A mark on the old page's window tells it from the next page. Selenium's staleness_of asks
    # Chrome about the old <html> node, and while the page is being replaced Chrome can answer
    # that with an inspector error ("Node with given id does not belong to the document") rather
    # than a stale-element one; so every WebDriverException during the wait means "not yet".
    browser: Any = driver
    browser.execute_script("window.__oracleToolsOldPage = true")
    element.click()  # type: ignore[attr-defined]
    WebDriverWait(browser, 20, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return window.__oracleToolsOldPage === undefined && document.readyState === 'complete'"
        )
    )


def _look_up(driver: object, base: str, name: str) -> None:
    """Type a name into the name box and submit it, as a person would."""
    from selenium.webdriver.common.by import By

    driver.get(base + "/")  # type: ignore[attr-defined]
    box = driver.find_element(By.ID, "q")  # type: ignore[attr-defined]
    box.clear()
    box.send_keys(name)
    _click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#name-form button[type=submit]"))  # type: ignore[attr-defined]


@needs_browser
def test_split_card_by_a_loose_spelling_shows_both_halves(server: str, browser: object) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "fire/ice")
    assert "q=fire%2Fice" in browser.current_url  # type: ignore[attr-defined]  # a GET form: a shareable link
    card = browser.find_element(By.ID, "oracle-card")  # type: ignore[attr-defined]
    assert card.find_element(By.CSS_SELECTOR, ".card-name").text == "Fire // Ice"
    # CR 709.4: a split card has two halves, each with its own cost, type and text
    assert _texts(browser, "#oracle-card .face-name") == ["Fire", "Ice"]
    faces = card.find_elements(By.CSS_SELECTOR, ".face")
    assert [f.get_attribute("data-role") for f in faces] == ["split_half", "split_half"]
    assert "Fire deals 2 damage divided as you choose" in faces[0].text
    assert "Draw a card." in faces[1].text
    # mana symbols are drawn from the Oracle mana cost {1}{R} and {1}{U}
    assert [s.get_attribute("title") for s in faces[0].find_elements(By.CSS_SELECTOR, ".title .ms")] == ["{1}", "{R}"]
    assert [s.get_attribute("title") for s in faces[1].find_elements(By.CSS_SELECTOR, ".title .ms")] == ["{1}", "{U}"]
    assert browser.find_element(By.CSS_SELECTOR, "#resolved-via .via").text == "normalized"  # type: ignore[attr-defined]


@needs_browser
def test_interchangeable_name_resolves_and_lists_its_class(server: str, browser: object) -> None:
    from selenium.webdriver.common.by import By

    # CR 201.3: the Through the Omenpaths name is the same name as the Oracle card's (sample: om1 printing)
    _look_up(browser, server, "Ruzic, Booed but Victorious")
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .card-name").text == "Ultimate Green Goblin"  # type: ignore[attr-defined]
    assert browser.find_element(By.CSS_SELECTOR, "#resolved-via .via").text == "interchangeable"  # type: ignore[attr-defined]
    assert "Ruzic, Booed but Victorious" in browser.find_element(By.ID, "same-name").text  # type: ignore[attr-defined]


@needs_browser
def test_a_misspelling_offers_suggestions_that_lead_to_the_card(server: str, browser: object) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "Tarmogoyff")
    assert "is not a card name" in browser.find_element(By.ID, "not-found").text  # type: ignore[attr-defined]
    suggestions = _texts(browser, "#suggestions a")
    assert suggestions and suggestions[0] == "Tarmogoyf"
    _click_and_wait(browser, browser.find_element(By.LINK_TEXT, "Tarmogoyf"))  # type: ignore[attr-defined]
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .card-name").text == "Tarmogoyf"  # type: ignore[attr-defined]
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .pt").text == "*/1+*"  # type: ignore[attr-defined]


@needs_browser
def test_a_predefined_token_shows_its_characteristics(server: str, browser: object) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "treasure")
    token = browser.find_element(By.ID, "token-card")  # type: ignore[attr-defined]
    # CR 111.10a: a Treasure token is a colorless Treasure artifact token with this ability
    assert token.find_element(By.CSS_SELECTOR, ".token-name").text == "Treasure Token"
    assert "Token Artifact — Treasure" in token.text
    assert "Sacrifice this token: Add one mana of any color." in token.text
    assert browser.find_element(By.ID, "token-kind").text == "predefined (CR 111.10a)"  # type: ignore[attr-defined]


@needs_browser
def test_typed_markup_is_shown_as_text_never_run(server: str, browser: object) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "<script>document.title='pwned'</script><b>x</b>")
    assert browser.title != "pwned"  # type: ignore[attr-defined]
    assert browser.find_elements(By.TAG_NAME, "script") == []  # type: ignore[attr-defined]
    assert browser.find_elements(By.CSS_SELECTOR, "#lookup-result b") == []  # type: ignore[attr-defined]
    assert "<script>document.title='pwned'</script>" in browser.find_element(By.ID, "not-found").text  # type: ignore[attr-defined]


@needs_browser
def test_deck_with_an_over_limit_card_lists_the_problems_with_their_lines(
    server: str, browser: object, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _look_up(browser, server, "Seven Dwarves")
    deck = "Deck\n8 Seven Dwarves\n52 Mountain\n"
    area = browser.find_element(By.ID, "deck")  # type: ignore[attr-defined]
    area.clear()
    area.send_keys(deck)
    Select(browser.find_element(By.ID, "format")).select_by_value("future")  # type: ignore[attr-defined]
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#deck-form button[type=submit]"))  # type: ignore[attr-defined]

    # Seven Dwarves is legal in Future Standard in the sample; only its count is wrong
    assert browser.find_element(By.ID, "verdict").text == "Not legal in Future Standard: 1 problem."  # type: ignore[attr-defined]
    rows = browser.find_elements(By.CSS_SELECTOR, "#problems tr.problem")  # type: ignore[attr-defined]
    assert len(rows) == 1
    # Seven Dwarves' own Oracle text raises the limit to seven (CR 100.2a: "unless…"); eight is one too many
    assert rows[0].get_attribute("data-kind") == "too_many_copies"
    assert rows[0].get_attribute("data-line") == "2"
    cells = rows[0].find_elements(By.TAG_NAME, "td")
    assert cells[0].text == "2"
    assert cells[1].text == "8 Seven Dwarves"  # the pasted line itself
    assert "at most 7" in cells[2].text
    # the form keeps what was pasted and chosen; the name result stays on the page beside it
    assert browser.find_element(By.ID, "deck").get_attribute("value").splitlines() == deck.splitlines()  # type: ignore[attr-defined]
    assert Select(browser.find_element(By.ID, "format")).first_selected_option.text == "Future Standard"  # type: ignore[attr-defined]
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .card-name").text == "Seven Dwarves"  # type: ignore[attr-defined]

    height = browser.execute_script("return document.documentElement.scrollHeight")  # type: ignore[attr-defined]
    browser.set_window_size(1280, max(800, min(int(height) + 40, 4000)))  # type: ignore[attr-defined]
    shot = tmp_path / "web-page.png"
    assert browser.save_screenshot(str(shot))  # type: ignore[attr-defined]
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, _ = struct.unpack(">II", head[16:24])
    assert width >= 1000
    print(f"screenshot: {shot}")


@needs_browser
def test_a_legal_deck_says_legal(server: str, browser: object) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server + "/")  # type: ignore[attr-defined]
    browser.find_element(By.ID, "deck").send_keys(  # type: ignore[attr-defined]
        "4 Lightning Bolt\n4 Tarmogoyf\n52 Mountain\n\nSideboard\n2 Fire/Ice\n"
    )
    Select(browser.find_element(By.ID, "format")).select_by_value("legacy")  # type: ignore[attr-defined]
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#deck-form button[type=submit]"))  # type: ignore[attr-defined]
    assert browser.find_element(By.ID, "verdict").text == "Legal in Legacy."  # type: ignore[attr-defined]
    assert browser.find_elements(By.ID, "problems") == []  # type: ignore[attr-defined]
    assert "Main deck 60 · sideboard 2" in browser.find_element(By.ID, "counts").text  # type: ignore[attr-defined]


def test_bad_input_is_a_message_on_the_page_never_a_500(server: str) -> None:
    """Plain HTTP (no browser needed): over-long names, unknown formats, foreign bodies."""
    long_name = httpx.get(server + "/", params={"q": "x" * 1001})
    assert long_name.status_code == 400
    assert "at most 1,000" in long_name.text
    unknown_format = httpx.post(server + "/", data={"deck": "4 Lightning Bolt", "format": "nosuchformat"})
    assert unknown_format.status_code == 400
    assert "unknown format" in unknown_format.text
    empty = httpx.post(server + "/", data={"deck": "   ", "format": "modern"})
    assert empty.status_code == 400 and "The decklist is empty" in empty.text
    not_a_form = httpx.post(server + "/", content=b'{"deck": "x"}', headers={"content-type": "application/json"})
    assert not_a_form.status_code in (400, 415)
    # a path is only ever decklist text: the server never opens a file named in the box
    path_like = httpx.post(server + "/", data={"deck": "/etc/passwd", "format": "modern"})
    assert path_like.status_code == 200 and "root:" not in path_like.text
    assert httpx.get(server + "/", params={"q": "Fire // Ice"}).status_code == 200  # still answering
