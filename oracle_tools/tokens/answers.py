"""What "create a <name> token" makes (CR 111), answered from the token tables built at ingest.

``token(name)`` answers "what is a <name> token?" in this order: a predefined token (111.10) wins
over a card of the same name (111.11 applies only when "the name is not one of the types in the
list of predefined tokens"), so "Blood" is the 111.10g token, not the Blood half of Flesh // Blood;
then the token effects create with that name and stated characteristics (``kind="effect"``:
Marit Lage, Ragavan, Kobolds of Kher Keep — the effect defines it, so 111.11's Oracle card of that
name does not apply); then the Oracle card with that name (111.11: Tarmogoyf); else ``none``.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                          # doctest: +SKIP
>>> t = db.token("Tarmogoyf")                                    # doctest: +SKIP
>>> (t.kind, t.rule, t.name, t.power, t.toughness)               # doctest: +SKIP
('card', '111.11', 'Tarmogoyf', '*', '1+*')
>>> db.token("blood").rule                                       # doctest: +SKIP
'111.10g'
>>> db.token_specs().filter(pl.col("creator_name") == "Disa the Restless")   # doctest: +SKIP
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from oracle_tools.errors import OracleToolsError
from oracle_tools.names.kinds import not_its_name
from oracle_tools.store import layouts
from oracle_tools.text.matching import normalize

if TYPE_CHECKING:  # answering `token NAME` needs neither Polars (the tables are built at ingest) nor the name index
    import duckdb

    from oracle_tools.names.resolver import NameResolver


# -- the lookup answer ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenAnswer:
    """What a "create a <name> token" instruction makes.

    ``kind`` is ``predefined`` (CR 111.10x), ``effect`` (CR 111.4 / 111.9: effects create a token
    with that name and state its characteristics; ``created_by`` lists them and, when their
    definitions differ, ``variants`` lists each definition with its creators), ``card`` (CR 111.11:
    the Oracle card with that name) or ``none`` (``reason`` and ``suggestions`` — card and token
    names — say why and what was close).
    """

    query: str
    kind: str
    rule: str | None = None
    name: str | None = None  # the token's name in the game (CR 111.4 / 111.10 "named X" / the card's name)
    token_type: str | None = None  # the predefined token's CR name ("Treasure", "Cursed Role")
    type_line: str | None = None
    colors: tuple[str, ...] = ()
    power: str | None = None
    toughness: str | None = None
    mana_cost: str | None = None
    oracle_text: str | None = None
    oracle_id: str | None = None
    faces: tuple[dict[str, Any], ...] = ()
    matched: str | None = None  # how the name matched (predefined name / given name / resolver via)
    notes: tuple[str, ...] = ()
    reason: str | None = None
    suggestions: tuple[str, ...] = ()
    rules_effective: str | None = None
    created_by: tuple[str, ...] = ()  # the cards whose effects create it (kinds effect and card)
    variants: tuple[dict[str, Any], ...] = ()  # kind effect: each differing definition with its creators
    # kind card: the cards whose effects create a token that's a copy of another object (CR 707.2), each with its
    # words and what it adds to the copy (707.9a: "except it has haste"; Mirror March: "Those tokens gain haste.")
    copy_makers: tuple[dict[str, Any], ...] = ()

    @property
    def ok(self) -> bool:
        return self.kind != "none"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("colors", "notes", "suggestions", "created_by"):
            data[key] = list(data[key])
        data["faces"] = [dict(f) for f in self.faces]
        data["variants"] = [dict(v) for v in self.variants]
        data["copy_makers"] = [dict(m) for m in self.copy_makers]
        return data


# -- building at ingest --------------------------------------------------------------------------


# -- answering ---------------------------------------------------------------------------------------


def _dicts(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """Rows as dicts straight from DuckDB: a one-name answer needs no Arrow/Polars round trip."""
    cursor = con.execute(sql, params or [])
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row)) for row in cursor.fetchall()]


def _stored_predefined(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    return _dicts(con, "SELECT * FROM predefined_tokens")


def lookup(con: duckdb.DuckDBPyConnection, index: NameResolver, query: str) -> TokenAnswer:
    """What "create a <query> token" makes: 111.10 predefined, else the token effects name and define
    (111.4, 111.9), else 111.11 the Oracle card, else none (with card and token names as suggestions)."""
    if query is None or not str(query).strip():
        raise OracleToolsError("empty token name; give a name such as 'Treasure' or 'Tarmogoyf'")
    text = " ".join(str(query).split())
    predefined = _stored_predefined(con)
    effective = str(predefined[0]["effective_date"]) if predefined else None
    keys: dict[str, dict[str, Any]] = {}
    for token in predefined:
        for name in (token["name"], f"{token['name']} Token", token["given_name"], token["game_name"]):
            if name:
                keys.setdefault(normalize(name), token)
    for token in predefined:
        for face in token["faces"] or []:
            if face["given_name"]:
                keys.setdefault(normalize(face["given_name"]), token)
    key = normalize(text)
    stripped = re.sub(r"\s+tokens?$", "", key)
    row = keys.get(key) or keys.get(stripped)
    if row is not None:  # CR 111.10 before 111.11
        note = []
        r = index.resolve(row["name"], suggest=0)  # only whether a card has the name: no "did you mean" computed
        if r.ok:
            note.append(
                f"'{row['name']}' is also the name of {('a face of ' if r.face else 'the card ') + str(r.name)}; "
                f"the predefined token wins (111.11 applies only to names that are not predefined)"
            )
        for effect in _effect_rows(con, [normalize(row["name"]), normalize(row["game_name"] or "")]):
            # e.g. Gild (2019 text): "a colorless artifact token named Gold. It has …" — not the 111.10c Gold
            one = len(effect["creators"]) == 1
            note.append(
                f"{_names_prose(effect['creators'])} create{'s' if one else ''} a token named {effect['name']} "
                f"with characteristics of {'its' if one else 'their'} own ({effect['rule']}: "
                f"{effect['type_line']}; {(effect['oracle_text'] or 'no abilities').replace(chr(10), '; ')}); "
                f"'create a {row['name']} token' makes the {row['rule']} token"
            )
        return TokenAnswer(
            query=query,
            kind="predefined",
            rule=row["rule"],
            name=row["game_name"],
            token_type=row["name"],
            type_line=row["type_line"],
            colors=tuple(row["colors"]),
            power=row["power"],
            toughness=row["toughness"],
            mana_cost="",
            oracle_text=row["oracle_text"],
            faces=tuple(row["faces"] or ()),
            matched="predefined",
            notes=tuple(note + ([row["notes"]] if row["notes"] else [])),
            rules_effective=effective,
        )
    effects = _effect_rows(con, [key, stripped])
    if effects:  # CR 111.4 / 111.9: the effect names the token and states its characteristics
        return effect_answer(query, effects, effective)
    r = index.resolve(text)
    if not r.ok and stripped != key:
        r2 = index.resolve(re.sub(r"\s+[Tt]okens?$", "", text), suggest=0)  # a miss's suggestions are r's
        r = r2 if r2.ok else r
    if r.ok:
        return _card_answer(con, query, r, effective)
    if r.status == "ambiguous":
        reason = (
            f"{text!r} names {len(r.candidates)} Oracle cards that share the name {r.shared_name} (the same name, "
            "CR 201.2a), each with characteristics of its own: which one a token of that name copies (111.11) "
            "the name cannot tell; `oracle-tools resolve` tells them apart"
            if r.shared_name is not None
            else f"{text!r} names more than one card: " + "; ".join(c.name for c in r.candidates)
        )
        return TokenAnswer(
            query=query,
            kind="none",
            reason=reason,
            # never "did you mean" what was typed: only the other names it may mean
            suggestions=tuple(n for n in r.suggestions if normalize(n) not in (key, stripped)),
            rules_effective=effective,
        )
    # Token names (predefined, named by effects, Scryfall's token objects) are suggestions too —
    # but not the name asked about (a token object's name that no effect defines: "Goblin").
    suggestions = tuple(
        dict.fromkeys([*(t for t in _token_suggestions(r) if normalize(t) not in (key, stripped)), *r.suggestions])
    )
    if (
        index.is_token_name(text)
        or index.is_token_name(re.sub(r"\s+[Tt]okens?$", "", text))
        or _listed_token_object(con, {key, stripped})
    ):
        return TokenAnswer(
            query=query,
            kind="none",
            suggestions=suggestions,
            rules_effective=effective,
            reason=(
                f"{text!r} is the name of a token object, not a predefined token (111.10), a token an effect "
                "names and defines (111.4, 111.9) nor an Oracle card (111.11); such a token gets its "
                "characteristics from the effect that creates it (111.4)" + _creature_type_hint(text)
            ),
        )
    return TokenAnswer(
        query=query,
        kind="none",
        suggestions=suggestions,
        rules_effective=effective,
        reason=f"{text!r} is neither a predefined token (111.10), a token an effect names and defines "
        "(111.4, 111.9) nor an Oracle card name (111.11)",
    )


def _listed_token_object(con: duckdb.DuckDBPyConnection, keys: set[str]) -> bool:
    """Whether ``token --list`` (view token_catalog) knows a token of this name as an object: a Scryfall token
    object or a token Scryfall's all_parts links to its creators ("Thopter", "Servo"), so both commands answer
    alike for every name the list shows."""
    names = con.execute("SELECT DISTINCT name FROM token_catalog WHERE kind = 'object'").fetchall()
    return any(normalize(name) in keys for (name,) in names)


def _creature_type_hint(text: str) -> str:
    """For a creature type ('goblin'): where the tokens of that type are listed (CR 205.3m lists the types)."""
    kind = _creature_types_by_key().get(normalize(re.sub(r"\s+[Tt]okens?$", "", text.strip())))
    if kind is None:
        return ""
    return f"; {kind} is a creature type (205.3m): `oracle-tools token --list {kind}` lists its tokens"


@lru_cache(maxsize=1)
def _creature_types_by_key() -> dict[str, str]:
    """The shipped CR 205.3m creature types by lookup key, folded once: each miss used to fold all of them."""
    from oracle_tools.text.vocabulary import normalise_apostrophes, subtypes

    by_key: dict[str, str] = {}
    for kind in subtypes("creature"):
        by_key.setdefault(normalize(normalise_apostrophes(kind)), kind)  # the first, as the list's order
    return by_key


def _token_suggestions(r: Any) -> tuple[str, ...]:
    """Close token names from the resolver (``Resolution.tokens``, when the names layer has them)."""
    return tuple(getattr(r, "tokens", ()) or ())


def _effect_rows(con: duckdb.DuckDBPyConnection, keys: list[str]) -> list[dict[str, Any]]:
    """The ``effect_tokens`` rows of a name (by lookup key), most-used definition first."""
    keys = [k for k in dict.fromkeys(keys) if k]
    if not keys:
        return []
    rows = _dicts(con, "SELECT * FROM effect_tokens WHERE list_contains(?, key) ORDER BY key, definition", [keys])
    found = {row["key"] for row in rows}
    first_key = next((k for k in keys if k in found), None)  # the name as given before its "… token" form
    return [row for row in rows if row["key"] == first_key]


def _names_prose(names: list[str] | tuple[str, ...]) -> str:
    """Card names in a sentence; semicolons, since names have commas ("King Macar, the Gold-Cursed")."""
    return "; ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def effect_answer(query: str, rows: list[dict[str, Any]], effective: str | None) -> TokenAnswer:
    """CR 111.4 / 111.9: the token as the creating effects define it (the most-used definition
    first; ``variants`` when the effects disagree). CR 111.3: what the effect defines is the
    token's text and copiable values, and it has nothing else — no mana cost."""
    top = rows[0]
    creators = tuple(sorted({c for row in rows for c in row["creators"]}))
    notes: list[str] = []
    if top["card_name"]:  # Kobolds of Kher Keep, Llanowar Elves, Storm Crow …
        notes.append(
            f"'{top['name']}' is also the name of the Oracle card {top['card_name']}; the effects that create this "
            f"token state its characteristics ({top['rule']}), so the card is not used: 111.11 would use the Oracle "
            f"card only for an effect that names the token without defining it "
            f"('create {'an' if top['name'][:1].lower() in 'aeiou' else 'a'} {top['name']} token')"
        )
    variants: tuple[dict[str, Any], ...] = ()
    if len(rows) > 1:
        variants = tuple(
            {k: row[k] for k in ("rule", "type_line", "colors", "power", "toughness", "oracle_text")}
            | {"created_by": row["creators"], "clause": row["clause"]}
            for row in rows
        )
        notes.append(
            f"the creating effects define '{top['name']}' in {len(rows)} different ways (see variants); "
            f"shown is the definition of {_names_prose(top['creators'])}"
        )
    return TokenAnswer(
        query=query,
        kind="effect",
        rule=top["rule"],
        name=top["name"],
        type_line=top["type_line"],
        colors=tuple(top["colors"] or ()),
        power=top["power"],
        toughness=top["toughness"],
        oracle_text=top["oracle_text"],
        mana_cost="",
        matched="effect",
        notes=tuple(notes),
        rules_effective=effective,
        created_by=creators,
        variants=variants,
    )


