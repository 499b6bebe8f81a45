#!/bin/sh
# The stand-in haproxy image's entry point (see Dockerfile), as the official image's: `haproxy …` runs
# in master-worker mode (-W) in the foreground with logs on stderr (-db).
set -e
if [ "${1#-}" != "$1" ]; then
  set -- haproxy "$@"
fi
if [ "$1" = haproxy ]; then
  shift
  set -- haproxy -W -db "$@"
fi
exec "$@"
