"""The web pages — the name page at ``/`` and the card reference (``/search``, ``/card``, ``/token``, ``/deck``) —
in a real headless browser against the real server, and each page's HTML through Starlette's TestClient.

The browser tests start ``oracle-tools serve`` once, on a free loopback port, over a database of real data ingested
twice (the embedded sample, then the sample with Mox Opal and Ragavan known from MTGJSON's 2022 foreign printings
only: a real ban and a real errata between the two), drive Debian's Chromium through chromedriver (selenium) in one
session, fill in the forms and follow the links as a person would, read the rendered DOM and the browser console.
They skip only when Chromium or chromedriver is absent (``.ci/run`` installs them). The TestClient tests read the
embedded sample's database in-process: no browser, no server process.
"""

from __future__ import annotations

import gzip
import html as html_lib
import json
import os
import re
import shutil
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

if TYPE_CHECKING:  # selenium is imported by the browser fixture only: the tests skip without Chromium
    from selenium.webdriver.chrome.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

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


FOREIGN_2022 = "scryfall-foreign-printings-from-mtgjson-2022.json.gz"
#: Cards the second ingest knows from MTGJSON's April 2022 foreign printings only: Mox Opal (legal in Modern and with
#: "Activate this ability only if" in the 2019 sample; banned in January 2020 and reworded), Ragavan (printed in 2021:
#: no English printing in the files, only its foreign names).
LATER = ("Mox Opal", "Ragavan, Nimble Pilferer")


def _lines_naming(path: Path, names: tuple[str, ...]) -> list[bytes]:
    """The object lines of a one-object-per-line bulk file (gzip) whose ``name`` is one of ``names``, in the
    file's order: the names looked for in large blocks of the decompressed bytes, not line by line (a Python loop
    over the foreign file's 272,550 lines cost four times its decompression)."""
    marks = [f'"name":"{name}"'.encode() for name in names]
    found: dict[int, bytes] = {}  # by where the line starts in the file
    tail, offset = b"", 0  # the part line of the last block, and where it starts
    with gzip.open(path, "rb") as handle:
        while block := handle.read(1 << 24):
            block = tail + block
            end = block.rfind(b"\n") + 1  # whole lines only; the rest waits for the next block
            for mark in marks:
                at = block.find(mark, 0, end)
                while at >= 0:
                    start = block.rfind(b"\n", 0, at) + 1
                    stop = block.find(b"\n", at)
                    found[offset + start] = block[start:stop]
                    at = block.find(mark, stop, end)
            tail, offset = block[end:], offset + end
    assert not any(mark in tail for mark in marks)  # the file ends with its closing line
    return [found[at] for at in sorted(found)]


@pytest.fixture(scope="module")
def reference_db(realdata: Path, sample_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded sample, then again with ``LATER``'s English printings left out and their 2022 foreign printings
    added: a change history with a ban and an errata, and a card known by foreign printings only."""
    from oracle_tools import OracleDB
    from oracle_tools.ingest import sample_dir

    folder = tmp_path_factory.mktemp("reference")
    db = folder / "reference.duckdb"
    shutil.copy(sample_db_path, db)  # the session's `ingest --sample` (conftest), not a second one
    files = []
    for path in sorted(sample_dir().glob("*.json*")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            objects = json.load(handle)
        kept = [o for o in objects if not (isinstance(o, dict) and o.get("name") in LATER)]
        if len(kept) == len(objects):  # no printing of LATER's cards: the sample's file as it is
            files.append(path)
            continue
        out = folder / path.name.removesuffix(".gz")
        out.write_text(json.dumps(kept), encoding="utf-8")
        files.append(out)
    later = [json.loads(line.strip().rstrip(b",")) for line in _lines_naming(realdata / FOREIGN_2022, LATER)]
    assert {o["name"] for o in later} == set(LATER)
    (folder / "foreign-2022.json").write_text(json.dumps(later), encoding="utf-8")
    OracleDB.ingest_files(db, [*files, folder / "foreign-2022.json"])
    return db


@pytest.fixture(scope="module")
def server(reference_db: Path) -> Iterator[str]:
    """The real ``oracle-tools serve`` process on a loopback port it chose (tests/oracle_server.py: waited for by
    its answers, not by a fixed time); yields its base URL."""
    from oracle_server import Server

    srv = Server(reference_db)
    try:
        yield srv.base
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, read by _console()
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _texts(driver: WebDriver, selector: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def _click_and_wait(driver: WebDriver, element: WebElement) -> None:
    """Click a submit button or link and wait until the browser has loaded the next page."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # A mark on the old page's window tells it from the next page. Selenium's staleness_of asks
    # Chrome about the old <html> node, and while the page is being replaced Chrome can answer
    # that with an inspector error ("Node with given id does not belong to the document") rather
    # than a stale-element one; so every WebDriverException during the wait means "not yet".
    browser: Any = driver
    browser.execute_script("window.__oracleToolsOldPage = true")
    element.click()
    WebDriverWait(browser, 20, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return window.__oracleToolsOldPage === undefined && document.readyState === 'complete'"
        )
    )


def _look_up(driver: WebDriver, base: str, name: str) -> None:
    """Type a name into the name box and submit it, as a person would."""
    from selenium.webdriver.common.by import By

    driver.get(base + "/")
    box = driver.find_element(By.ID, "q")
    box.clear()
    box.send_keys(name)
    _click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#name-form button[type=submit]"))


@needs_browser
def test_split_card_by_a_loose_spelling_shows_both_halves(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "fire/ice")
    assert "q=fire%2Fice" in browser.current_url  # a GET form: a shareable link
    card = browser.find_element(By.ID, "oracle-card")
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
    assert browser.find_element(By.CSS_SELECTOR, "#resolved-via .via").text == "normalized"
    # the browser asks for /favicon.ico on its own: answered, so the console logs no 404
    assert [e for e in _console(browser) if "favicon" in e] == []


