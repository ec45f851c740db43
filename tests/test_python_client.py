"""A typed Python Scryfall client from PyPI against the real `oracle-tools serve` on 127.0.0.1 (the API issue).

The client is **aioscryfall** (0.4.2): its models are msgspec structs that validate every answer — a field
Scryfall always sends and the answer lacks, or a value of the wrong type, fails the call — so it checks the
card objects field for field, which the untyped clients (scrython's TypedDicts, scryfall-sdk) do not. It is
pointed at the server by an aiohttp client middleware that sends api.scryfall.com's requests to the local
address, as docs/serve.md shows users.

The database is the real 2024 Scryfall file (MH3, OTJ, FDN): complete modern card objects, kept whole at
ingest (oracle_tools/store/scryfall_objects.py) and answered field for field.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from uuid import UUID

import pytest

pytest.importorskip("aioscryfall", reason="aioscryfall (the typed client) is in the dev extra")

import aiohttp
import msgspec
from aioscryfall.api.cards import UniqueMode
from aioscryfall.client import ScryfallClient
from aioscryfall.models.cards import ScryCard
from yarl import URL

from oracle_tools import OracleDB

from oracle_server import Server

pytestmark = pytest.mark.realdata
FILE_2024 = "scryfall-search-2024-mh3-otj-fdn.json.gz"
#: Scryfall's set list as an online ingest downloads it (tests/fixtures/sets/README.md): without it, set objects
#: lack icon_svg_uri, which the typed client requires (tests/test_sets.py covers the built ones).
SET_LIST = Path(__file__).parent / "fixtures" / "sets" / "scryfall-sets.json"
T = TypeVar("T")


@pytest.fixture(scope="module")
def raw_2024(realdata: Path) -> dict[str, dict[str, Any]]:
    with gzip.open(realdata / FILE_2024) as f:
        return {c["id"]: c for c in json.load(f)}


@pytest.fixture(scope="module")
def server(realdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    path = tmp_path_factory.mktemp("client2024") / "2024.duckdb"
    OracleDB.ingest_files(path, [realdata / FILE_2024, SET_LIST]).close()
    srv = Server(path, "--no-warm")  # each card object built when first asked for, not also in the background
    yield srv
    srv.stop()


def _run(server: Server, work: Callable[[ScryfallClient], Awaitable[T]]) -> T:
    """``work(client)`` with aioscryfall's client talking to ``server`` (the docs/serve.md middleware)."""
    base = URL(server.base)

    async def to_local(request: aiohttp.ClientRequest, handler: Any) -> aiohttp.ClientResponse:
        if request.url.host == "api.scryfall.com":
            request.url = request.url.with_scheme(base.scheme).with_host(base.host or "").with_port(base.port)
        return await handler(request)

    async def main() -> T:
        async with aiohttp.ClientSession(middlewares=(to_local,)) as session:
            return await work(ScryfallClient(session))

    return asyncio.run(main())


#: Values real Scryfall objects carry that aioscryfall 0.4.2's enums predate (a layout of 2023, a frame effect
#: of 2024): the client refuses them from api.scryfall.com too, so they are not the server's doing.
CLIENT_ENUMS_PREDATE = {"prototype", "spree"}


def test_every_card_answer_has_every_field_the_typed_model_requires(server: Server, raw_2024: dict) -> None:
    """Each of the 1,167 printings, as /cards/search pages answer it, decodes as aioscryfall's ScryCard — the
    only refusals are values newer than the client's enums — and is the object Scryfall sent, links aside."""
    import requests

    seen: dict[str, dict[str, Any]] = {}
    url: str | None = f"{server.base}/cards/search?q=game%3Apaper&unique=prints&order=set"
    refused: list[str] = []
    while url:
        page = requests.get(url, timeout=30).json()
        for card in page["data"]:
            seen[card["id"]] = card
            try:
                msgspec.json.decode(json.dumps(card).encode(), type=ScryCard)
            except msgspec.ValidationError as exc:
                value = re.search(r"Invalid enum value '([^']+)'", str(exc))
                assert value and value.group(1) in CLIENT_ENUMS_PREDATE, (card["name"], str(exc))  # noqa: PT017 -- only old enums may be refused
                refused.append(card["name"])
        url = page.get("next_page")
    assert set(seen) == set(raw_2024)
    assert 0 < len(refused) < 40  # the spree cards of OTJ and Frogmyr Enforcer (prototype)
    for pid, card in seen.items():  # field for field: only the API links differ, and they point here
        sent = json.dumps(raw_2024[pid], sort_keys=True).replace('"https://api.scryfall.com/', f'"{server.base}/')
        assert json.dumps(card, sort_keys=True) == sent, card["name"]


