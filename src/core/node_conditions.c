/* Node-pressure conditions: names, order and the node's status (node_conditions.h). */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/node_conditions.h"

static const struct {
    unsigned bit;
    const char *name;
} conds[KP_NODE_COND_COUNT] = {{KP_NODE_COND_MEMORY_PRESSURE, "MemoryPressure"},
                               {KP_NODE_COND_DISK_PRESSURE, "DiskPressure"},
                               {KP_NODE_COND_PID_PRESSURE, "PIDPressure"}};

const char *kp_node_condition_name(unsigned bit) {
    for (int i = 0; i < KP_NODE_COND_COUNT; i++)
        if (conds[i].bit == bit) return conds[i].name;
    return "";
}

bool kp_node_condition_parse(const char *name, size_t len, unsigned *bit) {
    for (int i = 0; i < KP_NODE_COND_COUNT; i++) {
        if (strlen(conds[i].name) == len && memcmp(conds[i].name, name, len) == 0) {
            *bit = conds[i].bit;
            return true;
        }
    }
    return false;
}

static bool cond_true(const kp_cluster *cl, const kp_node *n, const char *type) {
    for (uint16_t i = 0; i < n->n_conditions; i++) {
        const kp_condition *c = &n->conditions[i];
        if (strcmp(kp__s(cl, c->type), type) == 0) return strcmp(kp__s(cl, c->status), "True") == 0;
    }
    return false;
}

unsigned kp__node_pressure_conditions(const kp_cluster *cl, const kp_node *n) {
    unsigned c = 0;
    for (int i = 0; i < KP_NODE_COND_COUNT; i++)
        if (cond_true(cl, n, conds[i].name)) c |= conds[i].bit;
    return c;
}

void kp__node_conditions_format(unsigned bits, const char *sep, char *buf, size_t cap) {
    size_t len = 0;
    if (cap == 0) return;
    buf[0] = '\0';
    for (int i = 0; i < KP_NODE_COND_COUNT; i++) {
        if (!(bits & conds[i].bit) || len >= cap) continue;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? sep : "", conds[i].name);
        if (w > 0) len += (size_t)w;
    }
}
