#!/usr/bin/env bash
# Print the body of CHANGELOG.md's `## <version>` section (up to the next `## ` heading), for the GitHub
# release notes. Reads ./CHANGELOG.md from the current directory, so the release test can run it on a copy.
# Exit 1 with one line when the section is missing or has no text: a release without notes is a mistake.
set -euo pipefail
version="${1:?usage: changelog-section.sh <version>}"
[ -f CHANGELOG.md ] || { echo "changelog-section: no CHANGELOG.md in $(pwd)" >&2; exit 1; }
# Headings may carry a date or a link: `## 0.2.0 - 2027-01-05`, `## [0.2.0](...)`. The version must be followed
# by something other than a digit, dot or letter, so 0.1.0 does not match 0.1.0-rc.1 or 0.1.01.
# Blank lines at both ends of the section are dropped.
body="$(awk -v v="$version" '
  BEGIN { vq = v; gsub(/[.+]/, "\\\\&", vq); re = "^## +\\[?" vq "([^0-9A-Za-z.+-]|$)" }
  /^## / { if (found) exit; if ($0 ~ re) { found = 1; next } }
  found { line[++n] = $0; if ($0 ~ /[^ \t]/) { if (!first) first = n; last = n } }
  END { for (i = first; first && i <= last; i++) print line[i] }
' CHANGELOG.md)"
if [ -z "$body" ]; then
  echo "changelog-section: CHANGELOG.md has no \`## $version\` section with text; add one before tagging" >&2
  exit 1
fi
printf '%s\n' "$body"
