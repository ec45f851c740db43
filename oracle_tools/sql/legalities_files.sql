-- legalities_files: which card files give the cards their legalities, one row per file, precomputed at ingest so
-- that `deck check`'s header line (OracleDB.legalities_source) reads a few rows instead of ranking every printing
-- in each fresh process. Run by oracle_tools/ingest.py (Ingest._build) once the core tables exist, whether they were
-- just built or kept from the previous database.
-- A card's file: the file of its newest English printing, else of its newest printing in any language (so a card
-- known only from foreign printings counts too); cards: how many cards (is_card) take their legalities from the
-- file; newest_printing: the newest released_at of any printing of the file (its data's date when Scryfall gave
-- none). The per-file dates of ingest_runs are joined when the line is read: they are written after this table.
CREATE OR REPLACE TABLE legalities_files AS
WITH source AS (
    SELECT oracle_id, arg_max(source_file, ((lang = 'en'), released_at)) AS file FROM printings GROUP BY oracle_id
), files AS (
    SELECT file, count(*) AS cards FROM source JOIN cards USING (oracle_id) WHERE cards.is_card GROUP BY file
)
SELECT f.file, f.cards, (SELECT max(released_at) FROM printings p WHERE p.source_file = f.file) AS newest_printing
FROM files f;
