/* The internal utility module of base/: the growing buffer (buf.h), the JSON writer (json.h),
 * output files and directory listings (file.h), under failed allocations too. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "base/json.h"
#include "harness.h"

KT_TEST(buf_appends_and_grows) {
    kp__buf b = {0};
    KT_CHECK_STR(kp__buf_str(&b), "");
    KT_CHECK(kp__buf_puts(&b, "ab"));
    KT_CHECK(kp__buf_putc(&b, 'c'));
    KT_CHECK(kp__buf_printf(&b, "-%d-%s", 42, "x"));
    KT_CHECK_STR(kp__buf_str(&b), "abc-42-x");
    KT_CHECK_INT(b.len, 8);
    for (int i = 0; i < 1000; i++) KT_CHECK(kp__buf_printf(&b, "%04d", i));
    KT_CHECK_INT(b.len, 8 + 4000);
    KT_CHECK(memcmp(b.p + b.len - 4, "0999", 4) == 0);
    KT_CHECK(b.p[b.len] == 0);
    kp__buf_reset(&b);
    KT_CHECK_STR(kp__buf_str(&b), "");
    kp__buf_free(&b);
}

KT_TEST(buf_moves_from_local_storage_to_the_heap) {
    char local[8];
    kp__buf b;
    kp__buf_init_local(&b, local, sizeof local);
    KT_CHECK(kp__buf_printf(&b, "%s", "1234567") && b.p == local);
    KT_CHECK(kp__buf_printf(&b, "%s", "89") && b.p != local);
    KT_CHECK_STR(kp__buf_str(&b), "123456789");
    kp__buf_free(&b);
    KT_CHECK(b.p == local && b.len == 0);
}

KT_TEST(buf_failure_is_sticky) {
    kp__buf b = {0};
    kp__alloc_fail_after(0, false);
    KT_CHECK(!kp__buf_printf(&b, "%s", "x"));
    kp__alloc_fail_after(-1, false);
    KT_CHECK(b.failed);
    KT_CHECK(!kp__buf_puts(&b, "y")); /* sticky even though memory is back */
    kp__buf_free(&b);
}

static kp_status collect(void *ctx, const char *buf, size_t len) {
    kp__buf *b = ctx;
    KT_CHECK(len > 0 && len <= KP__JSON_CHUNK);
    return kp__buf_append(b, buf, len) ? KP_OK : KP_ENOMEM;
}

static void doc(kp__json *j) {
    kp__json_obj(j);
    kp__json_key(j, "a");
    kp__json_int(j, -12);
    kp__json_key(j, "s");
    kp__json_strn(j, "q\"\\\n\x01\0z", 7);
    kp__json_key(j, "e");
    kp__json_arr(j);
    kp__json_end_arr(j);
    kp__json_key(j, "l");
    kp__json_arr(j);
    kp__json_bool(j, true);
    kp__json_null(j);
    kp__json_obj(j);
    kp__json_end_obj(j);
    kp__json_end_arr(j);
    kp__json_end_obj(j);
}

KT_TEST(json_pretty_and_compact) {
    kp__json j;
    kp__json_init(&j, true, NULL, NULL, NULL);
    doc(&j);
    KT_CHECK_INT(j.st, KP_OK);
    KT_CHECK_STR(kp__buf_str(&j.out),
                 "{\n    \"a\": -12,\n    \"s\": \"q\\\"\\\\\\n\\u0001\\u0000z\",\n"
                 "    \"e\": [],\n    \"l\": [\n        true,\n        null,\n"
                 "        {}\n    ]\n}");
    kp__json_free(&j);
    kp__json_init(&j, false, NULL, NULL, NULL);
    j.line_depth = 2;
    doc(&j);
    KT_CHECK_STR(
        kp__buf_str(&j.out),
        "{\"a\":-12,\"s\":\"q\\\"\\\\\\n\\u0001\\u0000z\",\"e\":[],\"l\":[\ntrue,\nnull,\n{}\n]}");
    kp__json_free(&j);
}

