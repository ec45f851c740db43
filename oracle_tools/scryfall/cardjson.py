"""Scryfall card objects (``"object": "card"``) from the database, for the HTTP API, the CLI and the MCP tools.

:func:`card_objects` turns printing ids, or Oracle ids, into the card objects Scryfall's API returns
(https://scryfall.com/docs/api/cards). A printing's object is **the one the bulk file gave**, kept whole at
ingest (oracle_tools/store/scryfall_objects.py), with these changes:

* links to Scryfall's API (``uri``, ``rulings_uri``, ``prints_search_uri``, ``set_uri``, ``set_search_uri``,
  ``all_parts[].uri``) point at ``base_url`` when one is given (the local server); links to scryfall.com
  pages, images and shops are left as they are;
* fields Scryfall added after the file was written are derived where Scryfall documents the rule —
  ``finishes`` from ``nonfoil``/``foil``, ``image_status`` from ``highres_image``, ``set_id`` from ``set_uri``
  (see :func:`_derive`);
* an object that lacks what every card object has (a trimmed or hand-made file, like the embedded sample's)
  gets the missing fields from the tables, built as below; so does every printing of a database built
  before objects were kept;
* then every field Scryfall's card-object docs mark as always present is given to every object (:func:`complete`:
  ``keywords`` from the Oracle text by the CR's keyword lists, URIs from ids, documented defaults, set facts from
  the shipped set table; docs/serve.md lists each field's rule); a value the file gave is never changed (but for
  the Oracle id the trimmed list's converter made up, and its commander-only legalities: the merged card's, see
  ``store/synthetic_ids.py``), and a ``null`` where Scryfall's type is a string is left out.

The object built from the tables: the Oracle facts come from ``cards`` / ``faces`` / ``legalities`` /
``parts``, the printing facts from ``printings``; every optional field whose value is null is absent — as on
Scryfall, which leaves out ``power`` for a sorcery.

Multi-face cards follow Scryfall's two shapes (checked field by field against real Scryfall objects in
tests/test_cardjson.py):

* one-sided layouts with several parts — ``split`` (incl. aftermath), ``flip``, ``adventure``: the
  card object carries ``mana_cost`` (halves joined with `` // ``; a flip card: the top's), ``colors``
  (the union) and, for an adventurer, ``power``/``toughness``; each ``card_faces`` entry has its own
  name, cost, type line and text but no colours. A flip card's bottom half has ``mana_cost`` ""
  (CR 710.1c: it has the top's cost, but Scryfall prints none).
* double-sided layouts — ``transform``, ``modal_dfc``, ``double_faced_token``, ``reversible_card``, …:
  no top-level ``mana_cost``/``colors``/``oracle_text``; each face carries its own ``colors``,
  ``color_indicator`` and stats; a back face without a cost has ``mana_cost`` "".

Meld parts and meld results are separate card objects (one face each), as on Scryfall.
Foreign printings keep ``printed_name`` per face for multi-face cards (Scryfall has it only there) and
at the top for one-face cards.

The representative printing of an Oracle id (``oracle_ids=``): the newest English paper printing,
preferring non-promo printings — ordered by English first, then available in paper, then not a
promo, then not from a memorabilia set, then newest ``released_at``, then lowest collector number and id
so the choice is stable. It is precomputed at ingest in table ``preferred_printings``
(``oracle_tools/sql/preferred_printings.sql``), the same printing ``oracle-tools search`` shows.

One query for the kept objects, and four batched queries (printings+cards, faces, legalities, parts) only for
the printings whose object needs the tables, whatever the number of cards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus

from oracle_tools.scryfall.links import point_api_links
from oracle_tools.store import scryfall_objects
from oracle_tools.store.synthetic_ids import is_trimmed_oracle_id

if TYPE_CHECKING:
    import duckdb

#: Layouts whose parts share one side of the card: the parts are in ``card_faces`` without colours,
#: and the card object itself has the (joined) mana cost and the colours.
ONE_SIDED_MULTIPART = frozenset({"split", "flip", "adventure"})

#: The representative printing of each Oracle id: precomputed at ingest (see the module docstring for the rule,
#: and oracle_tools/sql/preferred_printings.sql, its one home).
REPRESENTATIVE_SQL = """
SELECT oracle_id, id FROM preferred_printings WHERE oracle_id IN (SELECT unnest($oids))
"""

_PRINTING_SQL = """
WITH wanted AS (SELECT * FROM printings WHERE id IN (SELECT unnest($ids))),
-- the same cards' other printings, read once for the two facts below (a correlated subquery here
-- made DuckDB rank every printing of the database: 250 ms for one card by id)
same_card AS (
    SELECT oracle_id,
           first(rarity ORDER BY released_at DESC NULLS LAST, id) FILTER (WHERE rarity IS NOT NULL) AS newest_rarity,
           min(released_at) AS first_released
    FROM printings WHERE oracle_id IN (SELECT oracle_id FROM wanted)
    GROUP BY oracle_id
)
SELECT p.id, p.oracle_id, p.name AS printing_name, p.lang, p.set_code, p.set_name, p.set_type, p.collector_number,
       p.released_at,
       -- a printing whose file gives no rarity (the trimmed list): the newest other printing's of the same card
       coalesce(p.rarity, s.newest_rarity) AS rarity,
       p.layout AS printing_layout, p.printed_name, p.flavor_name, p.printed_type_line,
       p.printed_text, p.face_names, p.face_printed_names, p.face_flavor_names, p.games, p.digital, p.promo,
       p.border_color, p.security_stamp, p.multiverse_ids, p.mtgo_id, p.arena_id, p.artist, p.finishes, p.set_id,
       p.scryfall_set_uri, p.tcgplayer_id, p.cardmarket_id, p.illustration_id, p.watermark,
       p.mtgo_foil_id, p.tcgplayer_etched_id,
       -- Scryfall's reprint: an earlier printing of the same Oracle card exists (unknown without dates)
       CASE WHEN p.released_at IS NOT NULL AND p.oracle_id IS NOT NULL
            THEN coalesce(s.first_released < p.released_at, false) END AS reprint,
       c.name, c.layout, c.mana_cost, c.cmc, c.type_line, c.oracle_text, c.colors, c.color_identity,
       c.color_indicator, c.power, c.toughness, c.loyalty, c.defense, c.keywords, c.produced_mana, c.reserved,
       c.edhrec_rank
