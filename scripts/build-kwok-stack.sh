#!/usr/bin/env bash
# Obtain the real components that replaced the e2e harness's former stand-ins (issue 15): kwok (fake nodes, pod lifecycle and
# simulated kubelet metrics), metrics-server (serves metrics.k8s.io from those kubelet endpoints) and
# kube-scheduler (binds pods to the fake nodes).
#
# Order of preference:
#   1. a cache outside the repo keyed by the three versions ($EHPA_CACHE_DIR, default ~/.cache/ehpa-adapter);
#   2. a build with Go from the module proxy, one throwaway module per project (as in
#      scripts/build-prometheus-adapter.sh: `go install path@version` would ask the proxy for version lists).
#      kube-scheduler comes from k8s.io/kubernetes with its staging modules replaced by their published
#      v0.X.Y versions, exactly as scripts/build-control-plane.sh does, so the Go build cache it filled serves
#      most packages.
# Prints the directory holding `kwok`, `metrics-server` and `kube-scheduler` on its last line, with
# `kwok-config/`: the stage, usage and metric YAML the kwok module ships (its kwokctl embeds them; the
# standalone binary takes them in --config). Each build's seconds go to stderr. `--check` builds nothing: exit 0 when the binaries exist.
set -euo pipefail

KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
METRICS_SERVER_VERSION="${METRICS_SERVER_VERSION:-v0.9.0}"
K8S_VERSION="${K8S_VERSION:-v1.34.4}"
CACHE_ROOT="${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter}"
OUT="$CACHE_ROOT/kwok-stack/kwok-$KWOK_VERSION-ms-$METRICS_SERVER_VERSION-k8s-$K8S_VERSION"

have_all() { [ -x "$1/kwok" ] && [ -x "$1/metrics-server" ] && [ -x "$1/kube-scheduler" ] && [ -f "$1/kwok-config/metrics-resource.yaml" ]; }

if have_all "$OUT"; then
  echo "$OUT"; exit 0
fi
[ "${1:-}" = "--check" ] && exit 1

command -v go >/dev/null || { echo "build-kwok-stack: go is required" >&2; exit 1; }
mkdir -p "$OUT"
WORK="$CACHE_ROOT/kwok-stack/build"

# build_cmd NAME MODULE VERSION PACKAGE LDFLAGS [staging-replaces]
# A module set up halfway (network cut during tidy) is redone from scratch, not built.
build_cmd() {
  local name="$1" module="$2" version="$3" pkg="$4" ldflags="$5" staging="${6:-}"
  [ -x "$OUT/$name" ] && return 0
  local dir="$WORK/$name-$version" started
  started=$(date +%s)
  mkdir -p "$dir"
  (
    cd "$dir"
    if [ ! -f .initialized ]; then
      rm -f go.mod go.sum tools.go
      go mod init "ehpa-adapter.local/$name" >&2
      if [ -n "$staging" ]; then
        go mod download -json "$module@$version" >/dev/null
        local kmod m
        kmod="$(go env GOMODCACHE)/cache/download/$module/@v/$version.mod"
        for m in $(grep -E '=> \./staging/' "$kmod" | awk '{print $1}'); do
          go mod edit -replace "$m=$m@$staging"
        done
      fi
      printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" > tools.go
      go mod edit -require "$module@$version"
      go mod tidy -e >&2 || true
      touch .initialized
    fi
    echo "building $name $version" >&2
    go build -tags tools -trimpath -ldflags "-s -w $ldflags" -o "$OUT/$name" "$pkg" >&2
  )
  echo "build-kwok-stack: $name $version built in $(( $(date +%s) - started )) s" >&2
}

build_cmd kube-scheduler k8s.io/kubernetes "$K8S_VERSION" k8s.io/kubernetes/cmd/kube-scheduler \
  "-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${K8S_VERSION#v1.}" \
  "v0.${K8S_VERSION#v1.}"
build_cmd kwok sigs.k8s.io/kwok "$KWOK_VERSION" sigs.k8s.io/kwok/cmd/kwok \
  "-X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION"
build_cmd metrics-server sigs.k8s.io/metrics-server "$METRICS_SERVER_VERSION" sigs.k8s.io/metrics-server/cmd/metrics-server \
  "-X k8s.io/component-base/version.gitVersion=$METRICS_SERVER_VERSION"

# The YAML the harness feeds kwok, from the module just built (read at run time, not copied into the repo).
kwok_src="$(cd "$WORK/kwok-$KWOK_VERSION" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
mkdir -p "$OUT/kwok-config"
cp "$kwok_src/kustomize/stage/node/fast/node-initialize.yaml" "$kwok_src/kustomize/stage/node/heartbeat/node-heartbeat.yaml" \
  "$kwok_src"/kustomize/stage/pod/fast/pod-{ready,complete,delete}.yaml \
  "$kwok_src/kustomize/metrics/usage/usage-from-annotation.yaml" "$kwok_src/kustomize/metrics/resource/metrics-resource.yaml" "$OUT/kwok-config/"
chmod -R u+w "$OUT/kwok-config"

have_all "$OUT" || { echo "build-kwok-stack: binaries missing in $OUT" >&2; exit 1; }
echo "$OUT"
