#!/usr/bin/env bash
# The stand-in postgres image's entry point (see Dockerfile): the part of the official image's
# docker-entrypoint.sh that deploy/compose.yaml uses. Started as root, it gives the data and socket
# directories to postgres and runs itself again as postgres; on an empty data directory it runs initdb,
# creates POSTGRES_DB and allows password logins from the network; then it runs postgres.
set -Eeo pipefail

# VAR or VAR_FILE (the file's content, without its final newline), not both.
file_env() {
  local var=$1 file_var="${1}_FILE" default=${2:-} value
  if [ "${!var:-}" ] && [ "${!file_var:-}" ]; then
    echo "error: both $var and $file_var are set (but are exclusive)" >&2
    exit 1
  fi
  value=$default
  if [ "${!var:-}" ]; then
    value=${!var}
  elif [ "${!file_var:-}" ]; then
    value=$(<"${!file_var}")
  fi
  export "$var"="$value"
  unset "$file_var"
}

if [ "${1:0:1}" = - ]; then
  set -- postgres "$@"
fi

if [ "$1" = postgres ]; then
  if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    chmod 3777 /var/run/postgresql
    exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
  fi

  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    file_env POSTGRES_PASSWORD
    file_env POSTGRES_USER postgres
    file_env POSTGRES_DB "$POSTGRES_USER"
    file_env POSTGRES_INITDB_ARGS
    POSTGRES_HOST_AUTH_METHOD=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
    if [ -z "$POSTGRES_PASSWORD" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
      echo "error: the database is uninitialized and no superuser password is given (POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE)" >&2
      exit 1
    fi

    # Like the official image: local (socket) connections trusted, the network by password.
    # shellcheck disable=SC2086
    initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") $POSTGRES_INITDB_ARGS
    printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"

    # A server on the socket only, to create the database; nothing from the network reaches it.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
    if [ "$POSTGRES_DB" != postgres ]; then
      psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc --dbname postgres \
        --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";'
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop
    unset POSTGRES_PASSWORD
    echo 'PostgreSQL init process complete; ready for start up.'
  fi
fi

exec "$@"