FROM wanted p
LEFT JOIN (SELECT * FROM cards WHERE oracle_id IN (SELECT oracle_id FROM wanted)) c USING (oracle_id)
LEFT JOIN same_card s USING (oracle_id)
"""

_FACES_SQL = """
SELECT oracle_id, face_index, name, role, mana_cost, type_line, oracle_text, colors, color_indicator,
       power, toughness, loyalty, defense
FROM faces
WHERE oracle_id IN (SELECT unnest($oids))
  AND oracle_id IN (SELECT oracle_id FROM faces WHERE oracle_id IN (SELECT unnest($oids))
                    GROUP BY oracle_id HAVING count(*) > 1)
ORDER BY oracle_id, face_index
"""

_LEGALITIES_SQL = "SELECT oracle_id, format, status FROM legalities WHERE oracle_id IN (SELECT unnest($oids))"

_PARTS_SQL = """
SELECT oracle_id, component, part_name, part_type_line, part_id FROM parts
WHERE oracle_id IN (SELECT unnest($oids))
"""

_RULINGS_SQL = """
SELECT oracle_id, source, published_at, comment FROM rulings WHERE oracle_id = ?
ORDER BY published_at NULLS LAST, comment
"""


def _colours(colours: Sequence[str] | None) -> list[str]:
    """Colours in Scryfall's order (alphabetical: the real objects list Nicol Bolas as B, R, U)."""
    return sorted(colours or [])


def representative_ids(con: duckdb.DuckDBPyConnection, oracle_ids: Sequence[str]) -> dict[str, str]:
    """``{oracle_id: printing id}`` of each Oracle id's representative printing (ids not in the database are left out)."""
    if not oracle_ids:
        return {}
    return dict(con.execute(REPRESENTATIVE_SQL, {"oids": sorted(set(oracle_ids))}).fetchall())


