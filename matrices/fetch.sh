#!/usr/bin/env bash
# Downloads matrices from the SuiteSparse Matrix Collection for users with
# internet access.
#
# usage: matrices/fetch.sh [LIST] [DEST]
#   LIST  one Group/Name per line, '#' comments (default matrices/spmv-study.txt)
#   DEST  where Name.mtx.gz files go (default matrices/study)
#
# Each matrix comes as Group/Name.tar.gz; the script extracts Name.mtx,
# checks that it is a Matrix Market file, and stores it gzip-compressed.
# What is already in DEST is skipped. SPB_FETCH_BASE overrides the
# collection's address. Exit status: 0 when every matrix of LIST is in DEST.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=${1:-$here/spmv-study.txt}
dest=${2:-$here/study}
base=${SPB_FETCH_BASE:-https://sparse.tamu.edu/MM}

command -v curl >/dev/null || { echo "fetch.sh: curl is not installed (sudo apt-get install curl)" >&2; exit 1; }
[ -r "$list" ] || { echo "fetch.sh: cannot read the list $list" >&2; exit 1; }
mkdir -p "$dest" || { echo "fetch.sh: cannot create $dest" >&2; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

present=0 fetched=0 failed=0
while IFS= read -r line || [ -n "$line" ]; do
  entry=${line%%#*}
  entry=$(echo "$entry" | tr -d '[:space:]')
  [ -n "$entry" ] || continue
  case "$entry" in
    */*) ;;
    *) echo "fetch.sh: '$entry' is not Group/Name; skipped" >&2; failed=$((failed + 1)); continue ;;
  esac
  name=${entry#*/}
  if [ -s "$dest/$name.mtx.gz" ]; then
    present=$((present + 1))
    continue
  fi
  echo "fetching $entry"
  tarball="$work/$name.tar.gz"
  curl --fail --silent --show-error --location --connect-timeout 15 --retry 2 \
       -o "$tarball" "$base/$entry.tar.gz"
  code=$?
  if [ $code -eq 6 ] || [ $code -eq 7 ] || [ $code -eq 28 ]; then
    echo "fetch.sh: cannot reach $base (offline? curl exit $code); stopping" >&2
    exit 1
  fi
  if [ $code -ne 0 ]; then
    echo "fetch.sh: $entry: download failed (curl exit $code)" >&2
    failed=$((failed + 1))
    continue
  fi
  if ! tar -xzf "$tarball" -C "$work" "$name/$name.mtx" 2>/dev/null; then
    echo "fetch.sh: $entry: the archive holds no $name/$name.mtx" >&2
    failed=$((failed + 1))
    continue
  fi
  if ! head -c 14 "$work/$name/$name.mtx" | grep -qi '^%%MatrixMarket'; then
    echo "fetch.sh: $entry: $name.mtx is not a Matrix Market file" >&2
    failed=$((failed + 1))
    continue
  fi
  if gzip -9 -n -c "$work/$name/$name.mtx" > "$dest/$name.mtx.gz.part" &&
     mv "$dest/$name.mtx.gz.part" "$dest/$name.mtx.gz"; then
    fetched=$((fetched + 1))
  else
    echo "fetch.sh: $entry: cannot write $dest/$name.mtx.gz" >&2
    rm -f "$dest/$name.mtx.gz.part"
    failed=$((failed + 1))
  fi
  rm -rf "$work/$name" "$tarball"
done < "$list"

echo "fetch.sh: $present already present, $fetched fetched, $failed failed (in $dest)"
[ $failed -eq 0 ]
