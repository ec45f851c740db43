"""Real Scryfall clients that need a newer Python than the project's (scryfall-py, pyscryfall, nyxfall need 3.12 or
3.13) or packages the project does not install (mtgtools: ZODB), each making every call it offers
against a local `oracle-tools serve`. Run by tests/test_clients.py with the venv's interpreter (Python 3.13):

    python calls.py CLIENT BASE FACTS_JSON WORKDIR

Prints one JSON object: for each call, {"ok": <what the test compares>} or {"error": "<the client's error>"}. Each
client is pointed at BASE the way docs/serve.md tells its users."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

SCRYFALL = "https://api.scryfall.com"


def run(calls: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, call in calls.items():
        try:
            out[name] = {"ok": call()}
        except Exception as exc:  # the client's error is the answer to report
            out[name] = {"error": f"{type(exc).__name__}: {exc}"[:500], "where": traceback.format_exc()[-800:]}
    return out


def scryfall_py(base: str, facts: dict[str, Any], workdir: str) -> dict[str, Any]:
    from scryfall.client import Scryfall
    from scryfall.client.route import Route

    Route.BASE = base  # its requests are built on Route.BASE (scryfall/client/route.py)
    client = Scryfall()
    loop = asyncio.new_event_loop()

    def wait(coro: Any) -> Any:
        return loop.run_until_complete(coro)

    def search_pages() -> list[str]:
        page = wait(client.search_cards(facts["typed_goblins"]))
        names = [c.name for c in page.data]
        while page is not None and page.has_more:
            page = wait(page.get_next_page())
            names += [c.name for c in page.data] if page is not None else []
        return names

    card = facts["card"]
    calls: dict[str, Callable[[], Any]] = {
        "by_id": lambda: str(wait(client.get_card_by_id(card["id"])).id),
        "by_tcgplayer": lambda: str(wait(client.get_card_by_tcgplayer_id(card["tcgplayer"])).id),
        "by_multiverse": lambda: str(wait(client.get_card_by_multiverse_id(card["multiverse"])).id),
        "by_mtgo": lambda: str(wait(client.get_card_by_mtgo_id(card["mtgo"])).id),
        "by_arena": lambda: str(wait(client.get_card_by_arena_id(card["arena"])).id),
        "by_cardmarket": lambda: str(wait(client.get_card_by_cardmarket_id(card["cardmarket"])).id),
        "by_number": lambda: str(
            wait(client.get_card_by_set_code_and_collector_number(card["set"], card["number"])).id
        ),
        "rulings": lambda: len(wait(client.get_rulings_by_card_id(card["id"]))),
        "search": search_pages,
        "named_exact": lambda: str(wait(client.search_cards_named(exact="Forest")).id),
        "named_fuzzy": lambda: str(wait(client.search_cards_named(fuzzy=card["name"].lower())).oracle_id),
        "named_set": lambda: wait(client.search_cards_named(exact=card["name"], set=card["set"])).set,
        "autocomplete": lambda: list(wait(client.cards_autocomplete(card["name"][:6])).data),
        "random": lambda: (
            wait(client.get_random_card(q=facts["numbered"]) if facts["numbered"] else client.get_random_card()).name
        ),
        "random_query": lambda: wait(client.get_random_card(q=facts["typed_goblins"])).name,
        # not called: get_all_sets (its Set model requires set_type, which no source gives for some sets here:
        # docs/serve.md)
        "set_by_code": lambda: wait(client.get_set_by_code(card["set"])).code,
        "set_by_id": lambda: wait(client.get_set_by_id(facts["set_id"])).code,
        "set_by_tcgplayer": lambda: wait(client.get_set_by_tcgplayer_id(facts["set_tcgplayer"])).code,
        "card_set": lambda: wait(wait(client.get_card_by_id(card["id"])).get_set()).code,
        "card_rulings": lambda: len(wait(wait(client.get_card_by_id(card["id"])).get_rulings())),
        "set_cards": lambda: wait(wait(client.get_set_by_code(card["set"])).get_cards()).total_cards,
        # not called: get_card_collection (the client raises NotImplementedError for it)
    }
    try:
        return run(calls)
    finally:
        wait(client.close())


def pyscryfall(base: str, facts: dict[str, Any], workdir: str) -> dict[str, Any]:
    import pyscryfall.api as api  # SCRYFALL_BASE_URL and SCRYFALL_RATE_LIMIT_DELAY are set by the caller

    card = facts["card"]
    calls: dict[str, Callable[[], Any]] = {
        "search_by_name": lambda: sorted({c.name for c in api.search_cards_by_name(card["name"]).data}),
        "search_by_name_all": lambda: len(list(api.search_cards_by_name_all(card["name"], unique="prints"))),
        "by_id": lambda: str(api.search_card_by_id(card["id"]).id),
        "named_exact": lambda: str(api.search_card_by_name_exact("Forest").id),
        "named_fuzzy": lambda: str(api.search_card_by_name_fuzzy(card["name"].lower()).oracle_id),
        "random": lambda: api.get_random_card().name,
        "random_query": lambda: api.get_random_card(q="t:goblin").name,
        "autocomplete": lambda: list(api.autocomplete_card_name(card["name"][:6]).data),
        "rulings": lambda: len(api.get_card_rulings(card["id"]).data),
    }
    return run(calls)


def nyxfall(base: str, facts: dict[str, Any], workdir: str) -> dict[str, Any]:
    from nyxfall import scryfall_requester

    scryfall_requester.SCRYFALL_BASE = f"{base}/cards/"  # its one base (nyxfall/scryfall_requester.py)
    found = scryfall_requester.search_exact("Forest")
    calls: dict[str, Callable[[], Any]] = {
        "exact": lambda: found.name if found else None,
        "exact_missing": lambda: scryfall_requester.search_exact("No Such Card Anywhere"),
        "random": lambda: scryfall_requester.search_random().name,
        "query": lambda: [c.name for c in scryfall_requester.search_query("t:goblin")],  # every page, game:paper
    }
    return run(calls)


def mtgtools(base: str, facts: dict[str, Any], workdir: str) -> dict[str, Any]:
    import mtgtools.util.api_requests as requests_module
    from mtgtools.MtgDB import MtgDB

    for name in ("scryfall_sets_url", "scryfall_card_search_url", "scryfall_bulk_data_url"):  # its three URLs
        setattr(requests_module, name, getattr(requests_module, name).replace(SCRYFALL, base))

    async def no_pause(seconds: float) -> None:  # its 0.1 s between requests: Scryfall's pace, not a local server's
        return None

    requests_module.asyncio.sleep = no_pause
    # the sets it pages: those the test chose (every kind of set, by property: tests/test_clients.py), as the server
    # lists them; the other sets' counts are each checked against their search by the test's own queries
    paged = facts.get("paged_sets")
    sets_url, listed = requests_module.scryfall_sets_url, requests_module.get_response_json

    def chosen_sets(url: str, headers: Any = None) -> Any:
        answer = listed(url, headers)
        if url == sets_url and paged is not None:
            answer["data"] = [s for s in answer["data"] if s["code"] in paged]
        return answer

    requests_module.get_response_json = chosen_sets
    db = MtgDB(os.path.join(workdir, "mtgtools.fs"))

    def update() -> dict[str, Any]:
        db.scryfall_update(verbose=False)
        sets = db.root.scryfall_sets
        return {
            "sets": len(sets),
            "cards": len(db.root.scryfall_cards),
            "card_count": sum(s.card_count for s in sets),
            "per_set": {s.code: [s.card_count, len(s)] for s in sets},
        }

    def bulk_update() -> dict[str, Any]:
        db.scryfall_bulk_update(bulk_type="oracle_cards", verbose=False)
        return {"cards": len(db.root.scryfall_cards)}

    calls: dict[str, Callable[[], Any]] = {"scryfall_update": update, "scryfall_bulk_update": bulk_update}
    try:
        return run(calls)
    finally:
        db.close()


CLIENTS = {
    "scryfall-py": scryfall_py,
    "pyscryfall": pyscryfall,
    "nyxfall": nyxfall,
    "mtgtools": mtgtools,
}

if __name__ == "__main__":
    import contextlib

    client, base, facts_json, workdir = sys.argv[1:5]
    with contextlib.redirect_stdout(sys.stderr):  # what a client prints (mtgtools does) is not the answer
        answers = CLIENTS[client](base.rstrip("/"), json.loads(facts_json), workdir)
    sys.stdout.write(json.dumps(answers, default=str))