def card_objects(
    con: duckdb.DuckDBPyConnection,
    *,
    ids: Sequence[str] | None = None,
    oracle_ids: Sequence[str] | None = None,
    base_url: str | None = None,
) -> list[dict[str, Any]]:
    """Scryfall card objects in input order: one per printing id (``ids``), or one per Oracle id
    (``oracle_ids``, each as its representative printing). Ids the database does not have are left out
    (compare the returned ``id``/``oracle_id`` to find them); a repeated id gives its card again.

    ``base_url`` (``http://127.0.0.1:8765``) points the API links (``uri``, ``rulings_uri``, ``prints_search_uri``,
    ``set_uri`` …) at the local API; without it an object keeps the links its file gave (to api.scryfall.com),
    and one built from the tables has none.
    """
    if (ids is None) == (oracle_ids is None):
        raise TypeError("card_objects() takes exactly one of ids= or oracle_ids=")
    if isinstance(ids, str) or isinstance(oracle_ids, str):
        raise TypeError("card_objects() takes a sequence of ids, not one string")
    if oracle_ids is not None:
        rep = representative_ids(con, oracle_ids)
        wanted = [rep[oid] for oid in oracle_ids if oid in rep]
    else:
        wanted = list(ids or [])
    if not wanted:
        return []
    unique_ids = sorted(set(wanted))
    built = _kept_objects(con, unique_ids, base_url)
    incomplete = [
        pid for pid in unique_ids if pid not in built or any(built[pid].get(k) is None for k in ALWAYS_PRESENT)
    ]
    # a converted trimmed-list object carries an Oracle id made up from its name (store/synthetic_ids.py): the ingest
    # merged it into the real card of that name, whose Oracle id and legalities (every format) it is given
    made_up = {pid for pid, card in built.items() if is_trimmed_oracle_id(card.get("oracle_id"), card.get("name"))}
    incomplete = sorted({*incomplete, *made_up})
    if incomplete:
        for pid, card in objects_from_tables(con, incomplete, base_url).items():
            kept = built.get(pid)
            if kept is None:
                if not card["keywords"]:  # an empty list may only mean no file had the field: complete() derives
                    del card["keywords"]
                built[pid] = card
            else:  # the kept fields first, as the file gave them; the tables fill in what it lacks
                if pid in made_up:
                    kept["oracle_id"], kept["legalities"] = card.get("oracle_id"), card.get("legalities")
                for key, value in card.items():
                    if key == "keywords" and not value:
                        continue  # the tables' empty list may only mean no file had the field: not a fact
                    if kept.get(key) is None:  # absent, or null where Scryfall's type is a string ("rarity")
                        kept[key] = value
                    if kept.get(key) is None:
                        del kept[key]
    vocabulary: KeywordVocabulary | None = None
    for card in built.values():
        if "keywords" not in card and vocabulary is None:
            vocabulary = keyword_vocabulary(con)
        complete(card, base_url, vocabulary)
    # a repeated id gets its own copy: callers may change one answer without touching the other
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for pid in wanted:
        answer = built.get(pid)
        if answer is not None:
            out.append(answer if pid not in seen else _copy(answer))
            seen.add(pid)
    return out


#: Fields every card object has (Scryfall's card object docs) and every file of Scryfall's gives: a kept object
#: without one of them is a trimmed or hand-made one, completed from the tables. Not here: ``oracle_id``
#: (reversible cards have it per face), ``keywords`` and ``set_type`` (files of 2019 lack them; the tables
#: could not add them truthfully, so checking them would rebuild every such object for nothing).
ALWAYS_PRESENT = frozenset(
    {
        "object", "id", "name", "lang", "released_at", "layout", "cmc", "type_line", "color_identity",
        "legalities", "games", "reserved", "digital", "promo", "set", "set_name",
        "collector_number", "rarity", "uri", "rulings_uri", "prints_search_uri",
    }
)  # fmt: skip
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _kept_objects(
    con: duckdb.DuckDBPyConnection, ids: Sequence[str], base_url: str | None
) -> dict[str, dict[str, Any]]:
    """The kept object of each printing, links pointed at ``base_url``, newer fields derived."""
    texts = scryfall_objects.stored_objects(con, ids)
    out: dict[str, dict[str, Any]] = {}
    for pid, text in texts.items():
        card = json.loads(point_api_links(text, base_url))
        _derive(card)
        out[pid] = card
    return out


def _derive(card: dict[str, Any]) -> None:
    """Fields Scryfall added later, from the older fields it documents them by — only when the file lacks them.

    * ``finishes`` (2021; "foil and nonfoil ... use finishes instead"): ``nonfoil`` then ``foil``, in
      Scryfall's order; an etched finish is not knowable from the older fields, so it is never added.
    * ``image_status`` (2021): ``highres_scan`` when ``highres_image`` is true; when it is false, ``lowres`` if
      the object has images and ``missing`` if it has none (the ``placeholder`` status came with the field).
    * ``set_id``: the id ``set_uri`` links to (a set object's ``uri`` is ``/sets/{id}``).
    """
    if "set_id" not in card and isinstance(card.get("set_uri"), str):
        set_id = card["set_uri"].rsplit("/", 1)[-1]
        if _UUID.fullmatch(set_id):
            card["set_id"] = set_id
    if "finishes" not in card and ("foil" in card or "nonfoil" in card):
        card["finishes"] = [finish for finish in ("nonfoil", "foil") if card.get(finish)]
    if "image_status" not in card and "highres_image" in card:
        if card["highres_image"]:
            card["image_status"] = "highres_scan"
        else:
            has_images = "image_uris" in card or any("image_uris" in f for f in card.get("card_faces") or ())
            card["image_status"] = "lowres" if has_images else "missing"


