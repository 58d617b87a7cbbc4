#!/bin/bash
# Run once by the official postgres image's entrypoint when it initialises the
# primary (mounted into /docker-entrypoint-initdb.d/): a role that may stream
# WAL to replicas, and the pg_hba line that lets it (the image's own
# `host all all all` line does not cover replication connections).
# REPLICATION_PASSWORD comes from the container's environment.
set -euo pipefail
: "${REPLICATION_PASSWORD:?set REPLICATION_PASSWORD}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v password="$REPLICATION_PASSWORD" <<'SQL'
create role replicator with replication login password :'password';
SQL
echo "host replication replicator all scram-sha-256" >>"$PGDATA/pg_hba.conf"
