"""Choosing a card name (CR 201.4): "may I name X here?" and "what may I name?".

Pithing Needle, Meddling Mage, Dispossess, Cabal Therapy, Runed Halo and friends tell a
player to *choose a card name*, often with characteristics ("nonland", "artifact",
"nonartifact, nonland"). This module answers for one name (:meth:`NameChooser.choose`,
``OracleDB.choose_name``) and lists every name that may be chosen
(:meth:`NameChooser.nameable`, ``OracleDB.nameable``).

The rules, and where each is applied:

* CR 201.4  -- only the name of a card in the Oracle card reference: every face row of a
  card with ``is_card`` is a candidate (``_FACES_SQL``); a token's (emblem's, plane's ...)
  name only if it is also a card's name (:meth:`NameChooser._not_found`).
* CR 201.4a -- characteristics are judged on the card's Oracle characteristics (the
  ``faces`` row), never on a game state and never on format legality (nothing here reads
  ``legalities``).
* CR 201.4b / 709.4a -- a split card (aftermath too): one half's name, never the combined
  name (:meth:`NameChooser._combined`); that half's characteristics only (its own row).
* CR 201.4c / 710 -- a flip card's alternative name, judged by the characteristics as
  modified by the alternative ones: the ``flip_bottom`` row (which already keeps the top's
  mana cost and colour, CR 710.1c).
* CR 201.4d / 712.19 -- a double-faced card's back face name, judged by the back face only
  (the ``back`` row); never both names at once.
* CR 201.4e -- the combined back face of a meld pair: its own card and row (``meld_result``).
* CR 201.4f / 715 -- an adventurer card's Adventure name, judged by the Adventure's
  characteristics (the ``adventure`` row).
* CR 720.5 -- an omen card's Omen name, judged by the Omen's characteristics (the ``omen``
  row); its normal name by its normal characteristics, its only ones outside the stack (720.4).
* The *front* name of a double-faced, adventurer or flip card is judged by that face's
  characteristics, which are the card's normal characteristics (CR 710.2, 712.8a, 715.4).
* CR 201.4g -- choosing a name that has interchangeable names (CR 201.3) chooses every name
  of its class: the verdict's ``chosen`` lists them all.

Names go through the resolver (case, accents, foreign and alternate names), and the
verdict always speaks of English Oracle names.

>>> from oracle_tools import OracleDB
>>> db = OracleDB("data/oracle.duckdb")                          # doctest: +SKIP
>>> v = db.choose_name("Fire // Ice", "nonland")                 # doctest: +SKIP
>>> (v.valid, v.rule)                                            # doctest: +SKIP
(False, '201.4b')
>>> v = db.choose_name("Chop Down", "noncreature, nonland")      # doctest: +SKIP
>>> (v.valid, v.chosen, v.rule)                                  # doctest: +SKIP
(True, ('Chop Down',), '201.4f')
>>> db.nameable("nonland").height                                # doctest: +SKIP
2656
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from oracle_tools.errors import ConstraintCardError, ConstraintError, did_you_mean, names_listed
from oracle_tools.names.kinds import OWN_NAME_READINGS, not_its_name
from oracle_tools.store import layouts, sqlfiles
from oracle_tools.store.lazy import LazyModule
from oracle_tools.text.constraints import AnyCard, Constraint, card_name_phrases, parse_constraint
from oracle_tools.text.matching import normalize

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from oracle_tools.names.resolver import NameResolver, Resolution
else:
    pl = LazyModule("polars")  # the nameable frame only: one verdict needs neither Polars nor the name index

__all__ = [
    "ROLE_RULE",
    "ChoiceReport",
    "ChosenConstraint",
    "ConstraintCardError",
    "NameChooser",
    "ResolvesNames",
    "Verdict",
    "as_constraint",
    "constraint_for",
    "constraint_from_card",
]

#: The subrule of CR 201.4 that governs choosing the name of a face with this role, from the one
#: table of face-role facts (oracle_tools/store/layouts.py; the ``face_roles`` table the ``nameable_faces``
#: view joins). Faces whose name is the card's normal name (single, front, flip top, adventurer, meld
#: part) fall under 201.4 itself (201.4a once characteristics are asked for).
ROLE_RULE: dict[str, str] = {r.role: r.name_rule for r in layouts.FACE_ROLES}

# Columns of the cached frame: the chosen name, where it comes from, the rule, and the
# face's characteristics (the columns constraints read, see oracle_tools.text.constraints).
_FACES_SQL = """
SELECT f.name, f.oracle_id, c.name AS card_name, f.face_index, f.role, c.layout,
       f.mana_cost, f.mana_value, f.type_line, f.supertypes, f.card_types, f.subtypes,
       f.colors, f.color_indicator, f.power, f.toughness, f.loyalty, f.defense, f.oracle_text,
       c.funny