#: Fields Scryfall types as a string (never null): a file's null for one is left out rather than served.
STRING_FIELDS = ("name", "lang", "released_at", "layout", "type_line", "set", "set_name", "collector_number", "rarity")
#: Scryfall's prices object where no price is known: every key, each null (its documented "null" for no price).
NO_PRICES = {"usd": None, "usd_foil": None, "usd_etched": None, "eur": None, "eur_foil": None, "tix": None}
#: Print fields Scryfall always sends as booleans, and their value when the file predates or lacks them: each is
#: true only for the few printings it marks (Scryfall's card-object docs), so a file without it says false.
DEFAULT_FALSE = ("booster", "textless", "variation", "oversized", "full_art", "story_spotlight", "reprint")
#: Scryfall's frames by release date (https://scryfall.com/docs/api/layouts#frames): the 1997 frame from Mirage,
#: 2003 from Eighth Edition, 2015 from Magic 2015; what a printing without ``frame`` was printed in.
FRAME_SINCE = (("2014-07-18", "2015"), ("2003-07-28", "2003"), ("1996-10-08", "1997"), ("", "1993"))
_SLUG = re.compile(r"[^a-z0-9]+")


def complete(card: dict[str, Any], base_url: str | None, vocabulary: KeywordVocabulary | None) -> None:
    """Give ``card`` every field Scryfall's card-object docs mark as always present, from what it has (docs/serve.md,
    "Whole card objects", says field by field what is derived and from what). Kept values are never changed."""
    from oracle_tools.scryfall.sets import local_set_id, shipped_set

    card.setdefault("object", "card")
    for key in STRING_FIELDS:  # Scryfall types these as strings: a null in the file is no value, so absent
        if key in card and card[key] is None:
            del card[key]
    code = str(card.get("set") or "")
    shipped = shipped_set(code)
    if shipped:
        for key, column in (("set_name", "name"), ("set_type", "set_type")):
            if not card.get(key) and shipped.get(column):
                card[key] = shipped[column]
        if "set_id" not in card and shipped.get("id"):
            card["set_id"] = shipped["id"]
    if code:
        card.setdefault("set_id", local_set_id(code))
        card.setdefault("scryfall_set_uri", f"https://scryfall.com/sets/{quote(code)}?utm_source=api")
        if base_url:
            card.setdefault("set_uri", f"{base_url}/sets/{card['set_id']}")
            card.setdefault(
                "set_search_uri", f"{base_url}/cards/search?order=set&q={quote('e:' + code, safe='')}&unique=prints"
            )
    number = card.get("collector_number")
    if code and isinstance(number, str) and "scryfall_uri" not in card:
        lang = "" if card.get("lang") in (None, "en") else f"/{quote(str(card['lang']))}"
        slug = _SLUG.sub("-", str(card.get("name") or "").lower()).strip("-")
        card["scryfall_uri"] = f"https://scryfall.com/card/{quote(code)}/{quote(number)}{lang}/{slug}?utm_source=api"
    card.setdefault("multiverse_ids", [])
    if "related_uris" not in card:
        related: dict[str, str] = {}
        if card["multiverse_ids"]:
            related["gatherer"] = (
                f"https://gatherer.wizards.com/Pages/Card/Details.aspx?multiverseid={card['multiverse_ids'][0]}"
            )
        if card.get("name"):
            related["edhrec"] = f"https://edhrec.com/route/?cc={quote_plus(str(card['name']))}"
        card["related_uris"] = related
    # finishes from foil/nonfoil (_derive), or the reverse; with neither, the printing is taken as the plain
    # (nonfoil) one: the foreign and trimmed files say nothing of finishes, and a plain printing is what a
    # printing without a foil mark is
    if "finishes" not in card:
        if "foil" not in card and "nonfoil" not in card:
            card["nonfoil"], card["foil"] = True, False
        card["finishes"] = [finish for finish in ("nonfoil", "foil") if card.get(finish)]
    card.setdefault("nonfoil", "nonfoil" in card["finishes"])
    card.setdefault("foil", "foil" in card["finishes"])
    for key in DEFAULT_FALSE:
        card.setdefault(key, False)
    card.setdefault("prices", dict(NO_PRICES))
    card.setdefault("border_color", "black")
    released = str(card.get("released_at") or "")
    if "frame" not in card:
        card["frame"] = next(frame for since, frame in FRAME_SINCE if released >= since)
    has_images = "image_uris" in card or any("image_uris" in face for face in card.get("card_faces") or ())
    card.setdefault(
        "image_status", "highres_scan" if card.get("highres_image") else ("lowres" if has_images else "missing")
    )
    card.setdefault("highres_image", card["image_status"] == "highres_scan")
    card.setdefault("games", [])
    card.setdefault("legalities", {})
    for face in card.get("card_faces") or ():
        face.setdefault("object", "card_face")
        face.setdefault("mana_cost", "")
    if base_url:
        for part in card.get("all_parts") or ():
            if part.get("id"):
                part.setdefault("uri", f"{base_url}/cards/{part['id']}")
    if "keywords" not in card:
        texts = [card.get("oracle_text")] + [face.get("oracle_text") for face in card.get("card_faces") or ()]
        names = [card.get("name", "")] + [face.get("name", "") for face in card.get("card_faces") or ()]
        card["keywords"] = derive_keywords([t for t in texts if t], vocabulary, names=names) if vocabulary else []