def test_typed_client_cards_by_name_search_autocomplete_collection_and_every_id(server: Server, raw_2024: dict) -> None:
    fable = next(c for c in raw_2024.values() if c["name"] == "Flare of Duplication")
    with_ids = next(
        c
        for c in raw_2024.values()
        if c.get("arena_id") and c.get("mtgo_id") and c.get("multiverse_ids") and c.get("cardmarket_id")
        and c["layout"] not in CLIENT_ENUMS_PREDATE and not set(c.get("frame_effects", [])) & CLIENT_ENUMS_PREDATE
    )  # fmt: skip

    async def work(client: ScryfallClient) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["exact"] = await client.cards.named(exact="Flare of Duplication")
        out["fuzzy"] = await client.cards.named(fuzzy="flare duplicaton")
        out["autocomplete"] = await client.cards.autocomplete("flare of")
        # MH3 without its one prototype (an artifact): 3 pages of 175, each fetched through next_page
        out["search"] = [card async for card in client.cards.search("e:mh3 -t:artifact", unique=UniqueMode.PRINTS)]
        ids: list[Any] = [
            {"id": UUID(with_ids["id"])},
            {"illustration_id": UUID(with_ids["illustration_id"])},
            {"name": "Flare of Duplication"},
            {"set": with_ids["set"], "collector_number": with_ids["collector_number"]},
            {"mtgo_id": with_ids["mtgo_id"]},
            {"multiverse_id": with_ids["multiverse_ids"][0]},
        ]
        out["collection"] = [card async for card in client.cards.get_collection(ids)]
        out["by"] = [
            await client.cards.get_card(scryfall_id=UUID(with_ids["id"])),
            await client.cards.get_card(set_code=with_ids["set"], collector_number=with_ids["collector_number"]),
            await client.cards.get_card(multiverse_id=with_ids["multiverse_ids"][0]),
            await client.cards.get_card(mtgo_id=with_ids["mtgo_id"]),
            await client.cards.get_card(arena_id=with_ids["arena_id"]),
            await client.cards.get_card(tcgplayer_id=with_ids["tcgplayer_id"]),
            await client.cards.get_card(cardmarket_id=with_ids["cardmarket_id"]),
        ]
        out["random"] = await client.cards.random(query="t:dragon")
        return out

    got = _run(server, work)
    assert got["exact"].id_ == UUID(fable["id"]) or got["exact"].name == "Flare of Duplication"
    assert got["fuzzy"].name == "Flare of Duplication"
    assert "Flare of Duplication" in got["autocomplete"]
    mh3 = [c for c in raw_2024.values() if c["set"] == "mh3" and "Artifact" not in c.get("type_line", "")]
    assert len(mh3) > 2 * 175 and sorted(str(c.id_) for c in got["search"]) == sorted(c["id"] for c in mh3)
    assert [str(c.id_) for c in got["collection"]][:2] == [with_ids["id"], with_ids["id"]]
    assert [c.name for c in got["collection"]][2] == "Flare of Duplication"
    assert all(str(c.id_) == with_ids["id"] for c in got["collection"][3:])
    assert [str(c.id_) for c in got["by"]] == [with_ids["id"]] * 7
    assert "Dragon" in (got["random"].type_line or "")


