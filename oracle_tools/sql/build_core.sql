-- Build the core tables from the staging table `ingest_stage.main.stage_cards` (raw Scryfall card
-- objects, one row per object read, with file_order and is_oracle_file), in four files run by
-- oracle_tools/ingest.py (Ingest._build_core): build_stage.sql (the view all of them read), then this one
-- (the representatives; then, after "-- name: cards", cards, faces, legalities) while build_printings.sql runs
-- on a second connection, then build_parts.sql (it reads both).
-- The staging tables live in the in-memory database `ingest_stage` (each run's own name: ingest.STAGE_CATALOG),
-- which both connections see.
-- Runs inside the new database only; the previous database is never touched.

-- The object a card's Oracle facts are read from: an oracle_cards object when one was
-- ingested (authoritative), else an English printing from the newest file (a file's date: its newest
-- printing's released_at — Oracle wording changes over time, and a newer file has the newer wording, whatever
-- its printings' layouts), of the card's own shape within that file, else the newest printing. A
-- reversible_card printing (two sides of one printing, each a face of the same Oracle card; no top-level
-- oracle_id, name "X // X") is the card's shape only when its file has no other printing of the card, and then
-- its first side gives the card's facts (layouts.PRINTING_LAYOUTS, tested equal to the layout named here): the card is named and typed as the
-- Oracle reference has it, whichever bulk file it came from.
-- Chosen on a narrow projection first: windows over the wide rows cost more than the join.
CREATE TABLE ingest_stage.main.rep AS
WITH file_dates AS (
    SELECT file_order, max(released_at) AS file_date FROM ingest_stage.main.stage_dedup GROUP BY file_order
), chosen AS (
    SELECT id FROM ingest_stage.main.stage_dedup JOIN file_dates USING (file_order)
    WHERE oid IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY oid
        ORDER BY is_oracle_file DESC, (lang = 'en') DESC, file_date DESC NULLS LAST,
                 (layout = 'reversible_card'), released_at DESC NULLS LAST, id) = 1
)
SELECT s.* REPLACE (
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].name ELSE s.name END AS name,
    CASE WHEN s.layout = 'reversible_card' THEN coalesce(s.card_faces[1].layout, 'normal') ELSE s.layout END AS layout,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].mana_cost ELSE s.mana_cost END AS mana_cost,
    CASE WHEN s.layout = 'reversible_card' THEN coalesce(s.card_faces[1].cmc, s.cmc) ELSE s.cmc END AS cmc,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].type_line ELSE s.type_line END AS type_line,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].oracle_text ELSE s.oracle_text END AS oracle_text,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].colors ELSE s.colors END AS colors,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].color_indicator ELSE s.color_indicator END
        AS color_indicator,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].power ELSE s.power END AS power,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].toughness ELSE s.toughness END AS toughness,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].loyalty ELSE s.loyalty END AS loyalty,
    CASE WHEN s.layout = 'reversible_card' THEN s.card_faces[1].defense ELSE s.defense END AS defense,
    CASE WHEN s.layout = 'reversible_card' THEN NULL ELSE s.card_faces END AS card_faces,
    -- a side has no keywords field: the card's are derived from its text, as for a file older than the field
    CASE WHEN s.layout = 'reversible_card' THEN NULL ELSE s.keywords END AS keywords)
FROM ingest_stage.main.stage_dedup s SEMI JOIN chosen USING (id);

CREATE TABLE ingest_stage.main.per_oracle AS
SELECT oid, bool_and(printing_funny) AS funny, min(released_at) AS first_released
FROM ingest_stage.main.stage_dedup WHERE oid IS NOT NULL GROUP BY oid;

