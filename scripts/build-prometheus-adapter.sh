#!/usr/bin/env bash
# Obtain prometheus-adapter for the end-to-end test of exporter mode (test/e2e/prometheus-adapter.test.ts).
#
# Order of preference:
#   1. $PROMETHEUS_ADAPTER_BIN when it names an executable;
#   2. a cache outside the repo keyed by version ($EHPA_CACHE_DIR, default ~/.cache/ehpa-adapter);
#   3. a build with Go from the module proxy: a throwaway module that requires exactly
#      sigs.k8s.io/prometheus-adapter@VERSION and builds its cmd/adapter. (`go install path@version` would
#      also do, but it asks the proxy for the module's version list to check deprecation, which a
#      proxy that only serves pinned versions refuses.) The module's go.mod has no replace directives,
#      so its requirements resolve as published.
# Prints the path of the binary on its last line. `--check` builds nothing: exit 0 when the binary exists.
set -euo pipefail

PROMETHEUS_ADAPTER_VERSION="${PROMETHEUS_ADAPTER_VERSION:-v0.12.0}"
CACHE_ROOT="${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter}"
OUT="$CACHE_ROOT/prometheus-adapter/$PROMETHEUS_ADAPTER_VERSION"
BIN="$OUT/adapter"

if [ -n "${PROMETHEUS_ADAPTER_BIN:-}" ] && [ -x "$PROMETHEUS_ADAPTER_BIN" ]; then
  echo "$PROMETHEUS_ADAPTER_BIN"; exit 0
fi
if [ -x "$BIN" ]; then
  echo "$BIN"; exit 0
fi
[ "${1:-}" = "--check" ] && exit 1

command -v go >/dev/null || { echo "build-prometheus-adapter: go is required" >&2; exit 1; }
mkdir -p "$OUT"
WORK="$CACHE_ROOT/prometheus-adapter/build-$PROMETHEUS_ADAPTER_VERSION"
mkdir -p "$WORK"
echo "building prometheus-adapter $PROMETHEUS_ADAPTER_VERSION (first time takes a few minutes)" >&2
(
  cd "$WORK"
  # A module set up halfway (network cut during tidy) is redone from scratch, not built.
  if [ ! -f .initialized ]; then
    rm -f go.mod go.sum tools.go
    go mod init ehpa-adapter.local/prometheus-adapter >&2
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "sigs.k8s.io/prometheus-adapter/cmd/adapter"
GO
    go mod edit -require "sigs.k8s.io/prometheus-adapter@$PROMETHEUS_ADAPTER_VERSION"
    go mod tidy -e >&2 || true
    touch .initialized
  fi
  go build -tags tools -trimpath -ldflags "-s -w" -o "$BIN" sigs.k8s.io/prometheus-adapter/cmd/adapter >&2
)

[ -x "$BIN" ] || { echo "build-prometheus-adapter: $BIN missing after the build" >&2; exit 1; }
echo "$BIN"
