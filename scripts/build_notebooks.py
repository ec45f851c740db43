"""Write the notebooks in notebooks/ from the cell sources below, and (with --execute) run them.

    python scripts/build_notebooks.py            # write notebooks/*.ipynb without outputs
    python scripts/build_notebooks.py --execute  # write and execute them (outputs + figures kept)

Every notebook runs top to bottom on the embedded sample (oracle_tools/data/sample/, no network), ingested into
a scratch database in the temp folder, or reads the database $ORACLE_TOOLS_NOTEBOOK_DB points at as it is (any
files: a cell whose example that database cannot show says so in its output, and the notebook goes on).
Figures go to notebooks/figures/, which git ignores ($ORACLE_TOOLS_FIGURES overrides, as the tests do), and
show inline: running a notebook changes no tracked file.
tests/test_notebooks.py executes every notebook and fails on any error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"

SETUP = """\
import os, tempfile
from pathlib import Path

import polars as pl
from oracle_tools import OracleDB

pl.Config.set_tbl_rows(12)
pl.Config.set_fmt_str_lengths(60)
pl.Config.set_tbl_width_chars(140)

# The database ORACLE_TOOLS_NOTEBOOK_DB points at is read as it is (your own, built from any files); pointed
# nowhere, the embedded real sample is built into a scratch database of this run's own (about 2 s, no network;
# two runs at once never share one), and nothing in the checkout is written.
# WHERE: what the figures say they show.
if os.environ.get("ORACLE_TOOLS_NOTEBOOK_DB"):
    db = OracleDB(os.environ["ORACLE_TOOLS_NOTEBOOK_DB"])
    WHERE = Path(os.environ["ORACLE_TOOLS_NOTEBOOK_DB"]).name
else:
    SCRATCH = tempfile.TemporaryDirectory(prefix="oracle-tools-notebook-")  # removed when the kernel stops
    db = OracleDB.ingest_sample(Path(SCRATCH.name) / "sample.duckdb")
    WHERE = "the embedded sample"
"""


def md(text: str) -> NotebookNode:
    return new_markdown_cell(text.strip("\n"))


def code(text: str) -> NotebookNode:
    return new_code_cell(text.strip("\n"))


def getting_started() -> list[NotebookNode]:
    return [
        md("""
# 01 · Getting started with the embedded sample

From an empty machine to answers in a few minutes:

```bash
python -m venv .venv && .venv/bin/pip install -e .
.venv/bin/oracle-tools ingest --sample        # or: ingest (Scryfall bulk files), ingest --bulk-file PATH
.venv/bin/oracle-tools sql "SELECT name, cmc FROM cards WHERE cmc >= 10"
```

This notebook does the same from Python. The **sample** (`oracle_tools/data/sample/`, see its README) is a 3 MB cut of
real Scryfall data: 2,620 cards from the 2019 dump, 134 from 2024, 63 commander-list cards from 2025,
foreign printings and rulings. Everything here runs offline.
"""),
        code(SETUP + "db.path.name, db.info()['tables']"),
        md("""
## Tables and views

`cards` holds one row per Oracle card (`oracle_id`), `faces` one row per face or half, `printings` one
row per printing in any language, `legalities` one row per card and format. The **views**
(`card_analytics`, `card_faces_flat`, `card_legality`, `printings_per_card`, `nameable_faces`,
`token_creators`) are stored in the database file, so any SQL client sees them; `docs/views.md`
documents them column by column.
"""),
        code('print("tables:", ", ".join(db.tables()))\nprint("views: ", ", ".join(db.views()))'),
        md(
            "## Polars frames: eager or lazy\n\n`db.frame(name)` reads a whole table or view; `db.lazy(name)` "
            "returns a `LazyFrame`, so filters and selections run in DuckDB only when you `collect()`."
        ),
        code("""\
cards = db.frame("cards")
cards.select("name", "layout", "mana_cost", "cmc", "type_line").head(5)"""),
        code("""\
(db.lazy("card_analytics")
   .filter(pl.col("is_card") & (pl.col("object_kind") == "card"))
   .group_by("layout")
   .agg(cards=pl.len(), permanent_cards=pl.col("is_permanent_card").sum(), draw=pl.col("draws_cards").sum())
   .sort("cards", descending=True)
   .collect())"""),
        md(
            "## SQL with bound parameters\n\n`db.sql(query, params)` returns a Polars frame; values go in "
            "as `?` parameters, never pasted into the SQL text."
        ),
        code('''\
db.sql("""
    SELECT name, mana_cost, type_line, oracle_text
    FROM cards WHERE name = ? OR name = ?
