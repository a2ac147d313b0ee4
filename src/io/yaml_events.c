/* YAML back end: libyaml's event API turned into the kp_ev stream of events.h.
 *
 * Kubernetes reads YAML through sigs.k8s.io/yaml (go-yaml, YAML 1.1 rules) and converts it to
 * JSON, so plain scalars are typed the way go-yaml types them: null (~, null, empty), booleans
 * (true/false/yes/no/on/off in their usual capitalisations), numbers; everything quoted or else
 * is a string. Anchors and aliases are rejected (kubectl output never has them, and expanding
 * them is a billion-laughs risk). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "io/events.h"

static bool word_in(const char *s, size_t len, const char *const *words) {
    for (; *words; words++)
        if (strlen(*words) == len && memcmp(*words, s, len) == 0) return true;
    return false;
}

static bool looks_like_number(const char *s, size_t len) {
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= len) return false;
    if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'o')) return false;
    bool digits = false, dot = false;
    for (; i < len; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            digits = true;
        } else if (s[i] == '.' && !dot) {
            dot = true;
        } else if ((s[i] == 'e' || s[i] == 'E') && digits) {
            i++;
            if (i < len && (s[i] == '+' || s[i] == '-')) i++;
            if (i >= len) return false;
            for (; i < len; i++)
                if (s[i] < '0' || s[i] > '9') return false;
            return true;
        } else {
            return false;
        }
    }
    return digits;
}

static kp_ev plain_scalar_type(const char *s, size_t len) {
    static const char *const nulls[] = {"~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                        "on",   "On",   "ON",   "y",   "Y",   NULL};
    static const char *const falses[] = {"false", "False", "FALSE", "no", "No", "NO",
                                         "off",   "Off",   "OFF",   "n",  "N",  NULL};
    if (len == 0 || word_in(s, len, nulls)) return KP_EV_NULL;
    if (word_in(s, len, trues)) return KP_EV_TRUE;
    if (word_in(s, len, falses)) return KP_EV_FALSE;
    if (looks_like_number(s, len)) return KP_EV_NUM;
    return KP_EV_STR;
}

/* Mapping keys and values alternate; track per level whether the next scalar is a key. */
typedef struct {
    bool is_map;
    bool expect_key;
} level;

int kp__yaml_events(const char *buf, size_t len, kp_ev_fn fn, void *ctx, char *errmsg,
                    size_t errcap, uint64_t *err_off) {
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        snprintf(errmsg, errcap, "out of memory");
        *err_off = 0;
        return KP_EV_NOMEM; /* not a syntax error */
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    level stack[KP_MAX_DEPTH + 2];
    int depth = 0, rc = 0;
    bool done = false;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            snprintf(errmsg, errcap, "%s%s%s", p.problem ? p.problem : "invalid YAML",
                     p.context ? " " : "", p.context ? p.context : "");
            *err_off = p.problem_mark.index;
            rc = p.error == YAML_MEMORY_ERROR ? KP_EV_NOMEM : -1000;
            break;
        }
        uint64_t off = ev.start_mark.index;
        bool value_start = false; /* this event begins a value (needs key bookkeeping) */
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT:
            depth = 0;
            rc = fn(ctx, KP_EV_DOC_BEGIN, NULL, 0, off);
            break;
        case YAML_DOCUMENT_END_EVENT: rc = fn(ctx, KP_EV_DOC_END, NULL, 0, off); break;
        case YAML_ALIAS_EVENT:
            snprintf(errmsg, errcap, "YAML aliases are not supported");
            *err_off = off;
            rc = -1000;
            break;
        case YAML_SCALAR_EVENT: {
            const char *s = (const char *)ev.data.scalar.value;
            size_t n = ev.data.scalar.length;
            if (depth > 0 && stack[depth - 1].is_map && stack[depth - 1].expect_key) {
                rc = fn(ctx, KP_EV_KEY, s, n, off);
                stack[depth - 1].expect_key = false;
                break;
            }
            kp_ev t = KP_EV_STR;
            if (ev.data.scalar.plain_implicit && ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
                t = plain_scalar_type(s, n);
            if (ev.data.scalar.tag) {
                const char *tag = (const char *)ev.data.scalar.tag;
                if (strcmp(tag, "tag:yaml.org,2002:str") == 0) t = KP_EV_STR;
            }
            value_start = true;
            rc = fn(ctx, t, s, n,
                    off); /* text passed for every type: plain scalars may be strings */
            break;
        }
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (depth > 0 && stack[depth - 1].is_map && stack[depth - 1].expect_key) {
                snprintf(errmsg, errcap, "mapping keys must be scalars");
                *err_off = off;
                rc = -1000;
                break;
            }
            if (depth >= KP_MAX_DEPTH) {
                snprintf(errmsg, errcap, "nesting deeper than %d levels", KP_MAX_DEPTH);
                *err_off = off;
                rc = -1000;
                break;
            }
            value_start = true;
            rc = fn(ctx, ev.type == YAML_MAPPING_START_EVENT ? KP_EV_OBJ_BEGIN : KP_EV_ARR_BEGIN,
                    NULL, 0, off);
            stack[depth].is_map = ev.type == YAML_MAPPING_START_EVENT;
            stack[depth].expect_key = true;
            depth++;
            value_start = false; /* bookkeeping of the parent happens at the END event */
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            rc = fn(ctx, ev.type == YAML_MAPPING_END_EVENT ? KP_EV_OBJ_END : KP_EV_ARR_END, NULL, 0,
                    off);
            value_start = true;
            break;
        default: break;
        }
        if (rc >= 0 && value_start && depth > 0 && stack[depth - 1].is_map)
            stack[depth - 1].expect_key = true;
        if (rc == KP_EV_SKIP || rc == KP_EV_SKIP_CHECKED)
            rc = 0; /* YAML back end does not skip; the consumer ignores the value */
        yaml_event_delete(&ev);
        if (rc < 0) break;
    }
    yaml_parser_delete(&p);
    return rc < 0 ? rc : 0;
}
