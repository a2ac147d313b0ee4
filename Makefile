# kprio build. `make demo` builds and runs the main job on a bundled example, `make test` runs
# every test (plain build, then AddressSanitizer+UBSan). Both install missing Debian packages
# first when run as root (scripts/deps.sh, idempotent). docs/development.md lists every target.
# Parallel by default: one job per core (nproc), each target's output printed whole when it ends
# so that the lines of jobs running side by side do not mix (not for the goals that run one long
# script, whose progress shows as it comes). A -j on the command line (or in MAKEFLAGS from the
# environment) wins: `make -j1` builds one file at a time.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
ifeq ($(filter fuzz bench test-valgrind demo,$(MAKECMDGOALS)),)
MAKEFLAGS += --output-sync=target
endif
endif
CC      ?= cc
CXX     ?= c++
BUILD   ?= build
OPT     ?= -O2 -g
SAN     ?=
# Warnings always on; they fail the build only with WERROR=1 (CI, check-clang), so a developer
# build with a newer compiler still links while the warning is fixed.
WERROR  ?=
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
           -Wformat=2 $(if $(filter 1,$(WERROR)),-Werror)
CXXWARN := -Wall -Wextra -Wpedantic $(if $(filter 1,$(WERROR)),-Werror)
CFLAGS  += -std=c11 $(OPT) $(WARN) $(SAN) -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L
# Portable by default: the binary runs on any x86-64. simdjson still picks its fastest stage-1
# kernel (icelake/haswell/westmere) at run time; NATIVE=1 builds the shim for this CPU only.
NATIVE  ?=
SIMD_ARCH ?= $(if $(filter 1,$(NATIVE)),-march=native)
CXXFLAGS+= -std=c++17 $(OPT) $(SIMD_ARCH) $(CXXWARN) $(SAN) -Iinclude -Isrc
LDLIBS  += -lsimdjson -lyaml -lmsgpackc -lm
LDFLAGS += $(SAN)

