#!/usr/bin/env bash
# Builds the libFuzzer targets (swiftc -sanitize=fuzzer,address over the pure tier's sources)
# and runs each for FUZZ_SECONDS (default 600), starting from the seed corpora. Prints the
# executions reached; exits non-zero if a target crashes (the crash input is kept).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-600}
WORK=.build-fuzz
mkdir -p "$WORK/src"
# One module: the pure tier's sources with their cross-module imports dropped.
rm -f "$WORK"/src/*.swift
for f in $(find Sources/DiptychCore Sources/DiptychWire -name '*.swift'); do
  grep -v '^import DiptychCore$' "$f" > "$WORK/src/$(basename "$(dirname "$f")")-$(basename "$f")"
done
# The C client library's reading of what a compositor sends, built beside the Swift binary.
clang -O1 -g -fsanitize=fuzzer,address -ISources/CDiptychClient/include Tests/Fuzz/ClientFuzz.c \
  Sources/CDiptychClient/*.c -o "$WORK/fuzz-client" 2> "$WORK/client-build.log" &
client_build=$!
# One Swift binary for both Swift targets (the pure tier compiled once); DIPTYCH_FUZZ_TARGET
# picks the one it feeds.
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name DiptychFuzz -package-name diptych \
  "$WORK"/src/*.swift Tests/Fuzz/*.swift -o "$WORK/fuzz-swift" 2>&1 | grep -v warning || true
[ -x "$WORK/fuzz-swift" ] || { echo "fuzz: cannot build the Swift targets" >&2; exit 1; }
wait $client_build || { cat "$WORK/client-build.log" >&2; echo "fuzz: cannot build the client target" >&2; exit 1; }
mkdir -p "$WORK/corpus-wire" "$WORK/corpus-scenario" "$WORK/corpus-client" "$WORK/crashes"
status=0
run() {
  local name=$1; shift
  local binary="$WORK/fuzz-swift"
  [ "$name" = client ] && binary="$WORK/fuzz-client"
  DIPTYCH_FUZZ_TARGET=$name "$binary" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -artifact_prefix="$WORK/crashes/$name-" \
    "$WORK/corpus-$name" "$@" > "$WORK/$name.log" 2>&1 || status=1
  local execs
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$WORK/$name.log" | grep -o '[0-9]*$' || echo '?')
  echo "fuzz $name: $execs executions in ${SECONDS_EACH}s, $(ls "$WORK/crashes" | grep -c "^$name-" || true) crashes"
}
run wire Tests/Fuzz/seeds/wire &
run scenario Assets/scenarios Tests/VM Tests/Fuzz/seeds/scenario &
wait
run client Tests/Fuzz/seeds/wire -max_len=131072
if ls "$WORK/crashes" | grep -q .; then echo "fuzz: crashes kept in $WORK/crashes" >&2; exit 1; fi
exit $status
