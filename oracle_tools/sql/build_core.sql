-- Build the core tables from the staging table `stage_cards` (raw Scryfall card
-- objects, one row per object read, with file_order and is_oracle_file).
-- Runs inside the new database only; the previous database is never touched.

-- Duplicate printing ids across files were already dropped while staging (the last file wins).
CREATE TEMP VIEW stage_dedup AS
SELECT *, coalesce(oracle_id, card_faces[1].oracle_id) AS oid,
       (coalesce(set_type, '') = 'funny' OR border_color = 'silver'
        OR security_stamp = 'acorn') AS printing_funny
FROM stage_cards;

-- The object a card's Oracle facts are read from: an oracle_cards object when one was
-- ingested (authoritative), else the newest English printing, else the newest printing.
-- Chosen on a narrow projection first: windows over the wide rows cost more than the join.
CREATE TEMP TABLE rep AS
WITH chosen AS (
    SELECT id FROM stage_dedup
    WHERE oid IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY oid
        ORDER BY is_oracle_file DESC, (lang = 'en') DESC, released_at DESC NULLS LAST, id) = 1
)
SELECT s.* FROM stage_dedup s SEMI JOIN chosen USING (id);

CREATE TEMP TABLE per_oracle AS
SELECT oid, bool_and(printing_funny) AS funny, min(released_at) AS first_released
FROM stage_dedup WHERE oid IS NOT NULL GROUP BY oid;

INSERT INTO printings
SELECT id, oid, name, lang, "set", set_name, set_type, collector_number, released_at, rarity, layout,
       coalesce(printed_name,
                CASE WHEN len(card_faces) > 0 AND list_bool_and(list_transform(card_faces, lambda f: f.printed_name IS NOT NULL))
                     THEN array_to_string(list_transform(card_faces, lambda f: f.printed_name), ' // ') END),
       nullif(coalesce(flavor_name,
                CASE WHEN len(card_faces) > 0 AND list_bool_and(list_transform(card_faces, lambda f: nullif(f.flavor_name, '') IS NOT NULL))
                     THEN array_to_string(list_transform(card_faces, lambda f: f.flavor_name), ' // ') END), ''),
       printed_type_line, printed_text,
       list_transform(card_faces, lambda f: f.name),
       list_transform(card_faces, lambda f: f.printed_name),
       list_transform(card_faces, lambda f: nullif(f.flavor_name, '')),
       games, digital, promo, border_color, security_stamp, multiverse_ids, mtgo_id, arena_id, artist, source_file
FROM stage_dedup;

INSERT INTO cards
SELECT r.oid, r.name, r.layout,
       coalesce(r.mana_cost, r.card_faces[1].mana_cost),
       r.cmc, r.type_line,
       coalesce(r.oracle_text, array_to_string(list_transform(r.card_faces, lambda f: coalesce(f.oracle_text, '')), E'\n//\n')),
       wubrg(coalesce(r.colors, r.card_faces[1].colors, cost_colors(r.mana_cost))),
       wubrg(r.color_identity),
       wubrg(coalesce(r.color_indicator, r.card_faces[1].color_indicator)),
       coalesce(r.power, r.card_faces[1].power), coalesce(r.toughness, r.card_faces[1].toughness),
       coalesce(r.loyalty, r.card_faces[1].loyalty), coalesce(r.defense, r.card_faces[1].defense),
       coalesce(r.keywords, []), r.produced_mana, coalesce(r.reserved, false),
       p.funny,
       kind.object_kind, kind.object_kind = 'card',
       r.edhrec_rank, p.first_released,
       CASE WHEN r.is_oracle_file THEN 'oracle_cards' ELSE 'printings' END
FROM rep r
JOIN per_oracle p USING (oid)
CROSS JOIN LATERAL (SELECT CASE
    WHEN r.layout IN ('token', 'double_faced_token') AND r.type_line LIKE '%Dungeon%' THEN 'dungeon'
    WHEN r.layout IN ('token', 'double_faced_token') OR r.type_line LIKE 'Token%' THEN 'token'
    WHEN r.layout = 'emblem' OR r.type_line LIKE 'Emblem%' THEN 'emblem'
    WHEN r.layout = 'planar' THEN 'plane'
    WHEN r.layout = 'scheme' THEN 'scheme'
    WHEN r.layout = 'vanguard' THEN 'vanguard'
    WHEN r.layout = 'art_series' THEN 'art_series'
    WHEN r.type_line = 'Card' OR r.type_line LIKE 'Card //%' THEN 'other'
    ELSE 'card' END AS object_kind) kind;

