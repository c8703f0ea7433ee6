-- Run once by the PostgreSQL image on an empty data directory (/docker-entrypoint-initdb.d), as the
-- POSTGRES_USER in POSTGRES_DB (fleet). The fleet schema itself comes from `python -m warehouse.migrate`
-- (the compose service `migrate`); its migration 0001 makes gps a TimescaleDB hypertable here.
CREATE DATABASE fleet_dagster;  -- Dagster's runs, events and schedules (docker/dagster.yaml)
