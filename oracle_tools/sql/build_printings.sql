-- One row per printing read (every language, every file), from the staging view of build_stage.sql.
-- Run by oracle_tools/ingest.py on its second connection while build_core.sql builds cards and faces.
INSERT INTO printings
SELECT id, oid, name, lang, "set", set_name, set_type, collector_number, released_at, rarity, layout,
       -- A multi-face printing's name is its faces' names joined; a reversible_card's sides are the same card,
       -- so their names are never joined ("Megatron // Megatron" is no name): one name when the sides agree.
       coalesce(printed_name,
                CASE WHEN layout = 'reversible_card'
                     THEN CASE WHEN len(list_distinct(list_transform(card_faces, lambda f: f.printed_name))) = 1
                               THEN card_faces[1].printed_name END
                     WHEN len(card_faces) > 0 AND list_bool_and(list_transform(card_faces, lambda f: f.printed_name IS NOT NULL))
                     THEN array_to_string(list_transform(card_faces, lambda f: f.printed_name), ' // ') END),
       nullif(coalesce(flavor_name,
                CASE WHEN layout = 'reversible_card'
                     THEN CASE WHEN len(list_distinct(list_transform(card_faces, lambda f: nullif(f.flavor_name, '')))) = 1
                               THEN card_faces[1].flavor_name END
                     WHEN len(card_faces) > 0 AND list_bool_and(list_transform(card_faces, lambda f: nullif(f.flavor_name, '') IS NOT NULL))
                     THEN array_to_string(list_transform(card_faces, lambda f: f.flavor_name), ' // ') END), ''),
       printed_type_line, printed_text,
       list_transform(card_faces, lambda f: f.name),
       list_transform(card_faces, lambda f: f.printed_name),
       list_transform(card_faces, lambda f: nullif(f.flavor_name, '')),
       games, digital, promo, border_color, security_stamp, multiverse_ids, mtgo_id, arena_id, artist, source_file, finishes,
       list_transform(card_faces, lambda f: f.oracle_id),
       tcgplayer_id, cardmarket_id
FROM ingest_stage.main.stage_dedup;
