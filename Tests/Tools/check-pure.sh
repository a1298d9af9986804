#!/usr/bin/env bash
# The pure tier imports no C module, no Glibc or Musl, no Darwin, no Foundation (nor
# FoundationEssentials, nor one declaration of it), whatever attributes or access come first.
# Usage: check-pure.sh DIR... (default: the pure tier). Exit 1 listing each import found.
set -u
cd "$(dirname "$0")/../.."
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(Sources/DiptychCore Sources/DiptychWire)
pattern='(^|;)[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((struct|class|enum|func|var|let|protocol|typealias)[[:space:]]+)?(Glibc|Musl|Darwin|Foundation[A-Za-z]*|C[A-Z][A-Za-z]*)([[:space:].;]|$)'
if grep -rnE --include='*.swift' "$pattern" "${dirs[@]}"; then
  echo "check-pure: the pure tier imports C, Glibc, Musl or Foundation (above)" >&2
  exit 1
fi
exit 0
