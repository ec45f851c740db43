-- The staged card objects as build_core.sql, build_printings.sql and build_parts.sql read them: each
-- object's Oracle id and whether the printing is funny. Run by oracle_tools/ingest.py before those.
-- Duplicate printing ids across files were already dropped while staging (the last file wins).
CREATE VIEW ingest_stage.main.stage_dedup AS
SELECT *, coalesce(oracle_id, card_faces[1].oracle_id) AS oid,
       coalesce(set_type = 'funny' OR border_color = 'silver' OR security_stamp = 'acorn', false) AS printing_funny
FROM ingest_stage.main.stage_cards;
