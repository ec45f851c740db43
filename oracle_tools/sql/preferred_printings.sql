-- preferred_printings: each Oracle card's preferred printing, precomputed at ingest so a search
-- without printing conditions (and cardjson's representative printing) joins one row per card instead of
-- ranking every printing per query. It carries the printing columns a search answer shows, so that join
-- does not scan the ~320k-row printings table either (the prices too: order=usd, eur, tix sort by them). Run by oracle_tools/ingest.py (Ingest._build) once the core tables exist,
-- whether they were just built or kept from the previous database.
-- The rule (one home: sql/build_printings.sql ranks each card's printings by it, preference_rank; oracle_tools/scryfall/cardjson.py
-- and oracle_tools/search/compiler.py read it): English first, then available in paper, then not a promo, then not from a
-- memorabilia set, then newest released_at, then lowest collector number, then id so the choice is stable.
CREATE OR REPLACE TABLE preferred_printings AS
SELECT oracle_id, id, lang, set_code, collector_number, rarity, released_at, artist, usd, eur, tix
FROM printings
WHERE oracle_id IS NOT NULL AND preference_rank = 1
ORDER BY oracle_id;