class KeywordVocabulary:
    """The Comprehensive Rules' keywords a card's text can use: keyword abilities (the headings of CR 702),
    keyword actions (CR 701, less the plain verbs below) and ability words (CR 207.2c), as read from the rules
    stored in the database (oracle_tools/scryfall/catalogs.py reads the same)."""

    #: CR 701 actions that are plain English verbs on most cards ("Destroy target creature"): Scryfall lists none of
    #: them among a card's keywords (measured on the 2024 file: 0 of its 1,167 objects do), so neither is here.
    PLAIN_VERBS = frozenset(
        {"activate", "attach", "behold", "cast", "counter", "create", "destroy", "discard", "double", "triple",
         "exchange", "exile", "play", "regenerate", "reveal", "sacrifice", "search", "shuffle", "tap and untap"}
    )  # fmt: skip

    def __init__(self, abilities: Sequence[str], actions: Sequence[str], ability_words: Sequence[str]) -> None:
        # by first word, longest first, so "First strike" wins over a shorter heading that starts it
        self.abilities: dict[str, list[tuple[str, str]]] = {}
        for heading in sorted(set(abilities), key=len, reverse=True):
            self.abilities.setdefault(heading.lower().split()[0], []).append((heading.lower(), heading))
        self.landwalk = "landwalk" in self.abilities
        wanted = sorted(
            {a.lower(): a for a in actions if a.lower() not in self.PLAIN_VERBS}.items(), key=lambda kv: -len(kv[0])
        )
        self.action_names = dict(wanted)
        alternatives = "|".join(re.escape(key) for key, _ in wanted)
        self.actions = re.compile(rf"\b({alternatives})(?:s|es|ed|d)?\b") if wanted else None
        self.ability_words = {w.lower() for w in ability_words}

    def prefilters(self) -> tuple[str, str] | None:
        """Two RE2 patterns (DuckDB's ``regexp_matches``) over a card's lowercased Oracle text, for the ingest
        to skip in SQL the cards :func:`derive_keywords` would find nothing in (None: an empty vocabulary finds
        nothing anywhere). The first matches a text with a line that can be a keyword or ability-word line:
        one whose first word (after reminder text and spaces) starts a keyword ability or an ability word, or
        ends in "walk"; the second a text that can use a keyword action. Each matches wherever
        :func:`derive_keywords` finds one (a superset: no word boundaries, first words only) — except reminder
        text inside a word, which no Oracle text has."""
        firsts = set(self.abilities) | {w.split()[0] for w in self.ability_words}
        if not firsts and not self.action_names:
            return None
        starts = "|".join(_re2_literal(w) for w in sorted(firsts, key=len, reverse=True))
        if self.landwalk:
            starts += r"|\S*walk"
        line_start = rf"(?:^|\n)[\s\p{{Z}}]*(?:\([^()]*\)[\s\p{{Z}}]*)*(?:{starts or '$^'})"
        actions = "|".join(_re2_literal(a) for a in self.action_names) or "$^"
        return line_start, actions


def _re2_literal(word: str) -> str:
    """``word`` as an RE2 literal (Python's re.escape also escapes spaces, which RE2 refuses)."""
    return re.sub(r"([\\.^$|?*+()\[\]{}])", r"\\\1", word)


def keyword_vocabulary(con: duckdb.DuckDBPyConnection) -> KeywordVocabulary:
    """The keywords of the rules stored in this database (empty lists when it has none)."""
    from oracle_tools.scryfall.catalogs import catalog

    try:
        return KeywordVocabulary(
            catalog(con, "keyword-abilities"), catalog(con, "keyword-actions"), catalog(con, "ability-words")
        )
    except Exception:  # a database without the rules table: no keyword can be derived
        return KeywordVocabulary([], [], [])


