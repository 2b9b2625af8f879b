#!/bin/sh
# Runs a test command as uid/gid 65534 when we are root; exit 77 (CTest: skipped) when
# we are not root, since then the normal run already is unprivileged.
if [ "$(id -u)" != 0 ]; then
  echo "as_unprivileged: not root; the normal run already covers the unprivileged case"
  exit 77
fi
cd /tmp || exit 1
exec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp "$@"
