#!/usr/bin/env bash
# readme-check (`make readme-check`, part of `make test`): a claim of README.md that fails is a bug, so this runs the
# README's commands on a fresh copy of the repository, as a newcomer would, and fails when one of them does.
#
#   1. A fresh tree in a temporary folder: a `git clone` of HEAD, or with README_CHECK_FROM=worktree a copy of the
#      working tree's files (tracked and untracked, less what .gitignore leaves out), so that uncommitted changes can
#      be checked before a commit. The data the README's examples read, ../shared/data, is linked beside it
#      (README_CHECK_DATA names another folder).
#   2. `make run` in it, in the background on a free loopback port (VALUATOR_ADDR, README: Configuration): it builds
#      the web app and the binary from the copy's own files and starts on a new SQLite database with the demo data.
#      The Go build cache is the usual one (go env GOCACHE), and web/node_modules is hard-linked from the working
#      tree when its lock file is the same, so npm installs nothing; the build itself still runs in the copy.
#      It waits for "Valuator is running" and for /readyz to answer 200.
#   3. Each command of the README's sh blocks: `make test` only as `make -n test` (the caller is `make test`), the
#      API's curl examples against the server with a key made for the demo account (signed in with the account the
#      README names), then, once the server has stopped, the other commands (the `bin/valuator import` examples) in
#      the copy, on the database `make run` made; each must exit 0, and a curl must answer 2xx. A command that needs
#      what no newcomer has (a file of their own, a PostgreSQL server) is skipped, with the reason printed. The
#      operator account the README names must sign in and reach the operators' API.
#   4. The rows of the README's command table that are bin/valuator commands: run when they can run as written
#      and end by themselves, otherwise skipped with the reason.
#
# Environment: README_CHECK_FROM=head|worktree (default head), README_CHECK_DATA (default ../shared/data of the
# repository), README_CHECK_KEEP=1 keeps the temporary folder, README_CHECK_TIMEOUT seconds for `make run` to be
# ready (default 900).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
from=${README_CHECK_FROM:-head}
data=${README_CHECK_DATA:-$repo/../shared/data}
timeout_ready=${README_CHECK_TIMEOUT:-900}
readme=README.md

# The README describes the defaults: nothing of the caller's configuration (a database URL, production mode) may
# change what the commands do. make's own variables would make `make run` a sub-make of the caller's.
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^VALUATOR_' || true)
unset MAKEFLAGS MAKELEVEL MFLAGS

start=$(date +%s)
elapsed() { echo "$(($(date +%s) - start)) s"; }
say() { printf 'readme-check [%s]: %s\n' "$(elapsed)" "$*"; }
fail() {
  printf 'readme-check: FAIL: %s\n' "$*" >&2
  exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme-check.XXXXXX")
tree=$tmp/main
work=$tmp/work
server_pid=""
cleanup() {
  local rc=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    # make run is a process group of its own (setsid): make and the server it started.
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  if [ "${README_CHECK_KEEP:-0}" = 1 ]; then
    echo "readme-check: kept $tmp"
  else
    rm -rf "$tmp"
  fi
  if [ $rc = 0 ]; then echo "readme-check: every README command checked in $(elapsed)"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. A fresh tree ----------------------------------------------------------------------------------------------
case $from in
head)
  rev=$(git -C "$repo" rev-parse HEAD)
  say "git clone $repo (HEAD $(git -C "$repo" log -1 --format='%h %s' | cut -c1-80)) into $tree"
  git clone --quiet --no-checkout "$repo" "$tree"
  git -C "$tree" -c advice.detachedHead=false checkout --quiet "$rev"
  if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
    say "note: the working tree has uncommitted changes, which a clone does not have (README_CHECK_FROM=worktree checks them)"
  fi
  ;;
worktree)
  say "copying the working tree of $repo (tracked and untracked files, less the ignored) into $tree"
  mkdir -p "$tree"
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -xf - -C "$tree"
  ;;
*) fail "README_CHECK_FROM must be head or worktree, not $from" ;;
esac
mkdir -p "$work" "$tmp/shared"
if [ -d "$data" ]; then
  ln -s "$(cd "$data" && pwd)" "$tmp/shared/data"
  say "../shared/data of the copy is $(cd "$data" && pwd)"
else
  say "no data folder at $data: examples that read ../shared/data are skipped"
fi

