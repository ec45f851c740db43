"""The token tables (CR 111), built at ingest: predefined tokens, every "create … token" clause, the tokens effects
name and define, and the names that are both a card's and a token's.

Built after the names layer and ``name_references`` into four tables:

* ``predefined_tokens`` — one row per CR 111.10x subrule of the rules stored in the database
  (parsed by :func:`oracle_tools.tokens.predefined.predefined_tokens`; nothing typed in here).
* ``token_specs`` — one row per token description in a "create … token(s)" clause of the Oracle
  text of every card (``faces.oracle_text``, ``is_card`` only), named by CR 111.4 / 111.9 /
  111.10 / 111.11 (copies: 707.2, the copied object's name).
* ``effect_tokens`` — the tokens effects create *with a name and the characteristics they state*
  (CR 111.4 "… token named X", 111.9 "create X, a legendary …"): one row per name and distinct
  definition, with the creating cards (Marit Lage: Dark Depths and Marit Lage's Slumber).
  The names are the ``name_references`` spans (kinds ``named`` / ``token_name``) of the creating card,
  so the two tables agree.
* ``token_collisions`` — names that are both a card (or face) name and a token name, with what
  each rule does with them.

The token-phrase grammar is :mod:`oracle_tools.text.tokentext`; clauses are found and placed (rules text,
reminder text, quoted ability) through :mod:`oracle_tools.text.oracletext`. The answers read these tables
(:mod:`oracle_tools.tokens.answers`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb
import polars as pl

from oracle_tools.names.kinds import OWN_NAME_LIST
from oracle_tools.names.token_names import token_name_strings
from oracle_tools.store import sqlfiles
from oracle_tools.text import oracletext, vocabulary
from oracle_tools.text.matching import normalize
from oracle_tools.text.tokentext import NUMBER_PATTERN, TokenDescription, default_token_name, parse_token_description
from oracle_tools.tokens.predefined import PredefinedToken, predefined_tokens

if TYPE_CHECKING:
    from oracle_tools.names.resolver import NameResolver
    from oracle_tools.text.comprules import RulesDocument

_STRINGS = pl.List(pl.String)


PREDEFINED_SCHEMA: dict[str, Any] = {
    "rule": pl.String,
    "name": pl.String,
    "given_name": pl.String,
    "game_name": pl.String,
    "colors": _STRINGS,
    "supertypes": _STRINGS,
    "card_types": _STRINGS,
    "subtypes": _STRINGS,
    "power": pl.String,
    "toughness": pl.String,
    "type_line": pl.String,
    "oracle_text": pl.String,
    "double_faced": pl.Boolean,
    "faces": pl.List(
        pl.Struct(
            {
                "name": pl.String,
                "given_name": pl.String,
                "type_line": pl.String,
                "colors": _STRINGS,
                "card_types": _STRINGS,
                "subtypes": _STRINGS,
                "power": pl.String,
                "toughness": pl.String,
                "oracle_text": pl.String,
            }
        )
    ),
    "notes": pl.String,
    "effective_date": pl.Date,
}
SPEC_SCHEMA: dict[str, Any] = {
    "creator_oracle_id": pl.String,
    "creator_name": pl.String,
    "face_index": pl.Int32,
    "face_name": pl.String,
    "clause_no": pl.Int32,
    "source": pl.String,
    "clause": pl.String,
    "count": pl.String,
    "count_n": pl.Int32,
    "name": pl.String,
    "base_name": pl.String,
    "given_name": pl.String,
    "rule": pl.String,
    "predefined_rule": pl.String,
    "card_oracle_id": pl.String,
    "supertypes": _STRINGS,
    "colors": _STRINGS,
    "card_types": _STRINGS,
    "subtypes": _STRINGS,
    "power": pl.String,
    "toughness": pl.String,
    "abilities": pl.String,
    "keywords": _STRINGS,
    "tapped": pl.Boolean,
    "attacking": pl.Boolean,
    "copy_of": pl.String,
    "parsed": pl.Boolean,
    "error": pl.String,
}
COLLISION_SCHEMA: dict[str, Any] = {
    "name": pl.String,
    "card": pl.String,
    "face": pl.String,
    "oracle_id": pl.String,
    "token_source": pl.String,
    "token_rule": pl.String,
    "creators": _STRINGS,
    "what": pl.String,
}


def build(con: duckdb.DuckDBPyConnection) -> None:
    """Create ``predefined_tokens``, ``token_specs``, ``effect_tokens`` and ``token_collisions`` (after
    ``names.build`` and ``references.build``: the names effects give tokens are read from ``name_references``)."""
    from oracle_tools.text import stored_rules as rules

    doc = rules.document(con)
    predefined = predefined_tokens(doc)  # CR 111.10: RulesFileError for a CR it cannot read
    sqlfiles.write_frame(con, "predefined_tokens", _predefined_frame(predefined))
    from oracle_tools.names.point import PointNames

    # The few hundred names token effects use are looked up by point queries: the whole index is not needed.
    index = PointNames(con)
    specs = extract_specs(con, predefined, index, doc)
    sqlfiles.write_frame(con, "token_specs", specs)
    sqlfiles.write_frame(con, "effect_tokens", effect_token_frame(specs, index))
    sqlfiles.write_frame(con, "token_collisions", _collisions(con, predefined, specs))
    # The token names a miss is offered, with their lookup keys: a fresh process reads these instead of
    # importing this module to list them (PointNames.token_matcher).
    offered = token_name_strings(con)
    suggestions = pl.DataFrame(
        {"key": [normalize(n) for n in offered], "name": offered}, schema={"key": pl.String, "name": pl.String}
    )
    sqlfiles.write_frame(con, "token_suggestions", suggestions, order_by="name")


def _face_dict(t: PredefinedToken) -> dict[str, Any]:
    return {
        "name": t.name,
        "given_name": t.given_name,
        "type_line": t.type_line,
        "colors": list(t.colors),
        "card_types": list(t.card_types),
        "subtypes": list(t.subtypes),
        "power": t.power,
        "toughness": t.toughness,
        "oracle_text": t.oracle_text,
    }


def _predefined_frame(tokens: list[PredefinedToken]) -> pl.DataFrame:
    rows = [
        {
            "rule": t.rule,
            "name": t.name,
            "given_name": t.given_name,
            "game_name": t.game_name,
            "colors": list(t.colors),
            "supertypes": list(t.supertypes),
            "card_types": list(t.card_types),
            "subtypes": list(t.subtypes),
            "power": t.power,
            "toughness": t.toughness,
            "type_line": t.type_line,
            "oracle_text": t.oracle_text,
            "double_faced": bool(t.faces),
            "faces": [_face_dict(f) for f in t.faces],
            "notes": " ".join(t.notes) or None,
            "effective_date": t.effective_date,
        }
        for t in tokens
    ]
    return pl.DataFrame(rows, schema=PREDEFINED_SCHEMA)


def predefined_keys(tokens: list[PredefinedToken]) -> dict[str, PredefinedToken]:
    """Lookup keys of the predefined tokens: the 111.10x name ("Cursed Role"), the given name
    ("Cursed", "Walker"), the 111.4 game name ("Treasure Token"), and face names."""
    keys: dict[str, PredefinedToken] = {}
    for t in tokens:
        for text in (t.name, f"{t.name} Token", t.given_name, t.game_name):
            if text:
                keys.setdefault(normalize(text), t)
    for t in tokens:  # face names last: "Phyrexian Token" (111.10i back face) never shadows a whole token
        for f in t.faces:
            for text in (f.given_name, f.game_name):
                if text:
                    keys.setdefault(normalize(text), t)
    return keys


# -- "create … token" clauses ------------------------------------------------------------------

_CREATE_RE = re.compile(r"\b[Cc]reates?\s+")
_FOLLOW_RE = re.compile(
    r"^(?:It|They|The token|Those tokens|Each of them|Each of those tokens)\s+(?:has|have)\s+(?P<ab>.+?)\.?$"
)
_QTY = rf"(?:a|an|{NUMBER_PATTERN}|X|that many)\s"  # number words: vocabulary.NUMBER_WORDS
_MORE_RE = re.compile(rf"^(?:,\s*)?(?:(?:and|or|plus)\s+(?={_QTY}|[A-Z])|(?={_QTY}))")
# Clauses that only refer back to tokens described elsewhere ("create five of those tokens instead",
# Doubling Season's "would create one or more tokens"): no new description.
_BACKREF_RE = re.compile(r"^(?:\S+\s+){0,3}of (?:those|these|the) tokens\b|^one or more tokens\b|^tokens\b")
_NAME_TAIL_RE = re.compile(r"\s+(?:at the beginning|at end of|when|whenever|if|until|for each|where|that)\b")
_CDA_RE = re.compile(r"power (?:and toughness )?(?:are|is) (?:each )?equal|power and toughness are each")
_KEYWORD_DEF_RE = re.compile(
    r"(?:“(?P<kw>[A-Z][^”]*?)”\s+means|^To (?P<kw2>[a-z][a-z ]*?) means)\s+“(?P<body>[^”]*?\b[Cc]reates? [^”]*)”"
)
_CLOSING_QUOTES = '"\u201d'


@dataclass(frozen=True)
class _Clause:
    """One "create(s) …" clause: the text after the verb (and "__HAS__ <abilities>" of a following
    "It has …" sentence), where it was read (an oracletext source or "keyword <CR rule>"), and the span
    ``start``-``end`` of the clause in the face's Oracle text (None for a keyword's CR definition)."""

    text: str
    source: str
    start: int | None = None
    end: int | None = None


def _create_clauses(text: str) -> list[_Clause]:
    """Every "create(s) …" clause of one face's text.

    The source is the one :func:`oracletext.sources` reads at the verb: ``text``, ``reminder`` (CR 207.2)
    or ``quoted`` (a quoted ability the card grants or a token has, CR 113.1). The clause ends at the
    sentence end, the closing quote of the ability it is in, or the closing parenthesis of reminder text.
    """
    out: list[_Clause] = []
    offset = 0
    for line in text.split("\n"):
        marks: list[str] | None = None
        for m in _CREATE_RE.finditer(line):
            marks = marks if marks is not None else oracletext.sources(line)
            source = marks[m.start()]
            seg = line[m.end() :]
            if source == "quoted":  # up to the closing quote of the ability the verb is in
                close = next((i for i in range(m.end(), len(line)) if marks[i] != "quoted"), len(line))
                seg = line[m.end() : close - 1 if close > m.end() and line[close - 1] in _CLOSING_QUOTES else close]
            seg, follow = _sentence(seg, source == "reminder")
            start = offset + m.end()
            clause = _Clause(seg, source, start, start + len(seg))
            fm = _FOLLOW_RE.match(follow) if follow else None
            if fm:
                clause = _Clause(f"{seg} __HAS__ {fm.group('ab')}", source, clause.start, clause.end)
            out.append(clause)
        offset += len(line) + 1
    return out


def _sentence(seg: str, in_paren: bool) -> tuple[str, str]:
    """Cut ``seg`` at its first sentence end outside quoted abilities (:func:`oracletext.quote_mask`);
    also return the next sentence."""
    quoted = oracletext.quote_mask(seg, strict=False)
    n = len(seg)
    for i, ch in enumerate(seg):
        if quoted[i]:
            closing = ch in _CLOSING_QUOTES and (i + 1 == n or not quoted[i + 1]) and i > 0 and quoted[i - 1]
            rest = seg[i + 1 :]
            if closing and seg[i - 1] == "." and (not rest.strip() or re.match(r" +[A-Z]", rest)):
                # 'It has "Sacrifice this artifact: Add one mana of any color." Each opponent …'
                # (Curse of Opulence): the sentence ends with the quoted ability's own period.
                follow, _ = _sentence(rest.strip(), in_paren) if rest.strip() else ("", "")
                return seg[: i + 1], follow
        elif (ch == ")" and in_paren) or ch == "(":
            return seg[:i].rstrip(" ."), ""
        elif ch == "." and (i + 1 == n or seg[i + 1] == " "):
            follow, _ = _sentence(seg[i + 1 :].strip(), in_paren) if i + 1 < n else ("", "")
            return seg[:i], follow
    return seg.rstrip(" ."), ""


def _parse_clause(seg: str) -> list[TokenDescription]:
    """One clause -> its token descriptions ("a 1/1 … token and a 2/2 … token" gives two;
    "your choice of a … or a …" gives both choices)."""
    has = ""
    if " __HAS__ " in seg:
        seg, has = seg.split(" __HAS__ ", 1)
    seg = re.sub(r"^(?:your choice of|a choice of)\s+", "", seg.strip()).rstrip("'\u2019. ")
    if _BACKREF_RE.match(seg):
        return []
    descs: list[TokenDescription] = []
    while seg:
        try:
            d = parse_token_description(seg)
        except ValueError:
            if not descs:
                raise
            break  # "…, and a …" that turned out not to be another token description
        descs.append(d)
        more = _MORE_RE.match(d.rest or "")
        if not more or d.copy_of is not None:
            break
        seg = d.rest[more.end() :]
    if has and descs:  # CR 111.4: "Create a … token named X. It has …" — the next sentence's abilities
        last = descs[-1]
        descs[-1] = TokenDescription(
            **{**last.__dict__, "abilities_text": ", ".join(x for x in (last.abilities_text, has) if x)}
        )
    return descs


def keyword_definitions(doc: RulesDocument) -> dict[str, tuple[str, str]]:
    """Keyword actions/abilities whose CR definition creates a token, e.g. "investigate" ->
    ("701.16a", "Create a Clue token."). Only definitions without placeholders other than N."""
    out: dict[str, tuple[str, str]] = {}
    for number in doc.rules:
        if not number.startswith(("701.", "702.")):
            continue
        m = _KEYWORD_DEF_RE.search(doc.statement(number))
        if not m:
            continue
        keyword = (m.group("kw") or m.group("kw2") or "").strip()
        keyword = re.sub(r"\s+(?:N|\[[^\]]*\])$", "", keyword)
        body = m.group("body")
        if "[" in body or "copy" in body:
            continue
        out.setdefault(keyword.lower(), (number, body))
    return out


_ParsedClause = tuple[dict[str, Any], dict[str, Any], int, str, str, list[tuple[int, str]], list[TokenDescription]]


def extract_specs(
    con: duckdb.DuckDBPyConnection, predefined: list[PredefinedToken], index: NameResolver, doc: RulesDocument
) -> pl.DataFrame:
    """Parse every "create … token(s)" clause of every card's Oracle text into token specs."""
    keys = predefined_keys(predefined)
    kw_defs = keyword_definitions(doc)
    kw_re = (
        re.compile(
            r"\b("
            + "|".join(re.escape(k) for k in sorted(kw_defs, key=len, reverse=True))
            + r")(?:s|es)?\b(?:\s+(\d+|X))?",
            re.IGNORECASE,
        )
        if kw_defs
        else None
    )
    # Only the faces that may create a token: "create", or a keyword whose definition does (the same pattern, in
    # DuckDB's RE2: most faces do neither)
    may_create = r"(?i)\bcreate" + (r"|" + kw_re.pattern if kw_re is not None else "")
    faces = con.execute(sqlfiles.load("tokens.sql"), [may_create]).fetchall()
    given_names = _given_name_spans(con)
    # Every clause is parsed first, so the names its descriptions may be named after (CR 111.11) are looked up
    # in one query before the specs are made: (base, creator, clause_no, source, clause, names given in it,
    # descriptions), or the row of a clause that does not parse.
    parsed: list[_ParsedClause | dict[str, Any]] = []
    for (
        oid,
        face_index,
        face_name,
        card_name,
        type_line,
        text,
        f_colors,
        f_super,
        f_types,
        f_sub,
        f_pow,
        f_tough,
    ) in faces:
        base = {"creator_oracle_id": oid, "creator_name": card_name, "face_index": face_index, "face_name": face_name}
        creator = {
            "name": face_name,
            "self_names": [face_name] if face_name == card_name else [face_name, card_name],  # CR 201.5
            "type_line": type_line,  # CR 201.5c: shortened names are a legendary card's
            "colors": f_colors or [],
            "supertypes": f_super or [],
            "card_types": f_types or [],
            "subtypes": f_sub or [],
            "power": f_pow,
            "toughness": f_tough,
        }
        clauses = _create_clauses(text)
        if kw_re is not None:  # CR 701/702: a keyword that creates a token without its reminder text
            for line in text.split("\n"):
                if _CREATE_RE.search(line):
                    continue
                marks: list[str] | None = None
                for km in kw_re.finditer(line):
                    marks = marks if marks is not None else oracletext.sources(line)
                    if marks[km.start()] != "text":  # the keyword inside reminder text or a quoted ability
                        continue
                    number, body = kw_defs[km.group(1).lower()]
                    body = re.sub(r"\bN\b", km.group(2) or "N", body)
                    clauses.extend(_Clause(c.text, f"keyword {number}") for c in _create_clauses(body))
        spans = given_names.get((oid, face_index), [])
        marks = _line_sources(text) if spans else []
        for clause_no, clause in enumerate(clauses):
            seg, source = clause.text, clause.source
            named = [
                (start, name)
                for start, name, kind in spans
                if clause.start is not None
                and clause.end is not None
                and clause.start <= start < clause.end
                and (kind == "token_name" or marks[start] == source)  # not "named X" in a quoted ability within
            ]
            try:
                parsed.append((base, creator, clause_no, source, seg, named, _parse_clause(seg)))
            except ValueError as exc:
                parsed.append(
                    {
                        **base,
                        "clause_no": clause_no,
                        "source": source,
                        "clause": seg,
                        "parsed": False,
                        "error": str(exc),
                    }
                )
    bare_names = [d.bare_name for p in parsed if isinstance(p, tuple) for d in p[-1] if d.bare_name is not None]
    index.prefetch(bare_names)
    named_after = sorted({r.oracle_id for b in bare_names if (r := index.resolve(b, suggest=0)).ok and r.oracle_id})
    cards = {  # the Oracle cards those names are (CR 111.11), not every card
        oid: row
        for oid, *row in con.execute(
            "SELECT oracle_id, name, mana_cost, type_line, oracle_text, colors, power, toughness FROM cards "
            "WHERE is_card AND oracle_id IN $oids",
            {"oids": named_after},
        ).fetchall()
    }
    rows: list[dict[str, Any]] = []
    for entry in parsed:
        if isinstance(entry, dict):  # a clause that does not parse, kept with its error
            rows.append(entry)
            continue
        base, creator, clause_no, source, seg, named, descs = entry
        for d in descs:
            given = _take_given_name(d, named) if d.given_name else None
            rows.append(
                {
                    **base,
                    "clause_no": clause_no,
                    "source": source,
                    "clause": seg,
                    **_spec(d, source, creator, keys, index, cards, given),
                }
            )
    frame = pl.DataFrame(rows, schema=SPEC_SCHEMA)
    return frame.with_columns(
        pl.col(c).fill_null([]) for c in ("supertypes", "colors", "card_types", "subtypes", "keywords")
    )