FROM faces f JOIN cards c USING (oracle_id)
WHERE c.is_card            -- CR 201.4: names of cards in the Oracle card reference only
ORDER BY f.name, f.oracle_id, f.face_index
"""

_SHOWN = (
    "type_line",
    "mana_cost",
    "mana_value",
    "colors",
    "supertypes",
    "card_types",
    "subtypes",
    "power",
    "toughness",
    "loyalty",
    "defense",
)


def token_kinds(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Lookup key -> what non-card object has that name (CR 201.4: a token's name may be chosen only if it is
    also a card's): Scryfall's token objects, the tokens layer's predefined tokens (CR 111.10), the tokens
    effects name (111.4, 111.9) and card/token name collisions (read at ingest, after the tokens layer)."""
    kinds: dict[str, str] = {}
    # CR 111.4 / 111.9: tokens effects name (Ragavan, Marit Lage)
    for name, rules, creators in con.execute(
        "SELECT name, list_sort(list_distinct(list(rule))), list_sort(list_distinct(flatten(list(creators)))) "
        "FROM effect_tokens GROUP BY name"
    ).fetchall():
        # the rule the creating text uses: 111.9 "create Marit Lage, a legendary …", else 111.4
        cited = ", ".join(f"CR {r}" for r in rules if r) or "CR 111.4"
        shown = "; ".join(creators[:3]) + (f" and {len(creators) - 3} more" if len(creators) > 3 else "")
        kinds.setdefault(normalize(name), f"token that effects name and define ({cited}; {shown})")
    for name, kind in con.execute(
        "SELECT name, string_agg(DISTINCT object_kind, ' or ' ORDER BY object_kind) FROM token_names GROUP BY name"
    ).fetchall():
        kinds.setdefault(normalize(name), kind)
    for name, given, rule in con.execute(
        "SELECT DISTINCT name, given_name, rule FROM predefined_tokens ORDER BY rule, name"
    ).fetchall():
        kinds.setdefault(normalize(name), "predefined token (CR 111.10)")
        if given and given != name:  # CR 111.10r: "a Young Hero Role token ... named Young Hero" (111.4)
            kinds.setdefault(normalize(given), f"predefined token: the {name} token is named {given} (CR {rule})")
    for (name,) in con.execute("SELECT DISTINCT name FROM token_collisions").fetchall():
        kinds.setdefault(normalize(name), "token")
    return kinds


def build(con: duckdb.DuckDBPyConnection) -> None:
    """At ingest, after the tokens layer: table ``token_kinds`` (key, kind) = :func:`token_kinds`, so a fresh
    choose-name reads the few keys it asks about instead of four token tables."""
    import polars as pl

    kinds = token_kinds(con)
    frame = pl.DataFrame(
        {"key": list(kinds), "kind": list(kinds.values())}, schema={"key": pl.String, "kind": pl.String}
    )
    sqlfiles.write_frame(con, "token_kinds", frame, order_by="key")


def stored_token_kinds(con: duckdb.DuckDBPyConnection, keys: Collection[str] | None = None) -> dict[str, str]:
    """:func:`token_kinds` as ingest stored it (of ``keys`` only, if given)."""
    if keys is None:
        return dict(con.execute("SELECT key, kind FROM token_kinds").fetchall())
    return dict(con.execute("SELECT key, kind FROM token_kinds WHERE key IN $keys", {"keys": sorted(keys)}).fetchall())


@lru_cache(maxsize=512)
def _parse_cached(phrase: str) -> Constraint:
    return parse_constraint(phrase)


@lru_cache(maxsize=512)
def _describe(constraint: Constraint) -> str:
    return constraint.describe()