# npm packages: a hard-linked copy of the working tree's when the lock file is the same, so `make run` installs
# nothing. TypeScript's build info (node_modules/.tmp) is copied instead, as a file written in place through a hard
# link would change the working tree's: tsc -b starts from it and checks again every file whose content differs.
# Vite's caches are left out.
if [ -d "$repo/web/node_modules" ] && cmp -s "$repo/web/package-lock.json" "$tree/web/package-lock.json"; then
  cp -al "$repo/web/node_modules" "$tree/web/node_modules" 2>/dev/null || cp -a "$repo/web/node_modules" "$tree/web/node_modules"
  rm -rf "$tree/web/node_modules/.tmp" "$tree/web/node_modules/.vite" "$tree/web/node_modules/.vite-temp" \
    "$tree/web/node_modules/.installed"
  if [ -d "$repo/web/node_modules/.tmp" ]; then cp -r "$repo/web/node_modules/.tmp" "$tree/web/node_modules/.tmp"; fi
  touch "$tree/web/node_modules/.installed"
  say "web/node_modules linked from the working tree (same package-lock.json)"
else
  say "web/node_modules: none to reuse, make run installs it"
fi
say "Go build cache: $(go env GOCACHE)"

# ---- 2. make run --------------------------------------------------------------------------------------------------
free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
port=$(free_port) || fail "no free port"
base=http://127.0.0.1:$port
log=$tmp/run.log
say "RUN  make run   (VALUATOR_ADDR=127.0.0.1:$port; output in $log)"
(cd "$tree" && VALUATOR_ADDR=127.0.0.1:$port exec setsid make run >"$log" 2>&1 </dev/null) &
server_pid=$!
deadline=$(($(date +%s) + timeout_ready))
until grep -q "Valuator is running" "$log" 2>/dev/null; do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    tail -n 40 "$log" >&2
    fail "make run stopped before it printed \"Valuator is running\""
  fi
  if [ "$(date +%s)" -gt "$deadline" ]; then
    tail -n 40 "$log" >&2
    fail "make run did not print \"Valuator is running\" within ${timeout_ready}s"
  fi
  sleep 1
done
say "OK   make run: $(grep -m1 "Valuator is running" "$log")"
# Within the same time: a server may print its address before its engine is ready.
while :; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz" || true)
  [ "$code" = 200 ] && break
  [ "$(date +%s)" -gt "$deadline" ] && fail "GET /readyz answered $code ${timeout_ready}s after make run started"
  sleep 1
done
say "OK   GET /readyz: 200"

# ---- The accounts the README names --------------------------------------------------------------------------------
# "**demo@valuator.dev / valuator-demo**": the README's own words give the credentials.
credentials() {
  grep -o "\*\*$1 / [^*]*\*\*" "$tree/$readme" | head -n1 | sed -e 's/^\*\*//' -e 's/\*\*$//' -e 's| / |\t|'
}
json_string() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
sign_in() {
  local email=$1 password=$2 body
  body=$(printf '{"email":"%s","password":"%s"}' "$email" "$password")
  curl -sS -X POST "$base/api/auth/login" -H 'content-type: application/json' --data "$body" | json_string token
}
IFS=$'\t' read -r demo_email demo_password < <(credentials 'demo@valuator.dev') ||
  fail "$readme no longer names the demo account as **demo@valuator.dev / PASSWORD**"
token=$(sign_in "$demo_email" "$demo_password")
[ -n "$token" ] || fail "the demo account $demo_email / $demo_password that $readme names does not sign in"
say "OK   sign in as $demo_email (POST /api/auth/login)"
key_body=$(curl -sS -X POST "$base/api/api-keys" -H "Authorization: Bearer $token" -H 'content-type: application/json' \
  --data '{"name":"readme-check"}')
KEY=$(json_string keyValue <<<"$key_body")
[ -n "$KEY" ] || fail "POST /api/api-keys answered: $key_body"
say "OK   new API key of the demo account (POST /api/api-keys): ${KEY:0:12}..."

IFS=$'\t' read -r admin_email admin_password < <(credentials 'admin@valuator.dev') ||
  fail "$readme no longer names the operator account as **admin@valuator.dev / PASSWORD**"
admin_token=$(sign_in "$admin_email" "$admin_password")
[ -n "$admin_token" ] || fail "the operator account $admin_email / $admin_password that $readme names does not sign in"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/admin/accounts" -H "Authorization: Bearer $admin_token")
[ "$code" = 200 ] || fail "the operator account's GET /api/admin/accounts answered $code"
say "OK   sign in as $admin_email, an operator (GET /api/admin/accounts: 200)"

