"""Card symbols and mana costs: Scryfall's ``/symbology`` list and ``/symbology/parse-mana``.

The symbols are the ones the Comprehensive Rules define — mana symbols (CR 107.4: colored, numerical,
variable, colorless, hybrid, monocolored hybrid, Phyrexian, hybrid Phyrexian, snow), the tap and untap
symbols (107.5, 107.6), energy (107.14), ticket (107.17), pawprint (107.18) — read from the rules stored in
the database, plus every symbol the database's mana costs and Oracle texts use that one of those classes
describes (numerals beyond {4}, half mana of the Un-sets …). Each is a Scryfall ``card_symbol`` object
(https://scryfall.com/docs/api/card-symbols): what it represents, its mana value (CR 202.3), its colors.
``svg_uri`` is left out: the symbol images are Scryfall's, not in the data.

:func:`parse_mana` reads a cost the way Scryfall's parse-mana does — braces optional (``2WW``), any case,
symbols in any order, several generic parts summed (``2{g}2`` is ``{4}{G}``) — and answers a ``mana_cost``
object; anything it cannot read is a :class:`ManaCostError` naming the part.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from oracle_tools.errors import ManaCostError
from oracle_tools.text.vocabulary import COLOR_WORD_BY_LETTER

if TYPE_CHECKING:
    import duckdb

COLORS = "WUBRG"
_COLOR_WORDS = COLOR_WORD_BY_LETTER  # "W" -> "white"
_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
#: The rules that define symbols (CR 107.4 and its subrules are read too).
SYMBOL_RULES = ("107.4", "107.5", "107.6", "107.14", "107.17", "107.18")
_BRACED = re.compile(r"\{[^{}\s]{1,12}\}")


def _amount(n: int) -> str:
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def describe(symbol: str) -> dict[str, Any] | None:
    """The ``card_symbol`` object of one braced symbol, or None when no class of symbol fits it."""
    inner = symbol[1:-1]
    parts = inner.split("/")

    def card_symbol(
        english: str,
        *,
        mana_value: float | None,
        colors: list[str],
        mana: bool = True,
        in_costs: bool = True,
        hybrid: bool = False,
        phyrexian: bool = False,
        transposable: bool = False,
        funny: bool = False,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {
            "object": "card_symbol",
            "symbol": symbol,
            "english": english,
            "transposable": transposable,
            "represents_mana": mana,
            "appears_in_mana_costs": in_costs,
            "hybrid": hybrid,
            "phyrexian": phyrexian,
            "funny": funny,
            "colors": [c for c in COLORS if c in colors],
        }
        if mana_value is not None:
            out["mana_value"] = mana_value
            out["cmc"] = mana_value  # Scryfall's older name for it, still sent
        if re.fullmatch(r"[WUBRGCSXYZ0-9]|1[0-9]", inner):
            out["loose_variant"] = inner  # written without braces ("2WW")
        return out

    if inner in _COLOR_WORDS:  # CR 107.4a
        return card_symbol(f"one {_COLOR_WORDS[inner]} mana", mana_value=1, colors=[inner])
    if inner.isascii() and inner.isdigit() and len(inner) <= len(str(MAX_GENERIC)):  # CR 107.4b, 107.4d
        n = int(inner)
        return card_symbol(f"{_amount(n)} generic mana", mana_value=n, colors=[], funny=n > 20)
    if inner in ("X", "Y", "Z"):  # CR 107.3, 107.4b: zero everywhere but on the stack
        return card_symbol(f"{inner} generic mana", mana_value=0, colors=[])
    if inner == "C":  # CR 107.4c
        return card_symbol("one colorless mana", mana_value=1, colors=[])
    if inner == "S":  # CR 107.4h
        return card_symbol("one snow mana", mana_value=1, colors=[])
    if inner == "½":
        return card_symbol("one-half generic mana", mana_value=0.5, colors=[], funny=True)
    if len(inner) == 2 and inner[0] == "H" and inner[1] in _COLOR_WORDS:
        return card_symbol(f"one-half {_COLOR_WORDS[inner[1]]} mana", mana_value=0.5, colors=[inner[1]], funny=True)
    if inner == "H":  # CR 107.4g: in rules text, any Phyrexian mana symbol
        return card_symbol("any Phyrexian mana symbol", mana_value=None, colors=[], in_costs=False, phyrexian=True)
    if len(parts) == 2 and all(p in _COLOR_WORDS for p in parts):  # CR 107.4e: hybrid
        a, b = parts
        return card_symbol(f"one {_COLOR_WORDS[a]} or {_COLOR_WORDS[b]} mana", mana_value=1, colors=[a, b], hybrid=True)
    if len(parts) == 2 and parts[1] in _COLOR_WORDS and parts[0] in ("2", "C"):  # CR 107.4e: monocolored hybrid
        colour = _COLOR_WORDS[parts[1]]
        generic = "two generic mana" if parts[0] == "2" else "one colorless mana"
        return card_symbol(
            f"{generic} or one {colour} mana", mana_value=2 if parts[0] == "2" else 1, colors=[parts[1]], hybrid=True
        )
    if len(parts) == 2 and "P" in parts and (set(parts) - {"P"}) <= set(_COLOR_WORDS) and parts[0] != parts[1]:
        colour = parts[0] if parts[1] == "P" else parts[1]  # CR 107.4f: Phyrexian ({P/U} is the same symbol)
        return card_symbol(
            f"one {_COLOR_WORDS[colour]} mana or two life",
            mana_value=1,
            colors=[colour],
            phyrexian=True,
            transposable=parts[0] == "P",
        )
    if len(parts) == 3 and parts[2] == "P" and parts[0] in _COLOR_WORDS and parts[1] in _COLOR_WORDS:
        a, b = parts[0], parts[1]  # CR 107.4f: hybrid Phyrexian
        return card_symbol(
            f"one {_COLOR_WORDS[a]} mana, one {_COLOR_WORDS[b]} mana, or two life",
            mana_value=1,
            colors=[a, b],
            hybrid=True,
            phyrexian=True,
        )
    others = {
        "T": "tap this permanent",  # CR 107.5
        "Q": "untap this permanent",  # CR 107.6
        "E": "an energy counter",  # CR 107.14
        "TK": "a ticket counter",  # CR 107.17
        "P": "pawprint",  # CR 107.18: marks a mode; not a cost
    }
    if inner in others:
        return card_symbol(others[inner], mana_value=None, colors=[], mana=False, in_costs=False)
    return None


_MANA_VALUE_ORDER = {"X": 0, "Y": 1, "Z": 2}


def _sort_key(sym: dict[str, Any]) -> tuple[int, float, str]:
    inner = sym["symbol"][1:-1]
    if inner.isascii() and inner.isdigit() and len(inner) <= len(str(MAX_GENERIC)):
        return (1, int(inner), inner)
    if inner in _MANA_VALUE_ORDER:
        return (0, _MANA_VALUE_ORDER[inner], inner)
    return (2 if sym["represents_mana"] else 3, 0, inner)


def symbols(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every card symbol the stored rules define and every described symbol the cards use, as Scryfall's
    ``card_symbol`` objects: variables, numerals, the other mana symbols, then the rest."""

    texts = [
        t
        for (t,) in con.execute(
            "SELECT text FROM rules WHERE number IN (SELECT unnest($numbers)) OR number LIKE '107.4_'",
            {"numbers": list(SYMBOL_RULES)},
        ).fetchall()
    ]
    found: set[str] = set()
    for text in texts:
        found.update(_BRACED.findall(text))
    found.update(
        s
        for (s,) in con.execute(
            "SELECT DISTINCT unnest(regexp_extract_all(coalesce(mana_cost, '') || ' ' || coalesce(oracle_text, ''), ?)) "
            "FROM faces",
            [_BRACED.pattern],  # the symbols the rules' texts are read for, found the same way
        ).fetchall()
    )
    described = [d for d in (describe(s) for s in found) if d is not None]
    return sorted(described, key=_sort_key)


