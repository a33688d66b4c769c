#!/usr/bin/env bash
# Builds Citus $CITUS_VERSION for Debian's PostgreSQL and installs it into it, once per machine:
# the build is kept in $CITUS_CACHE_DIR/<version>-pg<major> (outside the clone), and nothing is
# done when the citus.so installed is the one it made. Settings: see common.sh.
#
# Exit status: 0 installed (now or before), 3 no source to build from (neither
# $CITUS_SOURCE_DIR nor GitHub), anything else a failed build.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

key="$CITUS_VERSION-pg$PG_MAJOR"
cache="$CITUS_CACHE_DIR/$key"
stamp="$cache/installed" # the sha256 of the citus.so we installed
mkdir -p "$cache"

pg_config="$PG_BIN/pg_config"
installed() {
  [ -x "$pg_config" ] || return 1
  local so
  so="$("$pg_config" --pkglibdir)/citus.so"
  [ -f "$so" ] && [ -f "$("$pg_config" --sharedir)/extension/citus.control" ] && [ -f "$stamp" ] \
    && [ "$(sha256sum "$so" | cut -d' ' -f1)" = "$(cat "$stamp")" ]
}
if installed; then
  say "citus: $CITUS_VERSION is installed for PostgreSQL $PG_MAJOR (built in $cache)"
  exit 0
fi

# One build at a time on this machine (two `make test` runs, say): the second waits, then finds
# it installed.
exec 9>"$CITUS_CACHE_DIR/.lock"
flock 9
if installed; then exit 0; fi

# Debian's development packages for PostgreSQL's server and the libraries Citus links.
deps=(build-essential patch "postgresql-server-dev-$PG_MAJOR" liblz4-dev libzstd-dev libkrb5-dev
  libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev)
missing=()
for dep in "${deps[@]}"; do
  dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q 'ok installed' || missing+=("$dep")
done
[ "${#missing[@]}" -eq 0 ] || apt_install "${missing[@]}"

build="$cache/build"
log="$cache/build.log"
if [ ! -e "$build/.built" ]; then
  tarball="$CITUS_SOURCE_DIR/citus-$CITUS_VERSION.tar.gz"
  if [ ! -r "$tarball" ]; then
    tarball="$CITUS_CACHE_DIR/citus-$CITUS_VERSION.tar.gz"
    if ! tar tzf "$tarball" >/dev/null 2>&1; then
      url="https://github.com/citusdata/citus/archive/refs/tags/v$CITUS_VERSION.tar.gz"
      say "citus: no citus-$CITUS_VERSION.tar.gz in $CITUS_SOURCE_DIR; downloading $url"
      if ! curl -fsSL --connect-timeout 20 --max-time 300 -o "$tarball.part" "$url" \
        || ! tar tzf "$tarball.part" >/dev/null 2>&1; then
        rm -f "$tarball.part"
        echo "citus: no source: not in $CITUS_SOURCE_DIR, and $url could not be downloaded" >&2
        exit 3
      fi
      mv "$tarball.part" "$tarball"
    fi
  fi

  say "citus: building $CITUS_VERSION for PostgreSQL $PG_MAJOR in $build (about 5 minutes on 2 cores; log: $log)"
  # Built where it stays (configure writes absolute paths): .built marks a finished build, and a
  # folder without it is a stopped one, built again from scratch.
  rm -rf "$build"
  mkdir -p "$build"
  tar xzf "$tarball" -C "$build" --strip-components=1
  cd "$build"
  # Debian's PostgreSQL 15.20 declares have_createdb_privilege(), which Citus 13.2.2 defines again
  # for older 15.x: the patch includes PostgreSQL's declaration instead. Only where PostgreSQL has
  # it, and only if it applies.
  patch_file="$CITUS_SOURCE_DIR/pg15-20-compat.patch"
  if [ -r "$patch_file" ] \
    && grep -qs 'have_createdb_privilege' "$("$pg_config" --includedir-server)/commands/dbcommands.h"; then
    if patch -p1 --dry-run -s <"$patch_file" >/dev/null 2>&1; then
      say "citus: applying $(basename "$patch_file")"
      patch -p1 -s <"$patch_file"
    else
      say "citus: $(basename "$patch_file") does not apply; building without it"
    fi
  elif grep -qs 'have_createdb_privilege' "$("$pg_config" --includedir-server)/commands/dbcommands.h" \
    && grep -qs '^have_createdb_privilege(void)' src/include/pg_version_compat.h; then
    # No patch at hand (a download): the same change, made here.
    say "citus: PostgreSQL declares have_createdb_privilege(): using its declaration"
    perl -0pi -e 's/static inline bool\s*\nhave_createdb_privilege\(void\)\s*\n\{.*?\n\}\n/#include "commands\/dbcommands.h"\n/s' \
      src/include/pg_version_compat.h
  fi
  started=$SECONDS
  if ! { ./configure --without-libcurl PG_CONFIG="$pg_config" && make -j"${CITUS_BUILD_JOBS:-2}"; } >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    die "citus: the build failed (whole log: $log)"
  fi
  touch .built
  say "citus: built in $((SECONDS - started)) s"
fi

is_root || [ -w "$("$pg_config" --pkglibdir)" ] || die "citus: installing into $("$pg_config" --pkglibdir) needs root"
say "citus: installing into PostgreSQL $PG_MAJOR ($("$pg_config" --pkglibdir))"
make -C "$build" install >>"$log" 2>&1 || { tail -n 40 "$log" >&2; die "citus: make install failed (log: $log)"; }
sha256sum "$("$pg_config" --pkglibdir)/citus.so" | cut -d' ' -f1 >"$stamp"
