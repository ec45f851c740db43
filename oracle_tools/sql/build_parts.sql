-- Run by oracle_tools/ingest.py after build_core.sql and build_printings.sql: it links parts through both.
-- all_parts: one row per (card, component, related name); a card's mention of itself is dropped.
-- When the linked printing was not ingested, a meld or combo part is found by its unique
-- (name, type line); a token is not: many different tokens share a name ("Warrior").
INSERT INTO parts BY NAME
WITH raw AS (
    SELECT d.oid, unnest(d.all_parts) AS ap FROM ingest_stage.main.stage_dedup d WHERE len(d.all_parts) > 0 AND d.oid IS NOT NULL
), named AS (
    SELECT name, type_line, any_value(oracle_id) AS oracle_id FROM cards WHERE is_card
    GROUP BY name, type_line HAVING count(*) = 1
), resolved AS (
    SELECT raw.oid, raw.ap.component, raw.ap.name AS part_name, raw.ap.type_line AS part_type_line,
           raw.ap.id AS part_id, coalesce(p.oracle_id, named.oracle_id) AS part_oracle_id
    FROM raw
    LEFT JOIN printings p ON p.id = raw.ap.id
    LEFT JOIN named ON raw.ap.component <> 'token' AND named.name = raw.ap.name
                   AND named.type_line = raw.ap.type_line
)
-- One printing per part: a linked one first, then the greatest id, so that two builds of the same files agree
-- (ties were broken by DuckDB's order: 7-8 rows of the real database differed from one build to the next).
SELECT oid AS oracle_id, component, part_name,
       arg_max(part_type_line, (part_oracle_id IS NOT NULL, part_id)) AS part_type_line,
       arg_max(part_id, (part_oracle_id IS NOT NULL, part_id)) AS part_id, max(part_oracle_id) AS part_oracle_id
FROM resolved
WHERE coalesce(part_oracle_id, '') <> oid
  AND NOT (part_oracle_id IS NULL AND part_name = (SELECT c.name FROM cards c WHERE c.oracle_id = resolved.oid))
GROUP BY oid, component, part_name;
