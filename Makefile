# kprio build. `make demo` builds and runs the main job on a bundled example, `make test` runs
# every test (plain build, then AddressSanitizer+UBSan). Both install missing Debian packages
# first when run as root (scripts/deps.sh, idempotent).
CC      ?= cc
CXX     ?= c++
BUILD   ?= build
OPT     ?= -O2 -g
SAN     ?=
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2
CFLAGS  += -std=c11 $(OPT) $(WARN) $(SAN) -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L
# simdjson On-Demand picks its SIMD kernel at compile time: build the shim for this CPU.
SIMD_ARCH ?= -march=native
CXXFLAGS+= -std=c++17 $(OPT) $(SIMD_ARCH) -Wall -Wextra -Werror $(SAN) -Iinclude -Isrc
LDLIBS  += -lsimdjson -lyaml -lm
LDFLAGS += $(SAN)

LIB_C   := $(sort $(shell find src -name '*.c' -not -path 'src/cli/*'))
LIB_CXX := $(sort $(shell find src -name '*.cpp'))
CLI_C   := $(sort $(wildcard src/cli/*.c))
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o) $(LIB_CXX:%.cpp=$(BUILD)/%.o)
CLI_OBJ := $(CLI_C:%.c=$(BUILD)/%.o)
UNIT_SRC:= $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN:= $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC:= $(sort $(wildcard bench/*.c))
BENCH_BIN:= $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
EX_SRC  := $(sort $(wildcard examples/*.c))
EX_BIN  := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)

.PHONY: all deps demo test test-plain test-asan unit golden bench fuzz clean check-clang

all: $(BUILD)/kprio $(UNIT_BIN) $(BENCH_BIN) $(EX_BIN)

deps:
	@sh scripts/deps.sh

$(BUILD)/libkprio.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	ar rcs $@ $^

$(BUILD)/kprio: $(CLI_OBJ) $(BUILD)/libkprio.a
	$(CXX) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libkprio.a $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c tests/unit/harness.h $(BUILD)/libkprio.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libkprio.a $(LDFLAGS) $(LDLIBS) -lstdc++

# CLI tests compile src/cli/*.c into the test binary.
$(BUILD)/tests/test_cli_%: $(CLI_C) src/cli/cli.h

$(BUILD)/bench/%: bench/%.c $(BUILD)/libkprio.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libkprio.a $(LDFLAGS) $(LDLIBS) -lstdc++

$(BUILD)/examples/%: examples/%.c $(BUILD)/libkprio.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libkprio.a $(LDFLAGS) $(LDLIBS) -lstdc++

demo: deps
	@$(MAKE) --no-print-directory $(BUILD)/kprio
	./$(BUILD)/kprio inspect -f examples/cluster.yaml
	./$(BUILD)/kprio schedule -f examples/cluster.yaml -f examples/whatif-critical.yaml

# The test command named in README.md: plain build, then ASan+UBSan build.
test: deps
	@$(MAKE) --no-print-directory test-plain
	@$(MAKE) --no-print-directory test-asan

test-plain: all
	@sh tests/run.sh $(BUILD)

test-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" all
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh build-asan

# gcc and clang must both build warning-free.
check-clang:
	@$(MAKE) --no-print-directory BUILD=build-clang CC=clang CXX=clang++ all

bench: all
	@sh bench/run.sh $(BUILD)

fuzz:
	@sh tests/fuzz/run.sh

clean:
	rm -rf build build-asan build-clang build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