KT_TEST(json_sink_gets_bounded_pieces) {
    kp__buf got = {0};
    kp__json j;
    kp__json_init(&j, false, collect, &got, NULL);
    kp__json_arr(&j);
    char *big = kp__malloc(200000);
    KT_CHECK(big != NULL);
    memset(big, 'x', 199999);
    big[199999] = 0;
    kp__json_str(&j, big);
    for (int i = 0; i < 100; i++) kp__json_arr(&j); /* deeper than the first frame block */
    for (int i = 0; i < 100; i++) kp__json_end_arr(&j);
    kp__json_end_arr(&j);
    KT_CHECK_INT(kp__json_flush(&j), KP_OK);
    kp__json_free(&j);
    KT_CHECK_INT(got.len, 1 + 200001 + 1 + 200 + 1);
    KT_CHECK(got.p[0] == '[' && got.p[got.len - 1] == ']');
    kp__free(big);
    kp__buf_free(&got);
}

static kp_status refuse(void *ctx, const char *buf, size_t len) {
    (void)ctx, (void)buf, (void)len;
    return KP_EIO;
}

KT_TEST(json_sink_failure_is_sticky_and_named) {
    kp_error err;
    kp_error_clear(&err);
    kp__json j;
    kp__json_init(&j, false, refuse, NULL, &err);
    kp__json_str(&j, "x");
    KT_CHECK_INT(kp__json_flush(&j), KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "write failed");
    kp__json_str(&j, "y");
    KT_CHECK_INT(j.st, KP_EIO);
    kp__json_free(&j);
}

static kp_status fill_ok(FILE *f, void *ctx) {
    fputs((const char *)ctx, f);
    return KP_OK;
}

static kp_status fill_oom(FILE *f, void *ctx) {
    (void)ctx;
    fputs("partial", f);
    return KP_ENOMEM;
}

static bool json_only(const char *name) {
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

static void read_back(const char *path, char *buf, size_t cap) {
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
}

/* entries of dir other than . and .. */
static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) n++;
    if (d) closedir(d);
    return n;
}

/* A failed write leaves the target as it was (content, mode), a symbolic link stays a link to
 * the file it named, a FIFO is written in place and never removed, no temporary file stays. */
