#!/usr/bin/env bash
# ARM64 without ARM64 hardware: the downscale kernels and the C client library built for aarch64
# and run under qemu-user, beside the x86 ones.
#   a. kernel-check native: every x86 path this CPU runs bit-identical to scalar, scalar within
#      +-2 of the exact area average;
#   b. kernel-check cross-built with aarch64-linux-gnu-gcc under qemu-aarch64: the NEON path (it
#      must be there) bit-identical to scalar, and the aarch64 scalar output the same as x86's;
#   c. instructions per output pixel of the scalar and NEON paths, counted from qemu's log of
#      the translation blocks it runs (out/arm64-kernel-counts.json);
#   d. the C client library and Assets/examples/hello.c built for aarch64, and that hello run
#      under qemu as an app of the real (x86) compositor: `diptych render` draws it as it draws the
#      x86 build of the same hello.
# Run from the repository root by make test, after `swift build` (step d needs the debug diptych).
# KERNEL_CHECK_SEED=N repeats a run's random cases (the seed is printed).
set -euo pipefail
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d /tmp/diptych-arm64-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
STEP="setup"
# Each step runs in a subshell, where fail (or any command failing) ends that step; the later steps
# still run (c needs b's aarch64 build), and the script exits 1 at the end naming the failed steps.
fail() { echo "arm64-check: FAIL in step $STEP: $*" >&2; exit 1; }
trap 'echo "arm64-check: FAIL in step $STEP: command failed at line $LINENO: $BASH_COMMAND" >&2' ERR
FAILED=()
run_step() { # run_step NAME FUNCTION
  set +e
  (set -eE; "$2")
  local rc=$?
  set -e
  [ "$rc" -eq 0 ] || FAILED+=("$1")
}
ms() { date +%s%3N; }
since() { local t=$(( $(ms) - $1 )); printf '%d.%01d s' $((t / 1000)) $((t % 1000 / 100)); }

QEMU_PREFIX=/usr/aarch64-linux-gnu
missing=""
command -v aarch64-linux-gnu-gcc > /dev/null || missing="$missing aarch64-linux-gnu-gcc"
command -v qemu-aarch64 > /dev/null || missing="$missing qemu-aarch64"
[ -e "$QEMU_PREFIX/lib/ld-linux-aarch64.so.1" ] || missing="$missing $QEMU_PREFIX/lib/ld-linux-aarch64.so.1"
command -v cc > /dev/null || missing="$missing cc"
command -v python3 > /dev/null || missing="$missing python3"
[ -z "$missing" ] || fail "missing:$missing; install the Debian packages: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user (make test's deps do)"
QEMU=(qemu-aarch64 -L "$QEMU_PREFIX")
# A python3 with PIL for the picture check (Debian's python3-pil is for /usr/bin/python3, which
# need not be the first python3 on PATH).
PYPIL=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import PIL' 2> /dev/null; then PYPIL=$p; break; fi
done

KERNEL_FLAGS=(-std=gnu11 -O2 -Wall -ISources/CRenderKernels/include -ISources/CRenderKernels)
KERNEL_SRC=(Tests/Tools/kernel-check.c Sources/CRenderKernels/*.c)
SEED=${KERNEL_CHECK_SEED:-$(( (RANDOM << 15 | RANDOM) % 1000000 ))}
CASES=400

# ---------------------------------------------------------------------------------------------
step_a() {
STEP="a (kernel-check, native)"; T=$(ms)
# The compiler SwiftPM builds the kernels with (the Swift toolchain's clang) where there is one.
NATIVE_CC=$(command -v clang || echo cc)
"$NATIVE_CC" "${KERNEL_FLAGS[@]}" "${KERNEL_SRC[@]}" -lm -o "$TMP/kernel-check" 2> "$TMP/cc-native.log" \
  || { cat "$TMP/cc-native.log" >&2; fail "kernel-check does not build natively"; }
"$TMP/kernel-check" --seed "$SEED" --cases "$CASES" > "$TMP/native.txt" 2>&1 \
  || { cat "$TMP/native.txt" >&2; fail "kernel-check found a failure natively (x86 paths against scalar; seed $SEED)"; }
sed 's/^/  /' "$TMP/native.txt"
NATIVE_PATHS=$(sed -n 's/^kernel-check: \([a-z0-9]*\) matches scalar on .*/\1/p' "$TMP/native.txt" | grep -v '^auto$' | tr '\n' ' ' || true)
echo "arm64-check: a. native ($(uname -m), $(basename "$NATIVE_CC")): ${NATIVE_PATHS:-no path but scalar }bit-identical to scalar on $CASES cases, scalar within +-2 of the exact average (seed $SEED) [$(since "$T")]"
}

