/* Label map lookup. */
#include "core/labels.h"

bool kp__labels_get(const kp_labels *l, kp_str key, kp_str *val) {
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (l->items[mid].key == key) {
            if (val) *val = l->items[mid].val;
            return true;
        }
        if (l->items[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return false;
}