KT_TEST(outputs_replace_their_target_only_when_complete) {
    char dir[] = "/tmp/kp-base-out.XXXXXX";
    KT_CHECK(mkdtemp(dir) != NULL);
    char path[256], link[256], fifo[256], got[64];
    kp_error err;
    kp_error_clear(&err);
    snprintf(path, sizeof path, "%s/out.json", dir);
    KT_CHECK_INT(kp__file_write(path, fill_ok, "old", &err), KP_OK);
    KT_CHECK(chmod(path, 0640) == 0);
    KT_CHECK_INT(kp__file_write(path, fill_oom, NULL, &err), KP_ENOMEM);
    read_back(path, got, sizeof got);
    KT_CHECK_STR(got, "old"); /* untouched, not truncated */
    KT_CHECK_INT(count_entries(dir), 1); /* the temporary file is gone */
    KT_CHECK_INT(kp__file_write(path, fill_ok, "new", &err), KP_OK);
    read_back(path, got, sizeof got);
    KT_CHECK_STR(got, "new");
    struct stat sb;
    KT_CHECK(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0640); /* mode kept */

    /* open first, fill later: the target stays as it was until the commit */
    kp__out *o = NULL;
    KT_CHECK_INT(kp__out_open(path, &o, &err), KP_OK);
    fputs("third", kp__out_stream(o));
    read_back(path, got, sizeof got);
    KT_CHECK_STR(got, "new");
    KT_CHECK_INT(kp__out_commit(o, KP_OK, &err), KP_OK);
    read_back(path, got, sizeof got);
    KT_CHECK_STR(got, "third");
    KT_CHECK_INT(kp__out_open(path, &o, &err), KP_OK);
    kp__out_abort(o);
    read_back(path, got, sizeof got);
    KT_CHECK_STR(got, "third");

    /* through a relative symbolic link: the link stays, its target gets the content */
    snprintf(link, sizeof link, "%s/link.json", dir);
    KT_CHECK(symlink("out.json", link) == 0);
    KT_CHECK_INT(kp__file_write(link, fill_oom, NULL, &err), KP_ENOMEM);
    KT_CHECK(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
    read_back(path, got, sizeof got);
    KT_CHECK_STR(got, "third");
    KT_CHECK_INT(kp__file_write(link, fill_ok, "via link", &err), KP_OK);
    KT_CHECK(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
    read_back(path, got, sizeof got);
    KT_CHECK_STR(got, "via link");
    KT_CHECK_INT(count_entries(dir), 2);

    /* a FIFO (a reader holds it open): written in place, kept on failure */
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    KT_CHECK(mkfifo(fifo, 0600) == 0);
    int rd = open(fifo, O_RDWR | O_NONBLOCK);
    KT_CHECK(rd >= 0);
    KT_CHECK_INT(kp__file_write(fifo, fill_oom, NULL, &err), KP_ENOMEM);
    KT_CHECK(lstat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode));
    char pb[16] = {0};
    KT_CHECK(read(rd, pb, sizeof pb - 1) == 7 && strcmp(pb, "partial") == 0);
    close(rd);
    KT_CHECK_INT(count_entries(dir), 3);

    /* a directory is refused, naming it */
    KT_CHECK_INT(kp__file_write(dir, fill_ok, "", &err), KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "is a directory");
    KT_CHECK_STR(err.source, dir);

    unlink(fifo);
    unlink(link);
    unlink(path);
    rmdir(dir);
}

KT_TEST(files_written_whole_and_directories_listed) {
    char dir[] = "/tmp/kp-base-util.XXXXXX";
    KT_CHECK(mkdtemp(dir) != NULL);
    char path[256], sub[256];
    kp_error err;
    kp_error_clear(&err);
    snprintf(path, sizeof path, "%s/b.json", dir);
    KT_CHECK_INT(kp__file_write(path, fill_ok, "{}", &err), KP_OK);
    snprintf(path, sizeof path, "%s/a.json", dir);
    KT_CHECK_INT(kp__file_write(path, fill_ok, "{}", &err), KP_OK);
    snprintf(path, sizeof path, "%s/c.txt", dir);
    KT_CHECK_INT(kp__file_write(path, fill_ok, "", &err), KP_OK);
    snprintf(path, sizeof path, "%s/gone.json", dir);
    KT_CHECK_INT(kp__file_write(path, fill_oom, NULL, &err), KP_ENOMEM); /* removed */
    KT_CHECK_STR(err.source, path);
    snprintf(sub, sizeof sub, "%s/d.json", dir); /* a directory: not a regular file */
    KT_CHECK(mkdir(sub, 0700) == 0);
    KT_CHECK(kp__is_dir(dir) && kp__is_dir(sub) && !kp__is_dir(path));

    char **paths = NULL;
    size_t n = 0;
    KT_CHECK_INT(kp__dir_files(dir, json_only, &paths, &n, &err), KP_OK);
    KT_CHECK_INT(n, 2);
    snprintf(path, sizeof path, "%s/a.json", dir);
    KT_CHECK_STR(paths[0], path);
    snprintf(path, sizeof path, "%s/b.json", dir);
    KT_CHECK_STR(paths[1], path);
    kp__paths_free(paths, n);
    KT_CHECK_INT(kp__dir_files(dir, NULL, &paths, &n, &err), KP_OK);
    KT_CHECK_INT(n, 3);
    kp__paths_free(paths, n);

    snprintf(path, sizeof path, "%s/missing", dir);
    KT_CHECK_INT(kp__dir_files(path, NULL, &paths, &n, &err), KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "cannot open directory");
    KT_CHECK(paths == NULL && n == 0);
    snprintf(path, sizeof path, "%s/nodir/x.json", dir);
    KT_CHECK_INT(kp__file_write(path, fill_ok, "", &err), KP_EIO);
    KT_CHECK_CONTAINS(err.msg, "cannot create");

    const char *names[] = {"a.json", "b.json", "c.txt"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(sub);
    rmdir(dir);
}

KT_MAIN(KT_CASE(buf_appends_and_grows), KT_CASE(buf_moves_from_local_storage_to_the_heap),
        KT_CASE(buf_failure_is_sticky), KT_CASE(json_pretty_and_compact),
        KT_CASE(json_sink_gets_bounded_pieces), KT_CASE(json_sink_failure_is_sticky_and_named),
        KT_CASE(files_written_whole_and_directories_listed),
        KT_CASE(outputs_replace_their_target_only_when_complete))
