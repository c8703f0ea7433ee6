#!/bin/sh
# Run once by the PostgreSQL image on an empty data directory (/docker-entrypoint-initdb.d), as its superuser
# (POSTGRES_USER, postgres) over the container's own socket. The services never use that superuser:
#   - role fleet (LOGIN, no superuser) with the password POSTGRES_PASSWORD of docker/.env, given here as
#     SERVICE_ROLE_PASSWORD; it owns the databases fleet (the schema comes from `python -m warehouse.migrate`,
#     compose service migrate) and fleet_dagster (Dagster's runs, events and schedules, docker/dagster.yaml);
#   - timescaledb created in fleet here, by the superuser (not a trusted extension: migration 0001's
#     CREATE EXTENSION IF NOT EXISTS then finds it and makes gps a hypertable, as the table's owner; without
#     the extension, as in tests/integration/test_docker_postgres_init.py, native partitions);
#   - the superuser gets no TCP login at all (pg_hba: first matching line wins), as with `make up`'s server:
#     docs/security.md. TCP logins are SCRAM-SHA-256 (POSTGRES_HOST_AUTH_METHOD).
set -e
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v password="$SERVICE_ROLE_PASSWORD" <<'SQL'
CREATE ROLE fleet LOGIN PASSWORD :'password';
CREATE DATABASE fleet OWNER fleet;
CREATE DATABASE fleet_dagster OWNER fleet;
\connect fleet
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb') THEN
    CREATE EXTENSION IF NOT EXISTS timescaledb;
  END IF;
END
$$;
SQL
sed -i "1i host all $POSTGRES_USER all reject" "$PGDATA/pg_hba.conf"