""", ["Lightning Bolt", "Fire // Ice"])'''),
        md("""
## Resolving names

People type names in every way: lower case, one slash, a half, another language. `db.resolve` finds the
Oracle card (CR 201) and says how it matched; `resolve_many` does a whole column in one join.
"""),
        code("""\
for text in ["lightning bolt", "fire/ice", "Ice", "Feu // Glace", "Tarmogoyff"]:
    r = db.resolve(text)
    print(f"{text!r:18} -> {r.status:10} {r.name!s:20} via={r.via} face={r.face} suggestions={list(r.suggestions)[:2]}")"""),
        code(
            'db.resolve_many(["Delver of Secrets", "insectile aberration", "Brazen Borrower", "Petty Theft", "nope"])'
        ),
        md("""
## Search with Scryfall's syntax, beside SQL

`db.search(query)` speaks the query language players already know (`docs/search.md`): here red Goblins with mana
value 2 or less, and the same question written by hand in SQL. Printing keywords are judged on one printing:
`s:m19 r:mythic` means a mythic printing *in* M19.
"""),
        code('''\
found = db.search("t:goblin c:r mv<=2")
by_hand = db.sql("""
    SELECT name FROM cards
    WHERE is_card AND contains(lower(type_line), 'goblin') AND list_contains(colors, 'R') AND cmc <= 2
    ORDER BY name""")
print(found.height, "cards; same names as the SQL:", found.get_column("name").to_list() == by_hand.get_column("name").to_list())
found.select("name", "mana_cost", "type_line", "set").head(5)'''),
        code('db.search("s:m19 r:mythic", unique="prints").select("name", "set", "collector_number", "rarity")'),
        md(
            "## Export for other tools\n\nAny table, view or query goes to Parquet (types kept) or CSV; "
            "the CLI equivalent is `oracle-tools export cards --parquet cards.parquet`."
        ),
        code("""\
scratch = tempfile.TemporaryDirectory(prefix="oracle-tools-notebook-")  # removed when the kernel stops
out = Path(scratch.name) / "card_analytics.parquet"
print(db.export("card_analytics", out, overwrite=True))  # this notebook's own file, from an earlier run
pl.scan_parquet(out).filter(pl.col("draws_cards")).select("name", "mana_value", "card_flow").head(5).collect()"""),
    ]


def names_and_tokens() -> list[NotebookNode]:
    return [
        md("""
# 02 · Names and tokens, explained with live queries

Card names follow CR 201; tokens CR 111. Every answer below is a query on the sample database.
"""),
        code(SETUP),
        md("""
## One card, several faces

`faces` has one row per face or half. Split cards have two names (CR 709.4a), flip cards an
alternative name (710), double-faced cards a back face (712), adventurers an Adventure (715).
"""),
        code('''\
db.sql("""
    SELECT f.layout, f.role, count(*) AS faces, min(f.name) AS example
    FROM faces f JOIN cards c USING (oracle_id)
    WHERE c.is_card
    GROUP BY f.layout, f.role ORDER BY f.layout, f.role
""")'''),
        code(
            'db.frame("card_faces_flat").filter(pl.col("face_count") > 1).select('
            '"name", "layout", "face_names", "face_roles", "all_card_types").head(8)'
        ),
        md("""
## Every spelling resolves to one Oracle card

The `names` table holds English names, face names, foreign printed names (CR 201.2: a card's name is
its English Oracle name whatever language it is printed in) and alternate names (201.6). Here are the
spellings of Fire // Ice the database knows, and each one resolved:
"""),
        code('''\
spellings = db.sql("""
    SELECT n.name, n.via, n.lang FROM names n JOIN cards c USING (oracle_id)
    WHERE c.name = 'Fire // Ice' ORDER BY n.via, n.lang, n.name
""")
if spellings.filter(pl.col("lang") != "en").is_empty():  # a database built from English files only
    print("This database has no foreign printings of Fire // Ice: only its English spellings are shown.")
spellings'''),
        code("""\
db.resolve_many(spellings["name"].to_list() + ["fire/ice", "FIRE  //  ICE"]).select(
    "query", "status", "name", "face", "via")"""),
        md("""
## Same name? (CR 201.2a)