_REMINDER = re.compile(r"\([^()]*\)")
#: Mana value's name until 2021 (CR 202.3): its "converted" is not the keyword action convert (CR 701.28). Left out
#: of the texts scanned for actions here and by the ingest's SQL prefilter alike.
NOT_AN_ACTION = "converted mana cost"


def derive_keywords(
    texts: Sequence[str], vocabulary: KeywordVocabulary, *, names: Sequence[str] = (), actions: bool = True
) -> list[str]:
    """The keywords a card's Oracle text uses, as Scryfall lists them (first letter capital, in order of use):
    an ability word that starts a line before an em dash (CR 207.2c); keyword abilities that make up a whole
    line, alone or listed with commas ("Flying, vigilance", "Equip {2}", "Ward—Pay 3 life.", "Enchant creature,
    land, or planeswalker"; "Partner with Regna, the Redeemer" is Partner and Partner with, CR 702.124j, as
    Scryfall lists it; CR 702); keyword actions anywhere (CR 701: "Scry 2", "mill three cards") except in
    the card's own ``names`` (CR 201.5: "Blighted Bat" is no blight) and in "converted mana cost" (the term for
    mana value until 2021, CR 202.3; not the action convert). Reminder text (parenthesised) is left out.
    ``actions=False``: the text is known to use no keyword action (the ingest's prefilter), the scan is skipped.
    The one implementation: the ingest fills ``cards.keywords`` by it, :func:`complete` the objects' lists."""
    found: dict[str, None] = {}
    action_re = vocabulary.actions if actions else None
    own_names = [n.lower() for n in names if n]
    for text in texts:
        for raw_line in text.split("\n"):
            line = _REMINDER.sub("", raw_line).strip() if "(" in raw_line else raw_line.strip()
            head, dash, _ = line.partition(" — ")
            if dash and head.lower() in vocabulary.ability_words:
                found[head[:1].upper() + head[1:].lower()] = None
            lowered = line.lower()
            # a keyword line starts with a keyword ability (the first word of its first item, as _keyword_ability
            # reads it): any other line is passed over without being split
            first = lowered.split("—", 1)[0].split(" ", 1)[0].split("{", 1)[0].rstrip(",;")
            if first in vocabulary.abilities or (vocabulary.landwalk and first.endswith("walk")):
                # a cost, condition or name follows ("Ward—Pay 3 life.", "Companion — Each creature card … a Cat,
                # Elemental, …": CR 702.139a) or a list of what it may enchant: one item, whatever commas follow
                if "—" in line or lowered.startswith(_ONE_ITEM_LINES):
                    items = [line]
                else:
                    items = [i.strip() for i in _ITEM_SEP.split(line)]
                named: list[str] = []
                for item in items:  # a keyword line is keywords only: the first item that is not one ends it
                    name = _keyword_ability(item, vocabulary)
                    if name is None:
                        named = []
                        break
                    named.append(name)
                for name in named:
                    found[name] = None
                    if name == "Partner" and lowered.startswith("partner with "):
                        found["Partner with"] = None  # CR 702.124j: listed by Scryfall beside Partner
            if action_re is not None:
                for own in own_names:
                    lowered = lowered.replace(own, " ")
                if NOT_AN_ACTION in lowered:
                    lowered = lowered.replace(NOT_AN_ACTION, " ")
                for key in action_re.findall(lowered):
                    action = vocabulary.action_names[key]
                    found[action[:1].upper() + action[1:].lower()] = None
    return list(found)


_ITEM_SEP = re.compile(r"[,;] ")
#: Keyword lines that are one ability whatever commas follow: "Enchant creature, land, or planeswalker" (one list of
#: what it may enchant, CR 702.5a) and "Partner with Regna, the Redeemer" (a card's name, CR 702.124j).
_ONE_ITEM_LINES = ("enchant ", "partner with ")


def _keyword_ability(item: str, vocabulary: KeywordVocabulary) -> str | None:
    """The keyword ability an item of a keyword line is ("Protection from red" → Protection), or None."""
    lowered = item.lower()
    if vocabulary.landwalk and lowered.endswith("walk") and " " not in lowered:
        return item[:1].upper() + lowered[1:]  # CR 702.14: Islandwalk, Swampwalk …
    first = lowered.split("—", 1)[0].split(" ", 1)[0].split("{", 1)[0]
    for key, heading in vocabulary.abilities.get(first, ()):
        if lowered == key or (
            lowered.startswith(key)
            and lowered[len(key)] in " —{"
            and (not lowered.endswith(".") or lowered[len(key) :].lstrip(" ").startswith("—"))
        ):
            return heading[:1].upper() + heading[1:].lower()
    return None