def as_constraint(constraint: str | Constraint | None) -> Constraint:
    """A :class:`Constraint` from a phrase ("nonland"), a Constraint, or None (any card name)."""
    if constraint is None:
        return AnyCard()
    if isinstance(constraint, Constraint):
        return constraint
    if isinstance(constraint, str):
        return _parse_cached(constraint)
    raise ConstraintError(f"a card-name constraint is a phrase or a Constraint, not {type(constraint).__name__}")


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ alone costs ~5 us per verdict
class Verdict:
    """The answer to "may I choose this name?". Truthy when ``valid``.

    ``chosen`` is the chosen English name followed by its interchangeable names (CR 201.4g),
    empty when the choice is not valid. ``rule`` is the subrule that decided; ``rules`` every
    rule applied. ``characteristics`` are those of the face the name was judged by. ``candidates``: the names an
    ambiguous string could be; for a name several Oracle cards print, their oracle_ids (no one card is settled
    on: ``oracle_id``, ``card`` and ``characteristics`` are None, as ``resolve`` calls the name ambiguous).
    """

    query: str
    valid: bool
    chosen: tuple[str, ...]
    rule: str
    reason: str
    constraint: str
    name: str | None = None
    card: str | None = None
    oracle_id: str | None = None
    face_index: int | None = None
    role: str | None = None
    via: str | None = None
    rules: tuple[str, ...] = ()
    characteristics: Mapping[str, Any] | None = None
    suggestions: tuple[str, ...] = ()
    candidates: tuple[str, ...] = field(default_factory=tuple)

    def __bool__(self) -> bool:
        return self.valid

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "valid": self.valid,
            "chosen": list(self.chosen),
            "rule": self.rule,
            "reason": self.reason,
            "constraint": self.constraint,
            "name": self.name,
            "card": self.card,
            "oracle_id": self.oracle_id,
            "face_index": self.face_index,
            "role": self.role,
            "via": self.via,
            "rules": list(self.rules),
            "characteristics": dict(self.characteristics) if self.characteristics is not None else None,
            "suggestions": list(self.suggestions),
            "candidates": list(self.candidates),
        }


def _quoted(constraint: Constraint) -> str:
    return f"“{_describe(constraint)}”"


def _describe_face(row: Mapping[str, Any]) -> str:
    """'Instant {R}', 'Basic Land — Island', 'Legendary Creature — Human Samurai {W}'."""
    text = row.get("type_line") or "no type line"
    if row.get("mana_cost"):
        text += f" {row['mana_cost']}"
    return text


