-- What searches compare per face, computed once at ingest instead of in every query.
-- Run by oracle_tools/ingest.py after preferred_printings.sql; read by oracle_tools/search/compiler.py.
--
-- face_values: each face's power, toughness, loyalty and defense as the numbers Scryfall compares (pow>=8,
-- pow>tou): the leading number ('1+*' -> 1, '7-*' -> 7), '*' and 'X' -> 0, '∞' -> infinity, '½' -> 0.5; the
-- text stays beside it (pow=* tests the star). Only faces with one of them.
CREATE OR REPLACE TABLE face_values AS
WITH parsed AS (
    SELECT oracle_id, face_index, power, toughness, loyalty, defense,
           [CASE WHEN x IS NULL THEN NULL WHEN x = '∞' THEN 'inf'::DOUBLE
                 ELSE coalesce(TRY_CAST(regexp_extract(replace(x, '½', '.5'), '^[+-]?[0-9]*\.?[0-9]+') AS DOUBLE), 0)
            END FOR x IN [power, toughness, loyalty, defense]] AS v
    FROM faces
    WHERE power IS NOT NULL OR toughness IS NOT NULL OR loyalty IS NOT NULL OR defense IS NOT NULL
)
SELECT oracle_id, face_index, power, toughness, loyalty, defense,
       v[1] AS power_value, v[2] AS toughness_value, v[3] AS loyalty_value, v[4] AS defense_value
FROM parsed
ORDER BY oracle_id, face_index;

-- dfc_face_colors: the faces whose own colours count for c: (a transforming or modal double-faced card is
-- each of its faces' colours, as on Scryfall; the layouts are search/compiler.py's DFC_LAYOUTS, tested equal):
-- a few hundred rows, so c:r scans them instead of every face.
CREATE OR REPLACE TABLE dfc_face_colors AS
SELECT oracle_id, face_index, coalesce(colors, []) AS colors
FROM faces
WHERE layout IN ('transform', 'modal_dfc', 'double_faced_token', 'reversible_card', 'art_series')
ORDER BY oracle_id, face_index;

-- card_set_counts: how many sets each card has been printed in (is:unique: one), counted once here instead of
-- grouping every printing per query.
CREATE OR REPLACE TABLE card_set_counts AS
SELECT oracle_id, count(DISTINCT set_code) AS sets
FROM printings
WHERE oracle_id IS NOT NULL
GROUP BY oracle_id
ORDER BY oracle_id;
