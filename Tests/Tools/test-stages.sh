#!/usr/bin/env bash
# `make test`: every stage in turn, each timed, and the table of what each took at the end (the
# README's "What make test spends its time on" is this table from a fresh clone). The first
# failing stage stops the run with its status.
set -uo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-swift}
names=() secs=()
stage() {
  local name=$1; shift
  local t0=$SECONDS
  echo "make test: $name"
  "$@"
  local rc=$?
  names+=("$name") secs+=($((SECONDS - t0)))
  if [ $rc -ne 0 ]; then table; echo "make test: FAILED in '$name' (status $rc)" >&2; exit $rc; fi
}
table() {
  local total=0
  echo
  echo "| stage | time |"
  echo "|---|---|"
  for i in "${!names[@]}"; do
    printf '| %s | %d min %02d s |\n' "${names[$i]}" $((secs[$i] / 60)) $((secs[$i] % 60))
    total=$((total + secs[$i]))
  done
  printf '| **all** | **%d min %02d s** |\n' $((total / 60)) $((total % 60))
}
stage "debug build with the tests, and diptych-web" sh -c "$SWIFT build --build-tests && make --no-print-directory web"
stage "the Swift suites" $SWIFT test --skip-build
# No test leaves a process behind (an app, a compositor, a WebKit process): what the suites
# started from this checkout (its build, its test tools) and any WebKit process are gone within
# 10 s of their end.
ROOT=$(pwd -P)
leftovers() {
  ps -eo pid=,args= | grep -F -e "$ROOT/.build/" -e "$ROOT/Tests/" -e "wpe-webkit-1.1/WPE" \
    | grep -v -e "^ *$$ " -e "grep -F" -e "ps -eo" -e "test-stages"
}
nothing_left() {
  for _ in $(seq 1 100); do leftovers >/dev/null || return 0; sleep 0.1; done
  echo "make test: processes left behind by the suites:" >&2; leftovers >&2; return 1
}
stage "no process left behind" nothing_left
stage "ARM64: kernels and the C library under qemu" bash Tests/Tools/arm64-check.sh
stage "the package: make deb, installed, operated" bash Tests/Tools/install-test.sh
stage "fuzz smoke (15 s a target)" env FUZZ_SECONDS=15 bash Tests/Fuzz/run.sh
stage "the VM test (KMS, libinput, seat)" bash Tests/VM/vm-test.sh
table