@needs_browser
def test_interchangeable_name_resolves_and_lists_its_class(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    # CR 201.3: the Through the Omenpaths name is the same name as the Oracle card's (sample: om1 printing)
    _look_up(browser, server, "Ruzic, Booed but Victorious")
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .card-name").text == "Ultimate Green Goblin"
    assert browser.find_element(By.CSS_SELECTOR, "#resolved-via .via").text == "interchangeable"
    assert "Ruzic, Booed but Victorious" in browser.find_element(By.ID, "same-name").text


@needs_browser
def test_a_misspelling_offers_suggestions_that_lead_to_the_card(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "Tarmogoyff")
    assert "is not a card name" in browser.find_element(By.ID, "not-found").text
    suggestions = _texts(browser, "#suggestions a")
    assert suggestions and suggestions[0] == "Tarmogoyf"
    _click_and_wait(browser, browser.find_element(By.LINK_TEXT, "Tarmogoyf"))
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .card-name").text == "Tarmogoyf"
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .pt").text == "*/1+*"


@needs_browser
def test_a_predefined_token_shows_its_characteristics(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "treasure")
    token = browser.find_element(By.ID, "token-card")
    # CR 111.10a: a Treasure token is a colorless Treasure artifact token with this ability
    assert token.find_element(By.CSS_SELECTOR, ".token-name").text == "Treasure Token"
    assert "Token Artifact — Treasure" in token.text
    assert "Sacrifice this token: Add one mana of any color." in token.text
    assert browser.find_element(By.ID, "token-kind").text == "predefined (CR 111.10a)"


@needs_browser
def test_typed_markup_is_shown_as_text_never_run(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    _look_up(browser, server, "<script>document.title='pwned'</script><b>x</b>")
    assert browser.title != "pwned"
    scripts = browser.find_elements(By.TAG_NAME, "script")
    assert [e.get_attribute("src") for e in scripts] == [server + "/static/web.js"]  # the page's own, nothing typed
    assert browser.find_elements(By.CSS_SELECTOR, "#lookup-result b") == []
    assert "<script>document.title='pwned'</script>" in browser.find_element(By.ID, "not-found").text


@needs_browser
def test_deck_with_an_over_limit_card_lists_the_problems_with_their_lines(
    server: str, browser: WebDriver, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _look_up(browser, server, "Seven Dwarves")
    deck = "Deck\n8 Seven Dwarves\n52 Mountain\n"
    area = browser.find_element(By.ID, "deck")
    area.clear()
    area.send_keys(deck)
    Select(browser.find_element(By.ID, "format")).select_by_value("future")
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#deck-form button[type=submit]"))

    # Seven Dwarves is legal in Future Standard in the sample; only its count is wrong
    assert browser.find_element(By.ID, "verdict").text == "Not legal in Future Standard: 1 problem."
    rows = browser.find_elements(By.CSS_SELECTOR, "#problems tr.problem")
    assert len(rows) == 1
    # Seven Dwarves' own Oracle text raises the limit to seven (CR 100.2a: "unless…"); eight is one too many
    assert rows[0].get_attribute("data-kind") == "too_many_copies"
    assert rows[0].get_attribute("data-line") == "2"
    cells = rows[0].find_elements(By.TAG_NAME, "td")
    assert cells[0].text == "2"
    assert cells[1].text == "8 Seven Dwarves"  # the pasted line itself
    assert "at most 7" in cells[2].text
    # the form keeps what was pasted and chosen; the name result stays on the page beside it
    assert (browser.find_element(By.ID, "deck").get_attribute("value") or "").splitlines() == deck.splitlines()
    assert Select(browser.find_element(By.ID, "format")).first_selected_option.text == "Future Standard"
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .card-name").text == "Seven Dwarves"

    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, max(800, min(int(height) + 40, 4000)))
    shot = tmp_path / "web-page.png"
    assert browser.save_screenshot(str(shot))
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, _ = struct.unpack(">II", head[16:24])
    assert width >= 1000
    print(f"screenshot: {shot}")


@needs_browser
def test_a_legal_deck_says_legal(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server + "/")
    browser.find_element(By.ID, "deck").send_keys(
        "4 Lightning Bolt\n4 Tarmogoyf\n52 Mountain\n\nSideboard\n2 Fire/Ice\n"
    )
    Select(browser.find_element(By.ID, "format")).select_by_value("legacy")
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#deck-form button[type=submit]"))
    assert browser.find_element(By.ID, "verdict").text == "Legal in Legacy."
    assert browser.find_elements(By.ID, "problems") == []
    assert "Main deck 60 · sideboard 2" in browser.find_element(By.ID, "counts").text


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


@needs_browser
def test_the_name_pages_boxes_autocomplete_by_keyboard(server: str, browser: WebDriver) -> None:
    """The name box of ``/`` offers names as the reference pages' boxes do (Scryfall's autocomplete rule): a name
    taken with the keyboard is looked up at once; the commander box fills in; the page's strict policy (scripts from
    this server only) lets the one script run without a console message."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    _console(browser)
    _open(browser, server + "/?q=Fire+%2F%2F+Ice")  # an old address keeps working
    assert _texts(browser, "#oracle-card .face-name") == ["Fire", "Ice"]
    commander = browser.find_element(By.ID, "commander")
    commander.send_keys("ultimate gr")
    WebDriverWait(browser, 10).until(lambda d: commander.get_attribute("data-suggesting") == "true")
    commander.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    assert commander.get_attribute("value") == "Ultimate Green Goblin"
    box = browser.find_element(By.ID, "q")
    box.clear()
    box.send_keys("tarmog")
    WebDriverWait(browser, 10).until(lambda d: box.get_attribute("data-suggesting") == "true")
    assert _texts(browser, "#name-panel .ac-list li") == ["Tarmogoyf"]
    box.send_keys(Keys.ARROW_DOWN)
    assert box.get_attribute("aria-activedescendant")
    _screenshot(browser, "web-names")
    browser.execute_script("window.__oracleToolsOldPage = true")
    box.send_keys(Keys.ENTER)
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script(
            "return window.__oracleToolsOldPage === undefined && document.readyState === 'complete'"
        )
    )
    assert browser.current_url == server + "/?q=Tarmogoyf"
    assert browser.find_element(By.CSS_SELECTOR, "#oracle-card .card-name").text == "Tarmogoyf"
    assert _console(browser) == []


# -- the card reference in the browser: search -> card -> token -> deck, on real data ----------------------------


def _console(driver: WebDriver) -> list[str]:
    """The browser console's warnings and errors since the last call (a failed request, a script error, a CSP
    violation: each is one)."""
    entries = driver.get_log("browser")
    return [f"{e['level']}: {e['message']}" for e in entries if e["level"] in ("WARNING", "SEVERE")]


def _open(driver: WebDriver, url: str) -> None:
    driver.get(url)
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.readyState === 'complete'"))


#: A folder to keep a screenshot of each reference page in (``ORACLE_TOOLS_WEB_SCREENSHOTS=docs/images pytest
#: tests/test_web.py`` writes the ones docs/web.md shows); unset, no screenshot is written.
SCREENSHOTS = os.environ.get("ORACLE_TOOLS_WEB_SCREENSHOTS")


def _screenshot(driver: Any, name: str) -> None:
    if not SCREENSHOTS:
        return
    folder = Path(SCREENSHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    width = driver.get_window_size()["width"]
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, max(600, min(int(height) + 20, 1400)))
    try:
        driver.save_screenshot(str(folder / f"{name}.png"))
    finally:
        driver.set_window_size(width, 1000)


def _other_hosts(driver: WebDriver, base: str) -> list[str]:
    """Every resource the page loaded from anywhere but this server."""
    names = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return [n for n in names if not n.startswith(base)]


@needs_browser
def test_search_pages_through_results_with_order_and_direction(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _console(browser)
    _open(browser, server + "/search")
    box = browser.find_element(By.ID, "q")
    box.send_keys("t:creature")
    Select(browser.find_element(By.ID, "order")).select_by_value("cmc")
    Select(browser.find_element(By.ID, "dir")).select_by_value("desc")
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#search-form button[type=submit]"))
    assert browser.current_url.endswith("/search?q=t%3Acreature&order=cmc&dir=desc&unique=cards")
    count = browser.find_element(By.ID, "result-count").text
    assert count.startswith("1 – 60 of 1,288 cards"), count  # the sample's creatures, 60 a page
    cells = browser.find_elements(By.CSS_SELECTOR, "#grid li.cell")
    assert len(cells) == 60
    first = cells[0].text
    assert "Creature" in first and first.split("\n")[0] == "Emrakul, the Promised End"  # mana value 13 first
    # a text card: name, cost as mana symbols, type line, Oracle text, P/T
    assert cells[0].find_element(By.CSS_SELECTOR, ".pt").text == "13/13"
    assert [s.get_attribute("title") for s in cells[0].find_elements(By.CSS_SELECTOR, ".cost .ms")] == ["{13}"]
    _click_and_wait(browser, browser.find_element(By.ID, "next-page"))
    assert "page=2" in browser.current_url
    assert browser.find_element(By.ID, "result-count").text.startswith("61 – 120 of 1,288")
    assert Select(browser.find_element(By.ID, "order")).first_selected_option.text == "Mana value"
    assert browser.find_element(By.CSS_SELECTOR, "#pager [aria-current=page]").text == "2"
    _screenshot(browser, "web-search")
    assert _other_hosts(browser, server) == []  # images are off: nothing from another host
    # a query error is a sentence on the page, the query kept in the box
    _open(browser, server + "/search?q=t%3A%28")
    assert "unexpected '('" in browser.find_element(By.ID, "page-error").text
    assert browser.find_element(By.ID, "q").get_attribute("value") == "t:("
    # the console holds only the page's own 400 status (Chrome logs a document answered with an error status)
    assert [e for e in _console(browser) if "status of 400" not in e] == []


@needs_browser
def test_a_typo_and_a_foreign_name_in_the_search_box_lead_to_the_card(server: str, browser: WebDriver) -> None:
    """As a new player types: a misspelt name, then a German name, into the header's search box and Enter; the
    page finds no card by those words, reads them as a name and links the card (CR 201.2, Scryfall's fuzzy rule)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    _console(browser)
    for typed, card in (("tarmogyf", "Tarmogoyf"), ("Ragavan, flinker Dieb", "Ragavan, Nimble Pilferer")):
        _open(browser, server + "/search")
        box = browser.find_element(By.ID, "top-q")
        box.send_keys(typed)
        browser.execute_script("window.__oracleToolsOldPage = true")
        box.send_keys(Keys.ENTER)
        WebDriverWait(browser, 20).until(
            lambda d: d.execute_script(
                "return window.__oracleToolsOldPage === undefined && document.readyState === 'complete'"
            )
        )
        assert browser.find_element(By.ID, "no-results")
        _click_and_wait(browser, browser.find_element(By.ID, "name-hint-card"))
        assert browser.find_element(By.ID, "card-name").text.startswith(card)
    assert _console(browser) == []


@needs_browser
def test_card_pages_split_dfc_meld_and_the_printing_switcher(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _console(browser)
    _open(browser, server + "/search?q=" + "%21%22Fire+%2F%2F+Ice%22")
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#grid a.card-link"))
    assert re.search(r"/card/[0-9a-f-]{36}$", browser.current_url)
    # CR 709.4: a split card, two halves with their own cost, type and text
    assert _texts(browser, "#faces .face-name") == ["Fire", "Ice"]
    names = browser.find_element(By.ID, "names")
    assert names.find_element(By.CSS_SELECTOR, "[data-via=face]").text == "Fire · Ice"
    assert "French: Feu // Glace · Feu · Glace" in names.find_element(By.CSS_SELECTOR, "[data-via=printed]").text
    # CR 201.4b: a split card's name is one of its halves' names
    verdicts = _texts(browser, "#choose-name tr.name-verdict")
    assert any(v.startswith("a card name (Pithing Needle) Fire yes") for v in verdicts)
    assert {"legacy: legal", "modern: not legal"} <= set(_texts(browser, "#legalities li"))  # 2019: no Modern printing
    # the printing switcher: another printing's set, number and language
    switcher = Select(browser.find_element(By.ID, "printing"))
    option = next(o for o in switcher.options if " fr " in f" {o.text} ")
    switcher.select_by_value(option.get_attribute("value") or "")
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#printing-switcher button"))
    assert "printing=" in browser.current_url
    line = browser.find_element(By.ID, "printing-line").text
    assert "French" in line and "Feu // Glace" in line
    # what the French card printed, beside (never instead of) the Oracle text
    printed = _texts(browser, "#faces .printed")
    assert len(printed) == 2 and printed[0].startswith("As printed (French), not its Oracle text:\nFeu")
    _screenshot(browser, "web-card")
    # a transforming double-faced card by a readable address (set and collector number)
    _open(browser, server + "/card?name=Insectile+Aberration")
    assert browser.find_element(By.ID, "card-layout").text == "transform card, 2 faces"
    assert _texts(browser, "#faces .face-name") == ["Delver of Secrets", "Insectile Aberration"]
    # a meld pair (CR 712.4): each part links to its partner and to what they meld into
    _open(browser, server + "/card?name=Bruna")
    related = {e.get_attribute("data-component"): e.text for e in browser.find_elements(By.CSS_SELECTOR, "#related li")}
    assert related["meld_result"].startswith("Brisela, Voice of Nightmares")
    assert related["meld_part"].startswith("Gisela, the Broken Blade")
    assert "Gisela, the Broken Blade" in browser.find_element(By.ID, "named-by").text  # CR 201.5
    _click_and_wait(browser, browser.find_element(By.LINK_TEXT, "Brisela, Voice of Nightmares"))
    assert browser.find_element(By.CSS_SELECTOR, "#card-name").text.startswith("Brisela, Voice of Nightmares")
    assert _console(browser) == []


@needs_browser
def test_card_history_foreign_only_names_token_page_and_back(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By

    _console(browser)
    # a card with an errata and a ban in its history
    _open(browser, server + "/card?name=Mox+Opal")
    changes = browser.find_elements(By.CSS_SELECTOR, "#history li.change")
    kinds = [c.get_attribute("data-kind") for c in changes]
    assert "ban" in kinds and "errata" in kinds
    errata = changes[kinds.index("errata")]
    assert [d.text for d in errata.find_elements(By.TAG_NAME, "del")] == ["this ability"]
    assert "modern: banned" in _texts(browser, "#legalities li")
    # a card known only by its foreign printings: found by its German name, every printing foreign
    _open(browser, server + "/card?name=Ragavan%2C+flinker+Dieb")
    assert browser.find_element(By.CSS_SELECTOR, "#card-name").text.startswith("Ragavan, Nimble Pilferer")
    langs = _texts(browser, "#printings tbody td:nth-child(3)")
    assert langs and "en" not in langs
    assert "German: Ragavan, flinker Dieb" in browser.find_element(By.ID, "names").text
    # a card that creates a named token (CR 111.9) -> the token page -> back to the card
    _open(browser, server + "/card?name=Dark+Depths")
    link = browser.find_element(By.CSS_SELECTOR, "#tokens a.token-link")
    assert link.text == "Marit Lage"
    _click_and_wait(browser, link)
    assert browser.current_url.endswith("/token/Marit%20Lage")
    assert browser.find_element(By.ID, "token-name").text.startswith("Marit Lage")
    token = browser.find_element(By.ID, "token").text
    assert "Token Legendary Creature — Avatar" in token and "20/20" in token and "(CR 111.9)" in token
    _screenshot(browser, "web-token")
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#token-catalog a.creator"))
    assert browser.find_element(By.CSS_SELECTOR, "#card-name").text == "Dark Depths"
    assert _console(browser) == []


@needs_browser
def test_deck_check_says_which_legalities_links_problems_and_shares(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _console(browser)
    _open(browser, server + "/deck")
    browser.find_element(By.ID, "deck").send_keys("4 Mox Opal\n56 Island\n\nSideboard\n2 Tarmogoyf\n")
    Select(browser.find_element(By.ID, "format")).select_by_value("modern")
    _click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#deck-form button[type=submit]"))
    assert browser.find_element(By.ID, "verdict").text == "Not legal in Modern: 1 problem."
    assert browser.find_element(By.ID, "legalities-source").text.startswith("legalities: ")
    assert browser.find_element(By.ID, "counts").text == "Main 60 · Sideboard 2"
    row = browser.find_element(By.CSS_SELECTOR, "#problems tr.problem")
    assert (row.get_attribute("data-kind"), row.get_attribute("data-line")) == ("banned", "1")
    assert "since the ingest of" in row.text  # the history says since when
    share = browser.find_element(By.ID, "share-link").get_attribute("href")
    assert share is not None  # the report links itself
    assert "%0D" not in share  # the posted form's CRLF line ends are not kept in the link
    _screenshot(browser, "web-deck")
    _click_and_wait(browser, row.find_element(By.CSS_SELECTOR, "a.problem-card"))
    assert browser.find_element(By.CSS_SELECTOR, "#card-name").text.startswith("Mox Opal")
    _open(browser, share)  # the shared address is the same check
    assert browser.find_element(By.ID, "verdict").text == "Not legal in Modern: 1 problem."
    assert _console(browser) == []


@needs_browser
def test_autocomplete_by_keyboard_and_a_phone_width_screen(server: str, browser: WebDriver) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    _console(browser)
    _open(browser, server + "/deck")
    box = browser.find_element(By.ID, "commander")
    box.send_keys("ultimate gr")
    WebDriverWait(browser, 10).until(lambda d: box.get_attribute("data-suggesting") == "true")
    assert _texts(browser, ".ac-list li") == ["Ultimate Green Goblin"]
    box.send_keys(Keys.ARROW_DOWN)
    box.send_keys(Keys.ENTER)
    assert box.get_attribute("value") == "Ultimate Green Goblin"
    assert box.get_attribute("data-suggesting") == "false"
    # the search box: a chosen name opens that card's page
    top = browser.find_element(By.ID, "top-q")
    top.send_keys("tarmog")
    WebDriverWait(browser, 10).until(lambda d: top.get_attribute("data-suggesting") == "true")
    top.send_keys(Keys.ARROW_DOWN)
    browser.execute_script("window.__oracleToolsOldPage = true")
    top.send_keys(Keys.ENTER)
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return window.__oracleToolsOldPage === undefined"))
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "card-name"))
    assert browser.find_element(By.ID, "card-name").text == "Tarmogoyf"
    # a phone-width screen: no page scrolls sideways
    browser.set_window_size(390, 844)
    try:
        for path in ("/search?q=t%3Agoblin", "/card?name=Fire+%2F%2F+Ice", "/token/Treasure", "/deck"):
            _open(browser, server + path)
            wide = browser.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert wide <= 0, f"{path} is {wide}px wider than a phone screen"
    finally:
        browser.set_window_size(1280, 1000)
    assert _console(browser) == []


# -- each page's HTML, in-process (Starlette's TestClient over the embedded sample's database) -------------------


@pytest.fixture(scope="module")
def client(sample_db_path: Path) -> Iterator[Any]:
    from starlette.testclient import TestClient

    from oracle_tools.interfaces.serve.app import create_app

    with TestClient(create_app(sample_db_path), base_url="http://127.0.0.1:8765") as test_client:
        yield test_client
        _wait_until_warm(test_client)


def _wait_until_warm(test_client: Any) -> None:
    """Let the server's background warm-up finish before the app closes the database under it (closing a
    connection while the warm-up's query runs on it makes DuckDB refuse: "connection is busy")."""
    deadline = time.monotonic() + 60
    while not test_client.get("/health").json().get("warm") and time.monotonic() < deadline:
        time.sleep(0.1)
    # and the pages' own warm-up (pages.warm_pages), started by the first reference page
    while any(t.name == "web-warm" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.1)


def _sample_oracle_id(sample_db_path: Path, name: str) -> str:
    from oracle_tools import OracleDB

    with OracleDB(sample_db_path) as db:
        found = db.resolve(name)
        assert found.oracle_id is not None
        return found.oracle_id


def test_favicon_is_an_icon_so_no_page_logs_a_404(client: Any) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
    assert icon.content[:4] == b"\x00\x00\x01\x00"  # an ICO with one image
    assert icon.content[22:30] == b"\x89PNG\r\n\x1a\n"  # which is a PNG
    assert '<link rel="icon" href="/favicon.ico">' in client.get("/search").text


def test_search_page_counts_pages_and_keeps_order_dir_unique(client: Any) -> None:
    page = client.get("/search", params={"q": "t:goblin", "order": "cmc", "dir": "desc", "page": "1"})
    assert page.status_code == 200
    assert re.search(r'id="result-count">1 – 46 of\s+<strong>46</strong> cards', page.text)
    assert page.text.count('<li class="cell"') == 46
    assert '<option value="cmc" selected>' in page.text and '<option value="desc" selected>' in page.text
    creatures = client.get("/search", params={"q": "t:creature", "page": "3"})
    assert "121 – 180 of" in creatures.text and "<strong>1,288</strong>" in creatures.text
    assert 'href="/search?q=t%3Acreature&amp;page=4" rel="next"' in creatures.text
    assert 'href="/search?q=t%3Acreature&amp;page=2" rel="prev"' in creatures.text
    prints = client.get("/search", params={"q": '!"Fire // Ice"', "unique": "prints"})
    assert re.search(r"of\s+<strong>\d+</strong> printings", prints.text)
    assert "?printing=" in prints.text  # each printing links to its own page


def test_search_page_offers_the_engines_own_choices() -> None:
    """The page's orders, directions and unique modes are the search engine's lists, in its order: a mode the engine
    learns is offered at once, and the page never offers one the engine refuses."""
    from oracle_tools.interfaces.serve import pages
    from oracle_tools.search import DIRECTIONS, ORDERS, UNIQUE

    assert (list(pages.ORDER_LABELS), list(pages.DIR_LABELS), list(pages.UNIQUE_LABELS)) == (
        list(ORDERS),
        list(DIRECTIONS),
        list(UNIQUE),
    )
    assert pages.ORDER_LABELS["cmc"] == "Mana value" and pages.ORDER_LABELS["name"] == "Name"


@pytest.mark.parametrize(
    "where",
    [
        "aer/191/JA",  # a language typed in capitals: Scryfall's codes are lower case, either finds the printing
        "AER/191/ja",
        "aer/191",  # English first
        "fbb/162",  # no English printing: German, French (twice), Italian — one rule picks the same one everywhere
        "psal/A38",
    ],
)
def test_a_set_and_number_name_the_same_printing_on_the_page_and_in_the_api(client: Any, where: str) -> None:
    """/card/{set}/{number}[/{lang}] (the page), /cards/… (the API) and a set + collector_number identifier of
    /cards/collection ask one question: they answer with the same printing."""
    api = client.get(f"/cards/{where}")
    assert api.status_code == 200, api.text
    printing = api.json()["id"]
    page = client.get(f"/card/{where}")
    assert page.status_code == 200 and f'JSON: <a href="/cards/{printing}">' in page.text
    if where.count("/") == 1:
        set_code, number = where.split("/")
        collection = client.post(
            "/cards/collection", json={"identifiers": [{"set": set_code, "collector_number": number}]}
        )
        assert [card["id"] for card in collection.json()["data"]] == [printing]


def test_search_page_shares_the_apis_search_and_caches_in_bytes(client: Any) -> None:
    """A search page keeps its ids in the server's search cache, the API's (one `unique=prints` search of the real
    data is tens of MB: a cache counted in entries could hold gigabytes), so the API then answers the same query
    from memory; rendered pages are kept in a cache bounded in bytes too."""
    from oracle_tools.interfaces.serve.generations import ByteCache
    from oracle_tools.interfaces.serve.pages import PAGES
    from oracle_tools.search import SearchRequest

    query = "t:goblin o:haste"
    page = client.get("/search", params={"q": query, "unique": "prints", "order": "cmc"})
    assert page.status_code == 200
    generation = client.app.state.store.generation
    kept = generation.searches.get(SearchRequest(query, "prints", "cmc"))
    assert kept is not None and len(kept) > 0
    api = client.get("/cards/search", params={"q": query, "unique": "prints", "order": "cmc"})
    assert [card["id"] for card in api.json()["data"]] == kept.slice(0, len(kept))
    pages = generation.peek(PAGES)
    assert isinstance(pages, ByteCache) and pages.bytes > len(page.content)


def test_pages_run_in_the_apis_bounded_pools(client: Any) -> None:
    """A page runs its work in the API's worker pool for that kind of work, not in an unbounded thread pool of its
    own: a deck check waits with POST /decks/check's (a burst of long decklists cannot starve card lookups), and a
    page finding its pool full says the server is busy (503, retry) instead of queueing without end."""
    from oracle_tools.interfaces.serve.pools import Pool

    pools = client.app.state.pools
    kept = dict(pools)
    try:
        pools["decks"] = Pool("decks", 0, 0)  # every deck thread and queue place taken
        deck = {"format": "legacy", "deck": "4 Lightning Bolt\n56 Mountain"}
        for answer in (client.get("/deck", params=deck), client.post("/deck", data=deck), client.post("/", data=deck)):
            assert answer.status_code == 503 and "busy" in answer.text, answer.text
            assert answer.headers["retry-after"] == "5" and answer.headers["content-type"].startswith("text/html")
        api = client.post("/decks/check?format=legacy", content=deck["deck"], headers={"content-type": "text/plain"})
        assert api.status_code == 503 and api.json()["object"] == "error"  # the API's deck checks wait with them
        assert client.get("/search", params={"q": "t:goblin c:r"}).status_code == 200  # lookups go on
        pools["lookups"] = Pool("lookups", 0, 0)
        assert client.get("/search", params={"q": "t:goblin c:g"}).status_code == 503
        assert client.get("/card", params={"name": "Fire // Ice"}).status_code == 503
        assert client.get("/", params={"q": "Fire // Ice"}).status_code == 503
    finally:
        pools.update(kept)
    assert client.post("/deck", data=deck).status_code == 200


def test_a_search_that_finds_nothing_reads_the_words_as_a_card_name(client: Any, sample_db_path: Path) -> None:
    """A bare word searches the English names (Scryfall's rule), so a misspelt or foreign name finds no card; the page
    then reads the words as a name (CR 201: printed foreign names name the card; Scryfall's fuzzy rule for a typo)
    and links the card, instead of a bare "didn't match"."""
    typo = client.get("/search", params={"q": "tarmogyf"}).text
    assert 'id="no-results"' in typo
    tarmogoyf = _sample_oracle_id(sample_db_path, "Tarmogoyf")
    assert f'<a href="/card/{tarmogoyf}" id="name-hint-card">Tarmogoyf</a>' in typo
    assert "the closest name to what was typed" in typo
    french = client.get("/search", params={"q": "Feu // Glace"}).text  # the French printing's name
    assert (
        f'<a href="/card/{_sample_oracle_id(sample_db_path, "Fire // Ice")}" id="name-hint-card">Fire // Ice</a>'
        in french
    )
    assert "a printed name of one of its printings (another language, CR 201.2)" in french
    # search syntax is never read as a name; nor is a text close to no name
    for query in ("t:tarmogyf", "qwxyzzy plorbnik"):
        page = client.get("/search", params={"q": query}).text
        assert 'id="no-results"' in page and 'id="name-hint' not in page, query


def test_the_name_boxes_take_a_search_as_scryfalls_box_does(client: Any, sample_db_path: Path) -> None:
    """Scryfall's box takes a name or a search: a text that compiles as a search with a keyword written is answered
    as the search page answers it (the one card it finds: that card), never "is not a card name"; a name (one with
    a colon that is no search, a misspelling) keeps the name lookup."""
    from urllib.parse import parse_qs, urlsplit

    for box, key in (("/card", "name"), ("/", "q")):
        for query in ("f:historic", "t:goblin c:r", 'o:"draw a card"'):
            answer = client.get(box, params={key: query}, follow_redirects=False)
            assert answer.status_code == 303, (box, query)
            where = urlsplit(answer.headers["location"])
            assert where.path == "/search" and parse_qs(where.query) == {"q": [query]}, (box, query)
            assert 'id="results"' in client.get(answer.headers["location"]).text
        one = client.get(box, params={key: "name:tarmogoyf"}, follow_redirects=False)
        assert one.headers["location"] == f"/card/{_sample_oracle_id(sample_db_path, 'Tarmogoyf')}", box
        cop = client.get(box, params={key: "Circle of Protection: Blue"}, follow_redirects=False)
        if box == "/card":  # /card redirects to the card; the name page answers on its own page
            assert cop.headers["location"] == f"/card/{_sample_oracle_id(sample_db_path, 'Circle of Protection: Blue')}"
            typo = client.get(box, params={key: "lightnin bolt"}, follow_redirects=False)  # the fuzzy reading
            assert typo.headers["location"] == f"/card/{_sample_oracle_id(sample_db_path, 'Lightning Bolt')}"
        else:
            assert cop.status_code == 200 and 'id="not-found"' not in cop.text


def test_search_errors_are_sentences_never_tracebacks(client: Any) -> None:
    bad = client.get("/search", params={"q": "t:("})
    assert bad.status_code == 400
    assert "unexpected &#39;(&#39;" in bad.text and 'value="t:("' in bad.text
    unknown = client.get("/search", params={"q": "t:goblin", "order": "colour"})
    assert unknown.status_code == 400 and "order=&#39;colour&#39; is not one of: name, cmc, power" in unknown.text
    past = client.get("/search", params={"q": "t:goblin", "page": "9"})
    assert past.status_code == 404 and "Page 9 is past the last page (1) of 46 cards." in past.text
    none = client.get("/search", params={"q": "t:goblin t:angel c:u"})
    assert none.status_code == 200 and "didn’t match any cards" in none.text
    assert client.get("/search", params={"q": "x" * 1001}).status_code == 400


DUMP_2019 = "scryfall-default-cards-2019-10-per-set-dump.json.gz"
IMAGED = {"Goblin Guide", "Fire // Ice", "Delver of Secrets // Insectile Aberration"}


@pytest.fixture(scope="module")
def imaged_client(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A database of a few real 2019 printings with their ``image_uris`` (the embedded sample keeps none)."""
    from starlette.testclient import TestClient

    from oracle_tools import OracleDB
    from oracle_tools.interfaces.serve.app import create_app

    objects = []
    with gzip.open(realdata / DUMP_2019, "rt", encoding="utf-8") as handle:
        for line in handle:
            if any(f'"name":"{name}"' in line for name in IMAGED):
                card = json.loads(line.strip().rstrip(","))
                if card["name"] in IMAGED:
                    objects.append(card)
    folder = tmp_path_factory.mktemp("imaged")
    (folder / "cards.json").write_text(json.dumps(objects), encoding="utf-8")
    OracleDB.ingest_files(folder / "imaged.duckdb", [folder / "cards.json"])
    with TestClient(create_app(folder / "imaged.duckdb"), base_url="http://127.0.0.1:8765") as test_client:
        yield test_client
        _wait_until_warm(test_client)


def test_images_only_when_turned_on(imaged_client: Any) -> None:
    client = imaged_client
    query = {"q": "t:goblin or t:instant or t:human", "unique": "cards"}
    off = client.get("/search", params=query)
    assert off.text.count('<li class="cell"') == 3
    assert "<img" not in off.text and "img-src 'self' data:;" in off.headers["content-security-policy"]
    assert not re.search(r'(src|href)="https?://', off.text)  # nothing from another host
    client.get("/images", params={"show": "1", "next": "/search"}, follow_redirects=False)
    try:
        on = client.get("/search", params=query)
        shown = re.findall(r'<img src="(https://img\.scryfall\.com/cards/normal/[^"]+)" alt="([^"]+)"', on.text)
        # one image a card, one a face for a double-faced card (its faces carry the images)
        assert sorted(alt for _, alt in shown) == [
            "Delver of Secrets", "Fire // Ice", "Goblin Guide", "Insectile Aberration"
        ]  # fmt: skip
        assert "img-src 'self' data: https:;" in on.headers["content-security-policy"]
    finally:
        back = client.get("/images", params={"show": "0", "next": "//elsewhere.example"}, follow_redirects=False)
    assert back.headers["location"] == "/search"  # never a redirect to another site
    assert "<img" not in client.get("/search", params=query).text


def test_a_multi_face_cards_combined_name_is_not_called_its_name_in_the_game(client: Any, sample_db_path: Path) -> None:
    """Scryfall names a multi-face card "A // B" (and decklists write it so), but in the game it is never one name:
    a split card has two names (CR 709.4a), a double-faced card the name of the face that is up (712.8a, 712.19),
    a flip or adventurer card a normal and an alternative name (710.1, 715.2). The page says which, from the layout
    table's one sentence per layout; a one-faced card's name is its Oracle name (201.2)."""
    from oracle_tools.store import layouts

    for name, layout in (
        ("Fire // Ice", "split"),
        ("Delver of Secrets // Insectile Aberration", "transform"),
        ("Budoka Pupil // Ichiga, Who Topples Oaks", "flip"),
    ):
        html = client.get(f"/card/{_sample_oracle_id(sample_db_path, name)}").text
        label = re.search(r'<dt>([^<]*)</dt>\s*<dd data-via="name">' + re.escape(name) + "</dd>", html)
        assert label is not None, name
        _, why = layouts.combined_name(layout)
        said = html_lib.unescape(label.group(1))
        assert "Oracle name (CR 201.2)" not in said and why in said, (name, said)
    one_face = client.get(f"/card/{_sample_oracle_id(sample_db_path, 'Goblin Guide')}").text
    assert re.search(r'<dt>Oracle name \(CR 201.2\)</dt>\s*<dd data-via="name">Goblin Guide</dd>', one_face)


def test_card_page_has_every_name_printing_legality_ruling_and_verdict(client: Any, sample_db_path: Path) -> None:
    oid = _sample_oracle_id(sample_db_path, "Fire // Ice")
    page = client.get(f"/card/{oid}")
    assert page.status_code == 200
    html = page.text
    assert '<span id="card-name">Fire // Ice</span>' in html
    assert html.count('class="face-name"') == 2
    assert '<dd data-via="face">Fire · Ice</dd>' in html
    assert "French:</span> Feu // Glace · Feu · Glace" in html
    assert re.search(r"Printings \(\d+\)", html) and "Ultimate Masters (UMA)" in html
    assert 'data-format="legacy">legacy: legal' in html
    assert html.count('<tr class="name-verdict') == 6  # three "choose a … card name" phrases, two halves
    assert re.search(r"<h2>Rulings</h2>\s*<ul><li><span class=\"muted\">2018-12-07</span> If Fire targets two", html)
    by_number = client.get("/card/uma/225")
    assert by_number.status_code == 200 and '<span id="card-name">Fire // Ice</span>' in by_number.text
    named = client.get("/card", params={"name": "feu // glace"}, follow_redirects=False)
    assert (named.status_code, named.headers["location"]) == (303, f"/card/{oid}")


def test_card_page_tokens_references_and_misses(client: Any, sample_db_path: Path) -> None:
    depths = client.get(f"/card/{_sample_oracle_id(sample_db_path, 'Dark Depths')}").text
    assert '<a href="/token/Marit%20Lage" class="token-link">Marit Lage</a>' in depths  # CR 111.9
    assert 'data-kind="token_name">“Marit Lage” — a token\'s name' in depths
    # CR 201.5: its text names itself three times ("Dark Depths enters…", "…from Dark Depths", "When Dark Depths…"):
    # one line says so, not three identical lines
    assert depths.count('<li data-kind="self">“Dark Depths” — itself') == 1
    assert '<span class="muted times">(3 times)</span>' in depths
    # a misspelling reads as Scryfall's fuzzy rule reads it; a name that names nothing says so
    misspelt = client.get("/card", params={"name": "Tarmogoyff"}, follow_redirects=False)
    assert misspelt.headers["location"] == f"/card/{_sample_oracle_id(sample_db_path, 'Tarmogoyf')}"
    miss = client.get("/card", params={"name": "Qwxyzzy Plorb"})
    assert miss.status_code == 200 and "“Qwxyzzy Plorb” is not a card name." in miss.text
    assert client.get("/card/not-a-uuid").status_code == 404
    nowhere = client.get("/card/zzz/999")
    assert nowhere.status_code == 404 and "No printing ZZZ #999 in this database." in nowhere.text


#: Cards whose page shows each kind of fact: split halves and foreign names, a named token, a meld pair naming each
#: other (CR 201.5), a card with many printings.
FACT_CARDS = ("Fire // Ice", "Dark Depths", "Bruna, the Fading Light", "Gisela, the Broken Blade", "Island", "Mox Opal")


def test_card_facts_are_oracledbs_per_card_answers(sample_db_path: Path) -> None:
    """A card page reads each card's names (CR 201), printings, tokens created (CR 111) and name references
    (CR 201.5) from one read of each table per generation (pages.CardFacts): the same rows, in the same order, as
    OracleDB's per-card methods, which scan a whole table per card (20-90 ms on the real data)."""
    import random

    from oracle_tools import OracleDB
    from oracle_tools.names import references
    from oracle_tools.scryfall.card_facts import CardFacts

    with OracleDB(sample_db_path) as db:
        facts = CardFacts(db.con)
        every = [oid for (oid,) in db.con.execute("SELECT oracle_id FROM cards ORDER BY oracle_id").fetchall()]
        oids = [*random.Random(38).sample(every, 120), *(db.resolve(name).oracle_id for name in FACT_CARDS)]
        seen: set[str] = set()
        for oid in oids:
            assert oid is not None
            refs = references.references(db.con, oid)  # what OracleDB.references answers once it has the card
            assert facts.rows("names", oid) == db.card_names(oid), oid
            assert facts.rows("printings", oid) == db.printings(oid), oid
            assert facts.rows("tokens", oid) == db.tokens_created(oid), oid
            assert facts.rows("own_text", oid) == refs["own_text"], oid
            assert facts.rows("named_by", oid) == refs["named_by"], oid
            seen.update(kind for kind in facts.tables if facts.rows(kind, oid))
        assert seen == set(facts.tables)  # every kind of fact met on some card
        assert facts.rows("names", "00000000-0000-0000-0000-000000000000") == []


def test_a_card_page_reads_no_table_per_card_once_the_facts_are_read(
    client: Any, sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the pages' warm-up has read the card facts, a first-seen card page asks none of the per-card table scans
    (each 20-90 ms on the real data): its names, printings, tokens, references and history come from memory."""
    from oracle_tools import OracleDB
    from oracle_tools.interfaces.serve import pages

    _wait_until_warm(client)
    pages.card_facts(client.app.state.store.generation)

    def scan(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a per-card table scan")

    for method in ("card_names", "printings", "tokens_created", "references", "changes_report"):
        monkeypatch.setattr(OracleDB, method, scan)
    page = client.get(f"/card/{_sample_oracle_id(sample_db_path, 'Bruna, the Fading Light')}", params={"x": "1"})
    assert page.status_code == 200, page.text[:500]
    assert "Brisela, Voice of Nightmares" in page.text and 'id="named-by"' in page.text
    assert 'id="history-none"' in page.text  # the sample's one ingest recorded no change


def test_token_page_says_what_it_is_and_who_makes_it(client: Any) -> None:
    treasure = client.get("/token/treasure").text
    assert "a predefined token (CR 111.10a)" in treasure
    assert '<a href="/card?name=Smothering%20Tithe" class="creator">Smothering Tithe</a>' in treasure
    lage = client.get("/token/Marit Lage").text
    assert "20/20" in lage and "(CR 111.9)" in lage and ">Dark Depths</a>" in lage
    typed = client.get("/token", params={"name": "Marit Lage"}, follow_redirects=False)
    assert (typed.status_code, typed.headers["location"]) == (303, "/token/Marit%20Lage")
    assert 'id="token-form"' in client.get("/token").text
    nothing = client.get("/token/Qwxyzzy")
    assert nothing.status_code == 200 and 'id="token-miss"' in nothing.text
    # the token box offers every token name of the catalog as the reader types (card names are not token names)
    for page in (client.get("/token").text, lage):
        assert 'list="token-names"' in page
        offered = re.findall(
            r'<option value="([^"]+)">', page.split('<datalist id="token-names">')[1].split("</datalist>")[0]
        )
        assert {"Marit Lage", "Treasure", "Clue"} <= set(offered) and "Dark Depths" not in offered


def test_deck_page_legalities_line_counts_links_and_share(client: Any) -> None:
    deck = "4 Lightning Bolt\n4 Seven Dwarves\n4 Seven Dwarves\n48 Mountain\n\nSideboard\n3 Fire // Ice\n"
    page = client.get("/deck", params={"format": "legacy", "deck": deck})
    assert page.status_code == 200
    assert 'id="verdict">Not legal in Legacy: 2 problems.' in page.text  # the sample's 2019 legalities
    assert re.findall(r'data-kind="(\w+)" data-line="2"', page.text) == ["not_legal", "too_many_copies"]
    assert re.search(r'id="legalities-source">legalities: [\d,]+ cards; [\d,]+ cards from ', page.text)
    assert '<span class="count" data-section="main">Main 60</span>' in page.text
    assert '<span class="count" data-section="sideboard">Sideboard 3</span>' in page.text
    assert '<a href="/card?name=Seven%20Dwarves" class="problem-card">Seven Dwarves</a>' in page.text
    assert 'id="share-link"' in page.text
    assert client.get("/deck", params={"format": "modren", "deck": deck}).status_code == 400
    # the page's form posts (a list too long for an address still checks, without a link)
    long_list = "\n".join(["4 Lightning Bolt", "4 Tarmogoyf", *["1 Mountain"] * 700])
    posted = client.post("/deck", data={"format": "legacy", "deck": long_list})
    assert posted.status_code == 200 and 'id="verdict"' in posted.text and 'id="share-none"' in posted.text
    not_a_form = client.post("/deck", content=b'{"deck": "x"}', headers={"content-type": "application/json"})
    assert not_a_form.status_code == 415 and "application/x-www-form-urlencoded" in not_a_form.text
    empty = client.get("/deck", params={"format": "legacy", "deck": " "})
    assert empty.status_code == 400 and "The decklist is empty" in empty.text


def test_deck_pages_say_a_card_whose_data_predates_the_format_cannot_be_judged(client: Any) -> None:
    # the sample's Jace and Island carry 2019 legalities, written before Scryfall had Historic: not "Not legal"
    deck = "4 Jace, the Mind Sculptor\n56 Island\n"
    for page in (
        client.get("/deck", params={"format": "historic", "deck": deck}),
        client.post("/", data={"format": "historic", "deck": deck}),
    ):
        assert page.status_code == 200
        assert 'class="msg verdict unjudged" id="verdict">Could not be fully judged in' in page.text
        assert "Not legal" not in page.text
        assert re.findall(r'data-kind="(\w+)"', page.text) == ["cannot_judge", "cannot_judge"]
    api = client.post("/decks/check?format=historic", content=deck, headers={"content-type": "text/plain"})
    assert api.status_code == 200 and (api.json()["legal"], api.json()["verdict"]) == (None, "cannot_judge")
    # a JSON deck cut short: one line saying so, as deck check's "error:" line
    cut = client.post("/decks/check?format=modern", content='{"main":[{"name":"Lightning Bolt","count":4}')
    assert cut.status_code == 400
    assert "the request body: is not valid JSON (Expecting ',' delimiter at line 1 column 45)" in cut.json()["details"]


def test_deck_pages_say_the_format_is_missing(client: Any) -> None:
    # POST /decks/check without a format answers 400 "format is missing"; the pages say so too, never judging the
    # deck as Modern behind the reader's back
    api = client.post("/decks/check", content="4 Lightning Bolt", headers={"content-type": "text/plain"})
    assert api.status_code == 400 and "format is missing" in api.json()["details"]
    for page in (
        client.get("/", params={"deck": "4 Lightning Bolt", "format": ""}),
        client.get("/deck", params={"deck": "4 Lightning Bolt", "format": ""}),
        client.get("/deck", params={"deck": "4 Lightning Bolt"}),
        client.post("/", data={"deck": "4 Lightning Bolt"}),
    ):
        assert page.status_code == 400, page.text[:300]
        assert "The format is missing" in page.text and 'id="verdict"' not in page.text
    assert client.get("/deck").status_code == 200  # the empty form still opens (its select offers Modern first)


def test_pasted_text_that_begins_as_json_and_does_not_parse_is_its_one_problem(
    client: Any, sample_db_path: Path, tmp_path: Path
) -> None:
    """Pasted text beginning with "{" that is no JSON got the JSON problem and a deck-size one ("The main deck has 0
    cards") on both pages. It is now the JSON problem alone, the line `deck check` says of such a file (and POST
    /decks/check of such a body), naming the pasted decklist; no verdict."""
    import html

    from click.testing import CliRunner

    from oracle_tools.interfaces.cli import main

    pasted = '{"main": [4 Lightning Bolt'
    deck_file = tmp_path / "deck.json"
    deck_file.write_text(pasted, encoding="utf-8")
    cli = CliRunner().invoke(main, ["deck", "check", str(deck_file), "--format", "modern", "--db", str(sample_db_path)])
    assert cli.exit_code == 2 and cli.stderr.startswith(f"error: {deck_file}: is not valid JSON (")
    line = cli.stderr.strip().replace(f"error: {deck_file}", "pasted decklist")
    api = client.post("/decks/check", params={"format": "modern"}, content=pasted)
    assert api.status_code == 400 and api.json()["details"] == line.replace("pasted decklist", "the request body")
    for page in (
        client.post("/", data={"deck": pasted, "format": "modern"}),
        client.get("/", params={"deck": pasted, "format": "modern"}),
        client.post("/deck", data={"deck": pasted, "format": "modern"}),
        client.get("/deck", params={"deck": pasted, "format": "modern"}),
    ):
        text = html.unescape(page.text)
        assert page.status_code == 400 and line in text, text[:300]
        assert "0 cards" not in text and "deck_size" not in text and 'id="verdict"' not in text
        assert pasted in text  # the form keeps what was pasted


def test_first_load_of_search_is_small(client: Any) -> None:
    """The first load of /search (page, stylesheet, script, icon) stays within 150 KB, no images: a reader on a slow
    link gets the page in about a second, and the text card needs nothing from another host."""
    parts = ["/search", "/static/web.css", "/static/web.js", "/favicon.ico"]
    sizes = {path: len(client.get(path).content) for path in parts}
    assert sum(sizes.values()) <= 150 * 1024, sizes
    results = client.get("/search", params={"q": "t:creature"})  # a full page of 60 text cards
    assert len(results.content) <= 150 * 1024


@needs_browser
def test_every_reference_page_passes_axe(server: str, browser: WebDriver) -> None:
    """axe-core (the accessibility engine, as axe-selenium-python ships it) finds no violation on any page."""
    axe_selenium = pytest.importorskip("axe_selenium_python")
    found = {}
    for path in (
        "/search?q=t%3Agoblin",
        "/search?q=t%3A%28",
        "/card?name=Fire+%2F%2F+Ice",
        "/token/Marit%20Lage",
        "/deck?format=modern&deck=4+Mox+Opal%0A56+Island",
        "/",
    ):
        _open(browser, server + path)
        axe = axe_selenium.Axe(browser)
        axe.inject()
        violations = axe.run()["violations"]
        found[path] = [
            (v["id"], v["impact"], [(n["target"], n.get("failureSummary")) for n in v["nodes"]][:3]) for v in violations
        ]
    assert found == {path: [] for path in found}
    _console(browser)  # axe's own messages are not the pages'


def test_a_card_with_many_printings_lists_the_first_and_links_every_one(
    client: Any, sample_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A basic land has over a thousand printings on the real data: the page lists the first ones, the printing
    shown among them, and links the search that finds them all."""
    from oracle_tools import OracleDB
    from oracle_tools.interfaces.serve import pages

    oid = _sample_oracle_id(sample_db_path, "Fire // Ice")
    with OracleDB(sample_db_path) as db:
        every = db.printings(oid)
    oldest = every[-1]["id"]
    monkeypatch.setattr(pages, "PRINTINGS_SHOWN", 3)
    html = client.get(f"/card/{oid}", params={"printing": oldest}).text
    rows = re.findall(r'<td><a href="/card/[^"?]+\?printing=([^"]+)">', html)
    assert rows == [p["id"] for p in every[:3]] + [oldest]
    assert f"Printings ({len(every)})" in html
    assert f'href="/search?q=oracleid%3A{oid}&amp;unique=prints&amp;order=released"' in html


def test_every_page_has_the_one_header(client: Any) -> None:
    """The home page had a header of its own (a title and two links) while /search, /card, /token and /deck had
    another (the search box and four links): all now include templates/header.html, so the header reads the same
    on every page but for the search box's text and where the images switch comes back to."""
    oid = "4457ed35-7c10-48c8-9776-456485fdf070"  # Lightning Bolt
    headers = {}
    for path in ("/", "/?q=Foudre", "/search?q=bolt", f"/card/{oid}", "/token/Treasure", "/deck"):
        page = client.get(path)
        found = re.findall(r'<header class="top">.*?</header>', page.text, re.S)
        assert page.status_code == 200 and len(found) == 1, path
        headers[path] = re.sub(r'value="[^"]*"|next=[^"]*"', "", found[0])
    assert len(set(headers.values())) == 1, headers
    assert "style-src 'self'" in client.get("/").headers["Content-Security-Policy"]  # the header's stylesheet


def test_a_later_page_of_a_search_that_finds_nothing_is_the_empty_page(client: Any) -> None:
    """`/search?q=zzzzqqq&page=2`: no card found, any page number is the page saying so (it was a 500 IndexError,
    with a JSON body on an HTML page)."""
    for page in ("2", "100000"):
        answer = client.get("/search", params={"q": "zzzzqqq", "page": page})
        assert answer.status_code == 200, answer.text[:300]
        assert answer.headers["content-type"].startswith("text/html")
    past = client.get("/search", params={"q": "t:goblin", "page": "2"})
    assert past.status_code == 404 and past.headers["content-type"].startswith("text/html")
    # more digits than Python's int() reads: the page saying what a page number is (it was a 500, ValueError)
    huge = client.get("/search", params={"q": "t:goblin", "page": "9" * 5000})
    assert huge.status_code == 400 and huge.headers["content-type"].startswith("text/html")
    assert "is not a page number from 1 to 100,000" in huge.text
