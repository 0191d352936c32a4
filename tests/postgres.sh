# Sourced by .ci/run and scripts/test: a throwaway PostgreSQL 15 on a loopback port in a
# temporary directory. pg_start exports KPROV_TEST_PG_URI; pg_stop removes everything.
# initdb and pg_ctl refuse root, so as root they run as the postgres user.

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

as_pg() {
  # From /, which the postgres user can read (a clone under /tmp/x.XXXX may be 0700).
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

pg_start() {
  PGPORT=${KPROV_PG_PORT:-55432}
  while ss -Hltn "sport = :$PGPORT" 2>/dev/null | grep -q .; do PGPORT=$((PGPORT + 1)); done
  PGTMP=$(mktemp -d /tmp/kprov-pg.XXXXXX)   # outside the tree: postgres must be able to reach it
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PGTMP"
  as_pg "$PGBIN/initdb" -D "$PGTMP/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
    --no-sync --no-instructions >"$PGTMP/initdb.log" 2>&1 || { cat "$PGTMP/initdb.log"; return 1; }
  as_pg "$PGBIN/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/server.log" -w -t 60 -s \
    -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $PGTMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start || { cat "$PGTMP/server.log"; return 1; }
  psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres \
    -c "CREATE ROLE kprov LOGIN PASSWORD 'kprov' CREATEDB" -c "CREATE DATABASE kprov_test OWNER kprov"
  export KPROV_TEST_PG_URI="postgresql://kprov:kprov@127.0.0.1:$PGPORT/kprov_test"
  echo "postgres: $KPROV_TEST_PG_URI"
}

pg_stop() {
  [ -n "${PGTMP:-}" ] || return 0
  as_pg "$PGBIN/pg_ctl" -D "$PGTMP/data" -m immediate -s stop >/dev/null 2>&1 || true
  rm -rf "$PGTMP"
  PGTMP=
}