def test_typed_client_rulings_symbology_catalogs_bulk_data_migrations(server: Server, raw_2024: dict) -> None:
    card = next(iter(raw_2024.values()))

    async def work(client: ScryfallClient) -> dict[str, Any]:
        return {
            "rulings": [r async for r in client.rulings.get_rulings(card_id=UUID(card["id"]))],
            "symbols": [s async for s in client.symbols.all_card_symbols()],
            "parsed": await client.symbols.parse_mana("2{g}2"),
            "creature_types": await client.catalogs.creature_types(),
            "bulk": [b async for b in client.bulk_data.all_bulk_data()],
            "migrations": [m async for m in client.migrations.all_migrations()],
        }

    got = _run(server, work)
    assert got["rulings"] == []  # the 2024 file comes without a rulings file
    symbols = {s.symbol: s for s in got["symbols"]}
    assert symbols["{W/P}"].english == "one white mana or two life" and symbols["{T}"].represents_mana is False
    assert got["parsed"].cost == "{4}{G}" and got["parsed"].cmc == 5.0 and got["parsed"].monocolored
    assert "Goblin" in got["creature_types"]
    assert [b.type_ for b in got["bulk"]] == ["oracle_cards", "rulings"] and got["migrations"] == []


def test_typed_client_sets(server: Server, raw_2024: dict) -> None:
    scryfall_sets = {s["code"]: s for s in json.loads(SET_LIST.read_text())["data"]}

    async def work(client: ScryfallClient) -> dict[str, Any]:
        return {
            "all": [s async for s in client.sets.all_sets()],
            "by_code": await client.sets.get_set(set_code="mh3"),
            "by_id": await client.sets.get_set(scryfall_id=UUID(scryfall_sets["otj"]["id"])),
            "by_tcgplayer": await client.sets.get_set(tcgplayer_id=scryfall_sets["war"]["tcgplayer_id"]),
        }

    got = _run(server, work)
    # the whole list, validated: the listed sets (the 2024 file's printings are all of listed sets)
    assert {s.code for s in got["all"]} == set(scryfall_sets) >= {c["set"] for c in raw_2024.values()}
    assert got["by_code"].name == "Modern Horizons 3" and got["by_code"].icon_svg_uri.endswith("/mh3.svg")
    assert got["by_id"].code == "otj" and got["by_tcgplayer"].code == "war"


def test_price_search_and_order_on_the_real_prices(server: Server, raw_2024: dict) -> None:
    """usd</eur>/tix keywords and order=usd compare each printing's lowest price of that currency, as the
    file gave it; the prints_search_uri of a card (an oracleid: search) lists its printings."""
    import requests

    def lowest(card: dict[str, Any], keys: tuple[str, ...]) -> float | None:
        values = [float(card["prices"][k]) for k in keys if card["prices"].get(k) is not None]
        return min(values) if values else None

    usd = {pid: lowest(c, ("usd", "usd_foil", "usd_etched")) for pid, c in raw_2024.items()}
    cheap = sorted(pid for pid, v in usd.items() if v is not None and v < 0.5)
    found: list[dict[str, Any]] = []
    url: str | None = f"{server.base}/cards/search?q=usd%3C0.5&unique=prints&order=usd"
    while url:
        page = requests.get(url, timeout=30).json()
        found += page["data"]
        url = page.get("next_page")
    assert sorted(c["id"] for c in found) == cheap and len(cheap) > 100
    prices = [usd[c["id"]] for c in found]
    assert None not in prices  # usd<0.5 finds priced cards only
    assert prices == sorted(p for p in prices if p is not None)  # order=usd: lowest first
    tix = {pid for pid, c in raw_2024.items() if (lowest(c, ("tix",)) or 0) > 1}
    answer = requests.get(f"{server.base}/cards/search", params={"q": "tix>1", "unique": "prints"}, timeout=30).json()
    assert {c["id"] for c in answer["data"]} == tix
    card = next(iter(raw_2024.values()))
    prints = requests.get(card["prints_search_uri"].replace("https://api.scryfall.com", server.base), timeout=30)
    expected = {pid for pid, c in raw_2024.items() if c["oracle_id"] == card["oracle_id"]}
    assert {c["id"] for c in prints.json()["data"]} == expected
