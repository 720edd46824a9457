#!/usr/bin/env bash
# Debian packages the tests and the demo use: Prometheus and promtool (history backfill), openssl
# (certificates for the local control plane), wrk (adapter load benchmark). Idempotent and quick when present.
set -euo pipefail
need=()
command -v prometheus >/dev/null || need+=(prometheus)
command -v promtool >/dev/null || need+=(prometheus)
command -v openssl >/dev/null || need+=(openssl)
command -v wrk >/dev/null || need+=(wrk)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Installing the package may start a system Prometheus on :9090 under systemd; ours run on their own ports.
echo "system deps: prometheus $(prometheus --version 2>&1 | head -n1 | awk '{print $3}'), $(openssl version)"
