-- Every English or printed name that refers to an Oracle card (CR 201.2), with what it
-- refers to (oracle_id, face) and how (via). Non-card objects go to token_names instead.
-- oracle_tools/names/build.py reads `name_sources`, adds the lookup keys, drops English printed names
-- that are only a typographic variant of the card's own names, merges the optional override
-- table, and writes `names` and `name_classes` (CR 201.3) from it.
--
-- via:  name            the full Oracle name
--       face            a face / half name (709, 710, 712, 715)
--       printed         a foreign printed name (201.2): lang <> 'en'
--       interchangeable an English printed name that differs from the Oracle name (201.3):
--                       Scryfall records a Through the Omenpaths card as a printing of the
--                       Marvel's Spider-Man Oracle card with its own name in printed_name
--       flavor          an alternate name in a secondary title bar (201.6): Scryfall's flavor_name
--       former          a renamed card's former name; added after this file by oracle_tools/history/changes.py

-- Flavor names of each card (whole card or face), so that an English printed name repeating one
-- stays an alternate name (201.6: the card has only its Oracle name) and never joins a 201.3 class.
CREATE OR REPLACE TEMP TABLE card_flavor_names AS
SELECT DISTINCT oracle_id, name FROM (
    SELECT p.oracle_id, p.flavor_name AS name FROM printings p WHERE p.flavor_name IS NOT NULL
    UNION ALL
    SELECT p.oracle_id, unnest(p.face_flavor_names) FROM printings p WHERE len(p.face_flavor_names) > 0
) WHERE name IS NOT NULL AND name <> '';

CREATE OR REPLACE TABLE name_sources AS
-- Full Oracle names: 'Fire // Ice', 'Who // What // When // Where // Why', 'Brisela, Voice of Nightmares',
-- and 'SP//dr, Piloted by Peni' (a single-faced card whose name contains '//': never split).
SELECT c.name AS name, c.oracle_id, NULL::INTEGER AS face_index, 'name' AS via, 'en' AS lang,
       NULL::VARCHAR AS printing_id, NULL::VARCHAR AS set_code, NULL::VARCHAR AS collector_number
FROM cards c WHERE c.is_card
UNION ALL
-- Face names: split halves incl. aftermath (CR 709), flip alternative names (710),
-- DFC faces (712), adventures (715). Meld results are cards in their own right (713).
SELECT f.name, f.oracle_id, f.face_index, 'face', 'en', NULL, NULL, NULL
FROM faces f JOIN cards c USING (oracle_id)
WHERE c.is_card AND f.role NOT IN ('single', 'meld_part', 'meld_result') AND f.name <> c.name
UNION ALL
-- Foreign printed names resolve to the English Oracle name (CR 201.2).
SELECT p.printed_name, p.oracle_id, NULL, 'printed', p.lang, NULL, NULL, NULL
FROM printings p JOIN cards c USING (oracle_id)
WHERE c.is_card AND p.lang <> 'en' AND p.printed_name IS NOT NULL
UNION ALL
SELECT fp.printed, fp.oracle_id, fp.face_index, 'printed', fp.lang, NULL, NULL, NULL
FROM (SELECT p.oracle_id, p.lang, unnest(p.face_printed_names) AS printed,
             generate_subscripts(p.face_printed_names, 1) - 1 AS face_index
      FROM printings p WHERE p.lang <> 'en' AND len(p.face_printed_names) > 1 AND p.layout <> 'reversible_card') fp
JOIN cards c USING (oracle_id)
WHERE c.is_card AND fp.printed IS NOT NULL
UNION ALL
-- The sides of a reversible_card printing are the same card: each side's printed or flavor name is a name
-- of the whole card (never of a face: the card has none), and the sides' names are never joined.
SELECT DISTINCT rs.side_name, rs.oracle_id, NULL, rs.via, rs.lang, NULL, NULL, NULL
FROM (SELECT p.oracle_id, p.lang, unnest(p.face_printed_names) AS side_name, 'printed' AS via
      FROM printings p WHERE p.layout = 'reversible_card' AND p.lang <> 'en'
      UNION ALL
      SELECT p.oracle_id, 'en', unnest(p.face_flavor_names), 'flavor'
      FROM printings p WHERE p.layout = 'reversible_card') rs
