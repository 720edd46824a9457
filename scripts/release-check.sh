#!/usr/bin/env bash
# The release workflow's first job: a tag publishes only when it names the version every artefact carries.
# Usage: release-check.sh v<version>, run in the repository root (the release test runs it on copies).
# Checks, per CHANGELOG.md's version scheme: the tag is v<semver>; package.json's version, the chart's
# version and its appVersion all equal it; CHANGELOG.md has a section with text for it. Each mismatch is one
# line naming the file and both values; exit 1 if any.
set -euo pipefail
tag="${1:?usage: release-check.sh v<version>}"
here="$(cd "$(dirname "$0")" && pwd)"
chart="charts/ehpa-adapter/Chart.yaml"
fail=0
err() { echo "release-check: $*" >&2; fail=1; }

# Semantic Versioning 2.0.0's grammar (without build metadata: OCI tags cannot hold a '+').
semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
if ! [[ "$tag" =~ $semver ]]; then
  echo "release-check: tag '$tag' is not v<major>.<minor>.<patch>[-<pre-release>]" >&2
  exit 1
fi
version="${tag#v}"

pkg_version="$(node -p 'JSON.parse(require("fs").readFileSync("package.json", "utf8")).version')"
[ "$pkg_version" = "$version" ] || err "package.json version is $pkg_version, tag says $version"

# Top-level `key: value` of Chart.yaml, quotes and trailing comment removed (the chart keeps them scalar).
chart_field() {
  awk -v k="$1" '$0 ~ "^" k ":" { sub("^" k ":[ \t]*", ""); sub(/[ \t]+#.*$/, ""); gsub(/^["'"'"']|["'"'"']$/, ""); print; exit }' "$chart"
}
chart_version="$(chart_field version)"
chart_app_version="$(chart_field appVersion)"
[ "$chart_version" = "$version" ] || err "$chart version is '${chart_version}', tag says $version"
[ "$chart_app_version" = "$version" ] || err "$chart appVersion is '${chart_app_version}', tag says $version"

bash "$here/changelog-section.sh" "$version" >/dev/null || fail=1

[ "$fail" = 0 ] || exit 1
echo "release-check: $tag matches package.json, $chart (version, appVersion) and CHANGELOG.md"