# ---- 3. The README's sh blocks ------------------------------------------------------------------------------------
# One command a line; a line ending in a backslash goes on on the next. Comment lines are left out.
mapfile -d '' commands < <(awk '
  /^```sh[[:space:]]*$/ { inblock = 1; next }
  /^```/ { if (inblock && cmd != "") { printf "%s%c", cmd, 0; cmd = "" } inblock = 0; next }
  !inblock { next }
  {
    line = $0
    if (cmd == "" && (line ~ /^[[:space:]]*#/ || line ~ /^[[:space:]]*$/)) next
    if (line ~ /\\[[:space:]]*$/) { sub(/\\[[:space:]]*$/, "", line); cmd = cmd line " "; next }
    printf "%s%c", cmd line, 0; cmd = ""
  }' "$tree/$readme")

# homes.csv of the batch example is the reader's own spreadsheet: one of the demo homes stands in for it.
printf 'address,city,state,zip\n5873 River Dr N,Seattle,WA,98103\n' >"$work/homes.csv"

checked=0
skipped=0
skip() {
  say "SKIP $1"
  say "     because $2"
  skipped=$((skipped + 1))
}

# A file a command names (an argument ending in .csv, .xlsx or .xls, or after @) that is not there.
missing_file() {
  local cmd=$1 dir=$2 w
  for w in $cmd; do
    w=${w#*=@}
    w=${w#@}
    w=${w//\"/}
    case $w in
    *.csv | *.xlsx | *.xls) [ -e "$dir/$w" ] || { echo "$w"; return 0; } ;;
    esac
  done
  return 1
}

run_curl() {
  local cmd=$1 out=$tmp/curl.out code
  cmd=${cmd//http:\/\/localhost:8080/$base}
  say "RUN  $cmd"
  # -w puts the status on a line of its own after the body (or alone, when -O writes the body to a file).
  if ! (cd "$work" && eval "curl -sS -w '\n%{http_code}' ${cmd#curl }") >"$out" 2>&1; then
    cat "$out" >&2
    fail "curl failed: $1"
  fi
  code=$(tail -n1 "$out")
  case $code in
  2??) say "OK   HTTP $code" ;;
  *)
    head -c 600 "$out" >&2
    echo >&2
    fail "HTTP $code, not 2xx: $1"
    ;;
  esac
}

run_in_tree() {
  local cmd=$1 out=$tmp/cmd.out
  say "RUN  $cmd   (in the copy)"
  if ! (cd "$tree" && timeout 600 bash -c "$cmd") >"$out" 2>&1; then
    tail -n 30 "$out" >&2
    fail "exit status not 0: $cmd"
  fi
  say "OK   exit 0: $(tail -n1 "$out" | cut -c1-160)"
}

# The commands that ask the server first; the bin/valuator commands after the server has stopped, so that its
# retraining on the records they import does not compete with them for the CPU.
later=()
for cmd in "${commands[@]}"; do
  cmd=$(sed -e 's/[[:space:]]*#[^"]*$//' -e 's/[[:space:]]*$//' <<<"$cmd") # a trailing comment
  case $cmd in
  "make run")
    say "OK   make run (running at $base)"
    ;;
  "make test")
    say "RUN  make -n test   (make test itself is the caller)"
    (cd "$tree" && make -n test >/dev/null) || fail "make -n test does not parse"
    say "OK   make -n test parses"
    ;;
  KEY=*)
    say "OK   KEY=${KEY:0:12}...   (the key made above, for $cmd)"
    ;;
  *postgres://*)
    skip "$cmd" "it needs the PostgreSQL server of the example (the Go tests run every store test on PostgreSQL)"
    ;;
  curl\ *)
    if f=$(missing_file "$cmd" "$work"); then
      skip "$cmd" "$f is not there"
      continue
    fi
    [ "$cmd" != "${cmd/homes.csv/}" ] && say "     (homes.csv: one demo home, made for the check)"
    run_curl "$cmd"
    ;;
  *)
    later+=("$cmd")
    continue
    ;;
  esac
  checked=$((checked + 1))
done

stop_server() {
  kill -TERM -- "-$server_pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$server_pid" 2>/dev/null && fail "make run did not stop within 20 s of SIGTERM"
  server_pid=""
}
say "stopping make run (SIGTERM)"
stop_server
say "OK   stopped"

for cmd in "${later[@]}"; do
  if f=$(missing_file "$cmd" "$tree"); then
    skip "$cmd" "$f is not there (the reader's own file, or no ../shared/data)"
    continue
  fi
  run_in_tree "$cmd"
  checked=$((checked + 1))
done

# ---- 4. The command table's bin/valuator rows ---------------------------------------------------------------------
mapfile -t rows < <(sed -n 's/^| `\(bin\/valuator [^`]*\)` |.*/\1/p' "$tree/$readme" | sed 's/\\|/|/g')
for cmd in "${rows[@]}"; do
  case $cmd in
  "bin/valuator serve" | "bin/valuator worker")
    skip "$cmd" "it runs until stopped (make run above starts serve)"
    ;;
  "bin/valuator demo"*)
    skip "$cmd" "the first start made the demo market, and demo refuses a database that has one without --replace"
    ;;
  *FILE* | *EMAIL* | *"["* | *"|"*)
    skip "$cmd" "it is a pattern (FILE, EMAIL, [options], a|b) rather than a command; the sh blocks above run its examples"
    ;;
  *)
    run_in_tree "$cmd"
    checked=$((checked + 1))
    ;;
  esac
done

say "$checked commands checked, $skipped skipped (reasons above)"
