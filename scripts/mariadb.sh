#!/usr/bin/env bash
# mariadb.sh: a MariaDB server of the project's own (Debian's mariadb-server), on loopback, with its
# own data directory; the query workload's database. Used by `make run` and by the tests.
#
#   scripts/mariadb.sh start [DIR] [PORT]   initialise DIR (first time) and start the server;
#                                           prints the connection settings as FB_DB_* lines
#   scripts/mariadb.sh stop  [DIR]          stop it (the server, nothing else)
#   scripts/mariadb.sh env   [DIR]          print the FB_DB_* lines of a started server
#
# DIR defaults to .cache/mariadb, PORT to 33306. FB_DB_BIND (default 127.0.0.1) is the address it
# listens on and FB_DB_CLIENTS (default the same) the client host pattern the user may connect from:
# the real node's tier starts it inside the node's namespace on the node's address for the pods
# (FB_DB_BIND=10.250.0.1 FB_DB_CLIENTS=10.250.0.%). The password is generated at initialisation and kept
# in DIR/credentials (mode 600); it never appears in a spec or a result, only in the environment the
# functions get (FB_DB_PASSWORD).
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=${1:-}
dir=$(realpath -m "${2:-.cache/mariadb}")
port=${3:-33306}
bind=${FB_DB_BIND:-127.0.0.1}
clients=${FB_DB_CLIENTS:-$bind}
sock="$dir/run/mysqld.sock"
pidf="$dir/run/mysqld.pid"

die() { echo "mariadb.sh: $*" >&2; exit 1; }

need_server() {
  if ! command -v mariadbd >/dev/null && [ ! -x /usr/sbin/mariadbd ]; then
    echo "mariadb.sh: installing Debian's mariadb-server" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client >/dev/null
  fi
}

running() { [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; }

print_env() {
  [ -f "$dir/credentials" ] || die "$dir is not initialised (scripts/mariadb.sh start)"
  cat "$dir/credentials"
}

case "$cmd" in
start)
  need_server
  mkdir -p "$dir/run"
  as_root=()
  [ "$(id -u)" = 0 ] && as_root=(--user=root)
  if [ ! -d "$dir/data/mysql" ]; then
    mariadb-install-db --no-defaults "${as_root[@]}" --datadir="$dir/data" --auth-root-authentication-method=socket \
      --auth-root-socket-user="$(id -un)" --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; die "mariadb-install-db failed"; }
    rm -f "$dir/credentials"
  fi
  if running; then
    grep -q "^FB_DB_PORT=$port\$" "$dir/credentials" 2>/dev/null || die "already running in $dir on another port"
    print_env; exit 0
  fi
  /usr/sbin/mariadbd --no-defaults "${as_root[@]}" --datadir="$dir/data" --socket="$sock" --pid-file="$pidf" \
    --port="$port" --bind-address="$bind" --skip-name-resolve --log-error="$dir/error.log" \
    --innodb-buffer-pool-size=64M --max-connections=2000 >/dev/null 2>&1 &
  for _ in $(seq 1 300); do
    mariadb-admin --no-defaults --socket="$sock" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  mariadb-admin --no-defaults --socket="$sock" ping >/dev/null 2>&1 || { tail -20 "$dir/error.log" >&2; die "server did not start (log: $dir/error.log)"; }
  if [ ! -f "$dir/credentials" ]; then
    pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
    mariadb --no-defaults --socket="$sock" -e "CREATE DATABASE IF NOT EXISTS faasbench;
      CREATE USER IF NOT EXISTS 'faasbench'@'$clients' IDENTIFIED BY '$pw';
      ALTER USER 'faasbench'@'$clients' IDENTIFIED BY '$pw';
      GRANT ALL ON faasbench.* TO 'faasbench'@'$clients';"
    umask 077
    printf "FB_DB_HOST=$bind\nFB_DB_PORT=%s\nFB_DB_USER=faasbench\nFB_DB_PASSWORD=%s\nFB_DB_NAME=faasbench\n" "$port" "$pw" >"$dir/credentials"
  else
    sed -i "s/^FB_DB_PORT=.*/FB_DB_PORT=$port/" "$dir/credentials"
  fi
  print_env
  ;;
stop)
  if running; then
    pid=$(cat "$pidf")
    kill "$pid"
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; echo "mariadb.sh: killed $pid after 30 s" >&2; }
  fi
  rm -f "$pidf"
  ;;
env) print_env ;;
*) die "usage: scripts/mariadb.sh start|stop|env [DIR] [PORT]" ;;
esac