Two objects have the same name if one of the names of one is a name of the other. A split card has
two names (709.4a), so *Fire* and *Fire // Ice* share a name; foreign spellings are the same card.
"""),
        code("""\
from oracle_tools.errors import NameNotFoundError

pairs = [("Fire", "Fire // Ice"), ("Ice", "Fire"), ("Feu // Glace", "Fire // Ice"),
         ("Lightning Bolt", "Fire // Ice")]
rows = []
for a, b in pairs:
    try:  # a database without the foreign printings does not know "Feu // Glace": it says so and goes on
        rows.append({"a": a, "b": b, "same_name": db.same_name(a, b), "note": None})
    except NameNotFoundError as miss:
        rows.append({"a": a, "b": b, "same_name": None, "note": f"not in this database: {miss}"})
pl.DataFrame(rows, schema={"a": pl.String, "b": pl.String, "same_name": pl.Boolean, "note": pl.String})"""),
        md("""
## Names a player may choose (CR 201.4)

"Choose a card name" allows the name of a card in the Oracle card reference: each half of a split card
but not the combined name (201.4b), flip and adventure alternative names (201.4c, f), back faces
(201.4d), meld results (201.4e); never a token's name unless it is also a card's (201.4). The
`nameable_faces` view lists them with the subrule that allows each.
"""),
        code('''\
db.sql("""
    SELECT rule, count(*) AS names, any_value(name ORDER BY name) AS example
    FROM nameable_faces GROUP BY rule ORDER BY rule
""")'''),
        code("""\
db.sql("SELECT count(*) AS combined_split_names FROM nameable_faces WHERE name LIKE '% // %'")"""),
        md("""
## Tokens (CR 111)

`db.token(name)` answers "what is a *name* token?": a predefined token (111.10) such as Treasure, or a
token named after a card (111.11). The tokens layer also reads every "create … token" clause of the
Oracle text into `token_specs`; the `token_creators` view joins them to the creating cards.
"""),
        code("""\
has_tokens = hasattr(db, "token") and "token_creators" in db.views()
print("tokens layer present:", has_tokens)
if has_tokens:
    for name in ["Treasure", "Food", "Clue", "Blood", "Tarmogoyf"]:
        t = db.token(name)
        print(f"{name:10} -> {t.kind:10} {t.rule!s:8} {t.type_line!s:36} {t.oracle_text or ''}")"""),
        code('''\
if has_tokens:
    top = db.sql("""
        SELECT coalesce(token_name, '(copy of ' || copy_of || ')') AS token, count(*) AS clauses,
               count(DISTINCT oracle_id) AS creators, any_value(name ORDER BY name) AS example_creator
        FROM token_creators GROUP BY 1 ORDER BY clauses DESC, token LIMIT 12
    """)
else:
    top = db.sql("""SELECT part_name AS token, count(*) AS creators FROM parts
                    WHERE component = 'token' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 12""")
top'''),
        md(
            "The named-token creators of the sample (a token that is a legendary creature with its own name, CR 111.4):"
        ),
        code('''\
if has_tokens:
    display(db.sql("""
        SELECT name AS creator, token_name, rule, token_power, token_toughness
        FROM token_creators WHERE rule = '111.4' AND token_name NOT LIKE '% Token' ORDER BY name
    """))'''),
        md(
            "### Predefined tokens over time\n\nWhich predefined tokens (Treasure, Food, Clue, …) the sample's "
            "cards create, by the year the creating card first appeared. A picture shows the arrival of Food "
            "(2019) and Treasure (2017) better than a table."
        ),
        code('''\
import matplotlib
import matplotlib.ticker
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import Image, display

FIGURES = Path(os.environ.get("ORACLE_TOOLS_FIGURES") or "figures")  # git-ignored: a run changes no tracked file
FIGURES.mkdir(parents=True, exist_ok=True)

if has_tokens:
    by_year = db.sql("""
        SELECT year(first_released) AS year, predefined_rule, split_part(token_name, ' ', 1) AS token,
               count(DISTINCT oracle_id) AS creators
        FROM token_creators WHERE predefined_rule IS NOT NULL AND first_released IS NOT NULL
        GROUP BY ALL ORDER BY year
    """)
    pivot = by_year.pivot(on="token", index="year", values="creators", aggregate_function="sum").fill_null(0).sort("year")
    fig, ax = plt.subplots(figsize=(9, 4.5))
    bottom = None
    for col in [c for c in pivot.columns if c != "year"]:
        ax.bar(pivot["year"], pivot[col], bottom=bottom, label=col)
        bottom = pivot[col] if bottom is None else bottom + pivot[col]
    ax.set_title("Sample cards creating predefined tokens (CR 111.10), by first-release year")
    ax.set_xlabel("year the creating card was first printed"); ax.set_ylabel("cards")
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_ylim(0, bottom.max() * 1.15)
    ax.legend(title="token", ncols=2, frameon=False)
    fig.tight_layout()
    fig.savefig(FIGURES / "predefined-tokens-by-year.png", dpi=110)
    plt.close(fig)
    display(Image(filename=str(FIGURES / "predefined-tokens-by-year.png")))
    display(pivot)'''),
    ]


def format_analysis() -> list[NotebookNode]:
    return [
        md("""