-- Faces: card_faces in order; objects without card_faces (normal, meld parts and
-- results, levelers, sagas, ...) give one face.
INSERT INTO faces
WITH multi AS (
    SELECT r.oid, r.layout, r.card_faces, r.cmc,
           unnest(r.card_faces) AS f,
           generate_subscripts(r.card_faces, 1) - 1 AS face_index
    FROM rep r WHERE len(r.card_faces) > 0
), multi_faces AS (
    SELECT m.oid, m.face_index, m.f.name,
           -- The role of each face. What the rules say about a role (CR 201.4 subrule, normal/alternative
           -- characteristics, castable, token copy) lives in oracle_tools/layouts.py (table face_roles);
           -- tests/test_layouts.py checks every role assigned here has a row there.
           CASE
               WHEN m.layout = 'split' AND m.face_index > 0 AND m.f.oracle_text LIKE 'Aftermath%' THEN 'aftermath_half'
               WHEN m.layout = 'split' THEN 'split_half'
               WHEN m.layout = 'flip' THEN (CASE WHEN m.face_index = 0 THEN 'flip_top' ELSE 'flip_bottom' END)
               WHEN m.layout = 'adventure' THEN (CASE WHEN m.face_index = 0 THEN 'adventurer' ELSE 'adventure' END)
               ELSE (CASE WHEN m.face_index = 0 THEN 'front' ELSE 'back' END)
           END AS role,
           m.layout,
           -- CR 710.1c: a flipped permanent keeps the top's mana cost and colour.
           CASE WHEN m.layout = 'flip' THEN m.card_faces[1].mana_cost ELSE nullif(m.f.mana_cost, '') END AS mana_cost,
           -- CR 202.3b: the back face of a nonmodal double-faced card has its front face's mana value.
           CASE WHEN m.face_index > 0 AND m.layout IN ('transform', 'double_faced_token')
                THEN mana_value(m.card_faces[1].mana_cost) END AS back_mana_value,
           m.f.type_line,
           coalesce(m.f.oracle_text, '') AS oracle_text,
           wubrg(CASE WHEN m.layout = 'flip' THEN cost_colors(m.card_faces[1].mana_cost)
                      ELSE coalesce(m.f.colors, m.f.color_indicator, cost_colors(m.f.mana_cost)) END) AS colors,
           wubrg(m.f.color_indicator) AS color_indicator,
           m.f.power, m.f.toughness, m.f.loyalty, m.f.defense
    FROM multi m
)
SELECT mf.oid, mf.face_index, mf.name, mf.role, mf.layout, mf.mana_cost,
       coalesce(mf.back_mana_value, mana_value(mf.mana_cost)), mf.type_line,
       supertypes_of(mf.type_line), card_types_of(mf.type_line), subtypes_of(mf.type_line),
       mf.oracle_text, mf.colors, mf.color_indicator, mf.power, mf.toughness, mf.loyalty, mf.defense, c.is_card
FROM multi_faces mf JOIN cards c ON c.oracle_id = mf.oid
UNION ALL
SELECT r.oid, 0, r.name,
       CASE WHEN r.layout = 'meld' THEN
                (CASE WHEN list_contains(list_transform(list_filter(r.all_parts, lambda ap: ap.component = 'meld_result'), lambda ap: ap.name), r.name)
                      THEN 'meld_result' ELSE 'meld_part' END)
            ELSE 'single' END,
       r.layout, nullif(r.mana_cost, ''), r.cmc, r.type_line,
       supertypes_of(r.type_line), card_types_of(r.type_line), subtypes_of(r.type_line),
       coalesce(r.oracle_text, ''), c.colors, c.color_indicator, r.power, r.toughness, r.loyalty, r.defense, c.is_card
FROM rep r JOIN cards c ON c.oracle_id = r.oid
WHERE coalesce(len(r.card_faces), 0) = 0;

INSERT INTO legalities
SELECT oid, unnest(map_keys(legalities)), unnest(map_values(legalities))
FROM rep WHERE legalities IS NOT NULL;

-- all_parts: one row per (card, component, related name); a card's mention of itself is dropped.
-- When the linked printing was not ingested, a meld or combo part is found by its unique
-- (name, type line); a token is not: many different tokens share a name ("Warrior").
INSERT INTO parts
WITH raw AS (
    SELECT d.oid, unnest(d.all_parts) AS ap FROM stage_dedup d WHERE len(d.all_parts) > 0 AND d.oid IS NOT NULL
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
SELECT oid, component, part_name, any_value(part_type_line),
       arg_max(part_id, part_oracle_id IS NOT NULL), max(part_oracle_id)
FROM resolved
WHERE coalesce(part_oracle_id, '') <> oid
  AND NOT (part_oracle_id IS NULL AND part_name = (SELECT c.name FROM cards c WHERE c.oracle_id = resolved.oid))
GROUP BY oid, component, part_name;