def _given_name_spans(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, int], list[tuple[int, str, str]]]:
    """The ``name_references`` rows that can give a token its name, per face: (start, text, kind) of
    ``token_name`` (CR 111.9 "create Marit Lage, a legendary …") and ``named`` ("… token named X", CR 111.4)
    mentions. Token names are read from these spans, so ``effect_tokens`` and ``name_references`` agree."""
    out: dict[tuple[str, int], list[tuple[int, str, str]]] = {}
    for oid, face_index, start, text, kind in con.execute(
        """SELECT oracle_id, face_index, start, text, kind FROM name_references
        WHERE kind IN ('named', 'token_name') ORDER BY oracle_id, face_index, start"""
    ).fetchall():
        out.setdefault((oid, face_index), []).append((start, text, kind))
    return out


def _line_sources(text: str) -> list[str]:
    """:func:`oracletext.sources` of a face's text, line by line (a quote never spans lines), "\n" as text."""
    return [mark for line in text.split("\n") for mark in (*oracletext.sources(line), "text")]


def _take_given_name(d: TokenDescription, named: list[tuple[int, str]]) -> str | None:
    """The name ``name_references`` read for this description: the first unused mention in its clause that
    the parsed name starts with ("Butterfly" of "named Butterfly at the beginning of the next end step",
    Giant Caterpillar). The mention is removed from ``named`` (a clause may name two tokens)."""
    raw = " ".join((d.given_name or "").split())
    for i, (_start, name) in enumerate(named):
        if raw == name or (raw.startswith(name) and not (raw[len(name)].isalnum() or raw[len(name)] in "'’-")):
            del named[i]
            return name
    return None