#: The most generic mana a cost may have: Gleemax's {1000000}, the largest printed. A larger number (400 digits) is no
#: cost a card has, and its mana value would not fit a float.
MAX_GENERIC = 1_000_000

_TOKEN = re.compile(r"\{(?P<braced>[^{}]*)\}|(?P<digits>[0-9]+)|(?P<letter>[A-Za-z½])|(?P<space>\s+)|(?P<other>.)")


def parse_mana(cost: str) -> dict[str, Any]:
    """Scryfall's ``mana_cost`` object of ``cost``: the normalized cost (variables, then the summed generic
    mana, then the other symbols in the order given), its mana value (CR 202.3), colors and color flags."""
    if not cost or not cost.strip():
        raise ManaCostError("the mana cost is empty; give one such as 2WW or {2}{W}{W}")
    generic = 0
    has_generic = False
    variables: list[str] = []
    others: list[dict[str, Any]] = []
    for match in _TOKEN.finditer(cost):
        kind, text = match.lastgroup, match.group(match.lastgroup or 0)
        if kind == "space":
            continue
        if kind == "other":
            raise ManaCostError(
                f"cannot read {text!r} in the mana cost {cost!r}: write symbols such as 2WW or {{2}}{{W}}"
            )
        inner = text.upper()
        if inner.isascii() and inner.isdigit():  # ("²" is a digit to str.isdigit; int() refuses it)
            if len(inner.lstrip("0")) > len(str(MAX_GENERIC)) or generic + int(inner) > MAX_GENERIC:
                raise ManaCostError(
                    f"the mana cost {cost[:60]!r} has more than {MAX_GENERIC:,} generic mana (Gleemax's, the most "
                    "printed); give a smaller number"
                )
            generic += int(inner)
            has_generic = True
            continue
        sym = describe("{" + inner + "}")
        if sym is None or not sym["appears_in_mana_costs"]:
            raise ManaCostError(cost=cost, symbol=f"{{{text}}}")
        if inner in _MANA_VALUE_ORDER:
            variables.append(sym["symbol"])
        else:
            others.append(sym)
    variables.sort(key=lambda s: _MANA_VALUE_ORDER[s[1:-1]])
    parts = variables + ([f"{{{generic}}}"] if has_generic else []) + [s["symbol"] for s in others]
    colors = [c for c in COLORS if any(c in s["colors"] for s in others)]
    mana_value = generic + sum(s.get("mana_value", 0) for s in others)
    return {
        "object": "mana_cost",
        "cost": "".join(parts),
        "cmc": float(mana_value),
        "colors": colors,
        "colorless": not colors,
        "monocolored": len(colors) == 1,
        "multicolored": len(colors) > 1,
    }
