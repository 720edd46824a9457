#!/usr/bin/env bash
# Obtain etcd, kube-apiserver and kube-controller-manager for the end-to-end tests.
#
# Order of preference:
#   1. $KUBEBUILDER_ASSETS (the envtest convention) when it holds all three binaries;
#   2. a cache outside the repo keyed by version ($EHPA_CACHE_DIR, default ~/.cache/ehpa-adapter);
#   3. a build with Go from the module proxy: a throwaway module that requires k8s.io/kubernetes and
#      replaces its staging modules with their published v0.X.Y versions (k8s.io/kubernetes' own replaces
#      point at ./staging and do not apply to a dependant), and a tiny etcd main over etcdmain.
# Prints the directory holding the binaries on its last line. `--check` builds nothing: exit 0 when they exist.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.4}"
CACHE_ROOT="${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter}"
OUT="$CACHE_ROOT/control-plane/k8s-$K8S_VERSION-etcd-$ETCD_VERSION"

have_all() { [ -x "$1/etcd" ] && [ -x "$1/kube-apiserver" ] && [ -x "$1/kube-controller-manager" ]; }

if [ -n "${KUBEBUILDER_ASSETS:-}" ] && have_all "$KUBEBUILDER_ASSETS"; then
  echo "$KUBEBUILDER_ASSETS"; exit 0
fi
if have_all "$OUT"; then
  echo "$OUT"; exit 0
fi
# --check: only say (by the exit code) whether the binaries are already there.
[ "${1:-}" = "--check" ] && exit 1

command -v go >/dev/null || { echo "build-control-plane: go is required" >&2; exit 1; }
mkdir -p "$OUT"
WORK="$CACHE_ROOT/control-plane/build-k8s-$K8S_VERSION-etcd-$ETCD_VERSION"
mkdir -p "$WORK/k8s" "$WORK/etcd"

staging_version="v0.${K8S_VERSION#v1.}"

# --- kube-apiserver and kube-controller-manager -------------------------------------------------
(
  cd "$WORK/k8s"
  # A module set up halfway (network cut during tidy) is redone from scratch, not built.
  if [ ! -f .initialized ]; then
    rm -f go.mod go.sum tools.go
    go mod init ehpa-adapter.local/control-plane >&2
    go mod download -json "k8s.io/kubernetes@$K8S_VERSION" >/dev/null
    kmod="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.mod"
    # Every module k8s.io/kubernetes replaces with ./staging/... gets its published version.
    for m in $(grep -E '=> \./staging/' "$kmod" | awk '{print $1}'); do
      go mod edit -replace "$m=$m@$staging_version"
    done
    cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO
    go mod edit -require "k8s.io/kubernetes@$K8S_VERSION"
    go mod tidy -e >&2 || true
    touch .initialized
  fi
  echo "building kube-apiserver $K8S_VERSION (first time takes a while)" >&2
  go build -tags tools -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${K8S_VERSION#v1.}" -o "$OUT/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >&2
  echo "building kube-controller-manager $K8S_VERSION" >&2
  go build -tags tools -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${K8S_VERSION#v1.}" -o "$OUT/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager >&2
)

# --- etcd --------------------------------------------------------------------------------------
(
  cd "$WORK/etcd"
  if [ ! -f .initialized ]; then
    rm -f go.mod go.sum main.go
    go mod init ehpa-adapter.local/etcd >&2
    cat > main.go <<'GO'
// Command etcd runs the published etcd server module unchanged.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
    go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2
    go mod tidy >&2
    touch .initialized
  fi
  echo "building etcd $ETCD_VERSION" >&2
  go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" . >&2
)

have_all "$OUT" || { echo "build-control-plane: binaries missing in $OUT" >&2; exit 1; }
echo "$OUT"