# 03 · A format analysis: Modern in the sample

Legality per format, mana-value curves per colour and card types over time. The sample's 2019
`legalities` predate the July 2019 ban list update and show WAR/MH1/M20/ELD cards as `not_legal` (see
`oracle_tools/data/sample/README.md`), so the counts are the sample's, not today's Modern.
"""),
        code(
            SETUP
            + """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import Image, display

FIGURES = Path(os.environ.get("ORACLE_TOOLS_FIGURES") or "figures")  # git-ignored: a run changes no tracked file
FIGURES.mkdir(parents=True, exist_ok=True)"""
        ),
        md(
            "## Legal cards per format\n\n`card_legality` has one row per card and format with a boolean "
            "`legal` (restricted counts as legal: one copy in Vintage)."
        ),
        code('''\
db.sql("""
    SELECT format,
           count(*) FILTER (WHERE legal) AS legal,
           count(*) FILTER (WHERE status = 'restricted') AS restricted,
           count(*) FILTER (WHERE status = 'banned') AS banned
    FROM card_legality WHERE is_card
    GROUP BY format ORDER BY legal DESC
""")'''),
        md(
            "## Modern-legal cards by colour and mana value\n\nMono-coloured cards by their colour, "
            "multicolour and colourless separately; lands (mana value 0, never cast) are left out."
        ),
        code("""\
modern = (db.lazy("card_legality")
    .filter((pl.col("format") == "modern") & pl.col("legal") & pl.col("is_card"))
    .join(db.lazy("card_analytics").select("oracle_id", "card_types", "permanent_spell", "draws_cards"),
          on="oracle_id")
    .filter(~pl.col("card_types").list.contains("Land"))
    .with_columns(colour=pl.when(pl.col("colors").list.len() == 0).then(pl.lit("C"))
                         .when(pl.col("colors").list.len() > 1).then(pl.lit("M"))
                         .otherwise(pl.col("colors").list.first()),
                  mv=pl.col("mana_value").clip(upper_bound=7).cast(pl.Int32))
    .collect())
curve = modern.pivot(on="colour", index="mv", values="name", aggregate_function="len").fill_null(0).sort("mv")
curve = curve.select("mv", *[c for c in ["W", "U", "B", "R", "G", "M", "C"] if c in curve.columns])
curve"""),
        code("""\
COLOURS = {"W": ("white", "#d8c98a"), "U": ("blue", "#2f6db5"), "B": ("black", "#333333"),
           "R": ("red", "#c8412e"), "G": ("green", "#3b8a3e"), "M": ("multicolour", "#b48a2c"),
           "C": ("colourless", "#9a9a9a")}
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 2]})
ax = axes[0]
for col in curve.columns[1:]:
    label, colour = COLOURS[col]
    ax.plot(curve["mv"], curve[col], marker="o", label=label, color=colour, linewidth=2)
ax.set_xticks(range(0, 8), [str(i) for i in range(7)] + ["7+"])
ax.set_xlabel("mana value (CR 202.3)"); ax.set_ylabel(f"Modern-legal cards in {WHERE}")
ax.set_title("Mana-value curve per colour")
ax.legend(frameon=False, ncols=2)
ax.grid(alpha=0.3)
# share of permanent spells (CR 110.4b) per mana value
share = (modern.group_by("mv").agg(permanent=pl.col("permanent_spell").mean(), n=pl.len()).sort("mv"))
axes[1].bar(share["mv"], share["permanent"] * 100, color="#5a7fa8")
axes[1].set_xticks(range(0, 8), [str(i) for i in range(7)] + ["7+"])
axes[1].set_ylim(0, 100); axes[1].set_ylabel("% permanent spells (CR 110.4b)")
axes[1].set_xlabel("mana value"); axes[1].set_title("Permanent spells by mana value")
title = f"Modern-legal nonland cards in {WHERE}"
fig.suptitle(title, fontweight="bold")
fig.tight_layout()
fig.savefig(FIGURES / "modern-mana-curves.png", dpi=110, metadata={"Title": title})
plt.close(fig)
display(Image(filename=str(FIGURES / "modern-mana-curves.png")))"""),
        md("""