def _count(d: TokenDescription) -> str:
    quantity = d.quantity or "a"
    tail = re.match(r"^(for each .+|equal to .+|where X is .+)$", d.rest or "")
    return f"{quantity} {tail.group(1)}" if tail else quantity


def _spec(
    d: TokenDescription,
    source: str,
    creator: dict[str, Any],
    keys: dict[str, PredefinedToken],
    index: NameResolver,
    cards: dict[str, list[Any]],
    given: str | None = None,
) -> dict[str, Any]:
    """Name and characteristics of one parsed description, by the rule that applies. ``given`` is the
    token's name as ``name_references`` reads it (CR 111.4 "named X", 111.9 "create X, a …")."""
    spec: dict[str, Any] = {
        "count": _count(d),
        "count_n": d.count,
        "given_name": d.given_name,
        "supertypes": list(d.supertypes),
        "colors": list(d.colors),
        "card_types": list(d.card_types),
        "subtypes": list(d.subtypes),
        "power": d.power,
        "toughness": d.toughness,
        "abilities": d.abilities_text or None,
        "keywords": list(d.keywords),
        "tapped": d.tapped,
        "attacking": d.attacking,
        "copy_of": d.copy_of,
        "parsed": True,
        "error": None,
    }
    if d.copy_of is not None:
        # CR 707.2 (and the 111.4 example, Spitting Image): a copy has the copied object's name
        # and copiable values; "except …" modifies them.
        parts = re.split(r",?\s+except\s+", d.copy_of, maxsplit=1)
        target = parts[0].strip()
        except_ = parts[1] if len(parts) > 1 else ""
        ta = re.search(r"\s+that(?:'s| is| are)\s+(?P<what>(?:tapped|attacking|and|\s)+)\b.*$", target)
        if ta:  # "a copy of this creature that's tapped and attacking …" (Herald of the Host)
            spec["tapped"] = spec["tapped"] or "tapped" in ta.group("what")
            spec["attacking"] = spec["attacking"] or "attacking" in ta.group("what")
            target = target[: ta.start()].strip()
        # The card itself: "this creature" etc. outside quoted abilities (inside one, "this creature"
        # is whatever has the ability: Splinter Twin), its own name, or "it" in reminder text
        # (embalm 702.128a, eternalize, encore: "a copy of it" = this card).
        is_self = oracletext.refers_to_self(
            target, creator["self_names"], type_line=creator["type_line"], this_object=source != "quoted"
        ) or (target == "it" and source == "reminder")
        spec.update(rule="707.2", copy_of=target)
        if is_self:
            spec.update(
                name=creator["name"],
                base_name=creator["name"],
                colors=list(creator["colors"]),
                supertypes=list(creator["supertypes"]),
                card_types=list(creator["card_types"]),
                subtypes=list(creator["subtypes"]),
                power=creator["power"],
                toughness=creator["toughness"],
            )
            _apply_except(spec, except_)
        return spec
    bare = d.bare_name
    if bare is not None and normalize(bare) in keys:
        t = keys[normalize(bare)]  # CR 111.10: the predefined definition (the effect may add to it)
        spec.update(
            rule=t.rule,
            predefined_rule=t.rule,
            name=t.game_name,
            base_name=t.name,
            given_name=t.given_name,
            colors=list(t.colors),
            supertypes=list(t.supertypes),
            card_types=list(t.card_types),
            subtypes=list(t.subtypes),
            power=t.power,
            toughness=t.toughness,
            abilities=t.oracle_text or None,
        )
        return spec
    if bare is not None:
        r = index.resolve(bare, suggest=0)
        if r.ok and r.oracle_id in cards:  # CR 111.11: the Oracle card with that name
            _name, _mana_cost, type_line, _text, colors, power, toughness = cards[r.oracle_id]
            spec.update(
                rule="111.11",
                name=r.english_name,
                base_name=r.english_name,
                card_oracle_id=r.oracle_id,
                colors=list(colors or []),
                card_types=_types(type_line)[1],
                supertypes=_types(type_line)[0],
                subtypes=_types(type_line)[2],
                power=power,
                toughness=toughness,
                abilities=None,
            )
            return spec
    if d.given_name:
        # The name is the span name_references holds ("Butterfly" of "… named Butterfly at the beginning of the
        # next end step", Giant Caterpillar). Without one, the phrase's name up to a lower-case clause is kept
        # in token_specs with an error, and effect_tokens leaves it out, so the two tables cannot disagree.
        if given is None:
            given = _NAME_TAIL_RE.split(d.given_name)[0].strip()
            spec["error"] = (
                f"the token's name {given!r} (CR 111.4, 111.9) is not a name mention in name_references; "
                "it is kept out of effect_tokens"
            )
        d = TokenDescription(**{**d.__dict__, "given_name": given})
        spec["given_name"] = given
        # CR 111.9 "create [name], a legendary …"; CR 111.4 "… token named X" — the effect names it.
        legendary_form = bool(re.match(re.escape(given) + r",\s", " ".join(d.text.split())))
        spec.update(rule="111.9" if legendary_form else "111.4", name=given, base_name=given)
    else:
        spec.update(rule="111.4", name=default_token_name(d.subtypes), base_name=" ".join(d.subtypes) or None)
    if spec["power"] is None and "Creature" in d.card_types and _CDA_RE.search(spec["abilities"] or ""):
        spec["power"] = spec["toughness"] = "*"  # CR 208.2a: P/T defined by an ability, printed as */*
    sub = " ".join(d.subtypes)
    if normalize(sub) in keys and keys[normalize(sub)].subtypes == d.subtypes:
        spec["predefined_rule"] = keys[normalize(sub)].rule  # described in full, same as the 111.10 token
    if bare is not None and not d.given_name:
        spec["error"] = f"'{bare}' is neither a predefined token (111.10) nor an Oracle card (111.11)"
    return spec