# ---------------------------------------------------------------------------------------------
step_b() {
STEP="b (kernel-check, aarch64 under qemu)"; T=$(ms)
aarch64-linux-gnu-gcc "${KERNEL_FLAGS[@]}" "${KERNEL_SRC[@]}" -lm -o "$TMP/kernel-check-arm64" 2> "$TMP/cc-arm64.log" \
  || { cat "$TMP/cc-arm64.log" >&2; fail "kernel-check does not cross-build with aarch64-linux-gnu-gcc"; }
"${QEMU[@]}" "$TMP/kernel-check-arm64" --seed "$SEED" --cases "$CASES" > "$TMP/arm64.txt" 2>&1 \
  || { cat "$TMP/arm64.txt" >&2; fail "kernel-check found a failure on aarch64 (the NEON path against scalar; seed $SEED)"; }
sed 's/^/  /' "$TMP/arm64.txt"
grep -q '^kernel-check: seed .*, paths available: .*\bneon\b' "$TMP/arm64.txt" \
  || fail "the aarch64 build has no NEON path (dp_box_isa_available(DP_BOX_ISA_NEON) is 0): is box_neon.c compiled in for __aarch64__ with __ARM_NEON?"
grep -q '^kernel-check: neon matches scalar on ' "$TMP/arm64.txt" || fail "kernel-check did not report neon matching scalar"
# The same seed gives the same cases everywhere: the scalar outputs must be the same bytes on x86
# and aarch64 (the header promises bit-identical paths; NEON was compared with aarch64 scalar).
[ -s "$TMP/native.txt" ] || fail "no native run to compare the aarch64 output with (step a failed)"
DIG_NATIVE=$(sed -n 's/^kernel-check: scalar output digest \([0-9a-f]*\) .*/\1/p' "$TMP/native.txt")
DIG_ARM64=$(sed -n 's/^kernel-check: scalar output digest \([0-9a-f]*\) .*/\1/p' "$TMP/arm64.txt")
[ -n "$DIG_NATIVE" ] && [ -n "$DIG_ARM64" ] || fail "kernel-check printed no output digest"
if [ "$DIG_NATIVE" != "$DIG_ARM64" ]; then
  "$TMP/kernel-check" --seed "$SEED" --cases "$CASES" --digests 2>&1 | grep ' scalar digest ' > "$TMP/native-digests.txt" || true
  "${QEMU[@]}" "$TMP/kernel-check-arm64" --seed "$SEED" --cases "$CASES" --digests 2>&1 | grep ' scalar digest ' > "$TMP/arm64-digests.txt" || true
  FIRST=$(diff "$TMP/native-digests.txt" "$TMP/arm64-digests.txt" | sed -n 's/^< //p' | head -1 || true)
  NDIFF=$(diff "$TMP/native-digests.txt" "$TMP/arm64-digests.txt" | grep -c '^<' || true)
  fail "the aarch64 build computes other pixels than the x86 build for the same cases (scalar output digest $DIG_ARM64 on aarch64, $DIG_NATIVE natively; $NDIFF of $CASES cases differ). First: ${FIRST#kernel-check: }. (A compiler fusing a*X + b into a multiply-add on AArch64 -- GCC's and clang's default there -- changes the weights' rounding; compile the kernels with -ffp-contract=off or keep products and sums apart.)"
fi
echo "arm64-check: b. aarch64 under qemu: neon bit-identical to scalar on $CASES cases, scalar output identical to $(uname -m)'s (digest $DIG_ARM64, seed $SEED) [$(since "$T")]"
}

