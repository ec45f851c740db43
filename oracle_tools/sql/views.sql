-- Analyst views, created inside the database at ingest (after the names and tokens layers) by
-- oracle_tools/store/views.py, so `oracle-tools sql`, DuckDB's own CLI and notebooks all see them.
-- Documented column by column in docs/views.md.
--
-- Blocks start with `-- name: <object>`; a block with `-- requires: <table>` is created only
-- when that table exists (token_creators needs the tokens layer's token_specs).

-- name: draws_cards_text
-- CR 121.1 / 121.5: does this text make a player draw (the word "draw" used as an action)?
-- 1. Clauses that only refer to drawing are removed first: triggers and conditions
--    ("whenever you draw a card", "if a player would draw a card", "the first time ... draws"),
--    prohibitions ("can't draw more than one card"), relative clauses ("the card you draw").
-- 2. What is left must contain draw/draws followed within three words by card/cards
--    ("draw a card", "draws two cards", "draw cards equal to", "draw an additional card",
--    "draw that many cards"). "drew" / "drawn" / "draw step" never match.
CREATE OR REPLACE MACRO draws_cards_text(t) AS regexp_matches(
    regexp_replace(
        regexp_replace(
            regexp_replace(t,
                '\b(whenever|when|if|each time|the first time|the next time|as long as)\b[^,.;:\n]*', ' ', 'g'),
            '\b(can''t|cannot|don''t|doesn''t|didn''t|won''t|may not|would)\s+draws?\b', ' ', 'g'),
        '\bcards?\s+(you|they|that player|a player|each player|an opponent|target player|its owner|its controller|he or she)\s+draws?\b',
        ' ', 'g'),
    '\bdraws?\s+([a-z0-9''-]+\s+){0,3}cards?\b');

-- name: puts_into_hand_text
-- CR 121.5: does this text move cards from a library to a hand WITHOUT the word "draw"
-- (tutors, "reveal the top card ... put that card into your hand", "look at the top N ...
-- put one of them into your hand")? A paragraph (one line of Oracle text) qualifies when it
-- mentions a library and puts cards into a hand by a phrase whose object is not cards exiled,
-- from exile, from a graveyard or a target permanent. "Return ... to its owner's hand" never counts.
-- Known limit: a card exiled from the library and put into the hand later by a delayed trigger
-- (Necropotence) reads as library -> hand.
CREATE OR REPLACE MACRO puts_into_hand_text(t) AS list_bool_or(list_transform(
    string_split(t, chr(10)),
    lambda para: regexp_matches(para, '\blibrar(y|ies)\b')
        AND len(list_filter(
            regexp_extract_all(para,
                '\bputs?\s+[^.]*?\binto\s+(your|their|his or her|that player''s|its owner''s|target player''s|each player''s|their owner''s|its owners''|their owners'')\s+hands?\b'),
            lambda m: NOT regexp_matches(m,
                '\b(exiled|from exile|from (your|a|their|its owner''s|his or her) graveyards?|target (creature|permanent|artifact|enchantment|nonland))\b'))) > 0));

-- name: card_analytics
-- One row per card (every row of `cards`) with the derived analytic columns.
-- CR 110.4a permanent card: the card's characteristics outside the battlefield and stack decide:
--   split: the types of both halves (709.4c); flip: the normal (top) half (710.2);
--   double-faced incl. modal and meld parts: the front face (712.8a); adventurer: the creature
--   part only (715.4). A meld result is no physical card (712.4) and a token is no card (108.2),
--   so both are never permanent cards.
-- CR 110.4b permanent spell: a face that can be cast, by the card's own rules, as an artifact,
--   battle, creature, enchantment or planeswalker spell: a split half (709.3), the front face
--   of a double-faced card, either face of a modal DFC (712.11b), the adventurer (715.3), a flip
--   card's top; a face that is also a land cannot be cast (305.9).
CREATE OR REPLACE VIEW card_analytics AS
WITH f AS (
    SELECT f.*,
           -- CR 110.4a / 110.4b facts per face role: the face_roles table (oracle_tools/store/layouts.py)
           coalesce(r.characteristic_face, false) AS characteristic_face,
           coalesce(r.castable OR list_contains(r.castable_layouts, f.layout), false) AS castable_face,
           list_has_any(f.card_types, ['Artifact', 'Battle', 'Creature', 'Enchantment', 'Land', 'Planeswalker'])
               AS permanent_types,
           list_has_any(f.card_types, ['Artifact', 'Battle', 'Creature', 'Enchantment', 'Planeswalker'])
               AND NOT list_contains(f.card_types, 'Land') AS permanent_spell_types,
           -- the text with its self-references as CARDNAME (so "Quick Draw" in a name is never read
           -- as the verb) comes from oracle_text_self_replaced, built from the name_references spans
           -- (references.py, read by oracletext.py: full and shortened self-names, CR 201.5 / 201.5c). Every
           -- face with text has a row; only a database built without that layer falls back to the raw text.
           lower(coalesce(s.text_cardname, f.oracle_text, '')) AS txt
    FROM faces f LEFT JOIN face_roles r ON r.role = f.role
    LEFT JOIN oracle_text_self_replaced s USING (oracle_id, face_index)
),
per_card AS (
    SELECT oracle_id,
           bool_or(characteristic_face AND permanent_types) AS any_permanent_face,
           bool_or(castable_face AND permanent_spell_types) AS any_permanent_spell_face,
           bool_or(draws_cards_text(txt)) AS draws,
           bool_or(puts_into_hand_text(txt)) AS puts,
           list_distinct(flatten(list(card_types ORDER BY face_index) FILTER (WHERE characteristic_face)))
               AS card_types
    FROM f GROUP BY oracle_id
)
SELECT c.oracle_id,
       c.name,
       c.layout,
       c.object_kind,
       c.is_card,
       c.cmc AS mana_value,
       c.colors,
       c.color_identity,
       coalesce(p.card_types, []::VARCHAR[]) AS card_types,
       c.is_card AND coalesce(p.any_permanent_face, false) AS is_permanent_card,
       c.is_card AND coalesce(p.any_permanent_spell_face, false) AS permanent_spell,
       coalesce(p.draws, false) AS draws_cards,
       coalesce(p.puts, false) AS puts_into_hand,
       CASE WHEN coalesce(p.draws, false) AND coalesce(p.puts, false) THEN 'both'
            WHEN coalesce(p.draws, false) THEN 'draws'
            WHEN coalesce(p.puts, false) THEN 'puts_into_hand'
            ELSE 'neither' END AS card_flow,
       c.first_released
FROM cards c LEFT JOIN per_card p USING (oracle_id);

-- name: card_faces_flat
-- One row per card, its faces flattened into lists in face order, plus the analytic columns.
CREATE OR REPLACE VIEW card_faces_flat AS
WITH fl AS (
    SELECT oracle_id,
           count(*) AS face_count,
           list(name ORDER BY face_index) AS face_names,
           list(role ORDER BY face_index) AS face_roles,
           list(mana_cost ORDER BY face_index) AS face_mana_costs,
           list(type_line ORDER BY face_index) AS face_type_lines,
           list(oracle_text ORDER BY face_index) AS face_texts,
           list_sort(list_distinct(flatten(list(supertypes)))) AS all_supertypes,
           list_sort(list_distinct(flatten(list(card_types)))) AS all_card_types,
           list_sort(list_distinct(flatten(list(subtypes)))) AS all_subtypes
    FROM faces GROUP BY oracle_id
)
SELECT c.oracle_id, c.name, c.layout, c.object_kind, c.is_card, c.funny,
       c.mana_cost, c.cmc AS mana_value, c.colors, c.color_identity, c.type_line,
       c.power, c.toughness, c.loyalty, c.defense, c.keywords, c.reserved,
       coalesce(fl.face_count, 0) AS face_count,
       fl.face_names, fl.face_roles, fl.face_mana_costs, fl.face_type_lines, fl.face_texts,
       fl.all_supertypes, fl.all_card_types, fl.all_subtypes,
       a.card_types, a.is_permanent_card, a.permanent_spell, a.draws_cards, a.puts_into_hand, a.card_flow,
       c.first_released, c.edhrec_rank
FROM cards c
LEFT JOIN fl USING (oracle_id)
JOIN card_analytics a USING (oracle_id);

-- name: card_legality
-- Format legality per card (long form), with a boolean. Restricted is legal (one copy, Vintage).
CREATE OR REPLACE VIEW card_legality AS
SELECT l.oracle_id, c.name, l.format, l.status,
       l.status IN ('legal', 'restricted') AS legal,
       c.is_card, c.layout, c.cmc AS mana_value, c.colors, c.color_identity, c.type_line
FROM legalities l JOIN cards c USING (oracle_id);

-- name: printings_per_card
-- One row per card that has printings: how many, in which languages and sets, first/last date.
CREATE OR REPLACE VIEW printings_per_card AS
SELECT p.oracle_id, c.name,
       count(*) AS printings,
       count(*) FILTER (WHERE p.lang = 'en') AS english_printings,
       list_sort(list_distinct(list(p.lang))) AS languages,
       count(DISTINCT p.set_code) AS set_count,
       list_sort(list_distinct(list(p.set_code))) AS sets,
       min(p.released_at) AS first_released,
       max(p.released_at) AS last_released,
       bool_and(coalesce(p.digital, false)) AS digital_only
FROM printings p JOIN cards c USING (oracle_id)
GROUP BY p.oracle_id, c.name;

-- name: nameable_faces
-- CR 201.4: the names a player may choose for "choose a card name": every face of a card in the
-- Oracle card reference (is_card; tokens excluded, 201.4), one row per split half (201.4b: a
-- half, never the combined 'Fire // Ice' name), flip alternative names (201.4c), back faces
-- (201.4d), meld results (201.4e), adventures (201.4f). `rule` says which subrule allows it.
-- Unfinity's sticker sheets (type line 'Stickers') are no cards (CR 123.2): never a name to choose.
CREATE OR REPLACE VIEW nameable_faces AS
SELECT f.oracle_id, c.name AS card_name, f.face_index, f.name, f.role, c.layout,
       coalesce(r.name_rule, '201.4') AS rule,  -- the face_roles table (oracle_tools/store/layouts.py)
       f.type_line, f.card_types, f.subtypes, f.mana_cost, f.mana_value, f.colors,
       c.funny
FROM faces f JOIN cards c USING (oracle_id) LEFT JOIN face_roles r ON r.role = f.role
WHERE f.is_card AND c.is_card AND coalesce(trim(f.type_line), '') <> 'Stickers';

-- name: name_aliases
-- requires: name_classes
-- Every class of interchangeable names (CR 201.3) and every alternate (flavor) name (CR 201.6),
-- one row per name and printing that carries it. 201.3 rows: each name of the class, the Oracle name
-- included (is_oracle_name), with the printings showing that name (201.3c; the name_classes table,
-- built at ingest by oracle_tools/names/index.py). 201.6 rows: Scryfall's flavor_name per printing (whole
-- card, or per face of a multi-face printing); such a card has only its Oracle name, so class_names
-- is NULL. printing_id is NULL for a name no ingested printing shows (an override-table name, or
-- an Oracle name whose only printings carry another name).
CREATE OR REPLACE VIEW name_aliases AS
WITH members AS (
    SELECT k.*, unnest(CASE WHEN len(k.printings) > 0 THEN k.printings ELSE [NULL] END) AS pr
    FROM name_classes k
), classes AS (
    SELECT class_id, list(DISTINCT name ORDER BY name) AS class_names FROM name_classes GROUP BY class_id
), flavor AS (
    SELECT p.id, p.oracle_id, NULL::INTEGER AS face_index, p.flavor_name AS name
    FROM printings p WHERE p.flavor_name IS NOT NULL
    UNION ALL
    SELECT id, oracle_id, face_index, name FROM (
        SELECT p.id, p.oracle_id, unnest(p.face_flavor_names) AS name,
               generate_subscripts(p.face_flavor_names, 1) - 1 AS face_index
        FROM printings p WHERE len(p.face_flavor_names) > 1) WHERE name IS NOT NULL
)
SELECT '201.3' AS rule, 'interchangeable' AS kind, m.name, m.kind = 'oracle' AS is_oracle_name,
       m.oracle_id, c.name AS card_name, m.face_index, f.name AS face_name,
       m.class_id, cl.class_names, m.kind AS name_source, m.source,
       p.id AS printing_id, p.set_code, p.set_name, p.collector_number, p.released_at
FROM members m
JOIN classes cl USING (class_id)
LEFT JOIN cards c ON c.oracle_id = m.oracle_id
LEFT JOIN faces f ON f.oracle_id = m.oracle_id AND f.face_index = m.face_index
LEFT JOIN printings p ON p.id = m.pr.id
UNION ALL
SELECT '201.6', 'flavor', fl.name, false, fl.oracle_id, c.name, fl.face_index, f.name,
       NULL, NULL, 'flavor_name', 'flavor_name of ' || p.set_code || ' #' || coalesce(p.collector_number, '?'),
       p.id, p.set_code, p.set_name, p.collector_number, p.released_at
FROM flavor fl
JOIN printings p ON p.id = fl.id
JOIN cards c ON c.oracle_id = fl.oracle_id
LEFT JOIN faces f ON f.oracle_id = fl.oracle_id AND f.face_index = fl.face_index
WHERE c.is_card AND fl.name <> c.name;

-- name: token_creators
-- requires: token_specs
-- One row per token a card's Oracle text creates (from the tokens layer's token_specs),
-- with the creating card's first release for time series.
CREATE OR REPLACE VIEW token_creators AS
SELECT s.creator_oracle_id AS oracle_id, s.creator_name AS name, s.face_name,
       s.name AS token_name, s.count, s.count_n, s.rule, s.predefined_rule,
       s.colors AS token_colors, s.card_types AS token_card_types, s.subtypes AS token_subtypes,
       s.power AS token_power, s.toughness AS token_toughness, s.copy_of, s.clause,
       c.first_released, c.layout
