"""Record the answers a tree gives on the real data, and compare two records: "no answer changes" made checkable.

    python bench/answers.py record --db PATH --out answers.jsonl     # with the tree to record (its venv's python)
    python bench/answers.py compare BEFORE.jsonl AFTER.jsonl

``record`` writes one JSON line per answer: ``resolve`` of every distinct card name written in the real decklists,
exact and with ``fuzzy``, and the problems ``check_decks`` finds in every real deck file against each of a few
formats. Only ``OracleDB`` calls every version has are used, so the tree before a change and the tree after it
can each record (``<other venv>/bin/python bench/answers.py record …``). ``compare`` counts what differs, by
kind: the card a name resolves to (status, name, oracle_id, via), only its suggestions (and whether the first
one changed), or a deck problem's text, and prints examples of each.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from realdata import record_or_compare
from realdata import require as require_realdata

require_realdata(__file__)  # before bench_names, whose import checks too: the one line names this script

from bench_names import deck_names  # noqa: E402

FORMATS = ("legacy", "modern", "commander")
CARD_FIELDS = ("status", "name", "face", "oracle_id", "via", "lang", "names")


def record(db_path: Path, out: Path) -> None:
    from oracle_tools import OracleDB

    real = require_realdata(__file__)
    db = OracleDB(db_path)
    with out.open("w", encoding="utf-8") as sink:
        for name in sorted(set(deck_names())):
            for fuzzy in (False, True):
                answer = db.resolve(name, fuzzy=fuzzy).to_dict()
                sink.write(json.dumps({"kind": "resolve", "key": [name, fuzzy], "answer": answer}) + "\n")
        files = sorted((real / "decks").rglob("*.json")) + sorted((real / "decks").rglob("*.txt"))
        for fmt in FORMATS:
            problems = db.check_decks(files, format=fmt)
            for row in problems.iter_rows(named=True):
                key = [fmt, row["source"], row["deck"], row["kind"], row["card"], row["line"]]
                sink.write(json.dumps({"kind": "deck", "key": key, "answer": row["detail"]}) + "\n")
    print(f"recorded {out}")


def _load(path: Path) -> dict[str, dict[str, list]]:
    found: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for line in path.open(encoding="utf-8"):
        item = json.loads(line)
        found[item["kind"]][json.dumps(item["key"])].append(item["answer"])
    return found


def compare(before_path: Path, after_path: Path, examples: int) -> int:
    before, after = _load(before_path), _load(after_path)
    changes: dict[str, list[tuple[str, object, object]]] = defaultdict(list)
    counts: Counter[str] = Counter()
    for key, answers in before["resolve"].items():
        old, new = answers[0], after["resolve"].get(key, [None])[0]
        counts["resolve answers"] += 1
        if new is None:
            changes["missing after"].append((key, old, None))
        elif any(old.get(f) != new.get(f) for f in CARD_FIELDS):
            picked = ("status", "name", "via", "candidates")
            changes["the card answered"].append((key, {f: old.get(f) for f in picked}, {f: new.get(f) for f in picked}))
        elif [c["oracle_id"] for c in old["candidates"]] != [c["oracle_id"] for c in new["candidates"]]:
            changes["the ambiguous candidates"].append((key, old["candidates"], new["candidates"]))
        elif old["suggestions"] != new["suggestions"]:
            first = (old["suggestions"] or [None])[0] != (new["suggestions"] or [None])[0]
            label = "suggestions, the first one" if first else "suggestions, after the first"
            changes[label].append((key, old["suggestions"], new["suggestions"]))
        elif old != new:
            changes["other fields"].append((key, old, new))
    old_decks, new_decks = before["deck"], after["deck"]
    counts["deck problems"] = sum(map(len, old_decks.values()))
    for key in sorted(set(old_decks) | set(new_decks)):
        old, new = sorted(old_decks.get(key, [])), sorted(new_decks.get(key, []))
        if old != new:
            changes["deck problems"].append((key, old, new))
    print(", ".join(f"{v:,} {k}" for k, v in counts.items()))
    if not changes:
        print("no answer differs")
        return 0
    for label, items in changes.items():
        print(f"\n{len(items):,} differ: {label}")
        for key, old, new in items[:examples]:
            print(f"  {key}\n    before: {old}\n    after:  {new}")
    return 1


def main() -> int:
    return record_or_compare(__doc__, record, compare)


if __name__ == "__main__":
    sys.exit(main())