# ---------------------------------------------------------------------------------------------
step_c() {
STEP="c (instructions per pixel under qemu)"; T=$(ms)
[ -x "$TMP/kernel-check-arm64" ] || fail "needs step b's aarch64 build of kernel-check, which failed"
COUNT_W=256 COUNT_H=192
# Guest instructions executed, from qemu's log of -d in_asm,exec,nochain: each "IN:" block lists
# a translation block's instructions as qemu translates it; each "Trace" line is one execution of
# a block (nochain: every one goes through the lookup that logs it), naming its host code and pc.
# (With -singlestep instead every block is one instruction: the same totals, 8x the log.)
cat > "$TMP/count.py" << 'EOF'
import re, sys
trace = re.compile(r'^Trace \d+: (\S+) \[[0-9a-f]+/([0-9a-f]+)/')
insn = re.compile(r'^0x([0-9a-f]+):')
pending, by_host, by_pc = {}, {}, {}
total = unknown = 0
in_block, pc, n = False, None, 0
with open(sys.argv[1], errors='replace') as f:
    for line in f:
        if in_block:
            m = insn.match(line)
            if m:
                if pc is None:
                    pc = int(m.group(1), 16)
                n += 1
                continue
            if pc is not None:
                pending[pc] = by_pc[pc] = n
            in_block = False
        if line.startswith('IN:'):
            in_block, pc, n = True, None, 0
        elif line.startswith('Trace '):
            m = trace.match(line)
            if not m:
                continue
            host, tpc = m.group(1), int(m.group(2), 16)
            if tpc in pending:  # the first run of the block just translated at tpc
                by_host[host] = pending.pop(tpc)
            c = by_host.get(host, by_pc.get(tpc))
            if c is None:
                unknown += 1
            else:
                total += c
if unknown:
    sys.exit('%d executed blocks were never translated in the log' % unknown)
print(total)
EOF
declare -A INSNS
for m in none scalar neon; do
  "${QEMU[@]}" -d in_asm,exec,nochain -D "$TMP/qemu-$m.log" "$TMP/kernel-check-arm64" --count "$m" "$COUNT_W" "$COUNT_H" > "$TMP/count-$m.txt" 2>&1 \
    || { cat "$TMP/count-$m.txt" >&2; fail "kernel-check --count $m $COUNT_W $COUNT_H failed under qemu"; }
  INSNS[$m]=$(python3 "$TMP/count.py" "$TMP/qemu-$m.log") || fail "could not count the instructions in qemu's log ($m)"
  rm -f "$TMP/qemu-$m.log"
done
read -r SCALAR_PP NEON_PP RATIO < <(python3 -c '
import sys
none, scalar, neon, px = (int(v) for v in sys.argv[1:])
s, n = (scalar - none) / px, (neon - none) / px
print("%.1f %.1f %.1f" % (s, n, s / n if n > 0 else 0))' "${INSNS[none]}" "${INSNS[scalar]}" "${INSNS[neon]}" $((COUNT_W * COUNT_H)))
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 and float(sys.argv[2]) > 0 else 1)' "$SCALAR_PP" "$NEON_PP" \
  || fail "implausible counts: none ${INSNS[none]}, scalar ${INSNS[scalar]}, neon ${INSNS[neon]} instructions"
mkdir -p out
printf '{"output":"%dx%d","scalar":%s,"neon":%s}\n' "$COUNT_W" "$COUNT_H" "$SCALAR_PP" "$NEON_PP" > out/arm64-kernel-counts.json
echo "arm64: instructions per output pixel: scalar $SCALAR_PP, neon $NEON_PP (${RATIO}x fewer)"
echo "arm64-check: c. counted on a ${COUNT_W}x${COUNT_H} output (setup's ${INSNS[none]} instructions subtracted), written to out/arm64-kernel-counts.json [$(since "$T")]"
}