def objects_from_tables(
    con: duckdb.DuckDBPyConnection, unique_ids: Sequence[str], base_url: str | None
) -> dict[str, dict[str, Any]]:
    """Card objects built from the tables (the module docstring), by printing id."""
    cur = con.execute(_PRINTING_SQL, {"ids": list(unique_ids)})
    columns = [d[0] for d in cur.description]
    rows = {row[0]: dict(zip(columns, row)) for row in cur.fetchall()}
    oids = sorted({r["oracle_id"] for r in rows.values() if r["oracle_id"]})
    faces: dict[str, list[dict[str, Any]]] = {}
    legalities: dict[str, dict[str, str]] = {}
    parts: dict[str, list[tuple[Any, ...]]] = {}
    if oids:
        cur = con.execute(_FACES_SQL, {"oids": oids})
        face_columns = [d[0] for d in cur.description]
        for face in cur.fetchall():
            faces.setdefault(face[0], []).append(dict(zip(face_columns, face)))
        for oid, fmt, status in con.execute(_LEGALITIES_SQL, {"oids": oids}).fetchall():
            legalities.setdefault(oid, {})[fmt] = status
        for part in con.execute(_PARTS_SQL, {"oids": oids}).fetchall():
            parts.setdefault(part[0], []).append(part)
    built: dict[str, dict[str, Any]] = {}
    for pid in unique_ids:
        row = rows.get(pid)
        if row is not None:
            oid = row["oracle_id"]
            built[pid] = _card_object(row, faces.get(oid, []), legalities.get(oid, {}), parts.get(oid, []), base_url)
    return built


def _copy(card: dict[str, Any]) -> dict[str, Any]:
    import copy

    return copy.deepcopy(card)


def _put(obj: dict[str, Any], key: str, value: Any) -> None:
    """Set an optional field: Scryfall leaves out what a card does not have."""
    if value is not None:
        obj[key] = value


def _card_object(
    row: dict[str, Any],
    faces: list[dict[str, Any]],
    legalities: dict[str, str],
    parts: list[tuple[Any, ...]],
    base_url: str | None,
) -> dict[str, Any]:
    layout = row["printing_layout"] or row["layout"]
    multipart = len(faces) > 1
    one_sided = layout in ONE_SIDED_MULTIPART
    card: dict[str, Any] = {
        "object": "card",
        "id": row["id"],
        "oracle_id": row["oracle_id"],
        "name": row["name"] or row["printing_name"],
        "lang": row["lang"],
    }
    _put(card, "released_at", row["released_at"].isoformat() if row["released_at"] is not None else None)
    if base_url:
        card["uri"] = f"{base_url}/cards/{row['id']}"
        card["rulings_uri"] = f"{base_url}/cards/{row['id']}/rulings"
        card["prints_search_uri"] = (
            f"{base_url}/cards/search?order=released&q={quote('oracleid:' + str(row['oracle_id']))}&unique=prints"
        )
    _put(card, "multiverse_ids", row["multiverse_ids"])
    _put(card, "mtgo_id", row["mtgo_id"])
    _put(card, "mtgo_foil_id", row["mtgo_foil_id"])
    _put(card, "arena_id", row["arena_id"])
    card["layout"] = layout
    if not multipart or one_sided:
        _put(card, "mana_cost", row["mana_cost"])
    card["cmc"] = row["cmc"] if row["cmc"] is not None else 0.0
    card["type_line"] = row["type_line"]
    if not multipart:
        _put(card, "oracle_text", row["oracle_text"])
        for key in ("power", "toughness", "loyalty", "defense"):
            _put(card, key, row[key])
    elif layout == "adventure":  # the adventurer's stats are the card's (Scryfall puts them at the top)
        _put(card, "power", row["power"])
        _put(card, "toughness", row["toughness"])
    if not multipart or one_sided:
        card["colors"] = _colours(row["colors"])
        if row["color_indicator"] and not multipart:
            card["color_indicator"] = _colours(row["color_indicator"])
    card["color_identity"] = _colours(row["color_identity"])
    card["keywords"] = list(row["keywords"] or [])
    _put(card, "produced_mana", _colours(row["produced_mana"]) if row["produced_mana"] else None)
    if parts:
        card["all_parts"] = [
            {
                "object": "related_card",
                "id": part_id,
                "component": component,
                "name": name,
                "type_line": type_line,
                **({"uri": f"{base_url}/cards/{part_id}"} if base_url and part_id else {}),
            }
            for _, component, name, type_line, part_id in parts
        ]
    if multipart:
        card["card_faces"] = [_face(face, i, row, one_sided) for i, face in enumerate(faces)]
    else:
        _put(card, "printed_name", row["printed_name"])
        _put(card, "flavor_name", row["flavor_name"])
    _put(card, "printed_type_line", row["printed_type_line"])
    _put(card, "printed_text", row["printed_text"])
    card["legalities"] = dict(sorted(legalities.items()))
    card["games"] = list(row["games"] or [])
    card["reserved"] = bool(row["reserved"])
    card["digital"] = bool(row["digital"])
    card["promo"] = bool(row["promo"])
    card["set"] = row["set_code"]
    _put(card, "set_name", row["set_name"])
    _put(card, "set_type", row["set_type"])
    _put(card, "set_id", row["set_id"])
    _put(card, "scryfall_set_uri", row["scryfall_set_uri"])
    _put(card, "collector_number", row["collector_number"])
    _put(card, "rarity", row["rarity"])
    _put(card, "reprint", row["reprint"])
    if row["finishes"]:
        card["finishes"] = list(row["finishes"])
        card["nonfoil"] = "nonfoil" in row["finishes"]
        card["foil"] = "foil" in row["finishes"]
    _put(card, "tcgplayer_id", row["tcgplayer_id"])
    _put(card, "tcgplayer_etched_id", row["tcgplayer_etched_id"])
    _put(card, "cardmarket_id", row["cardmarket_id"])
    _put(card, "illustration_id", row["illustration_id"])
    _put(card, "watermark", row["watermark"])
    _put(card, "border_color", row["border_color"])
    _put(card, "security_stamp", row["security_stamp"])
    _put(card, "artist", row["artist"])
    _put(card, "edhrec_rank", row["edhrec_rank"])
    return card