# libkprio: every layer but the tool's two (src/render, src/cli), which are linked into kprio and
# the tests that use them (libkprio-tool.a holds the renderers), never into the library.
LIB_C   := $(sort $(shell find src -name '*.c' -not -path 'src/cli/*' -not -path 'src/render/*'))
LIB_CXX := $(sort $(shell find src -name '*.cpp'))
REN_C   := $(sort $(wildcard src/render/*.c))
CLI_C   := $(sort $(wildcard src/cli/*.c))
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o) $(LIB_CXX:%.cpp=$(BUILD)/%.o)
REN_OBJ := $(REN_C:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_C:%.c=$(BUILD)/%.o)
TOOL_A  := $(BUILD)/libkprio-tool.a
UNIT_SRC:= $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN:= $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC:= $(sort $(wildcard bench/*.c))
BENCH_BIN:= $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
EX_SRC  := $(sort $(wildcard examples/*.c))
EX_BIN  := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)

.PHONY: all deps demo test test-plain test-asan unit golden bench fuzz clean check-clang \
	check-layout test-layout test-html cppcheck test-valgrind format check-format mirror-table where-table check-docs \
	install install-tool test-install check-container

all: $(BUILD)/kprio $(UNIT_BIN) $(BENCH_BIN) $(EX_BIN)

deps:
	@sh scripts/deps.sh

$(BUILD)/libkprio.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(TOOL_A): $(REN_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/kprio: $(CLI_OBJ) $(TOOL_A) $(BUILD)/libkprio.a
	$(CXX) $(LDFLAGS) -o $@ $(CLI_OBJ) $(TOOL_A) $(BUILD)/libkprio.a $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -MMD -MP -c -o $@ $<

# Unit tests link the renderers' archive too: a test pulls the renderers it calls, no others.
$(BUILD)/tests/%: tests/unit/%.c tests/unit/harness.h tests/unit/cli_capture.h tests/unit/text_buf.h tests/unit/ctrl_case.h tests/unit/ctrl_rec.h $(TOOL_A) $(BUILD)/libkprio.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(TOOL_A) $(BUILD)/libkprio.a $(LDFLAGS) $(LDLIBS) -lstdc++

# CLI tests compile src/cli/*.c into the test binary.
# (explicit targets: a pattern rule without a recipe would not add these prerequisites)
$(filter $(BUILD)/tests/test_cli_%,$(UNIT_BIN)): $(CLI_C) src/cli/cli.h

$(BUILD)/bench/%: bench/%.c bench/bench_buf.h bench/bench_dra.h $(BUILD)/libkprio.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libkprio.a $(LDFLAGS) $(LDLIBS) -lstdc++

$(BUILD)/examples/%: examples/%.c $(BUILD)/libkprio.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libkprio.a $(LDFLAGS) $(LDLIBS) -lstdc++

demo: deps
	@$(MAKE) --no-print-directory $(BUILD)/kprio
	./$(BUILD)/kprio inspect -f examples/cluster.yaml
	./$(BUILD)/kprio schedule -f examples/cluster.yaml -f examples/whatif-critical.yaml

# `make install PREFIX=DIR` (default /usr/local; DESTDIR for packaging): kprio, the kubectl
# plugin next to it (docs/live.md), the bash and zsh completions, and the library for outside
# programs (docs/api.md): libkprio.a, libkprio.so.$(SOMAJOR) (position-independent objects of
# their own, exporting only the public kp_ symbols: $(BUILD)/libkprio.map), the headers of
# include/kprio/ and kprio.pc for pkg-config.
VERSION := 0.1.0
SOMAJOR := 0
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
PCDIR   ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
SO      := $(BUILD)/libkprio.so.$(SOMAJOR)
PIC_OBJ := $(LIB_C:%.c=$(BUILD)/pic/%.o) $(LIB_CXX:%.cpp=$(BUILD)/pic/%.o)

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -MMD -MP -c -o $@ $<

$(BUILD)/pic/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -fPIC -MMD -MP -c -o $@ $<

# `make install-tool`: the tool alone (kprio, the kubectl plugin, the completions), what users
# of the command line need; `install` adds the library.
install-tool: $(BUILD)/kprio
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BUILD)/kprio $(DESTDIR)$(BINDIR)/kprio
	install -m 755 scripts/kubectl-kprio scripts/kubectl_complete-kprio $(DESTDIR)$(BINDIR)/
	install -m 644 scripts/completion/kprio.bash $(DESTDIR)$(BASHCOMPDIR)/kprio
	install -m 644 scripts/completion/_kprio $(DESTDIR)$(ZSHCOMPDIR)/_kprio

# The version script: kp_ names are the API, everything else (kp__ internals, the C++ shim's
# template instances) stays local to the library.
$(BUILD)/libkprio.map:
	@mkdir -p $(@D)
	printf '{\n  global: kp_[!_]*;\n  local: *;\n};\n' > $@

$(SO): $(PIC_OBJ) $(BUILD)/libkprio.map
	$(CXX) -shared -Wl,-soname,libkprio.so.$(SOMAJOR) -Wl,--version-script=$(BUILD)/libkprio.map \
	    -Wl,--no-undefined $(LDFLAGS) -o $@ $(PIC_OBJ) $(LDLIBS)

install: install-tool $(BUILD)/libkprio.a $(SO)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR)/kprio $(DESTDIR)$(PCDIR)
	install -m 644 $(BUILD)/libkprio.a $(DESTDIR)$(LIBDIR)/libkprio.a
	install -m 755 $(SO) $(DESTDIR)$(LIBDIR)/libkprio.so.$(SOMAJOR)
	ln -sf libkprio.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libkprio.so
	install -m 644 include/kprio/*.h $(DESTDIR)$(INCDIR)/kprio/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' kprio.pc.in > $(DESTDIR)$(PCDIR)/kprio.pc

# Installs into a scratch PREFIX, checks the shared library exports kp_ symbols only, and builds
# every examples/*.c against the installed copy with pkg-config, shared and static.
test-install: $(BUILD)/kprio $(BUILD)/libkprio.a $(SO)
	@sh tests/install.sh $(BUILD)

# The test command named in README.md: plain build, then ASan+UBSan build. Every summary line of
# tests/run.sh names its pass ("plain:", "asan+ubsan:"); both passes' totals close the run.
test: deps
	@$(MAKE) --no-print-directory test-plain
	@$(MAKE) --no-print-directory test-asan
	@echo "make test:"; cat $(BUILD)/test-totals build-asan/test-totals

test-plain: all
	@rm -f $(BUILD)/test-totals
	@sh tests/run.sh $(BUILD) plain

# the HTML report in headless Chromium alone (tests/run.sh runs it in the plain pass)
test-html: $(BUILD)/kprio
	@sh tests/html/run.sh $(BUILD)

test-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" all
	@rm -f build-asan/test-totals
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh build-asan \
	    asan+ubsan

# gcc and clang must both build warning-free (WERROR=1 here, whatever the caller set). clang's
# warnings come from its front end, the same at any optimisation level: -O0 builds it in half
# the time.
# `make check-container`: builds the Containerfile without a container engine, in a
# debootstrap'ed Debian bookworm under chroot, and runs a sweep's Indexed Job in the image
# (scripts/check_containerfile.sh; root; downloads a Debian base the first time, so it is not
# part of `make test` or CI; the cache is KPRIO_CONTAINER_CACHE, default /var/cache/kprio-container).
check-container:
	@bash scripts/check_containerfile.sh Containerfile .

check-clang:
	@$(MAKE) --no-print-directory BUILD=build-clang CC=clang CXX=clang++ OPT="-O0 -g" WERROR=1 all

# The layering rules of issue 16 (docs/development.md), read from the sources and from the
# objects' symbol tables of $(BUILD); test-layout runs the checker on small trees that break
# each rule once.
check-layout: all
	@sh scripts/check_layout.sh $(BUILD)

test-layout:
	@sh tests/layout/run.sh

# The generated tables of docs/internals/architecture.md: upstream-to-kprio (from the `mirrors NAME`
# comments) and "What lives where" (from the tree); `sh scripts/update_doc_tables.sh` regenerates
# both. check-docs also fails on a relative link of README.md or docs/ to a path that does not exist.
mirror-table:
	@sh scripts/update_doc_tables.sh mirror

where-table:
	@sh scripts/update_doc_tables.sh where

check-docs:
	@sh scripts/update_doc_tables.sh --check
	@sh scripts/check_doc_links.sh

CPPCHECK_FLAGS := --enable=warning,performance,portability --error-exitcode=1 --inline-suppr \
	--quiet -Iinclude -Isrc --std=c11 -D_POSIX_C_SOURCE=200809L \
	--suppress-xml=scripts/cppcheck-suppressions.xml
cppcheck:
	@cppcheck $(CPPCHECK_FLAGS) -j2 src

# Unit tests of the plain build and a few golden cases through kprio under valgrind (which
# also runs the shim on a CPU model without AVX-512: the portable build must not trap).
test-valgrind: all
	@sh tests/valgrind.sh $(BUILD)

# clang-format-14 (Debian's clang-format); .clang-format holds the house style.
CLANG_FORMAT ?= clang-format-14
FORMAT_FILES = $(shell find src include tests bench examples \( -name '*.c' -o -name '*.h' \
	-o -name '*.cpp' \) -not -path 'tests/layout/*' | sort)
format:
	@$(CLANG_FORMAT) -i $(FORMAT_FILES)

check-format:
	@$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES)

bench: all
	@sh bench/run.sh $(BUILD)

fuzz:
	@sh tests/fuzz/run.sh

clean:
	rm -rf build build-asan build-clang build-fuzz build-native

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