-- name: cards
-- The tables, run once the ingest has derived the keywords of the representatives that lack Scryfall's field
-- (NULL: files older than it, the 2019 dump; a given [] is kept): oracle_tools/ingest.py (_derive_keywords)
-- writes ingest_stage.main.derived_keywords between the two parts of this file, from the rules it stored.
INSERT INTO cards BY NAME
SELECT r.oid AS oracle_id, r.name, r.layout,
       coalesce(r.mana_cost, r.card_faces[1].mana_cost) AS mana_cost,
       r.cmc, r.type_line,
       coalesce(r.oracle_text, array_to_string(list_transform(r.card_faces, lambda f: coalesce(f.oracle_text, '')), E'\n//\n'))
           AS oracle_text,
       wubrg(coalesce(r.colors, r.card_faces[1].colors, cost_colors(r.mana_cost))) AS colors,
       wubrg(r.color_identity) AS color_identity,
       wubrg(coalesce(r.color_indicator, r.card_faces[1].color_indicator)) AS color_indicator,
       coalesce(r.power, r.card_faces[1].power) AS power, coalesce(r.toughness, r.card_faces[1].toughness) AS toughness,
       coalesce(r.loyalty, r.card_faces[1].loyalty) AS loyalty, coalesce(r.defense, r.card_faces[1].defense) AS defense,
       coalesce(r.keywords, dk.keywords, []) AS keywords, r.produced_mana, coalesce(r.reserved, false) AS reserved,
       p.funny,
       kind.object_kind, kind.object_kind = 'card' AS is_card,
       r.edhrec_rank, r.penny_rank, p.first_released,
       CASE WHEN r.is_oracle_file THEN 'oracle_cards' ELSE 'printings' END AS source,
       r.game_changer, r.attraction_lights
FROM ingest_stage.main.rep r
JOIN ingest_stage.main.per_oracle p USING (oid)
LEFT JOIN ingest_stage.main.derived_keywords dk USING (oid)
-- What each layout is: the layouts table (oracle_tools/store/layouts.py LAYOUTS); a layout it does not know is a card.
LEFT JOIN layouts lk ON lk.layout = r.layout
CROSS JOIN LATERAL (SELECT CASE
    WHEN lk.object_kind = 'token' AND r.type_line LIKE '%Dungeon%' THEN 'dungeon'
    WHEN coalesce(lk.object_kind, 'card') <> 'card' THEN lk.object_kind
    WHEN r.type_line LIKE 'Token%' THEN 'token'
    WHEN r.type_line LIKE 'Emblem%' THEN 'emblem'
    WHEN r.type_line = 'Card' OR r.type_line LIKE 'Card //%' THEN 'other'
    ELSE 'card' END AS object_kind) kind;

