-- Indexes for single-name point queries (oracle_tools/names/point.py), built at ingest once names and
-- name_classes exist (on the second connection, while references and tokens are read).
-- A fresh `oracle-tools resolve NAME` looks the normalized key up here instead of loading every name
-- into Python; cards and faces already have primary-key indexes on oracle_id.
CREATE INDEX names_key ON names (key);
CREATE INDEX name_classes_name ON name_classes (name);