def _types(type_line: str | None) -> tuple[list[str], list[str], list[str]]:
    left, _, right = (type_line or "").split(" // ")[0].partition(" — ")
    words = left.split()
    supers = [w for w in words if w in vocabulary.supertypes()]  # CR 205.4a
    return supers, [w for w in words if w not in supers and w != "Token"], right.split()


def _apply_except(spec: dict[str, Any], except_: str) -> None:
    """The common "except …" modifications of a copy (embalm 702.128a: white; eternalize: 4/4 black)."""
    if not except_:
        return
    pt = re.search(r"\b(\d+)/(\d+)\b", except_)
    if pt:
        spec["power"], spec["toughness"] = pt.group(1), pt.group(2)
    colors = {letter for word, letter in vocabulary.COLOR_LETTERS.items() if re.search(rf"\b{word}\b", except_)}
    if colors and not re.search(r"\b(?:in addition|addition to)\b", except_):
        spec["colors"] = [c for c in vocabulary.COLOR_WORD_BY_LETTER if c in colors]  # CR 105.1 order
    elif colors:
        spec["colors"] = [c for c in vocabulary.COLOR_WORD_BY_LETTER if c in colors | set(spec["colors"])]


# -- tokens that effects name and define (CR 111.4, 111.9) ----------------------------------------