-- Faces: card_faces in order (both SELECTs name every column); objects without card_faces (normal, meld parts and
-- results, levelers, sagas, ...) give one face.
INSERT INTO faces BY NAME
WITH multi AS (
    SELECT r.oid, r.layout, r.card_faces, r.cmc,
           unnest(r.card_faces) AS f,
           generate_subscripts(r.card_faces, 1) - 1 AS face_index
    FROM ingest_stage.main.rep r WHERE len(r.card_faces) > 0
), multi_faces AS (
    SELECT m.oid, m.face_index, m.f.name,
           -- The role of each face. What the rules say about a role (CR 201.4 subrule, normal/alternative
           -- characteristics, castable, token copy) lives in oracle_tools/store/layouts.py (table face_roles);
           -- tests/test_layouts.py checks every role assigned here has a row there.
           CASE
               WHEN m.layout = 'split' AND m.face_index > 0 AND m.f.oracle_text LIKE 'Aftermath%' THEN 'aftermath_half'
               WHEN m.layout = 'split' THEN 'split_half'
               WHEN m.layout = 'flip' THEN (CASE WHEN m.face_index = 0 THEN 'flip_top' ELSE 'flip_bottom' END)
               -- CR 720: an omen card (Scryfall's layout adventure; its inset spell has the subtype Omen)
               WHEN m.layout = 'adventure' AND regexp_matches(coalesce(m.card_faces[2].type_line, ''), '—.*\bOmen\b')
                   THEN (CASE WHEN m.face_index = 0 THEN 'omen_card' ELSE 'omen' END)
               WHEN m.layout = 'adventure' THEN (CASE WHEN m.face_index = 0 THEN 'adventurer' ELSE 'adventure' END)
               ELSE (CASE WHEN m.face_index = 0 THEN 'front' ELSE 'back' END)
           END AS role,
           m.layout,
           -- CR 710.1c: a flipped permanent keeps the top's mana cost and colour.
           CASE WHEN m.layout = 'flip' THEN m.card_faces[1].mana_cost ELSE nullif(m.f.mana_cost, '') END AS mana_cost,
           -- CR 202.3b: the back face of a nonmodal double-faced card has its front face's mana value.
           CASE WHEN m.face_index > 0 AND m.layout IN ('transform', 'battle', 'double_faced_token')
                THEN mana_value(m.card_faces[1].mana_cost) END AS back_mana_value,
           m.f.type_line,
           coalesce(m.f.oracle_text, '') AS oracle_text,
           wubrg(CASE WHEN m.layout = 'flip' THEN cost_colors(m.card_faces[1].mana_cost)
                      ELSE coalesce(m.f.colors, m.f.color_indicator, cost_colors(m.f.mana_cost)) END) AS colors,
           wubrg(m.f.color_indicator) AS color_indicator,
           m.f.power, m.f.toughness, m.f.loyalty, m.f.defense
    FROM multi m
)
SELECT mf.oid AS oracle_id, mf.face_index, mf.name, mf.role, mf.layout, mf.mana_cost,
       coalesce(mf.back_mana_value, mana_value(mf.mana_cost)) AS mana_value, mf.type_line,
       supertypes_of(mf.type_line) AS supertypes, card_types_of(mf.type_line) AS card_types,
       subtypes_of(mf.type_line) AS subtypes,
       mf.oracle_text, mf.colors, mf.color_indicator, mf.power, mf.toughness, mf.loyalty, mf.defense, c.is_card
FROM multi_faces mf JOIN cards c ON c.oracle_id = mf.oid
UNION ALL BY NAME
SELECT r.oid AS oracle_id, 0 AS face_index, r.name,
       CASE WHEN r.layout = 'meld' THEN
                (CASE WHEN list_contains(list_transform(list_filter(r.all_parts, lambda ap: ap.component = 'meld_result'), lambda ap: ap.name), r.name)
                      THEN 'meld_result' ELSE 'meld_part' END)
            ELSE 'single' END AS role,
       r.layout, nullif(r.mana_cost, '') AS mana_cost, r.cmc AS mana_value, r.type_line,
       supertypes_of(r.type_line) AS supertypes, card_types_of(r.type_line) AS card_types,
       subtypes_of(r.type_line) AS subtypes,
       coalesce(r.oracle_text, '') AS oracle_text, c.colors, c.color_indicator, r.power, r.toughness, r.loyalty,
       r.defense, c.is_card
FROM ingest_stage.main.rep r JOIN cards c ON c.oracle_id = r.oid
WHERE coalesce(len(r.card_faces), 0) = 0;

INSERT INTO legalities BY NAME
SELECT oid AS oracle_id, unnest(map_keys(legalities)) AS format, unnest(map_values(legalities)) AS status
FROM ingest_stage.main.rep WHERE legalities IS NOT NULL;

-- A representative with only a few formats (a card of the 2025 trimmed list, converted with commander alone, merged
-- into the card another file has: ingest.py _merge_synthetic_ids) keeps the formats it lacks from the card's other
-- objects, the newest first: one Oracle card with one set of legalities, not a legacy-less card.
INSERT INTO legalities BY NAME
WITH thin AS (
    SELECT oid, map_keys(legalities) AS have FROM ingest_stage.main.rep
    WHERE legalities IS NOT NULL AND cardinality(legalities) < 5
), other AS (
    SELECT s.oid, unnest(map_keys(s.legalities)) AS format, unnest(map_values(s.legalities)) AS status,
           s.released_at, s.id
    FROM ingest_stage.main.stage_dedup s JOIN thin USING (oid) WHERE s.legalities IS NOT NULL
)
SELECT o.oid AS oracle_id, o.format, arg_max(o.status, (o.released_at, o.id)) AS status
FROM other o JOIN thin t USING (oid)
WHERE NOT list_contains(t.have, o.format)
GROUP BY o.oid, o.format;