FROM token_specs s JOIN cards c ON c.oracle_id = s.creator_oracle_id;

-- name: token_catalog
-- requires: effect_tokens, predefined_tokens, token_specs
-- Every token name the database knows (`oracle-tools token --list`), one row per name and kind:
-- `predefined` (CR 111.10x, parsed from the stored rules; creators: cards whose text creates it),
-- `effect` (a name an effect gives a token whose characteristics it states, CR 111.4 / 111.9: the
-- tokens layer's effect_tokens, characteristics of the definition most creators use) and `object`
-- (a Scryfall token object, or a token Scryfall's all_parts links to a card; creators from all_parts;
-- Scryfall's layout-token "Card" objects — World Championship ads, player bios — are left out).
-- `card_name` is an Oracle card with exactly that name (or face name): 111.11 and 201.4 care (`own_name_via`:
-- the macro oracle_tools/names/build.py writes from the table of kinds of names, names/kinds.py).
CREATE OR REPLACE VIEW token_catalog AS
WITH predefined AS (
    SELECT p.name, 'predefined' AS kind, p.rule, p.game_name, p.type_line, p.colors, p.power, p.toughness,
           p.oracle_text, 1 AS definitions,
           coalesce((SELECT list(DISTINCT s.creator_name ORDER BY s.creator_name) FROM token_specs s
                     WHERE s.predefined_rule = p.rule), []) AS creators
    FROM predefined_tokens p
), effect AS (
    SELECT e.name, 'effect' AS kind, e.rule, e.name AS game_name, e.type_line, e.colors, e.power, e.toughness,
           e.oracle_text, e.definitions,
           (SELECT list_sort(list_distinct(flatten(list(a.creators)))) FROM effect_tokens a WHERE a.key = e.key)
               AS creators
    FROM effect_tokens e WHERE e.definition = 1
), object_creators AS (
    SELECT p.part_name AS name, list(DISTINCT c.name ORDER BY c.name) AS creators,
           any_value(p.part_type_line) AS type_line
    FROM parts p JOIN cards c ON c.oracle_id = p.oracle_id AND c.is_card
    WHERE p.component = 'token'
    GROUP BY p.part_name
), objects AS (
    SELECT name, arg_min(type_line, oracle_id) AS type_line, arg_min(colors, oracle_id) AS colors,
           arg_min(power, oracle_id) AS power, arg_min(toughness, oracle_id) AS toughness,
           arg_min(oracle_text, oracle_id) AS oracle_text, count(*) AS definitions
    FROM cards WHERE object_kind = 'token' AND type_line LIKE 'Token%'  -- not World Championship ads, bios
    GROUP BY name
), object AS (
    SELECT coalesce(o.name, oc.name) AS name, 'object' AS kind, NULL AS rule,
           -- CR 111.4: a token the effect doesn't name is named after its subtypes plus "Token"
           CASE WHEN trim(split_part(coalesce(o.type_line, oc.type_line), '—', 2)) = coalesce(o.name, oc.name)
                THEN coalesce(o.name, oc.name) || ' Token' ELSE coalesce(o.name, oc.name) END AS game_name,
           coalesce(o.type_line, oc.type_line) AS type_line, coalesce(o.colors, []) AS colors, o.power, o.toughness,
           o.oracle_text, coalesce(o.definitions, 1) AS definitions, coalesce(oc.creators, []) AS creators
    FROM objects o FULL JOIN object_creators oc ON oc.name = o.name
), catalog AS (
    SELECT * FROM predefined UNION ALL BY NAME SELECT * FROM effect UNION ALL BY NAME SELECT * FROM object
)
SELECT t.name, t.kind, t.rule, t.game_name, t.type_line, t.colors, t.power, t.toughness, t.oracle_text,
       t.definitions::INTEGER AS definitions, t.creators, len(t.creators)::INTEGER AS creator_count,
       (SELECT min(c.name) FROM names n JOIN cards c USING (oracle_id)
        WHERE n.name = t.name AND own_name_via(n.via)) AS card_name
FROM catalog t;

-- name: changes
-- requires: card_changes, legality_changes, new_removed_cards
-- Every change the ingests recorded (the history tables, built by oracle_tools/history/changes.py after this file runs,
-- which creates this view then), one list in the order `oracle-tools changes` shows them (kind_order): bans and unbans,
-- other legality changes, renames, text errata, other characteristics, new cards, removed cards.
-- `field` is the format of a legality change and the characteristic of a card change.
CREATE OR REPLACE VIEW changes AS
WITH runs AS (SELECT run_id, min(started_at) AS ingested_at FROM ingest_runs GROUP BY run_id),
every_change AS (
    SELECT run_id, oracle_id, name,
           -- leaving the format altogether (banned -> not_legal) is no unban: another legality change
           CASE WHEN new_status = 'banned' THEN 'ban'
                WHEN old_status = 'banned' AND new_status IN ('legal', 'restricted') THEN 'unban'
                WHEN new_status = 'restricted' THEN 'restriction'
                WHEN old_status = 'restricted' AND new_status = 'legal' THEN 'unrestriction'
                ELSE 'legality' END AS kind,
           format AS field, old_status AS old_value, new_status AS new_value
    FROM legality_changes
    UNION ALL
    SELECT run_id, oracle_id, name,
           CASE field WHEN 'name' THEN 'rename' WHEN 'oracle_text' THEN 'errata' ELSE 'characteristic' END,
           field, old_value, new_value
    FROM card_changes
    UNION ALL
    SELECT run_id, oracle_id, name, change, NULL, NULL, NULL FROM new_removed_cards
)
SELECT c.run_id, r.ingested_at, c.kind,
       list_position(['ban', 'unban', 'restriction', 'unrestriction', 'legality', 'rename', 'errata',
                      'characteristic', 'new', 'removed'], c.kind) AS kind_order,
       c.oracle_id, c.name, c.field, c.old_value, c.new_value
FROM every_change c LEFT JOIN runs r USING (run_id);
