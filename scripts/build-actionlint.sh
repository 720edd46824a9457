#!/usr/bin/env bash
# Obtain actionlint, the linter test/slow/workflows.test.ts runs over .github/workflows/*.yml, so a broken
# CI or release workflow fails `npm test` here instead of on the first tag pushed.
#
# Order of preference:
#   1. $ACTIONLINT_BIN when it names an executable;
#   2. a cache outside the repo keyed by version ($EHPA_CACHE_DIR, default ~/.cache/ehpa-adapter):
#      actionlint-$ACTIONLINT_VERSION/actionlint;
#   3. a build with Go from the module proxy: `go install github.com/rhysd/actionlint/cmd/actionlint@...`
#      into that directory. actionlint's go.mod pins its dependencies, so the build resolves as published.
#
# Cold build time: 1 min 32 s wall (31 s user CPU) on the 2-core CI-kind machine, 2026-11-28, niced, with
# empty Go module and build caches (the module downloads are included), under load 10-12 from other work.
# Once built, the script prints the cached path at once; `--check` and setup.sh's step cost nothing then.
#
# Prints the path of the binary on its last line. `--check` builds nothing: exit 0 when the binary exists.
set -euo pipefail

ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-v1.7.12}"
CACHE_ROOT="${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter}"
OUT="$CACHE_ROOT/actionlint-$ACTIONLINT_VERSION"
BIN="$OUT/actionlint"

if [ -n "${ACTIONLINT_BIN:-}" ] && [ -x "$ACTIONLINT_BIN" ]; then
  echo "$ACTIONLINT_BIN"; exit 0
fi
if [ -x "$BIN" ]; then
  echo "$BIN"; exit 0
fi
[ "${1:-}" = "--check" ] && exit 1

command -v go >/dev/null || { echo "build-actionlint: go is required" >&2; exit 1; }
mkdir -p "$OUT"
echo "building actionlint $ACTIONLINT_VERSION with Go (first time only)" >&2
# Build into a temporary directory and move into place, so an interrupted build never leaves a binary
# that --check would take for a finished one.
TMP="$(mktemp -d "$OUT/build.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
# No -X flags needed: `go install module@version` records the version in the build info, which
# `actionlint -version` reports.
GOBIN="$TMP" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
  "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" >&2
mv "$TMP/actionlint" "$BIN"

[ -x "$BIN" ] || { echo "build-actionlint: $BIN missing after the build" >&2; exit 1; }
echo "$BIN"