class NameChooser:
    """Precomputed once per database: the frame of nameable faces and dicts over it.

    A single verdict is a resolver lookup, a dict lookup and ``Constraint.matches``; an
    enumeration is one ``filter(constraint.to_polars())`` over the cached frame.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, name_index: NameResolver) -> None:
        frame = sqlfiles.frame(con, _FACES_SQL)
        self.frame: pl.DataFrame = frame.with_columns(
            rule=pl.col("role").replace_strict(ROLE_RULE, default="201.4", return_dtype=pl.String)
        )
        columns = self.frame.to_dict(as_series=False)  # column lists zipped: ~4x faster than to_dicts()
        self._setup(con, name_index, [dict(zip(columns, values)) for values in zip(*columns.values())])

    @classmethod
    def for_name(cls, con: duckdb.DuckDBPyConnection, name_index: NameResolver, asked: str) -> NameChooser:
        """A chooser holding only the faces ``asked`` can be judged by, for one verdict in a fresh process: the
        faces of the card(s) it resolves to and of every card sharing one of their names (201.4a). It has no
        ``frame``, so no :meth:`nameable`."""
        r = name_index.resolve(asked)
        oids = sorted({r.oracle_id} if r.oracle_id else {c.oracle_id for c in r.candidates})
        own = (
            [
                n
                for (n,) in con.execute(
                    "SELECT DISTINCT name FROM faces WHERE oracle_id IN $oids", {"oids": oids}
                ).fetchall()
            ]
            if oids
            else []
        )
        query = f"SELECT * FROM ({_FACES_SQL}\n) WHERE name IN $names ORDER BY name, oracle_id, face_index"
        cursor = con.execute(query, {"names": own})
        columns = [d[0] for d in cursor.description]
        rows = [dict(zip(columns, values)) for values in cursor.fetchall()]
        chooser = cls.__new__(cls)
        for row in rows:
            row["rule"] = ROLE_RULE.get(row["role"], "201.4")
        chooser._setup(con, name_index, rows, keys={normalize(asked), *(normalize(r["name"]) for r in rows)})
        return chooser

    def _setup(
        self,
        con: duckdb.DuckDBPyConnection,
        name_index: NameResolver,
        rows: list[dict[str, Any]],
        keys: Collection[str] | None = None,
    ) -> None:
        self.name_index = name_index
        self.by_name: dict[str, list[dict[str, Any]]] = {}
        self.by_card: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            self.by_name.setdefault(row["name"], []).append(row)
            self.by_card.setdefault(row["oracle_id"], []).append(row)
        for faces in self.by_card.values():
            faces.sort(key=lambda r: r["face_index"])
        # Names of tokens and other non-card objects (CR 201.4: never choosable unless also a card's name), by
        # key: all of them, or (a chooser of some faces) those of its faces' names and of the name asked about.
        self.token_kinds: dict[str, str] = stored_token_kinds(con, keys)
        # exact face name -> the kind of non-card object that shares it (one dict lookup per verdict)
        self.token_note: dict[str, str] = {
            name: self.token_kinds[key] for name in self.by_name if (key := normalize(name)) in self.token_kinds
        }
        self.meld_parts: dict[str, tuple[str, ...]] = {
            oid: tuple(parts)
            for oid, parts in con.execute(
                "SELECT oracle_id, list(DISTINCT part_name ORDER BY part_name) FROM parts "
                "WHERE component = 'meld_part' AND ($every_card OR list_contains($oids, oracle_id)) GROUP BY oracle_id",
                {"every_card": keys is None, "oids": list(self.by_card) if keys is not None else []},
            ).fetchall()
        }

    # -- what may be chosen -------------------------------------------------------------------

    def nameable(self, constraint: str | Constraint | None = None) -> pl.DataFrame:
        """Every face whose name may be chosen under ``constraint`` (CR 201.4, 201.4a-f).

        One row per face: ``name`` (the name to choose), ``oracle_id``, ``card_name``,
        ``face_index``, ``role``, ``rule`` and the characteristics it was judged by, and
        ``interchangeable_names``: the other names of its CR 201.3 class, chosen with it (201.4g:
        Ultimate Green Goblin lists "Ruzic, Booed but Victorious"; empty for most names). Combined
        names ("Fire // Ice") never appear; a name shared by several cards appears once per card.
        """
        c = as_constraint(constraint)
        frame = self.frame.filter(pl.col("type_line").fill_null("").str.strip_chars() != layouts.STICKER_SHEET_TYPE)
        frame = frame if isinstance(c, AnyCard) else frame.filter(c.to_polars())  # CR 123.2: no sticker sheet
        return frame.join(self._class_frame(), on="name", how="left", maintain_order="left").with_columns(
            pl.col("interchangeable_names").fill_null(pl.lit([], dtype=pl.List(pl.String)))
        )

    def _class_frame(self) -> pl.DataFrame:
        """name -> the other names of its class of interchangeable names (CR 201.3, 201.4g)."""
        classes = self.name_index.known_classes()
        names = list(classes)
        return pl.DataFrame(
            {"name": names, "interchangeable_names": [[m for m in classes[n] if m != n] for n in names]},
            schema={"name": pl.String, "interchangeable_names": pl.List(pl.String)},
        )

    # -- may I choose this name? ----------------------------------------------------------------

    def choose(self, text: str, constraint: str | Constraint | None = None) -> Verdict:
        """The verdict on choosing the name ``text`` under ``constraint`` (None: any card name)."""
        c = as_constraint(constraint)
        r = self.name_index.resolve(text)
        if r.status == "not_found":
            return self._not_found(text, c, r)
        if r.status == "ambiguous":
            english = {cand.face or cand.name for cand in r.candidates}
            name = next(iter(english))
            if len(english) == 1 and name in self.by_name:
                # several Oracle cards with one name (Un-cards such as Very Cryptic Command):
                # it is still one name, and it may be chosen when any of those cards matches.
                return self._shared(text, c, name, r)
            return self._ambiguous(text, c, r)
        faces = self.by_card.get(r.oracle_id or "", [])
        if r.face_index is None:
            if len(faces) > 1:
                if "//" in normalize(text) or r.via in OWN_NAME_READINGS:
                    return self._combined(text, c, r, faces)
                resolved = faces[0]  # a whole-card alternate or printed name without '//': the normal name
            elif faces:
                resolved = faces[0]
            else:  # pragma: no cover - every card has at least one face row
                return self._not_found(text, c, r)
        else:
            resolved = next((f for f in faces if f["face_index"] == r.face_index), faces[0])
        if layouts.is_sticker_sheet(resolved.get("type_line")):
            return self._sticker_sheet(text, c, resolved, r.via)
        return self._judge(text, c, resolved["name"], resolved, r.via)

    # -- the verdicts ---------------------------------------------------------------------------

    def _judge(self, text: str, c: Constraint, name: str, resolved: dict[str, Any], via: str | None) -> Verdict:
        rows = self.by_name.get(name, [resolved])
        constrained = not isinstance(c, AnyCard)
        if not constrained:
            face = resolved
            valid = True
        elif c.matches(resolved):
            face, valid = resolved, True
        else:
            # CR 201.4a: a name several cards share may be chosen if any of those cards matches.
            face = next((row for row in rows if row is not resolved and c.matches(row)), resolved)
            valid = face is not resolved
        role = face["role"]
        role_rule = ROLE_RULE.get(role, "201.4")
        rules = ["201.4"]
        if constrained:
            rules.append("201.4a")
        if role_rule not in rules:
            rules.append(role_rule)
        rule = role_rule if role_rule != "201.4" else ("201.4a" if constrained else "201.4")
        chosen: tuple[str, ...] = ()
        if valid:
            classmates = self.name_index.interchangeable(name)
            chosen = (name, *(n for n in classmates if n != name))
            if len(chosen) > 1:
                rules.append("201.4g")
                rule = "201.4g"
        reason = self._reason(name, face, c, valid, chosen)
        # CR 201.6 / 201.2: an alternate name or a printed name in another language is no name of the card
        not_a_name = not_its_name(via, text, name, face["card_name"])
        if not_a_name is not None:
            rules.append(not_a_name[0])
            reason = reason[:-1] + f"; {not_a_name[1]}."
        return Verdict(
            query=text,
            valid=valid,
            chosen=chosen,
            rule=rule,
            reason=reason,
            constraint=_describe(c),
            name=name,
            card=face["card_name"],
            oracle_id=face["oracle_id"],
            face_index=face["face_index"],
            role=role,
            via=via,
            rules=tuple(rules),
            characteristics={k: face[k] for k in _SHOWN},
        )

    def _shared(self, text: str, c: Constraint, name: str, r: Resolution) -> Verdict:
        """The verdict on a name several Oracle cards print (the two B.F.M. halves, Unstable's six Sly Spies): one
        name, which may be chosen when any of those cards matches (CR 201.4a); said as ``resolve`` says it — so
        many cards share the name (CR 201.2a) —, with no one card's oracle_id settled on."""
        judged = self._judge(text, c, name, self.by_name[name][0], "name")
        oracle_ids = tuple(dict.fromkeys(cand.oracle_id for cand in r.candidates if cand.oracle_id))
        shared = (
            f"{len(oracle_ids)} Oracle cards share the name {name} (the same name, CR 201.2a; "
            f"`search oracleid:ID` shows each: {', '.join(oracle_ids)})"
        )
        if isinstance(c, AnyCard):
            reason = f"You may choose {name}: {shared}, and whichever is meant, it is a card's name."
        elif judged.valid:
            matching = _describe_face(judged.characteristics or {})
            reason = f"You may choose {name}: {shared}, and one of them ({matching}) is {_quoted(c)}."
        else:
            reason = (
                f"You may not choose {name}: {shared}, and none of them is {_quoted(c)} "
                "(its Oracle characteristics count, not anything in a game)."
            )
        if len(judged.chosen) > 1:
            reason = reason[:-1] + f"; choosing it also chooses {', '.join(judged.chosen[1:])} (CR 201.3)."
        return replace(
            judged,
            reason=reason,
            card=None,
            oracle_id=None,
            face_index=None,
            role=None,
            characteristics=None,
            candidates=oracle_ids,
        )

    def _reason(self, name: str, face: Mapping[str, Any], c: Constraint, valid: bool, chosen: tuple[str, ...]) -> str:
        role, card, described = face["role"], face["card_name"], _describe_face(face)
        if role == "split_half" or role == "aftermath_half":
            what = f"it is one half of the split card {card}, judged by that half alone ({described})"
        elif role == "flip_top":
            what = f"it is the normal name of the flip card {card}, judged by its normal characteristics ({described})"
        elif role == "flip_bottom":
            what = (
                f"it is the alternative name of the flip card {card}, judged by the alternative "
                f"characteristics with the card's mana cost and color ({described})"
            )
        elif role == "adventurer":
            what = (
                f"it is the normal name of the adventurer card {card}, judged by its normal "
                f"characteristics ({described})"
            )
        elif role == "adventure":
            what = f"it is the Adventure of {card}, judged by the Adventure's characteristics ({described})"
        elif role == "omen_card":
            what = (
                f"it is the normal name of the omen card {card}, judged by its normal characteristics, which are "
                f"its only ones outside the stack (CR 720.4; {described})"
            )
        elif role == "omen":
            what = (
                f"it is the Omen name of {card}, which a player may choose (CR 720.5), judged by the Omen's "
                f"characteristics ({described})"
            )
        elif role == "front":
            what = f"it is the front face of the double-faced card {card}, judged by the front face ({described})"
        elif role == "back":
            what = f"it is the back face of the double-faced card {card}, judged by the back face alone ({described})"
        elif role == "meld_result":
            parts = self.meld_parts.get(face["oracle_id"])
            pair = f" of {' and '.join(parts)}" if parts else ""
            what = f"it is the combined back face of a meld pair{pair}, judged by its own characteristics ({described})"
        else:
            what = f"it is the name of a card in the Oracle card reference ({described})"
        if isinstance(c, AnyCard):
            verdict = f"You may choose {name}: {what}"
        elif valid:
            verdict = f"You may choose {name}: {what}, which is {_quoted(c)}"
        else:
            verdict = (
                f"You may not choose {name}: {what}, which is not {_quoted(c)} "
                "(its Oracle characteristics count, not anything in a game)"
            )
        if len(chosen) > 1:
            verdict += f"; choosing it also chooses {', '.join(chosen[1:])} (interchangeable names, CR 201.3)"
        if valid and name in self.token_note:
            verdict += (
                f"; it is also the name of a {self.token_note[name]}, which does not matter since it is a card's name"
            )
        return verdict + "."

    def _combined(self, text: str, c: Constraint, r: Resolution, faces: list[dict[str, Any]]) -> Verdict:
        layout = faces[0]["layout"]
        rule, why = layouts.combined_name(layout, [f["role"] for f in faces])  # CR 201.4b-d by layout; 720.4
        names = tuple(f["name"] for f in faces)
        either = ", ".join(names[:-1]) + f" or {names[-1]}"
        reason = f"You may not choose “{r.name}”: {why}; choose {either}."
        return Verdict(
            query=text,
            valid=False,
            chosen=(),
            rule=rule,
            reason=reason,
            constraint=_describe(c),
            name=r.name,
            card=r.name,
            oracle_id=r.oracle_id,
            via=r.via,
            rules=("201.4", rule),
            suggestions=names,
        )

    def _sticker_sheet(self, text: str, c: Constraint, row: Mapping[str, Any], via: str | None) -> Verdict:
        """CR 123.2: "Sticker sheets are not cards and have no characteristics" -- Scryfall lists Unfinity's sheets
        as cards, but a sheet's name is no card name to choose (201.4), whatever the constraint."""
        return Verdict(
            query=text,
            valid=False,
            chosen=(),
            rule="123.2",
            reason=(
                f"You may not choose “{text}”: {row['name']} is a sticker sheet, and sticker sheets are not cards "
                "and have no characteristics (CR 123.2); only the name of a card may be chosen (CR 201.4)."
            ),
            constraint=_describe(c),
            name=row["name"],
            card=row["card_name"],
            oracle_id=row["oracle_id"],
            face_index=row["face_index"],
            role=row["role"],
            via=via,
            rules=("201.4", "123.2"),
        )

    def _not_found(self, text: str, c: Constraint, r: Resolution) -> Verdict:
        kind = self.token_kinds.get(normalize(text))
        if kind is not None:
            reason = (
                f"You may not choose “{text}”: it is the name of a {kind}, not of a card in the Oracle "
                "card reference, and a token's name may be chosen only if it is also a card's name."
            )
        else:
            reason = f"You may not choose “{text}”: no card in the Oracle card reference has that name."
            if r.suggestions:
                reason = reason[:-1] + f"; {did_you_mean(r.suggestions)}"
        return Verdict(
            query=text,
            valid=False,
            chosen=(),
            rule="201.4",
            reason=reason,
            constraint=_describe(c),
            rules=("201.4",),
            suggestions=r.suggestions,
        )

    def _ambiguous(self, text: str, c: Constraint, r: Resolution) -> Verdict:
        candidates = tuple(dict.fromkeys(cand.face or cand.name for cand in r.candidates))
        reason = (
            f"You may not choose “{text}” as it stands: it could be any of {names_listed(candidates)}; "
            "choose one of them by its English name."
        )
        return Verdict(
            query=text,
            valid=False,
            chosen=(),
            rule="201.4",
            reason=reason,
            constraint=_describe(c),
            rules=("201.4",),
            suggestions=candidates,
            candidates=candidates,
        )


class ResolvesNames(Protocol):
    """What :func:`constraint_from_card` reads a card through: its name resolver, and the connection holding the
    ``cards`` table (an :class:`~oracle_tools.db.OracleDB` is one)."""

    @property
    def con(self) -> duckdb.DuckDBPyConnection: ...

    def resolve(self, text: str, *, fuzzy: bool = False) -> Resolution: ...


class ChosenConstraint(NamedTuple):
    """A "choose a [constraint] card name" constraint and where it came from: the phrase given (or printed on
    the card), and the card whose Oracle text set it (None for a phrase given as such)."""

    constraint: Constraint
    phrase: str
    card: str | None = None


@dataclass(frozen=True, slots=True)
class ChoiceReport:
    """The whole answer to "may NAME be chosen?" with a constraint given as a phrase or by a card: the
    :class:`Verdict` and the constraint it was judged by (``to_dict``: the verdict's fields, then
    ``constraint_phrase`` and ``constraint_from_card``)."""

    verdict: Verdict
    constraint: ChosenConstraint

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.verdict.to_dict(),
            "constraint_phrase": self.constraint.phrase,
            "constraint_from_card": self.constraint.card,
        }


