/* The CLI's loading (src/cli/common.c, compiled into the test): a bus error while an input is read
 * (a mapped file cut short by another process between the library's checks) prints
 * "kprio: FILE: file changed while it was read" and exits 1; --max-input-bytes values. */
#define _DEFAULT_SOURCE /* mkdtemp, mkfifo */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#include "cli/common.c"

/* The child loads a FIFO (blocked in read with the guard armed) and receives SIGBUS: the same
 * state as a parser touching a page past a truncated file's end. name: the FIFO's file name,
 * want_name: how the line must show it. */
static void bus_error_case(const char *name, const char *want_name) {
    char dir[] = "/tmp/kprio-test-cli-XXXXXX";
    KT_CHECK(mkdtemp(dir) != NULL);
    char fifo[128], errpath[96];
    snprintf(fifo, sizeof fifo, "%s/%s", dir, name);
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    KT_CHECK_INT(mkfifo(fifo, 0600), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 2);
        kp_cli_common c;
        kp_cli_common_init(&c);
        c.files[0] = fifo;
        c.n_files = 1;
        kp_cluster *cl = kp_cli_load(&c);
        _exit(cl ? 0 : 3);
    }
    int w = open(fifo, O_WRONLY); /* returns once the child has opened it for reading */
    KT_CHECK(w >= 0);
    usleep(100000);
    kill(pid, SIGBUS);
    int status = 0;
    waitpid(pid, &status, 0);
    close(w);
    KT_CHECK(WIFEXITED(status));
    KT_CHECK_INT(WEXITSTATUS(status), 1);
    char got[256] = "", want[256];
    FILE *f = fopen(errpath, "r");
    if (f) {
        size_t n = fread(got, 1, sizeof got - 1, f);
        got[n] = 0;
        fclose(f);
    }
    snprintf(want, sizeof want, "kprio: %s/%s: file changed while it was read\n", dir, want_name);
    KT_CHECK_STR(got, want);
    unlink(fifo);
    unlink(errpath);
    rmdir(dir);
}

KT_TEST(bus_error_while_loading_prints_one_line) {
    bus_error_case("snap.json", "snap.json");
    /* issue 17: the file name is escaped as in every other message (a newline, an escape
     * sequence) */
    bus_error_case("snap\n\x1b[31m.json", "snap\\n\\x1b[31m.json");
}

/* The progress line on a terminal shows the file name escaped too. */
KT_TEST(progress_line_escapes_the_file_name) {
    char path[] = "/tmp/kprio-test-progress-XXXXXX";
    int fd = mkstemp(path);
    KT_CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    load_progress lp = {now_s() - 5.0, true, false, 0, 1, 0};
    on_progress(&lp, "a\nb\x1b[2Jc", 1000000, 2000000);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char got[512] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, got, sizeof got - 1);
    got[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    KT_CHECK_CONTAINS(got, "kprio: loading a\\nb\\x1b[2Jc (file 1/1)");
    KT_CHECK(strchr(got, '\n') == NULL);
    KT_CHECK(strchr(got, '\x1b') == NULL);
    KT_CHECK_CONTAINS(bus_source, "a\\nb\\x1b[2Jc");
    bus_armed = 0;
}

KT_TEST(max_input_bytes_values) {
    uint64_t v = 0;
    KT_CHECK(kp_cli_parse_bytes("4096", &v) && v == 4096);
    KT_CHECK(kp_cli_parse_bytes("1Ki", &v) && v == 1024);
    KT_CHECK(kp_cli_parse_bytes("3Mi", &v) && v == (uint64_t)3 << 20);
    KT_CHECK(kp_cli_parse_bytes("16Gi", &v) && v == (uint64_t)16 << 30);
    KT_CHECK(kp_cli_parse_bytes("2Ti", &v) && v == (uint64_t)2 << 40);
    KT_CHECK(kp_cli_parse_bytes("18446744073709551615", &v) && v == UINT64_MAX);
    KT_CHECK(!kp_cli_parse_bytes("18446744073709551616", &v));
    KT_CHECK(!kp_cli_parse_bytes("16777216Ti", &v));
    KT_CHECK(!kp_cli_parse_bytes("0", &v));
    KT_CHECK(!kp_cli_parse_bytes("", &v));
    KT_CHECK(!kp_cli_parse_bytes("1G", &v));
    KT_CHECK(!kp_cli_parse_bytes("-1", &v));
    KT_CHECK(!kp_cli_parse_bytes("1.5Gi", &v));
}

KT_MAIN(KT_CASE(bus_error_while_loading_prints_one_line),
        KT_CASE(progress_line_escapes_the_file_name), KT_CASE(max_input_bytes_values))
