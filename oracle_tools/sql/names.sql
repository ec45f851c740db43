-- Every English or printed name that refers to an Oracle card (CR 201.2), with what it
-- refers to (oracle_id, face) and how (via). Non-card objects go to token_names instead.

CREATE OR REPLACE TABLE name_sources AS
-- Full Oracle names: 'Fire // Ice', 'Who // What // When // Where // Why', 'Brisela, Voice of Nightmares'.
SELECT c.name AS name, c.oracle_id, NULL::INTEGER AS face_index, 'name' AS via, 'en' AS lang
FROM cards c WHERE c.is_card
UNION ALL
-- Face names: split halves incl. aftermath (CR 709), flip alternative names (710),
-- DFC faces (712), adventures (715). Meld results are cards in their own right (713).
SELECT f.name, f.oracle_id, f.face_index, 'face', 'en'
FROM faces f JOIN cards c USING (oracle_id)
WHERE c.is_card AND f.role NOT IN ('single', 'meld_part', 'meld_result') AND f.name <> c.name
UNION ALL
-- Foreign printed names resolve to the English Oracle name (CR 201.2).
SELECT p.printed_name, p.oracle_id, NULL, 'printed', p.lang
FROM printings p JOIN cards c USING (oracle_id)
WHERE c.is_card AND p.lang <> 'en' AND p.printed_name IS NOT NULL
UNION ALL
SELECT fp.printed, fp.oracle_id, fp.face_index, 'printed', fp.lang
FROM (SELECT p.oracle_id, p.lang, unnest(p.face_printed_names) AS printed,
             generate_subscripts(p.face_printed_names, 1) - 1 AS face_index
      FROM printings p WHERE p.lang <> 'en' AND len(p.face_printed_names) > 1) fp
JOIN cards c USING (oracle_id)
WHERE c.is_card AND fp.printed IS NOT NULL
UNION ALL
-- Alternate names (CR 201.6): Scryfall's flavor_name, whole card or per face ...
SELECT p.flavor_name, p.oracle_id, NULL, 'flavor', 'en'
FROM printings p JOIN cards c USING (oracle_id)
WHERE c.is_card AND p.flavor_name IS NOT NULL AND p.flavor_name <> c.name
UNION ALL
SELECT ff.flavor, ff.oracle_id, ff.face_index, 'flavor', 'en'
FROM (SELECT p.oracle_id, unnest(p.face_flavor_names) AS flavor,
             generate_subscripts(p.face_flavor_names, 1) - 1 AS face_index
      FROM printings p WHERE len(p.face_flavor_names) > 1) ff
JOIN cards c USING (oracle_id)
WHERE c.is_card AND ff.flavor IS NOT NULL
UNION ALL
-- ... and English printings whose printed name differs from the Oracle name
-- (older Universes Beyond/Within reprints such as the Secret Lair "The Walking Dead" cards).
SELECT p.printed_name, p.oracle_id, NULL, 'alternate', 'en'
FROM printings p JOIN cards c USING (oracle_id)
WHERE c.is_card AND p.lang = 'en' AND p.printed_name IS NOT NULL AND p.printed_name <> c.name
  AND p.printed_name NOT IN (SELECT f.name FROM faces f WHERE f.oracle_id = p.oracle_id);

-- Names of tokens, emblems and other non-card objects, kept apart (never returned as cards).
CREATE OR REPLACE TABLE token_names AS
SELECT DISTINCT c.name, c.oracle_id, NULL::INTEGER AS face_index, c.object_kind FROM cards c WHERE NOT c.is_card
UNION
SELECT DISTINCT f.name, f.oracle_id, f.face_index, c.object_kind
FROM faces f JOIN cards c USING (oracle_id) WHERE NOT c.is_card AND f.role <> 'single';
