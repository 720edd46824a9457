#!/usr/bin/env bash
# Debian packages the tests and the demo use: Prometheus and promtool (history backfill), openssl
# (certificates for the local control plane), wrk (adapter load benchmark). Idempotent and quick when present;
# without root or passwordless sudo (or without apt) it prints one line saying what to install.
set -euo pipefail
need=()
# prometheus and promtool come in one package.
{ command -v prometheus >/dev/null && command -v promtool >/dev/null; } || need+=(prometheus)
command -v openssl >/dev/null || need+=(openssl)
command -v wrk >/dev/null || need+=(wrk)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    # Without root, only a sudo that needs no password can install without stopping to ask.
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo"; else
      echo "install-system-deps: missing ${need[*]}; as root run: apt-get update && apt-get install -y --no-install-recommends ${need[*]}" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null; then
    echo "install-system-deps: missing ${need[*]} and no apt-get: install Prometheus 2.x (prometheus and promtool), openssl and wrk with your package manager" >&2
    exit 1
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Installing the package may start a system Prometheus on :9090 under systemd; ours run on their own ports.
echo "system deps: prometheus $(prometheus --version 2>&1 | head -n1 | awk '{print $3}'), $(openssl version)"