JOIN cards c USING (oracle_id)
WHERE c.is_card AND rs.side_name IS NOT NULL AND rs.side_name <> c.name
UNION ALL
-- Alternate names (CR 201.6): Scryfall's flavor_name, whole card or per face.
SELECT p.flavor_name, p.oracle_id, NULL, 'flavor', 'en', NULL, NULL, NULL
FROM printings p JOIN cards c USING (oracle_id)
WHERE c.is_card AND p.flavor_name IS NOT NULL AND p.flavor_name <> c.name
UNION ALL
SELECT ff.flavor, ff.oracle_id, ff.face_index, 'flavor', 'en', NULL, NULL, NULL
FROM (SELECT p.oracle_id, unnest(p.face_flavor_names) AS flavor,
             generate_subscripts(p.face_flavor_names, 1) - 1 AS face_index
      FROM printings p WHERE len(p.face_flavor_names) > 1 AND p.layout <> 'reversible_card') ff
JOIN cards c USING (oracle_id)
WHERE c.is_card AND ff.flavor IS NOT NULL
UNION ALL
-- Interchangeable names (CR 201.3, 201.3c): an English printing whose printed name is neither the
-- Oracle name, a face name nor a flavor name of its card. One row per printing carrying it, so the
-- printings (set, collector number) are the source of the name.
SELECT p.printed_name, p.oracle_id, NULL, 'interchangeable', 'en', p.id, p.set_code, p.collector_number
FROM printings p JOIN cards c USING (oracle_id)
WHERE c.is_card AND p.lang = 'en' AND p.printed_name IS NOT NULL AND p.printed_name <> c.name
  AND NOT EXISTS (SELECT 1 FROM faces f WHERE f.oracle_id = p.oracle_id AND f.name = p.printed_name)
  AND NOT EXISTS (SELECT 1 FROM card_flavor_names fl WHERE fl.oracle_id = p.oracle_id AND fl.name = p.printed_name)
UNION ALL
-- ... and per face of an English multi-face printing (the face's printed name vs the face's name).
SELECT fp.printed, fp.oracle_id, fp.face_index, 'interchangeable', 'en', fp.id, fp.set_code, fp.collector_number
FROM (SELECT p.id, p.oracle_id, p.set_code, p.collector_number,
             unnest(p.face_printed_names) AS printed, unnest(p.face_names) AS face_name,
             generate_subscripts(p.face_printed_names, 1) - 1 AS face_index
      FROM printings p WHERE p.lang = 'en' AND len(p.face_printed_names) > 1 AND p.layout <> 'reversible_card') fp
JOIN cards c USING (oracle_id)
WHERE c.is_card AND fp.printed IS NOT NULL AND fp.printed <> fp.face_name
  AND NOT EXISTS (SELECT 1 FROM faces f WHERE f.oracle_id = fp.oracle_id AND f.name = fp.printed)
  AND NOT EXISTS (SELECT 1 FROM card_flavor_names fl WHERE fl.oracle_id = fp.oracle_id AND fl.name = fp.printed);

DROP TABLE card_flavor_names;

-- Names of tokens, emblems and other non-card objects, kept apart (never returned as cards).
CREATE OR REPLACE TABLE token_names AS
SELECT DISTINCT c.name, c.oracle_id, NULL::INTEGER AS face_index, c.object_kind FROM cards c WHERE NOT c.is_card
UNION
SELECT DISTINCT f.name, f.oracle_id, f.face_index, c.object_kind
FROM faces f JOIN cards c USING (oracle_id) WHERE NOT c.is_card AND f.role <> 'single';