def _face(face: dict[str, Any], index: int, row: dict[str, Any], one_sided: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"object": "card_face", "name": face["name"]}
    cost = face["mana_cost"]
    if face["role"] == "flip_bottom" or cost is None:
        cost = ""  # CR 710.1c: the bottom has the top's cost, but it is not printed (Scryfall: ""); a back face: none
    out["mana_cost"] = cost
    out["type_line"] = face["type_line"]
    out["oracle_text"] = face["oracle_text"] if face["oracle_text"] is not None else ""
    if not one_sided:
        out["colors"] = _colours(face["colors"])
        if face["color_indicator"]:
            out["color_indicator"] = _colours(face["color_indicator"])
    for key in ("power", "toughness", "loyalty", "defense"):
        _put(out, key, face[key])
    for key, column in (("printed_name", "face_printed_names"), ("flavor_name", "face_flavor_names")):
        values = row[column] or []
        names = row["face_names"] or []
        # the printing's per-face names, by position (checked by name when the printing lists its faces)
        if index < len(values) and (index >= len(names) or names[index] == face["name"]):
            _put(out, key, values[index])
    return out


def rulings(con: duckdb.DuckDBPyConnection, oracle_id: str) -> list[dict[str, Any]]:
    """Scryfall ruling objects of one Oracle card, oldest first."""
    return [
        {
            "object": "ruling",
            "oracle_id": oid,
            "source": source or "wotc",
            "published_at": published.isoformat() if published is not None else None,
            "comment": comment,
        }
        for oid, source, published, comment in con.execute(_RULINGS_SQL, [oracle_id]).fetchall()
    ]


def card_text(card: dict[str, Any]) -> str:
    """A card object in Scryfall's text form (``format=text``): per face, the name and mana cost, the type line,
    the Oracle text, then power/toughness, loyalty or defense; faces separated by a ``----`` line."""
    faces = card.get("card_faces") or [card]
    blocks = []
    for face in faces:
        lines = [" ".join(str(part) for part in (face.get("name"), face.get("mana_cost")) if part)]
        for key in ("type_line", "oracle_text"):
            if face.get(key):
                lines.append(str(face[key]))
        if face.get("power") is not None or face.get("toughness") is not None:
            lines.append(f"{face.get('power', '')}/{face.get('toughness', '')}")
        if face.get("loyalty") is not None:
            lines.append(f"Loyalty: {face['loyalty']}")
        if face.get("defense") is not None:
            lines.append(f"Defense: {face['defense']}")
        blocks.append("\n".join(lines))
    return "\n----\n".join(blocks) + "\n"


def image_uri(card: dict[str, Any], version: str, *, back: bool = False) -> str | None:
    """The kept URL of a card's image in ``version`` (Scryfall's ``image_uris``): the front's, or with ``back`` the
    second face's; None when the data has none (or the card has no back face)."""
    faces = card.get("card_faces") or []
    if back:
        uris = faces[1].get("image_uris") if len(faces) > 1 else None
    else:
        uris = card.get("image_uris") or (faces[0].get("image_uris") if faces else None)
    found = (uris or {}).get(version)
    return str(found) if found else None
