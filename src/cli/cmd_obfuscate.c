/* kprio obfuscate: a snapshot with its names, label values, images and other free-form strings
 * replaced by a keyed hash, every decision unchanged (kprio/obfuscate.h, docs/live.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/obfuscate.h"

static const char *const USAGE =
    "kprio obfuscate -f FILE... [--obfuscate-key KEY] [--show-map]\n"
    "kprio obfuscate --map NAME... --obfuscate-key KEY\n"
    "\n"
    "Writes the documents of every -f input to stdout as JSON, one document per line, with\n"
    "names, namespaces, label and annotation values, images and other free-form strings\n"
    "replaced by a keyed hash: the same string gives the same hash everywhere, so every\n"
    "decision kprio makes on the output is the one it makes on the input, names mapped.\n"
    "Kept: member names (label keys, resource names), numbers, quantities, times (but numbers\n"
    "in env values, commands, args and user label and annotation values are hashed), the values\n"
    "the engines interpret (kind, operator, effect, phase, taint and topology keys, ...),\n"
    "default-scheduler, kube-system, system-* and kubernetes.io/* names (docs/live.md).\n"
    "\n"
    "  -f, --filename FILE      input file (repeatable); '-' reads stdin\n"
    "      --obfuscate-key KEY  the key (default: $KPRIO_OBFUSCATE_KEY, else a random key that\n"
    "                           is never shown); the same key gives the same names\n"
    "      --map NAME...        print what each NAME becomes (one per line) instead; needs\n"
    "                           the key\n"
    "      --show-map           print the mapping of the -f inputs instead of the documents:\n"
    "                           ORIGINAL<TAB>OBFUSCATED per string hashed (repeats included;\n"
    "                           keep it to read answers back, never share it)\n"
    "\n"
    "Exit status: 0 written, 1 bad input or a runtime error, 2 usage error.\n";

/* Every output is built first and written at the end: a command that fails writes nothing. */
static int obfuscate_run(const char **files, int n_files, const char *key, char **names,
                         int n_names, bool show_map) {
    kp_error err;
    kp_error_clear(&err);
    kp_obfuscator *o = NULL;
    if (kp_obfuscator_new(key, &o, &err) != KP_OK) return kp_cli_print_error(&err);
    int rc = KP_EXIT_OK, n_out = n_names + n_files;
    char **outs = kp_calloc((size_t)n_out + 1, sizeof *outs);
    size_t *lens = kp_calloc((size_t)n_out + 1, sizeof *lens);
    if (!outs || !lens) rc = kp_cli_print_status(KP_ENOMEM);
    for (int i = 0; i < n_names && rc == KP_EXIT_OK; i++) {
        if (!(outs[i] = kp_obfuscate_string(o, names[i], strlen(names[i]))))
            rc = kp_cli_print_status(KP_ENOMEM);
        else lens[i] = strlen(outs[i]);
    }
    for (int i = 0; i < n_files && rc == KP_EXIT_OK; i++) {
        if (kp_obfuscate_path(o, files[i], show_map, &outs[n_names + i], &lens[n_names + i],
                              &err) != KP_OK)
            rc = kp_cli_print_error(&err);
    }
    for (int i = 0; i < n_out && rc == KP_EXIT_OK; i++) {
        if (lens[i]) fwrite(outs[i], 1, lens[i], stdout);
        if (i < n_names) putchar('\n');
    }
    for (int i = 0; outs && i < n_out; i++) kp_free(outs[i]);
    kp_free(outs);
    kp_free(lens);
    kp_obfuscator_free(o);
    return rc;
}

int kp_cmd_obfuscate(int argc, char **argv) {
    const char **files = kp_calloc((size_t)argc + 1, sizeof *files);
    char **names = kp_calloc((size_t)argc + 1, sizeof *names);
    const char *key = getenv("KPRIO_OBFUSCATE_KEY");
    int n_files = 0, n_names = 0, rc = KP_EXIT_USAGE;
    bool show_map = false;
    if (!files || !names) {
        rc = kp_cli_print_status(KP_ENOMEM);
        goto out;
    }
    if (key && !key[0]) key = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs("usage: ", stdout);
            fputs(USAGE, stdout);
            rc = KP_EXIT_OK;
            goto out;
        }
        if (strcmp(a, "-f") == 0 || kp_cli_is_opt(a, "--filename")) {
            if (!(files[n_files++] = kp_cli_optval(argc, argv, &i, "obfuscate"))) goto out;
        } else if (strncmp(a, "-f", 2) == 0) {
            files[n_files++] = a + 2;
        } else if (kp_cli_is_opt(a, "--obfuscate-key")) {
            if (!(key = kp_cli_optval(argc, argv, &i, "obfuscate"))) goto out;
            if (!key[0]) {
                rc = kp_cli_usage_hint("obfuscate", "--obfuscate-key must not be empty");
                goto out;
            }
        } else if (strcmp(a, "--show-map") == 0) {
            show_map = true;
        } else if (kp_cli_is_opt(a, "--map")) {
            if (!(names[n_names++] = (char *)kp_cli_optval(argc, argv, &i, "obfuscate"))) goto out;
            while (!strchr(a, '=') && i + 1 < argc && argv[i + 1][0] != '-')
                names[n_names++] = argv[++i];
        } else {
            rc = kp_cli_usage_hint("obfuscate", "unknown argument \"%s\"", a);
            goto out;
        }
    }
    if (n_files == 0 && n_names == 0) {
        rc = kp_cli_usage_hint("obfuscate", "no input: give -f FILE (or --map NAME)");
        goto out;
    }
    if (n_names && !key) {
        rc = kp_cli_usage_hint("obfuscate", "--map needs the key (--obfuscate-key or "
                                            "$KPRIO_OBFUSCATE_KEY) the snapshot was made with");
        goto out;
    }
    rc = obfuscate_run(files, n_files, key, names, n_names, show_map);
out:
    kp_free(files);
    kp_free(names);
    return rc;
}