# ---------------------------------------------------------------------------------------------
step_d() {
STEP="d (the C library and hello on aarch64, in the x86 compositor)"; T=$(ms)
# Tests/Tools/c-conformance.c is not run here: it needs ClientBehaviourTests' scripted peer (the
# Swift test plays the compositor's side of the socket), so it does not run standalone.
echo "arm64-check: d. (c-conformance.c skipped: it needs the Swift test's scripted peer, not standalone)"
LIB="$TMP/arm64-lib"
mkdir -p "$LIB"
for f in Sources/CDiptychClient/*.c; do
  aarch64-linux-gnu-gcc -std=c99 -O2 -Wall -Wextra -fPIC -ISources/CDiptychClient/include -c "$f" -o "$LIB/$(basename "$f" .c).o" 2>> "$TMP/cc-lib.log" \
    || { cat "$TMP/cc-lib.log" >&2; fail "the C client library does not cross-build ($f)"; }
done
aarch64-linux-gnu-gcc -shared -Wl,-soname,libdiptych-client.so.1 -Wl,--no-undefined -o "$LIB/libdiptych-client.so.1" "$LIB"/*.o 2>> "$TMP/cc-lib.log" \
  || { cat "$TMP/cc-lib.log" >&2; fail "the C client library does not link for aarch64"; }
ln -s libdiptych-client.so.1 "$LIB/libdiptych-client.so"
aarch64-linux-gnu-gcc -std=c99 -Wall -Werror Assets/examples/hello.c -ISources/CDiptychClient/include -L"$LIB" -ldiptych-client \
  -Wl,-rpath,"$LIB" -o "$TMP/hello-arm64" 2>> "$TMP/cc-lib.log" || { cat "$TMP/cc-lib.log" >&2; fail "hello.c does not cross-build against the library"; }
readelf -h "$TMP/hello-arm64" | grep -q 'Machine:.*AArch64' || fail "hello-arm64 is not an AArch64 program"
# The x86 build of the same hello, whose picture the ARM64 one must give.
cc -std=c99 -O2 -Wall -Werror -ISources/CDiptychClient/include Sources/CDiptychClient/*.c Assets/examples/hello.c -o "$TMP/hello-x86" 2>> "$TMP/cc-lib.log" \
  || { cat "$TMP/cc-lib.log" >&2; fail "hello.c does not build natively"; }

# Can an emulated app hand the compositor a sealed memfd? hello's buffers are memfds sealed with
# F_SEAL_SHRINK that go over the socket with SCM_RIGHTS; the x86 side must receive the
# descriptor with its seals, size and contents.
cat > "$TMP/seal-check.c" << 'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#define SIZE 65536
static int fail(const char *what) { perror(what); return 1; }
int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "send") == 0) { /* the emulated side */
        int s = atoi(getenv("SEAL_CHECK_FD"));
        int fd = memfd_create("seal-check", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0) return fail("memfd_create");
        if (ftruncate(fd, SIZE) != 0) return fail("ftruncate");
        unsigned char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) return fail("mmap");
        for (int i = 0; i < SIZE; i++) p[i] = (unsigned char)(i * 7 + 3);
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) return fail("fcntl F_ADD_SEALS");
        int seals = fcntl(fd, F_GET_SEALS);
        if (seals < 0 || !(seals & F_SEAL_SHRINK)) return fprintf(stderr, "F_GET_SEALS is %d after F_ADD_SEALS\n", seals), 1;
        char byte = 'm', control[CMSG_SPACE(sizeof(int))];
        struct iovec iov = { &byte, 1 };
        struct msghdr m = { 0 };
        memset(control, 0, sizeof control);
        m.msg_iov = &iov; m.msg_iovlen = 1; m.msg_control = control; m.msg_controllen = sizeof control;
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_SOCKET; h->cmsg_type = SCM_RIGHTS; h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof(int));
        if (sendmsg(s, &m, 0) != 1) return fail("sendmsg SCM_RIGHTS");
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "recv") != 0) return fprintf(stderr, "usage: seal-check recv COMMAND... | send\n"), 2;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return fail("socketpair");
    char num[16];
    snprintf(num, sizeof num, "%d", sv[1]);
    setenv("SEAL_CHECK_FD", num, 1);
    pid_t pid = fork();
    if (pid == 0) { close(sv[0]); execvp(argv[2], argv + 2); perror("exec"); _exit(127); }
    close(sv[1]);
    char byte, control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { &byte, 1 };
    struct msghdr m = { 0 };
    m.msg_iov = &iov; m.msg_iovlen = 1; m.msg_control = control; m.msg_controllen = sizeof control;
    ssize_t n = recvmsg(sv[0], &m, 0);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fprintf(stderr, "the sender failed (status %d)\n", status), 1;
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    if (n != 1 || !h || h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
        return fprintf(stderr, "no descriptor arrived with the message (recvmsg %zd)\n", n), 1;
    int fd;
    memcpy(&fd, CMSG_DATA(h), sizeof fd);
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK) || !(seals & F_SEAL_SEAL))
        return fprintf(stderr, "the descriptor arrived without its seals (F_GET_SEALS %d)\n", seals), 1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size != SIZE) return fprintf(stderr, "the memfd arrived with size %lld\n", (long long)st.st_size), 1;
    unsigned char *p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return fail("mmap of the received memfd");
    for (int i = 0; i < SIZE; i++)
        if (p[i] != (unsigned char)(i * 7 + 3)) return fprintf(stderr, "the memfd's contents differ at byte %d\n", i), 1;
    if (ftruncate(fd, SIZE / 2) == 0) return fprintf(stderr, "the received memfd could shrink despite F_SEAL_SHRINK\n"), 1;
    return 0;
}
EOF
cc -std=gnu11 -O2 -Wall "$TMP/seal-check.c" -o "$TMP/seal-check" && aarch64-linux-gnu-gcc -std=gnu11 -O2 -Wall "$TMP/seal-check.c" -o "$TMP/seal-check-arm64" \
  || fail "the memfd seal check does not build"
"$TMP/seal-check" recv "${QEMU[@]}" "$TMP/seal-check-arm64" send > "$TMP/seal.log" 2>&1 \
  || { cat "$TMP/seal.log" >&2; fail "qemu-aarch64 does not pass a sealed memfd over SCM_RIGHTS to an x86 process, which the ARM64 hello's buffers need: the render below could not work"; }