def _card_answer(con: duckdb.DuckDBPyConnection, query: str, r: Any, effective: str | None) -> TokenAnswer:
    """CR 111.11: the whole Oracle card with that name determines the token's characteristics."""
    card = _dicts(con, "SELECT * FROM cards WHERE oracle_id = ?", [r.oracle_id])[0]
    faces = _dicts(con, "SELECT * FROM faces WHERE oracle_id = ? ORDER BY face_index", [r.oracle_id])
    notes: list[str] = []
    if (
        (r.face and (r.face_index or 0) > 0)
        or (r.face and not ({f["role"] for f in faces} & layouts.NORMAL_ROLES))  # CR 201.4: no face has the normal name
    ):
        notes.append(f"'{r.face}' is a face of {r.name}; 111.11 uses the card with that name, {r.name}")
    not_a_name = not_its_name(r.via, query, r.name)  # CR 201.6, 201.2: an alternate or foreign name is no name of it
    if not_a_name is not None:
        notes.append(not_a_name[1])
    roles = {f["role"] for f in faces}
    face_dicts = tuple(
        {
            k: f[k]
            for k in (
                "name",
                "role",
                "mana_cost",
                "type_line",
                "oracle_text",
                "colors",
                "power",
                "toughness",
                "loyalty",
                "defense",
            )
        }
        for f in faces
        if f["role"] != "single"
    )
    name, type_line, mana_cost, text = card["name"], card["type_line"], card["mana_cost"], card["oracle_text"]
    colors, power, toughness = card["colors"] or [], card["power"], card["toughness"]
    copied = layouts.token_copy(roles)  # the token-copy fact per face role (layouts.FACE_ROLES, CR 111.11)
    if copied == "face_up":
        front = faces[0]
        # CR 707.8a (a token copy of a double-faced card is a double-faced token with both faces) and
        # 712.8d (front face up: only the front face's characteristics).
        notes.append("double-faced: the token has both faces and enters front face up (707.8a, 712.8d)")
        name, type_line, mana_cost, text = front["name"], front["type_line"], front["mana_cost"], front["oracle_text"]
        colors, power, toughness = front["colors"] or [], front["power"], front["toughness"]
    elif copied == "halves_combined":
        notes.append("split card: both halves' characteristics combined (709.4, 709.4b-c)")
    elif copied == "normal_face":
        first = faces[0]
        if "omen_card" in roles:
            notes.append("omen card: only its normal characteristics (720.4)")
        else:
            notes.append("adventurer/flip card: only its normal (upright) characteristics (715.4, 710.1a)")
        name, type_line, mana_cost, text = first["name"], first["type_line"], first["mana_cost"], first["oracle_text"]
        colors, power, toughness = first["colors"] or [], first["power"], first["toughness"]
    types = (type_line or "").split(" — ")[0].split()
    if ("Instant" in types or "Sorcery" in types) and not (
        {"Creature", "Artifact", "Enchantment", "Land"} & set(types)
    ):
        notes.append(
            "an instant or sorcery can't enter the battlefield (304.4, 307.4), so no such token is "
            "created (compare 111.5)"
        )
    creators = tuple(
        sorted(
            {
                c
                for (c,) in con.execute(
                    "SELECT DISTINCT creator_name FROM token_specs WHERE card_oracle_id = ?", [r.oracle_id]
                ).fetchall()
            }
        )
    )
    makers = copy_makers(con)
    if makers:
        notes.append(
            f'111.11 answers "create a {name} token" (a token created by name); a token named {name} in a game '
            f"is most often a copy of a {name} (CR 707.2: its copiable values, with what the effect adds, 707.9a): "
            "see the cards that make token copies"
        )
    return TokenAnswer(
        query=query,
        kind="card",
        rule="111.11",
        name=name,
        type_line=type_line,
        colors=tuple(colors),
        power=power,
        toughness=toughness,
        mana_cost=mana_cost,
        oracle_text=text,
        oracle_id=r.oracle_id,
        faces=face_dicts,
        matched=r.via,
        notes=tuple(notes),
        rules_effective=effective,
        created_by=creators,
        copy_makers=makers,
    )