## Card draw and card selection (CR 121)

A card *draws* only when its text uses the word "draw" (121.1); a card moved from the library to the
hand without it (a tutor, Dark Confidant, Impulse) is not drawn (121.5), which matters for "whenever
you draw" triggers and draw replacements. `card_analytics.card_flow` tells them apart:
"""),
        code('''\
(modern.group_by("draws_cards").agg(pl.len()).sort("draws_cards"),
 db.sql("""
    SELECT card_flow, count(*) AS cards, any_value(name ORDER BY edhrec_rank NULLS LAST) AS example
    FROM card_faces_flat WHERE is_card AND object_kind = 'card' GROUP BY card_flow ORDER BY cards DESC
 """))'''),
        md(
            "## Card types by first-release year\n\nFor each year, the card types of the cards first "
            "printed that year (a card with two types, such as an artifact creature, counts for both). The sample "
            "has no cards first printed in 2020–2023 (it joins a 2019 dump, 2024 sets and a 2025 list whose "
            "dates are the list's date), hence the gap."
        ),
        code('''\
types_by_year = db.sql("""
    SELECT year(first_released) AS year, t AS card_type, count(*) AS cards
    FROM (SELECT first_released, unnest(card_types) AS t FROM card_analytics
          WHERE is_card AND object_kind = 'card' AND first_released IS NOT NULL)
    WHERE t IN ('Creature', 'Instant', 'Sorcery', 'Enchantment', 'Artifact', 'Land', 'Planeswalker')
    GROUP BY ALL ORDER BY year
""")
tp = types_by_year.pivot(on="card_type", index="year", values="cards").fill_null(0).sort("year")
order = ["Creature", "Instant", "Sorcery", "Enchantment", "Artifact", "Land", "Planeswalker"]
tp = tp.select("year", *[c for c in order if c in tp.columns])
fig, ax = plt.subplots(figsize=(11, 4.5))
ax.stackplot(tp["year"], *[tp[c] for c in tp.columns[1:]], labels=tp.columns[1:], alpha=0.9,
             colors=["#3b8a3e", "#2f6db5", "#c8412e", "#d8c98a", "#9a9a9a", "#8c6d46", "#7a4fa0"])
ax.set_xlim(tp["year"].min(), tp["year"].max())
ax.set_xlabel("year of first printing"); ax.set_ylabel(f"cards in {WHERE}")
title = f"Card types of the cards in {WHERE} by first-release year"
ax.set_title(title)
ax.legend(loc="upper left", frameon=False, ncols=4)
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(FIGURES / "card-types-by-year.png", dpi=110, metadata={"Title": title})
plt.close(fig)
display(Image(filename=str(FIGURES / "card-types-by-year.png")))'''),
        code("tp.tail(8)"),
    ]


NOTEBOOK_CELLS = {
    "01-getting-started.ipynb": getting_started,
    "02-names-and-tokens.ipynb": names_and_tokens,
    "03-format-analysis.ipynb": format_analysis,
}


def build(name: str) -> nbformat.NotebookNode:
    nb = new_notebook(cells=NOTEBOOK_CELLS[name]())
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path = NOTEBOOKS, timeout: int = 300) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    NotebookClient(nb, kernel_name="python3", timeout=timeout, resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--execute", action="store_true", help="run every notebook and keep its outputs")
    parser.add_argument("--only", default=None, help="build only this notebook (file name)")
    args = parser.parse_args(argv)
    NOTEBOOKS.mkdir(exist_ok=True)
    for name in NOTEBOOK_CELLS:
        if args.only and args.only != name:
            continue
        nb = build(name)
        if args.execute:
            execute(nb)
        nbformat.validate(nb)
        nbformat.write(nb, NOTEBOOKS / name)
        print(f"wrote notebooks/{name}" + (" (executed)" if args.execute else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
