# Diptych: `make run` renders the demo gallery to ./out/, `make test` runs the test suite.
# Both install the Debian -dev packages they need first (as root), or print the apt-get line
# (libjs-pdf and libjs-leaflet: Debian's pdf.js viewer and Leaflet, pages nobody here wrote, for the tests;
# openssl: a private certificate authority for the web client's --tls-ca test; gstreamer1.0-plugins-good: WebKit plays <video> with it;
# gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user: the ARM64 kernels and C client library built and run under qemu;
# lintian, man-db, systemd: the package checked, its manual pages rendered and its units verified;
# unicode-cldr-core: the keyboard's languages checked against CLDR, as xkb-data's letters;
# libneatvnc-dev, libaml-dev: the VNC server; gvncviewer and vncdotool (PyPI, into .build/vnc-venv): real viewers for its tests).

SWIFT ?= swift
DEPS := libdrm-dev libpixman-1-dev libinput-dev libudev-dev libpng-dev libfreetype-dev fonts-inter libseat-dev libxkbcommon-dev xkb-data libx11-data pkg-config \
	gcc python3 python3-pip python3-setuptools python3-wheel python3-pil libwpewebkit-1.1-dev libwpebackend-fdo-1.0-dev libwpe-1.0-dev libwayland-dev libgl1-mesa-dri libegl-mesa0 \
	libjs-pdf libjs-leaflet openssl gstreamer1.0-plugins-good gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
	lintian man-db systemd unicode-cldr-core libneatvnc-dev libaml-dev gvncviewer python3-venv