def constraint_from_card(names: ResolvesNames, card: str) -> ChosenConstraint:
    """The constraint a card's own Oracle text sets, with its phrase and the card's name.

    Meddling Mage ("Choose a nonland card name") gives nonland; Pithing Needle ("choose a card name") any card
    name. Raises :class:`ConstraintCardError` when no card or several have the name ``card``, or its text has no
    "choose … card name" instruction.
    """
    r = names.resolve(card)
    if r.status == "not_found":
        raise ConstraintCardError("not_found", card, suggestions=r.suggestions)
    if r.status == "ambiguous":
        raise ConstraintCardError("ambiguous", card, suggestions=r.suggestions)
    ((text,),) = names.con.execute(
        "SELECT oracle_text FROM cards WHERE oracle_id = ?", [r.oracle_id]
    ).fetchall()  # fetchall: no open result
    phrases = card_name_phrases(text or "")
    if not phrases:
        raise ConstraintCardError("no_instruction", card, name=r.name)
    return ChosenConstraint(parse_constraint(phrases[0]), phrases[0], r.name)


def constraint_for(names: ResolvesNames, phrase: str | None = None, card: str | None = None) -> ChosenConstraint:
    """The constraint of a phrase ("nonland"; None: any card name) or of a card's Oracle text (Meddling Mage),
    not both."""
    if phrase is not None and card is not None:
        raise ConstraintError("give a constraint phrase or a card to take it from, not both")
    if card is not None:
        return constraint_from_card(names, card)
    return ChosenConstraint(as_constraint(phrase), phrase or "", None)
