# SPDX-License-Identifier: GPL-2.0
#
# Shoal top-level build.  `make help` lists the targets.

KREL ?= $(shell scripts/krel 2>/dev/null)
KDIR ?= /lib/modules/$(KREL)/build

CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror=implicit-function-declaration
# the uapi headers, and include/ for the kernel-free layer (<net/shoal/*.h>)
UAPI := -Iinclude/uapi -Iinclude
SHOAL_H := $(wildcard include/net/shoal/*.h)

SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
UNIT_SRCS := $(wildcard tools/testing/unit/test_*.c tools/testing/unit/fuzz_*.c)
UNIT_BINS := $(patsubst tools/testing/unit/%.c,build/unit/%,$(UNIT_SRCS))

TC_PLUGINS := tc/q_trim.so tc/q_afq.so tc/q_calq.so tc/q_sqr.so tc/q_pl2.so
TRAFFIC := tools/traffic/shoal-blast tools/traffic/shoal-sink tools/traffic/shoal-flows
TOOLS := $(TRAFFIC) tools/shoal-perf/shoal-perf tools/shoal-stat/shoal-stat
EXAMPLES := tools/examples/shoal-send tools/examples/shoal-recv
TEST_TOOLS := tools/testing/nlfuzz/qdisc-nlfuzz

BPF_OBJS := tools/bpf/calq_rank.bpf.o tools/bpf/xdp_drop.bpf.o
BPF_TOOLS := tools/bpf/calq-rank
PL2_SW := tools/pl2-switch/pl2_switch.bpf.o tools/pl2-switch/pl2-switch
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror $(UAPI) -I/usr/include/$(shell gcc -dumpmachine)

# make install (Documentation/install.md): the programs, BPF objects, man
# pages and headers under PREFIX; the tc plugins and the dissector where tc
# and Wireshark look, whatever PREFIX is; the modules under INSTALL_MOD_PATH
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
SHOAL_LIBDIR ?= $(PREFIX)/lib/shoal
MANDIR ?= $(PREFIX)/share/man
MULTIARCH ?= $(shell gcc -dumpmachine)
TC_LIB_DIR ?= /usr/lib/$(MULTIARCH)/tc
# where Wireshark and tshark load Lua plugins from (tshark -G folders)
WIRESHARK_LUA_DIR ?= /usr/lib/$(MULTIARCH)/wireshark/plugins
INSTALL_MOD_PATH ?= $(DESTDIR)
# the key that signs the modules (DKMS's MOK, made the first time it signs)
MOK_KEY ?= /var/lib/dkms/mok.key
MOK_CERT ?= /var/lib/dkms/mok.pub
# given to scripts/install alone: exported, they would reach every sub-make
# (make check's own `make install PREFIX=/usr` would inherit BINDIR)
INSTALL_VARS = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" SBINDIR="$(SBINDIR)" \
	SHOAL_LIBDIR="$(SHOAL_LIBDIR)" MANDIR="$(MANDIR)" TC_LIB_DIR="$(TC_LIB_DIR)" \
	WIRESHARK_LUA_DIR="$(WIRESHARK_LUA_DIR)" INSTALL_MOD_PATH="$(INSTALL_MOD_PATH)" \
	KREL="$(KREL)" KDIR="$(KDIR)" MOK_KEY="$(MOK_KEY)" MOK_CERT="$(MOK_CERT)"

.PHONY: all modules modules-w1 test-modules tc tools unit check check-debug demo bench bench-compare fuzz clean help \
	kdir install uninstall install-tools uninstall-tools deb check-deb FORCE

all: modules tc tools

help:
	@echo "make            build kernel modules, tc plugins and tools"
	@echo "make modules    kernel modules only (KREL=<release> or KDIR=<dir> to override)"
	@echo "make test-modules  the tests' own kernel modules (never installed)"
	@echo "make check      every test; T=<name> runs one test or group (make check T=trim)"
	@echo "make check-debug  make check on a KASAN/lockdep/kmemleak kernel (FAULT=1: with failures injected)"
	@echo "make demo       boot a VM, build a fabric, show trimming against drop-tail, afq, sqr, Shoal against TCP"
	@echo "make bench      benchmarks against in-tree qdiscs; results in bench-results.txt"
	@echo "                and bench-results.json (make bench-compare OLD=A.json [NEW=B.json])"
	@echo "make fuzz       the long fuzz campaign: seeded drivers and libFuzzer (FUZZ_SECONDS=60 a target)"
	@echo "make install    install modules (for KREL), tc plugins, programs and man pages"
	@echo "                (DESTDIR, PREFIX=/usr/local, INSTALL_MOD_PATH, MOK_KEY/MOK_CERT)"
	@echo "make uninstall  remove what make install put there (same variables)"
	@echo "make deb        Debian packages in build/deb: shoal-dkms, shoal-tools, shoal-headers"
	@echo "make check-deb  make deb, then the packages installed on a fresh bookworm, used, purged"
	@echo "make clean      remove build products"

kdir:
	@test -n "$(KREL)" -a -d "$(KDIR)" || { \
		echo "error: no kernel headers found (KDIR=$(KDIR)); run: scripts/setup" >&2; exit 1; }

modules: kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# the tests' own modules (tools/testing/modules/Kbuild): never installed
test-modules: kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tools/testing/modules W=1 KCFLAGS=-Werror modules

# W=1 build with warnings as errors, as `make check` runs it
modules-w1: kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 KCFLAGS=-Werror modules

tc: $(TC_PLUGINS)

tc/q_%.so: tc/q_%.c tc/tc_plugin.h tc/plugin_util.h tc/afq_key_names.h include/uapi/linux/pkt_sched_shoal.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) $(UAPI) -fPIC -shared -o $@ $<

tools: $(TOOLS) $(EXAMPLES) $(TEST_TOOLS) $(BPF_OBJS) $(BPF_TOOLS) $(PL2_SW)

tools/bpf/%.bpf.o: tools/bpf/%.bpf.c include/uapi/linux/shoal.h
	clang $(BPF_CFLAGS) -c -o $@ $<

# where the installed tools find their BPF objects: rewritten only when
# SHOAL_LIBDIR changes, so `make install PREFIX=/usr` rebuilds just them
build/paths.h: FORCE
	@mkdir -p build
	@echo '#define SHOAL_BPF_DIR "$(SHOAL_LIBDIR)"' >$@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@

tools/bpf/calq-rank: tools/bpf/calq-rank.c tools/lib/bpf-object-path.h tools/lib/json_writer.h \
		build/paths.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) -Itools/lib -Ibuild -o $@ $< -lbpf

# -mcpu=v3: the switch uses the value an atomic add returns
tools/pl2-switch/pl2_switch.bpf.o: tools/pl2-switch/pl2_switch.bpf.c tools/pl2-switch/pl2_switch_core.h \
		include/net/shoal/types.h include/uapi/linux/shoal.h
	clang $(BPF_CFLAGS) -mcpu=v3 -c -o $@ $<

tools/pl2-switch/pl2-switch: tools/pl2-switch/pl2-switch.c tools/pl2-switch/pl2_switch_core.h \
		include/net/shoal/types.h include/uapi/linux/shoal.h tools/lib/bpf-object-path.h \
		tools/lib/json_writer.h build/paths.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) $(UAPI) -Itools/lib -Ibuild -o $@ $< -lbpf

# the load generator and the API examples: warning-free with -Wextra
tools/shoal-perf/shoal-perf: tools/shoal-perf/shoal-perf.c tools/shoal-perf/workloads.c \
		tools/shoal-perf/workloads.h include/uapi/linux/shoal.h tools/lib/shoal_socket.h \
		tools/lib/json_writer.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) -Werror $(UAPI) -Itools/lib -o $@ $(filter %.c,$^) -lm -lpthread

tools/shoal-stat/shoal-stat: tools/shoal-stat/shoal-stat.c tools/lib/json_writer.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) -Werror -Itools/lib -o $@ $<

tools/examples/shoal-%: tools/examples/shoal-%.c include/uapi/linux/shoal.h tools/lib/shoal_socket.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) -Werror $(UAPI) -Itools/lib -o $@ $<

# the raw netlink fuzzer of the qdiscs (scenario/qdisc-nlfuzz, make fuzz)
tools/testing/nlfuzz/qdisc-nlfuzz: tools/testing/nlfuzz/qdisc-nlfuzz.c tools/testing/nlfuzz/*.h \
		include/uapi/linux/pkt_sched_shoal.h include/uapi/linux/shoal.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) -Werror $(UAPI) -o $@ $<

# the traffic tools of the tests and benches, and their one-user headers
tools/traffic/shoal-%: tools/traffic/shoal-%.c tools/traffic/*.h include/uapi/linux/shoal.h \
		tools/lib/json_writer.h $(SHOAL_H)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WARN) $(UAPI) -Itools/lib -o $@ $< -lm

# userspace unit tests and fuzz drivers of the algorithm cores (ASan + UBSan)
unit: $(UNIT_BINS)

build/unit/%: tools/testing/unit/%.c tools/testing/unit/*.h net/sched/*.h net/transport/*.h \
		tools/pl2-switch/*.h tools/lib/*.h $(SHOAL_H)
	@mkdir -p build/unit
	$(CC) -O1 -g $(WARN) -Werror $(SAN) -Inet/sched -Inet/transport -Itools/pl2-switch \
		-Itools/testing/unit -Itools/lib $(UAPI) -o $@ $< -lm

check: all unit test-modules
	scripts/check $(T)

# the tests on the debug kernel, built once (scripts/debug-kernel); FAULT=1
# injects allocation failures (Documentation/testing.md, "Debug kernel")
check-debug:
	SHOAL_FAULT=$(or $(FAULT),0) scripts/check-debug $(T)

demo: all
	scripts/demo

bench: all
	scripts/bench

# two bench runs' results.json side by side (NEW: the last run's)
bench-compare:
	scripts/bench-compare $(OLD) $(NEW)

# the long fuzz campaign (FUZZ_SECONDS, FUZZ_SEED, FUZZ_TARGETS: scripts/fuzz)
fuzz: all
	scripts/fuzz

# scripts/install holds the one list of what goes where
install: all
	$(INSTALL_VARS) scripts/install install

uninstall:
	$(INSTALL_VARS) scripts/install uninstall

# all but the modules (a package's tools: DKMS builds the modules)
install-tools: tc tools
	$(INSTALL_VARS) scripts/install install-tools

uninstall-tools:
	$(INSTALL_VARS) scripts/install uninstall-tools

# Debian packages into build/deb (Documentation/install.md, "Debian packages")
deb:
	scripts/deb

# the packages installed on a fresh bookworm root, used in the VM, purged
check-deb: deb
	scripts/check-deb

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/tools/testing/modules clean 2>/dev/null
	rm -f $(TC_PLUGINS) $(TOOLS) $(EXAMPLES) $(BPF_OBJS) $(BPF_TOOLS) $(PL2_SW)
	rm -rf build