# The web client (web:URL apps) is C against WPE WebKit, built beside the Swift binaries when
# pkg-config finds these; the compositor itself never needs them.
WEB_PKGS := wpe-webkit-1.1 wpebackend-fdo-1.0 wayland-server libpng
CLIENT_SRC := $(wildcard Sources/CDiptychClient/*.c)
WEB_SRC := $(wildcard Sources/diptych-web/*.c) $(CLIENT_SRC)
CONFIG ?= debug
BIN = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
OUT ?= out

# libdiptych-client: the C client library, shared (versioned soname) and static, with its .pc.
LIB_VERSION := 1.1.0
LIB_SONAME := libdiptych-client.so.1
LIB_OUT := .build/c
LIB_OBJ := $(patsubst Sources/CDiptychClient/%.c,$(LIB_OUT)/%.o,$(CLIENT_SRC))
PREFIX ?= /usr/local
# The Python module's folder: Debian's for the system's packages under /usr, else the folder
# Debian's python3 reads under another prefix (/usr/local/lib/python3.N/dist-packages).
PYVER := $(shell python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
DESTDIR ?=
PROTOCOL := $(shell sed -n 's/^\#define DC_PROTOCOL_VERSION //p' Sources/CDiptychClient/include/diptych-protocol.h)

.PHONY: all deps vnc-viewers build web lib install-lib static man man-pages install-doc install deb run test test-fast arm64-check fuzz check-pure protocol check-protocol keyboard-languages check-keyboard-languages clean

all: build

deps:
	@missing=""; \
	for p in $(DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "make: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "make: missing packages; run: sudo apt-get install -y$$missing" >&2; exit 2; \
	  fi; \
	fi

build: deps
	$(SWIFT) build
	@$(MAKE) --no-print-directory web

# diptych-web into the Swift build's folder (CONFIG=release: the release one), where the
# compositor looks for it.
web:
	@dir=$${WEB_DIR:-$$($(SWIFT) build -c $(CONFIG) --show-bin-path)} && mkdir -p "$$dir" && \
	if pkg-config --exists $(WEB_PKGS); then \
	  cc -std=gnu11 -O2 -Wall -o "$$dir/diptych-web" $(WEB_SRC) -ISources/CDiptychClient/include \
	    $$(pkg-config --cflags --libs $(WEB_PKGS)) -lm && echo "make: built $$dir/diptych-web"; \
	else echo "make: WPE WebKit not found ($(WEB_PKGS)): web:URL apps are not available"; fi

lib:
	@mkdir -p $(LIB_OUT)
	for f in $(CLIENT_SRC); do \
	  cc -std=c99 -O2 -Wall -Wextra -fPIC -ISources/CDiptychClient/include -c $$f -o $(LIB_OUT)/$$(basename $$f .c).o || exit 1; \
	done
	cc -shared -Wl,-soname,$(LIB_SONAME) -Wl,--no-undefined -o $(LIB_OUT)/libdiptych-client.so.$(LIB_VERSION) $(LIB_OBJ)
	rm -f $(LIB_OUT)/libdiptych-client.a && ar rcs $(LIB_OUT)/libdiptych-client.a $(LIB_OBJ)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIB_VERSION)|' -e 's|@PROTOCOL@|$(PROTOCOL)|' \
	  Assets/pkgconfig/diptych-client.pc.in > $(LIB_OUT)/diptych-client.pc

# The library, its header and .pc under $(DESTDIR)$(PREFIX).
install-lib: lib
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/doc/diptych/examples
	install -m 0644 $(LIB_OUT)/libdiptych-client.so.$(LIB_VERSION) $(LIB_OUT)/libdiptych-client.a $(DESTDIR)$(PREFIX)/lib/
	ln -sf libdiptych-client.so.$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(PREFIX)/lib/libdiptych-client.so
	install -m 0644 Sources/CDiptychClient/include/diptych-client.h Sources/CDiptychClient/include/diptych-protocol.h $(DESTDIR)$(PREFIX)/include/
	install -m 0644 $(LIB_OUT)/diptych-client.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 0644 Assets/examples/hello.c $(DESTDIR)$(PREFIX)/share/doc/diptych/examples/
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig >/dev/null; then ldconfig; fi

# Release binaries with the Swift runtime linked in (of the toolchain they need only libc, libm,
# libstdc++ and libgcc_s), in their own build folder, and diptych-web beside them.
STATIC := .build-static/release
static: deps
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build-static
	@$(MAKE) --no-print-directory web WEB_DIR=$(CURDIR)/$(STATIC)

# Manual pages: diptych(1) and diptych-demo(1) from the programs' --help (argument-parser's
# generator, into MAN_GEN, run on the debug build: --help is the same in both), then man-pages.
# man-pages: in each generated page, --help's line breaks kept and the generator's empty
# paragraphs dropped, and diptych(1)'s EXIT STATUS replaced by Assets/man/diptych.1.sections
# (ENVIRONMENT, FILES, EXIT STATUS, EXAMPLES, SEE ALSO); diptych-web(1), diptych-hello(1) and
# kiosk.conf(5) are written by hand (Assets/man/). All with $(PREFIX)'s paths, gzip -9n, in
# $(MAN_OUT).
MAN_GEN ?= .build/plugins/GenerateManual/outputs
MAN_OUT := .build/man
man:
	$(SWIFT) package generate-manual --configuration debug >/dev/null
	@$(MAKE) --no-print-directory man-pages

man-pages:
	rm -rf $(MAN_OUT) && mkdir -p $(MAN_OUT)
	awk -v sections=Assets/man/diptych.1.sections -f Assets/man/generated.awk $(MAN_GEN)/diptych/diptych.1 > $(MAN_OUT)/diptych.1
	awk -f Assets/man/generated.awk $(MAN_GEN)/diptych-demo/diptych-demo.1 > $(MAN_OUT)/diptych-demo.1
	cp Assets/man/diptych-web.1 Assets/man/diptych-hello.1 Assets/man/kiosk.conf.5 $(MAN_OUT)/
	sed -i -e 's|@PREFIX@|$(PREFIX)|g' $(MAN_OUT)/*.[15] && gzip -9n $(MAN_OUT)/*.[15]

# The documentation under $(PREFIX)/share/doc/diptych: the README and the guides (the DocC
# articles, as Markdown) with their pictures, their links made to the installed files
# (Assets/doc/links.sed); the examples beside hello.c (install-lib): hello.py, the unit's
# sandbox drop-in, and a scenario that taps a field and types, with its pages.
DOC = $(DESTDIR)$(PREFIX)/share/doc/diptych
install-doc:
	install -d $(DOC)/guides $(DOC)/examples $(DOC)/screenshots
	sed -f Assets/doc/links.sed README.md > $(DOC)/README.md
	for f in Sources/diptych/Diptych.docc/*.md Sources/DiptychClient/DiptychClient.docc/*.md; do \
	  sed -f Assets/doc/links.sed $$f > $(DOC)/guides/$$(basename $$f) || exit 1; \
	done
	chmod 0644 $(DOC)/README.md $(DOC)/guides/*.md
	install -m 0644 Assets/screenshots/*.png $(DOC)/screenshots/
	install -m 0644 Assets/examples/hello.py Assets/kiosk/app-sandbox.conf Assets/web/visitor-sign-in.html Assets/web/visitor-welcome.html $(DOC)/examples/
	sed -e 's|web:Assets/web/|web:$(PREFIX)/share/doc/diptych/examples/|' Assets/scenarios/sign-in.json > $(DOC)/examples/sign-in.json

# Everything under $(DESTDIR)$(PREFIX): the programs and their manual pages, the C library, the
# Python module, the documentation and examples, the kiosk unit and PAM file.
install: static install-lib man install-doc
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0644 $(MAN_OUT)/diptych.1.gz $(MAN_OUT)/diptych-demo.1.gz $(MAN_OUT)/diptych-hello.1.gz $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(MAN_OUT)/kiosk.conf.5.gz $(DESTDIR)$(PREFIX)/share/man/man5/
	@dir=$(STATIC) && \
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)/etc/pam.d && \
	install -m 0755 $$dir/diptych $$dir/diptych-demo $$dir/diptych-hello $(DESTDIR)$(PREFIX)/bin/ && \
	if [ -x $$dir/diptych-web ]; then install -m 0755 $$dir/diptych-web $(DESTDIR)$(PREFIX)/bin/ && \
	  install -m 0644 $(MAN_OUT)/diptych-web.1.gz $(DESTDIR)$(PREFIX)/share/man/man1/; fi
	sed -e 's|/usr/local/bin/|$(PREFIX)/bin/|g' Assets/kiosk/diptych-kiosk.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/diptych-kiosk.service
	install -m 0644 Assets/kiosk/diptych-ctl.socket $(DESTDIR)$(PREFIX)/lib/systemd/system/diptych-ctl.socket
	install -m 0644 Assets/kiosk/pam.d-diptych $(DESTDIR)/etc/pam.d/diptych
	install -d $(DESTDIR)/etc/diptych
	install -m 0644 Assets/kiosk/kiosk.conf $(DESTDIR)/etc/diptych/kiosk.conf
	install -d $(DESTDIR)$(PREFIX)/lib/sysusers.d
	install -m 0644 Assets/kiosk/sysusers-diptych.conf $(DESTDIR)$(PREFIX)/lib/sysusers.d/diptych.conf
	install -d $(DESTDIR)$(PYDIR)/diptych
	install -m 0644 Sources/diptych-python/diptych/__init__.py Sources/diptych-python/diptych/protocol.py Sources/diptych-python/diptych/font.py $(DESTDIR)$(PYDIR)/diptych/

# A Debian package of `make install PREFIX=/usr`, its dependencies declared: out/diptych_*.deb.
VERSION ?= 1.0.0
deb:
	rm -rf .build-deb && $(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/.build-deb/root PREFIX=/usr
	@bash Assets/deb/make-deb.sh .build-deb/root $(VERSION) $(OUT)

# The main job: the demo tour (Slide Over in, pin, drag to 50/50, rotate, drag back, dismiss)
# played with real apps, typing on the on-screen keyboard, every arrangement of ipad-pro in both orientations, and a web app.
run: build
	@mkdir -p $(OUT)
	$(BIN)/diptych run --backend headless --scenario Assets/scenarios/demo.json --out $(OUT)
	@# Typing on the on-screen keyboard: notes' title tapped in a split beside markets.
	$(BIN)/diptych run --backend headless --scenario Assets/scenarios/keyboard.json --out $(OUT)/keyboard
	@mkdir -p $(OUT)
	@set -e; for o in landscape portrait; do \
	  for a in full slide-over split-2/3 split-1/2; do \
	    [ "$$o/$$a" = "portrait/split-1/2" ] && continue; \
	    name=ipad-pro-$$o-$$(echo $$a | tr '/' '-'); \
	    $(BIN)/diptych render --device ipad-pro --orientation $$o --arrangement $$a \
	      --primary 'pattern:#336699' --secondary 'pattern:#993366' --out $(OUT)/$$name.png; \
	  done; \
	done
	@# A web app (WPE WebKit) beside a native one: in Slide Over, then in a split dragged to half
	@# (its snapshots mid-drag) and back, its selection kept; then a page's select, prompt and
	@# confirm shown by the compositor; a visitor's sign-in filled in with the keyboard's ‹ › and go.
	@if [ -x $(BIN)/diptych-web ]; then \
	  $(BIN)/diptych render --device ipad-pro --arrangement slide-over --primary notes \
	    --secondary web:Assets/web/markets.html --out $(OUT)/web-slide-over.png && \
	  mkdir -p $(OUT)/web && $(BIN)/diptych run --backend headless --scenario Assets/scenarios/web-drag.json --out $(OUT)/web && \
	  mkdir -p $(OUT)/web-dialogs && $(BIN)/diptych run --backend headless --scenario Assets/scenarios/web-dialogs.json --out $(OUT)/web-dialogs && \
	  mkdir -p $(OUT)/sign-in && $(BIN)/diptych run --backend headless --scenario Assets/scenarios/sign-in.json --out $(OUT)/sign-in; \
	else echo "make: diptych-web not built: no web apps in the tour"; fi

# The protocol's tables for C and Python, generated from Assets/protocol/diptych-protocol.json
# (committed: swift build compiles the C library without make); check-protocol fails on a diff.
protocol:
	python3 Assets/protocol/gen.py

check-protocol:
	@python3 Assets/protocol/gen.py --check

# The on-screen keyboard's languages (Sources/DiptychCore/Keyboard/KeyboardLanguages+Generated.swift),
# generated from xkb-data (through libxkbcommon) and Unicode CLDR (committed, as the protocol's
# tables); check-keyboard-languages fails on a diff.
keyboard-languages:
	python3 Assets/keyboard/gen.py

check-keyboard-languages:
	@python3 Assets/keyboard/gen.py --check

# The pure tier (DiptychCore, DiptychWire) imports no C module, Glibc, Musl or Foundation.
check-pure:
	@bash Tests/Tools/check-pure.sh

# Every stage timed, with the table of their times at the end (Tests/Tools/test-stages.sh).
test: deps vnc-viewers check-pure check-protocol check-keyboard-languages
	@SWIFT=$(SWIFT) bash Tests/Tools/test-stages.sh

# vncdotool (PyPI), a real VNC viewer for the VNC tests, in a venv of its own.
VNC_VENV := .build/vnc-venv
vnc-viewers:
	@[ -x $(VNC_VENV)/bin/vncdotool ] || { python3 -m venv $(VNC_VENV) && $(VNC_VENV)/bin/pip install -q vncdotool==1.4.2; } \
	  || echo "make: vncdotool could not be installed from PyPI: the VNC tests that use it say they are skipped" >&2

# The area-average kernels on every path against the scalar one (natively and, NEON, under
# qemu-aarch64), instructions per pixel on ARM64, and the C client library run under qemu.
arm64-check: build
	bash Tests/Tools/arm64-check.sh

# libFuzzer on the wire decoder and the scenario parser, FUZZ_SECONDS each (default 600).
fuzz:
	bash Tests/Fuzz/run.sh

# The suite without the VM test (a few seconds instead of a few minutes).
test-fast: deps vnc-viewers check-pure check-protocol check-keyboard-languages
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory web
	$(SWIFT) test --skip-build

clean:
	rm -rf .build .build-vm .build-fuzz $(OUT)
