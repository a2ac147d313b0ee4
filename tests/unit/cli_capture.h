/* Runs a CLI command function in-process with stdout and stderr captured (for the test_cli_*
 * tests, which #include the CLI sources). NUL-terminated, cut to the buffers' capacity. Returns
 * the command's exit status, -1 if the temporary files could not be made. */
#ifndef KP_TESTS_CLI_CAPTURE_H
#define KP_TESTS_CLI_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static int kt_run_captured(int (*fn)(int, char **), int argc, char **argv, char *out,
                           size_t out_cap, char *err, size_t err_cap) {
    fflush(stdout);
    fflush(stderr);
    FILE *fo = tmpfile(), *fe = tmpfile();
    if (!fo || !fe) {
        if (fo) fclose(fo);
        if (fe) fclose(fe);
        return -1;
    }
    int so = dup(1), se = dup(2);
    dup2(fileno(fo), 1);
    dup2(fileno(fe), 2);
    int rc = fn(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    rewind(fo);
    rewind(fe);
    out[fread(out, 1, out_cap - 1, fo)] = 0;
    err[fread(err, 1, err_cap - 1, fe)] = 0;
    fclose(fo);
    fclose(fe);
    return rc;
}

#endif