EFFECT_SCHEMA: dict[str, Any] = {
    "name": pl.String,
    "key": pl.String,
    "definition": pl.Int32,
    "definitions": pl.Int32,
    "rule": pl.String,
    "type_line": pl.String,
    "supertypes": _STRINGS,
    "card_types": _STRINGS,
    "subtypes": _STRINGS,
    "colors": _STRINGS,
    "power": pl.String,
    "toughness": pl.String,
    "oracle_text": pl.String,
    "abilities": pl.String,
    "creators": _STRINGS,
    "creator_oracle_ids": _STRINGS,
    "clause": pl.String,
    "card_name": pl.String,
    "card_oracle_id": pl.String,
}
_EFFECT_RULES = ("111.4", "111.9")
_QUOTED_RE = re.compile(r'"([^"]*)"|“([^”]*)”')
_LIST_SEP_RE = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+")


def token_type_line(supertypes: list[str], card_types: list[str], subtypes: list[str]) -> str:
    """The type line of a token an effect describes, written as Scryfall writes token type lines
    (CR 111.4: "Token Legendary Creature — Avatar")."""
    left = " ".join(["Token", *supertypes, *card_types])
    return f"{left} — {' '.join(subtypes)}" if subtypes else left


def oracle_text_of(abilities: str | None) -> str | None:
    """A token's abilities as its rules text: keyword abilities on one line ("Flying, indestructible"),
    each quoted ability (CR 113.1a: an ability in quotation marks is one the token has) on its own
    line without the quotes — how Scryfall writes the text of token objects."""
    if not abilities:
        return None
    lines: list[str] = []
    keywords: list[str] = []

    def flush() -> None:
        if keywords:
            line = ", ".join(keywords)
            lines.append(line[:1].upper() + line[1:])
            keywords.clear()

    pos = 0
    for m in [*_QUOTED_RE.finditer(abilities), None]:
        plain = abilities[pos : m.start() if m else len(abilities)]
        keywords.extend(k for k in (p.strip(" .") for p in _LIST_SEP_RE.split(plain)) if k and k not in ("and", "or"))
        if m is None:
            break
        flush()
        quoted = (m.group(1) if m.group(1) is not None else m.group(2)).strip().rstrip(",")
        if quoted and quoted[-1] not in ".!?":
            quoted += "."  # 'with "Equipped creature gets +5/+5 and has double strike," and …'
        lines.append(quoted[:1].upper() + quoted[1:])
        pos = m.end()
    flush()
    return "\n".join(lines) or None