echo "arm64-check: d. qemu-aarch64 passes a sealed memfd (F_SEAL_SHRINK|F_SEAL_SEAL, size, contents) over SCM_RIGHTS to an x86 process"

command -v swift > /dev/null || fail "swift is not on PATH: cannot find the debug build's diptych (swift build --show-bin-path)"
BIN=$(swift build --show-bin-path 2> /dev/null) || fail "swift build --show-bin-path failed"
[ -x "$BIN/diptych" ] || fail "$BIN/diptych is missing: build it first (swift build; make test does before this script)"
render() { # render NAME PRIMARY: the split-2/3 iPad picture with PRIMARY beside a pattern
  (cd "$TMP" && "$BIN/diptych" render --device ipad --arrangement split-2/3 --primary "$2" --secondary 'pattern:#993366' \
     --out "$TMP/$1.png" > "$TMP/render-$1.log" 2>&1)
}
T2=$(ms)
render arm64-hello "${QEMU[*]} $TMP/hello-arm64" \
  || { cat "$TMP/render-arm64-hello.log" >&2; fail "diptych render with the ARM64 hello under qemu failed (the sealed-memfd check above passed, so not for want of seals)"; }
RENDER_TIME=$(since "$T2")
[ -s "$TMP/arm64-hello.png" ] || fail "diptych render wrote no PNG for the ARM64 hello"
render x86-hello "$TMP/hello-x86" || { cat "$TMP/render-x86-hello.log" >&2; fail "diptych render with the x86 hello failed"; }
render without-app 'pattern:#336699' || { cat "$TMP/render-without-app.log" >&2; fail "diptych render without hello failed"; }
[ -n "$PYPIL" ] || fail "no python3 with PIL (python3-pil) for the picture check"
# hello fills a regular pane with 0x2F6FB5 (a white line under the status bar, a text field at
# the top): most of the primary (left, about 2/3) pane's lower part is that blue, the secondary
# (right) pane is the pattern's colour, the picture is the x86 hello's, and not that of a run
# without hello.
"$PYPIL" - "$TMP/arm64-hello.png" "$TMP/x86-hello.png" "$TMP/without-app.png" << 'EOF' || fail "the ARM64 hello's picture is wrong (above)"
import sys
from PIL import Image, ImageChops
arm, x86, base = (Image.open(p).convert('RGB') for p in sys.argv[1:4])
w, h = arm.size
def share(im, box, colour):
    region = im.crop(box)
    return sum(n for n, c in region.getcolors(region.size[0] * region.size[1]) if c == colour) / (region.size[0] * region.size[1])
primary = (int(w * 0.03), int(h * 0.25), int(w * 0.6), int(h * 0.95))
secondary = (int(w * 0.75), int(h * 0.1), int(w * 0.97), int(h * 0.25))
blue, pattern = (0x2F, 0x6F, 0xB5), (0x99, 0x33, 0x66)
problems = []
if share(arm, primary, blue) < 0.95:
    problems.append('the primary pane is not hello\'s blue #2F6FB5 (%.1f%% of it is)' % (100 * share(arm, primary, blue)))
if share(arm, secondary, pattern) < 0.95:
    problems.append('the secondary pane is not the pattern\'s #993366 (%.1f%% of it is)' % (100 * share(arm, secondary, pattern)))
if share(base, primary, blue) > 0.05:
    problems.append('the picture without hello has hello\'s blue in the primary pane too: the check proves nothing')
if ImageChops.difference(arm, base).crop(primary).getbbox() is None:
    problems.append('the primary pane is the same as without hello')
d = ImageChops.difference(arm, x86).getbbox()
if arm.size != x86.size or d is not None:
    problems.append('the ARM64 hello\'s picture differs from the x86 hello\'s (in %s)' % (d,))
for p in problems:
    print('arm64-check: ' + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
echo "arm64-check: d. the C library and hello.c cross-built; the ARM64 hello under qemu drew its pane in the x86 compositor (render $RENDER_TIME), the same picture as the x86 hello [$(since "$T")]"
}

run_step "a (kernel-check, native)" step_a
run_step "b (kernel-check, aarch64 under qemu)" step_b
run_step "c (instructions per pixel)" step_c
run_step "d (C library and hello on aarch64)" step_d
if [ "${#FAILED[@]}" -gt 0 ]; then
  STEP="summary"
  printf -v LIST '%s; ' "${FAILED[@]}"
  echo "arm64-check: FAILED: ${LIST%; } (seed $SEED)" >&2
  exit 1
fi
echo "arm64-check: ARM64 kernels and client library work under qemu (seed $SEED)"