# What a copy effect's next sentences add to the token copy it makes (CR 707.9a, and the effects that follow it:
# Mirror March "Those tokens gain haste. Exile them at the beginning of the next end step.").
_ADDED = re.compile(
    r"^(?:Th(?:ose|at|e) tokens?|It gains|They gain|Exile (?:them|it|that token|those tokens)|"
    r"Sacrifice (?:them|it|that token|those tokens)|At the beginning of the next end step)",
    re.I,
)


def copy_makers(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, Any], ...]:
    """The cards whose effects create a token that's a copy of another object (``token_specs.copy_of``, CR 707.2),
    one row per card and clause: ``creator``, ``clause`` (the words that create the copy, with any "except …",
    707.9a), ``adds`` (the sentences after it that change those tokens: haste, exile at the next end step) and
    ``rule``. A card copying only itself ("a copy of this creature", "of Giant Adephage", a keyword's reminder text:
    embalm, eternalize, encore) is left out."""
    rows = con.execute(
        "SELECT s.creator_name, s.clause, s.copy_of, c.oracle_text FROM token_specs s "
        "JOIN cards c ON c.oracle_id = s.creator_oracle_id WHERE s.copy_of IS NOT NULL AND s.source <> 'reminder' "
        "ORDER BY s.creator_name, s.face_index, s.clause_no"
    ).fetchall()
    out: list[dict[str, Any]] = []
    for creator, clause, copy_of, text in rows:
        target = (copy_of or "").casefold()
        if target.startswith("this ") or creator.split(",")[0].casefold() in target:
            continue
        adds = _added_sentences(text or "", clause or "")
        except_ = " except " in f" {clause} "
        out.append(
            {
                "creator": creator,
                "clause": clause,
                "adds": adds,
                "rule": "707.2, 707.9a" if except_ else "707.2",
            }
        )
    return tuple(out)


def _added_sentences(text: str, clause: str) -> str | None:
    """The sentences right after ``clause`` in ``text`` that change the tokens it makes (None when none do)."""
    at = text.find(clause) if clause else -1
    if at < 0:
        return None
    end = text.find(".", at + len(clause))
    rest = text[end + 1 :] if end >= 0 else ""
    added = []
    for sentence in re.split(r"(?<=\.)\s+", rest.strip()):
        if not sentence or "\n" in sentence.split(".")[0] or not _ADDED.match(sentence):
            break
        added.append(sentence.split("\n")[0])
    return " ".join(added) or None