def _definition_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two definitions the same token: every characteristic the effect states
    (case and spacing of the abilities text do not matter)."""
    return (
        tuple(row["supertypes"] or ()),
        tuple(row["card_types"] or ()),
        tuple(row["subtypes"] or ()),
        tuple(row["colors"] or ()),
        row["power"],
        row["toughness"],
        " ".join((row["oracle_text"] or "").lower().split()),
    )


def effect_token_frame(specs: pl.DataFrame, index: NameResolver) -> pl.DataFrame:
    """Table ``effect_tokens``: the tokens effects create with a name they give and the
    characteristics they state (CR 111.4 "… token named X", 111.9 "create X, a legendary …").

    One row per name and distinct definition (``definition`` 1 is the one most creators use;
    ``definitions`` counts them), with the creating cards. ``card_name`` / ``card_oracle_id`` is
    an Oracle card sharing the name (Kobolds of Kher Keep): the effect's definition is the token,
    and 111.11 would use that card only for an effect that names the token without defining it.
    """
    named = specs.filter(
        pl.col("parsed")
        & pl.col("error").is_null()  # a name that is not a name_references span never gets here
        & pl.col("rule").is_in(_EFFECT_RULES)
        & pl.col("given_name").is_not_null()
        & pl.col("name").is_not_null()
        & pl.col("copy_of").is_null()
    )
    groups: dict[str, dict[tuple[Any, ...], list[dict[str, Any]]]] = {}
    names: dict[str, str] = {}
    for row in named.iter_rows(named=True):
        row["oracle_text"] = oracle_text_of(row["abilities"])
        key = normalize(row["name"])
        names.setdefault(key, row["name"])
        groups.setdefault(key, {}).setdefault(_definition_key(row), []).append(row)
    out: list[dict[str, Any]] = []
    index.prefetch(names.values())
    for key, definitions in sorted(groups.items()):
        ordered = sorted(
            definitions.values(),
            key=lambda rows: (-len({r["creator_oracle_id"] for r in rows}), min(r["creator_name"] for r in rows)),
        )
        card = index.resolve(names[key], suggest=0)
        card_name = card_oid = None
        if card.ok and normalize(card.english_name or "") == key:  # the same name, not a foreign or alternate one
            card_name, card_oid = card.english_name, card.oracle_id
        for number, rows in enumerate(ordered, start=1):
            first = min(rows, key=lambda r: (r["creator_name"], r["clause_no"]))
            creators = sorted({(r["creator_name"], r["creator_oracle_id"]) for r in rows})
            rules = [r["rule"] for r in rows]
            out.append(
                {
                    "name": names[key],
                    "key": key,
                    "definition": number,
                    "definitions": len(ordered),
                    "rule": max(sorted(set(rules)), key=rules.count),
                    "type_line": token_type_line(first["supertypes"], first["card_types"], first["subtypes"]),
                    "supertypes": first["supertypes"],
                    "card_types": first["card_types"],
                    "subtypes": first["subtypes"],
                    "colors": first["colors"],
                    "power": first["power"],
                    "toughness": first["toughness"],
                    "oracle_text": first["oracle_text"],
                    "abilities": first["abilities"],
                    "creators": [c for c, _ in creators],
                    "creator_oracle_ids": [o for _, o in creators],
                    "clause": first["clause"],
                    "card_name": card_name,
                    "card_oracle_id": card_oid,
                }
            )
    return pl.DataFrame(out, schema=EFFECT_SCHEMA)


# -- collisions ------------------------------------------------------------------------------------


def _collisions(con: duckdb.DuckDBPyConnection, predefined: list[PredefinedToken], specs: pl.DataFrame) -> pl.DataFrame:
    """Names that are both a card/face name (201.4 may choose them) and a token name."""
    tokens: list[tuple[str, str, str, list[str], str]] = []  # (token name, source, rule, creators, what)

    def add(token_name: str, source: str, rule: str, creators: list[str], what: str) -> None:
        tokens.append((token_name, source, rule, creators, what))

    for t in predefined:
        for text in {n for n in (t.name, t.given_name, t.game_name) if n}:
            add(
                text,
                "predefined",
                t.rule,
                [],
                f"{{name}}: {t.rule} predefined wins for 'create a {t.name} token' (111.10; 111.11 excludes "
                f"predefined names); 201.4 choose-a-card-name may name {{name}} ({{where}}).",
            )
    named = specs.filter(
        pl.col("rule").is_in(["111.11", "111.9", "111.4"]) & pl.col("given_name").is_not_null()
        | (pl.col("rule") == "111.11")
    )
    for (name, rule), group in named.group_by(["name", "rule"]):
        creators = group.get_column("creator_name").to_list()
        if rule == "111.11":
            what = (
                "{name}: 111.11 'create a {name} token' uses the Oracle card {card} for every characteristic; "
                "201.4 may name it ({where})."
            )
        else:
            what = (
                f"{{name}}: the creating effect names the token and states its characteristics ({rule}); it is "
                "not the card {card}, though 201.4 choose-a-card-name may name {name} ({where}; a token's name "
                "only if it is also a card's)."
            )
        add(name, "token_spec", rule, creators, what)
    for (name,) in con.execute("SELECT DISTINCT name FROM token_names WHERE object_kind = 'token'").fetchall():
        add(
            name,
            "token_object",
            "111.4",
            [],
            "{name}: Scryfall has a token object named {name}; its characteristics come from the effect that "
            "creates it (111.4), not from the card {card}; 201.4 may name {name} ({where}).",
        )
    card_keys: dict[str, list[tuple[str, str | None, str]]] = {}
    for key, card, face, oid in con.execute(
        """SELECT n.key, c.name, CASE WHEN n.face_index IS NOT NULL THEN f.name END, n.oracle_id
        FROM names n JOIN cards c USING (oracle_id)
        LEFT JOIN faces f ON f.oracle_id = n.oracle_id AND f.face_index = n.face_index
        WHERE list_contains(?, n.via) AND c.is_card AND list_contains(?, n.key)""",
        [OWN_NAME_LIST, sorted({normalize(t[0]) for t in tokens})],
    ).fetchall():
        card_keys.setdefault(key, []).append((card, face, oid))
    rows: list[dict[str, Any]] = []
    for token_name, source, rule, creators, what in tokens:
        for card, face, oid in card_keys.get(normalize(token_name), []):
            where = f"face of {card}" if face else "a card"
            rows.append(
                {
                    "name": token_name,
                    "card": card,
                    "face": face,
                    "oracle_id": oid,
                    "token_source": source,
                    "token_rule": rule,
                    "creators": sorted(set(creators))[:20],
                    "what": what.format(name=token_name, card=card, where=where),
                }
            )
    frame = pl.DataFrame(rows, schema=COLLISION_SCHEMA)
    return frame.unique(["name", "card", "token_source", "token_rule"]).sort(["name", "token_source", "token_rule"])
