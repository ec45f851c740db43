-- The change history (oracle_tools/history/changes.py): what changed in the Oracle reference from one ingest to the
-- next. Each ingest copies these tables from the database it replaces, appends what it found different,
-- and writes them into the new database before the swap, so the history goes wherever the database goes and
-- a failed ingest leaves the old file, history included, as it was. Rows name the ingest run
-- (ingest_runs.run_id) that recorded them. Only cards of the Oracle reference (cards.is_card) are compared.

-- One row per run that compared the new reference with the previous one (a first ingest compares nothing).
CREATE TABLE IF NOT EXISTS change_runs (
    run_id           INTEGER NOT NULL,   -- the ingest run that recorded the changes
    compared_with    INTEGER,            -- the run that built the database it replaced
    cards_before     INTEGER NOT NULL,
    cards_after      INTEGER NOT NULL
);

-- One row per card and characteristic that changed (old and new value as the data has them).
-- field: name | mana_cost | type_line | oracle_text | power/toughness | loyalty | defense | colors |
--        color_identity | keywords | layout
CREATE TABLE IF NOT EXISTS card_changes (
    run_id     INTEGER NOT NULL,
    oracle_id  VARCHAR NOT NULL,
    name       VARCHAR NOT NULL,   -- the card's name after the change
    field      VARCHAR NOT NULL,
    old_value  VARCHAR,
    new_value  VARCHAR
);

-- One row per card and format whose status changed (legal | not_legal | banned | restricted).
CREATE TABLE IF NOT EXISTS legality_changes (
    run_id      INTEGER NOT NULL,
    oracle_id   VARCHAR NOT NULL,
    name        VARCHAR NOT NULL,
    format      VARCHAR NOT NULL,
    old_status  VARCHAR NOT NULL,
    new_status  VARCHAR NOT NULL
);

-- Cards that appeared in or left the Oracle reference.
CREATE TABLE IF NOT EXISTS new_removed_cards (
    run_id     INTEGER NOT NULL,
    oracle_id  VARCHAR NOT NULL,
    name       VARCHAR NOT NULL,
    change     VARCHAR NOT NULL    -- new | removed
);
