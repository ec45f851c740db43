"""How well do our parsed token specs (table ``token_specs``) agree with token links nobody here wrote?

Two independent references:

* Scryfall ``all_parts`` (table ``parts``, component 'token') in the real 2019 default-cards dump
  plus the 2024 search file: creator card -> token object. When the token printing is in the
  dump (``part_oracle_id`` set) its name, P/T and colours are compared; otherwise only the name
  (part_name) can be, reported separately.
* Cockatrice's tokens.xml (Magic-Token, 2026): each token ``<card>`` lists the cards that
  create it (``<reverse-related>``) with prop type / pt / colors. Links marked
  ``exclude="exclude"`` (Cockatrice's own "not created directly by this card") are reported
  apart.

What "agree" means
------------------
A link (creator C, token T) agrees when at least one spec of C (any face, any clause) has

* the same name on the *subtype-name basis*: our ``base_name`` (the given name for 111.9 /
  "named X" tokens, the 111.10 name for predefined tokens — "Treasure", "Cursed Role" — the
  card's name for 111.11 and for copies of the creator itself, else the subtypes, i.e. the
  111.4 name without the word "Token") equals T's name with a trailing " Token" / " (Token)"
  and Cockatrice's disambiguating trailing spaces removed (Scryfall names tokens "Goblin";
  111.4 names it "Goblin Token"; Cockatrice writes "Goblin Token");
* the same power and toughness (both absent counts as equal); and
* the same colours (as sets; colorless = empty).

A double-faced token agrees if a spec matches either face. Emblems and non-token helper
objects (the Monarch, dungeons, …) are not created tokens and are left out, and counted.

Usage::

    .venv/bin/python bench/token_agreement.py [--db /tmp/full.duckdb] [--rebuild]
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from realdata import require as require_realdata

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from oracle_tools import OracleDB  # noqa: E402
from oracle_tools.names.index import normalize  # noqa: E402

REAL = require_realdata(__file__)
BULK = [REAL / "scryfall-default-cards-2019-10-per-set-dump.json.gz", REAL / "scryfall-search-2024-mh3-otj-fdn.json.gz"]
COCKATRICE = REAL / "cockatrice-tokens-20260805b.xml.gz"


def token_key(name: str | None) -> str:
    """Subtype-name basis: 'Goblin Token', 'Goblin', 'Angel of Sanctions (Token)' -> comparable keys."""
    if not name:
        return ""
    key = normalize(name)
    key = re.sub(r"\s*\(token\)$", "", key)
    key = re.sub(r"\s+token$", "", key)
    return key


def pt_of(power: str | None, toughness: str | None) -> str:
    """P/T as 'p/t'; 'X' (set by the creating effect) and '*' (a characteristic-defining ability,
    CR 208.2a) are the same "variable" value here: Cockatrice and Scryfall print both as '*'."""
    if power is None and toughness is None:
        return ""
    return re.sub(r"\b[XY]\b", "*", f"{power}/{toughness}")


def spec_table(db: OracleDB) -> dict[str, list[dict]]:
    by_creator: dict[str, list[dict]] = defaultdict(list)
    for row in db.token_specs().filter(pl.col("parsed")).iter_rows(named=True):
        row["key"] = token_key(row["base_name"])
        row["pt"] = pt_of(row["power"], row["toughness"])
        row["cset"] = frozenset(row["colors"] or [])
        by_creator[row["creator_oracle_id"]].append(row)
    return by_creator


def judge(specs: list[dict], faces: Sequence[tuple[str, str | None, frozenset[str] | None]]) -> tuple[str, dict | None]:
    """'agree' or the disagreement category; faces are (key, pt, colours or None when unknown)."""
    if not specs:
        return "no spec parsed for the creator", None
    if any(k == "copy" for k, _, _ in faces):
        # Scryfall's generic "Copy" token object stands for "a token that's a copy of <another object>".
        copies = [s for s in specs if s["copy_of"] is not None]
        return ("agree", copies[0]) if copies else ("name differs", specs[0])
    named = [s for s in specs if any(s["key"] == k for k, _, _ in faces)]
    if not named:
        errata = [s for s in specs if any(k == f"phyrexian {s['key']}" for k, _, _ in faces)]
        if errata:  # 2023 errata gave Germs, Beasts, … the Phyrexian type; the 2019 Oracle text predates it
            return "name differs: 'Phyrexian' added by errata after the 2019 Oracle text", errata[0]
        return "name differs", specs[0]
    for s in named:
        for k, pt, cs in faces:
            if s["key"] == k and (pt is None or s["pt"] == pt) and (cs is None or s["cset"] == cs):
                return "agree", s
    with_pt = [s for s in named for k, pt, _ in faces if s["key"] == k and (pt is None or s["pt"] == pt)]
    if not with_pt:
        return "P/T differs (name agrees)", named[0]
    return "colours differ (name and P/T agree)", with_pt[0]


def report(title: str, results: list[tuple[str, str, str, dict | None]]) -> float:
    total = len(results)
    counts = Counter(cat for _, _, cat, _ in results)
    agree = counts.get("agree", 0)
    rate = agree / total if total else float("nan")
    print(f"\n== {title}: {agree}/{total} links agree = {rate:.1%}")
    for cat, n in counts.most_common():
        if cat == "agree":
            continue
        print(f"  {cat}: {n}")
        for creator, token, _, spec in [r for r in results if r[2] == cat][:3]:
            ours = (
                (
                    f"ours: {spec['base_name']!r} {spec['pt'] or '-'} {''.join(sorted(spec['cset'])) or 'C'} "
                    f"[{spec['rule']}] from {spec['clause'][:70]!r}"
                )
                if spec
                else "ours: (none)"
            )
            print(f"    {creator} -> {token}; {ours}")
    return rate


def scryfall(db: OracleDB, specs: dict[str, list[dict]]) -> None:
    # Only the printing id Scryfall linked counts: parts.part_oracle_id falls back to a guess by
    # unique name when the printing is absent (build_core.sql), which is not Scryfall's link.
    links = db.sql("""
        SELECT DISTINCT p.oracle_id, c.name AS creator, p.part_name, p.part_type_line, pp.oracle_id AS part_oracle_id,
               t.object_kind, t.power, t.toughness, t.colors
        FROM parts p JOIN cards c ON c.oracle_id = p.oracle_id AND c.is_card
        LEFT JOIN printings pp ON pp.id = p.part_id
        LEFT JOIN cards t ON t.oracle_id = pp.oracle_id
        WHERE p.component = 'token'""")
    token_faces = defaultdict(list)
    for oid, name, power, toughness, colors in db.con.execute(
        "SELECT f.oracle_id, f.name, f.power, f.toughness, f.colors FROM faces f JOIN cards c USING (oracle_id) "
        "WHERE NOT c.is_card AND f.role <> 'single'"
    ).fetchall():
        token_faces[oid].append((token_key(name), pt_of(power, toughness), frozenset(colors or [])))
    full, name_only, excluded = [], [], Counter[str]()
    seen: set[tuple] = set()
    for row in links.iter_rows(named=True):
        type_line = row["part_type_line"] or ""
        if not type_line.startswith("Token") or (row["object_kind"] not in (None, "token")):
            excluded[type_line.split(" — ")[0] or "(no type)"] += 1
            continue
        ident = (row["oracle_id"], row["part_oracle_id"] or (row["part_name"], type_line))
        if ident in seen:
            continue
        seen.add(ident)
        mine = specs.get(row["oracle_id"], [])
        if row["part_oracle_id"] is not None:
            faces = token_faces.get(row["part_oracle_id"]) or [
                (token_key(row["part_name"]), pt_of(row["power"], row["toughness"]), frozenset(row["colors"] or []))
            ]
            cat, spec = judge(mine, faces)
            full.append(
                (
                    row["creator"],
                    f"{row['part_name']} {pt_of(row['power'], row['toughness']) or '-'} "
                    f"{''.join(row['colors'] or []) or 'C'}",
                    cat,
                    spec,
                )
            )
        else:
            cat, spec = judge(mine, [(token_key(n), None, None) for n in row["part_name"].split(" // ")])
            name_only.append((row["creator"], row["part_name"], cat, spec))
    print("Scryfall all_parts token links (creators are Oracle cards; DB:", db.path, ")")
    print(
        f"  left out (not a created token: emblems, helper cards): {sum(excluded.values())} "
        f"{dict(excluded.most_common(5))}"
    )
    report("Scryfall, token object in the dump: name + P/T + colours", full)
    report("Scryfall, token printing not in the dump: name only", name_only)
    both = full + name_only
    print(
        f"\n   Scryfall all links together: {sum(r[2] == 'agree' for r in both)}/{len(both)} = "
        f"{sum(r[2] == 'agree' for r in both) / len(both):.1%}"
    )


def cockatrice(db: OracleDB, specs: dict[str, list[dict]]) -> None:
    with gzip.open(COCKATRICE, "rb") as handle:
        root = ET.parse(handle).getroot()
    rows = []
    skipped: Counter[str] = Counter()
    for card in root.iter("card"):
        name = card.findtext("name") or ""
        prop = card.find("prop")
        type_line = prop.findtext("type") if prop is not None else ""
        if not (type_line or "").startswith("Token"):
            # Emblems, counters ("Poison Counter"), states ("The Monarch", "Plot") and face-down
            # reminders ("Morph", "Manifest") are helper cards, not created tokens.
            skipped[(type_line or "(no type)").split(" — ")[0]] += len(card.findall("reverse-related"))
            continue
        pt = (prop.findtext("pt") or "") if prop is not None else ""
        colors = frozenset(prop.findtext("colors") or "") if prop is not None else frozenset()
        for rel in card.findall("reverse-related"):
            rows.append(((rel.text or "").strip(), name, pt, colors, rel.get("exclude") == "exclude"))
    creators = db.resolve_many(sorted({r[0] for r in rows}))
    oid_of = {
        q: oid for q, status, oid in creators.select("query", "status", "oracle_id").iter_rows() if status == "ok"
    }
    main: list[tuple[str, str, str, dict | None]] = []
    flagged: list[tuple[str, str, str, dict | None]] = []
    missing = 0
    for creator, name, pt, colors, exclude in rows:
        oid = oid_of.get(creator)
        if oid is None:
            missing += 1
            continue
        faces = [(token_key(n), pt.split(" // ")[0] if pt else "", colors) for n in name.split(" // ")]
        cat, spec = judge(specs.get(oid, []), faces)
        (flagged if exclude else main).append(
            (creator, f"{name.strip()} {pt or '-'} {''.join(sorted(colors)) or 'C'}", cat, spec)
        )
    print("\nCockatrice tokens.xml reverse-related links")
    print(
        f"  left out (helper cards, not created tokens): {sum(skipped.values())} links {dict(skipped.most_common(6))}"
    )
    print(f"  creators not in this database (cards newer than the dumps, or not found): {missing} links")
    report("Cockatrice (creators in the DB; exclude-flagged links left out): name + P/T + colours", main)
    report('Cockatrice links flagged exclude="exclude" (for information)', flagged)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/full.duckdb"))
    parser.add_argument("--rebuild", action="store_true", help="re-ingest the real dumps into --db first")
    args = parser.parse_args()
    if args.rebuild or not args.db.exists():
        print(f"ingesting the real dumps into {args.db} ...")
        OracleDB.ingest_files(args.db, BULK)
    with OracleDB(args.db) as db:
        if "token_specs" not in db.tables():
            raise SystemExit(f"{args.db} has no token_specs table (built by an older ingest); pass --rebuild")
        specs = spec_table(db)
        scryfall(db, specs)
        cockatrice(db, specs)


if __name__ == "__main__":
    main()
