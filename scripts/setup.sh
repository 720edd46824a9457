#!/usr/bin/env bash
# The set-up `npm test` and `npm run demo` run first, so each works on a fresh machine from a clone:
#   1. npm packages (`npm ci`) when node_modules is missing or older than package-lock.json;
#   2. Debian packages (prometheus, promtool, openssl, wrk) via scripts/install-system-deps.sh;
#   3. a Go toolchain (the control plane and the differential oracles are built from the Go module proxy);
#   4. etcd, kube-apiserver, kube-controller-manager via scripts/build-control-plane.sh (cached by version
#      under ~/.cache/ehpa-adapter; the first build takes ~8 minutes on 2 cores and says so).
#   5. prometheus-adapter via scripts/build-prometheus-adapter.sh (same cache; ~3 minutes the first time),
#      for the exporter-mode e2e test (test/e2e/prometheus-adapter.test.ts).
#   6. kwok, metrics-server and kube-scheduler via scripts/build-kwok-stack.sh (same cache), the real nodes'
#      part for every e2e suite that runs pods (test/e2e/harness/README.md).
#   7. helm via scripts/build-helm.sh (same cache; ~5.5 minutes the first time), for the chart's tests and
#      scripts/gen-manifests.ts.
#   8. actionlint via scripts/build-actionlint.sh (same cache; ~1.5 minutes the first time), for
#      test/slow/workflows.test.ts, which lints .github/workflows/.
# Each step is quick when already done. A step that cannot be done prints one line saying what to run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund >/dev/null
fi

bash scripts/install-system-deps.sh

if ! command -v go >/dev/null 2>&1; then
  echo "setup: go not found on PATH; install Go >= 1.24 (https://go.dev/dl) and put it on PATH: the control plane and the test oracles are built with it" >&2
  exit 1
fi

if ! bash scripts/build-control-plane.sh --check >/dev/null 2>&1; then
  echo "setup: building etcd, kube-apiserver and kube-controller-manager with Go (first time only, ~8 min on 2 cores; cached under ${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter})"
fi
echo "setup: control-plane binaries in $(bash scripts/build-control-plane.sh | tail -n 1)"

if ! bash scripts/build-prometheus-adapter.sh --check >/dev/null 2>&1; then
  echo "setup: building prometheus-adapter with Go (first time only, ~3 min on 2 cores; cached under ${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter})"
fi
echo "setup: prometheus-adapter at $(bash scripts/build-prometheus-adapter.sh | tail -n 1)"

if ! bash scripts/build-kwok-stack.sh --check >/dev/null 2>&1; then
  echo "setup: building kwok, metrics-server and kube-scheduler with Go (first time only, a few minutes on 2 cores; cached under ${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter})"
fi
echo "setup: kwok, metrics-server, kube-scheduler in $(bash scripts/build-kwok-stack.sh | tail -n 1)"

if ! bash scripts/build-helm.sh --check >/dev/null 2>&1; then
  echo "setup: building helm with Go (first time only, ~6 min on 2 cores; cached under ${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter})"
fi
echo "setup: helm at $(bash scripts/build-helm.sh | tail -n 1)"

if ! bash scripts/build-actionlint.sh --check >/dev/null 2>&1; then
  echo "setup: building actionlint with Go (first time only, ~1.5 min on 2 cores; cached under ${EHPA_CACHE_DIR:-$HOME/.cache/ehpa-adapter})"
fi
echo "setup: actionlint at $(bash scripts/build-actionlint.sh | tail -n 1)"
