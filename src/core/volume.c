/* Storage helpers (core/volume.h). */
#include <string.h>

#include "core/volume.h"

/* One element of a `__`-separated set: [*s, end) trimmed of spaces (strings.TrimSpace). */
static void trim(const char **b, const char **e) {
    while (*b < *e && strchr(" \t\n\v\f\r", **b)) (*b)++;
    while (*e > *b && strchr(" \t\n\v\f\r", (*e)[-1])) (*e)--;
}

/* Walks the elements of set, each trimmed; false when an element is empty (mirrors
 * LabelZonesToSet / stringToSet of k8s.io/cloud-provider/volume/helpers: the whole value is then
 * an error and the caller ignores the label). *found when z is one of them. */
static bool zone_walk(const char *set, const char *z, bool *found) {
    const char *p = set;
    for (;;) {
        const char *sep = strstr(p, "__");
        const char *end = sep ? sep : p + strlen(p);
        const char *b = p, *e = end;
        trim(&b, &e);
        if (b == e) return false;
        if (z && (size_t)(e - b) == strlen(z) && memcmp(b, z, (size_t)(e - b)) == 0) *found = true;
        if (!sep) return true;
        p = sep + 2;
    }
}

bool kp__zone_set_valid(const char *set) {
    bool f = false;
    return zone_walk(set, NULL, &f);
}

bool kp__zone_set_has(const char *set, const char *z) {
    bool f = false;
    return zone_walk(set, z, &f) && f;
}

static const struct {
    const char *plugin, *driver;
} MIG[KP_MIG_KINDS] = {
    [KP_MIG_AWS_EBS] = {"kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
    [KP_MIG_GCE_PD] = {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
    [KP_MIG_AZURE_DISK] = {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
    [KP_MIG_CINDER] = {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
    [KP_MIG_PORTWORX] = {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
};

const char *kp__mig_driver_name(kp_mig_plugin m) {
    return m > KP_MIG_NONE && m < KP_MIG_NOT_COUNTED ? MIG[m].driver : NULL;
}

/* mirrors CSITranslator.IsMigratableIntreePluginByName (the in-tree plugins of csi-translation-lib)
 * and isCSIMigrationOn (which of them count) */
kp_mig_plugin kp__mig_plugin_of_provisioner(const char *provisioner) {
    for (int m = KP_MIG_AWS_EBS; m < KP_MIG_NOT_COUNTED; m++)
        if (strcmp(provisioner, MIG[m].plugin) == 0) return (kp_mig_plugin)m;
    static const char *const others[] = {"kubernetes.io/azure-file", "kubernetes.io/vsphere-volume",
                                         "kubernetes.io/rbd"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (strcmp(provisioner, others[i]) == 0) return KP_MIG_NOT_COUNTED;
    return KP_MIG_NONE;
}

/* mirrors KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/<vol-id>", "aws:///<vol-id>" or a bare
 * id; the URL's path trimmed of '/' must look like vol-* without a '/'. [*b, *e) is the result. */
static bool ebs_volume_id(const char *id, const char **b, const char **e) {
    if (strncmp(id, "aws://", 6) != 0) {
        *b = id, *e = id + strlen(id);
        return true;
    }
    const char *p = strchr(id + 6, '/'); /* the path starts after the host */
    if (!p) return false;
    const char *end = p + strcspn(p, "?#");
    while (p < end && *p == '/') p++;
    while (end > p && end[-1] == '/') end--;
    if (end - p < 4 || memcmp(p, "vol-", 4) != 0 || memchr(p, '/', (size_t)(end - p))) return false;
    *b = p, *e = end;
    return true;
}

/* mirrors getRegionFromZones (gce_pd.go): every zone "{locale}-{region}-{zone}" of one region;
 * [*b, *e) is the region "{locale}-{region}" */
static bool gce_region(const char *zones, const char **b, const char **e) {
    const char *p = zones;
    *b = *e = NULL;
    for (;;) {
        const char *sep = strstr(p, "__");
        const char *end = sep ? sep : p + strlen(p);
        const char *d1 = memchr(p, '-', (size_t)(end - p));
        const char *d2 = d1 ? memchr(d1 + 1, '-', (size_t)(end - d1 - 1)) : NULL;
        if (!d2 || memchr(d2 + 1, '-', (size_t)(end - d2 - 1))) return false;
        if (*b && ((size_t)(*e - *b) != (size_t)(d2 - p) || memcmp(*b, p, (size_t)(d2 - p))))
            return false; /* more than one region */
        *b = p, *e = d2;
        if (!sep) return true;
        p = sep + 2;
    }
}

static long put(char *buf, size_t cap, const char *a, const char *mid, size_t lmid, const char *c,
                const char *id) {
    size_t la = strlen(a), lc = strlen(c), li = strlen(id), n = la + lmid + lc + li;
    if (n < cap) {
        memcpy(buf, a, la);
        memcpy(buf + la, mid, lmid);
        memcpy(buf + la + lmid, c, lc);
        memcpy(buf + la + lmid + lc, id, li);
        buf[n] = 0;
    }
    return (long)n;
}

/* mirrors the TranslateInTreePVToCSI / TranslateInTreeInlineVolumeToCSI volume handles of
 * csi-translation-lib (aws_ebs.go, gce_pd.go: volIDZonalFmt / volIDRegionalFmt with project
 * UNSPECIFIED; azure_disk.go, openstack_cinder.go, portworx.go: the id itself) */
long kp__csi_translate(kp_mig_plugin m, const char *id, const char *zone_label, char *buf,
                       size_t cap) {
    const char *b, *e;
    switch (m) {
    case KP_MIG_AWS_EBS:
        if (!ebs_volume_id(id, &b, &e)) return -1;
        return put(buf, cap, "", b, (size_t)(e - b), "", "");
    case KP_MIG_GCE_PD:
        if (!zone_label || !zone_label[0])
            return put(buf, cap, "projects/UNSPECIFIED/zones/", "UNSPECIFIED", 11, "/disks/", id);
        if (!strstr(zone_label, "__"))
            return put(buf, cap, "projects/UNSPECIFIED/zones/", zone_label, strlen(zone_label),
                       "/disks/", id);
        if (!gce_region(zone_label, &b, &e)) return -1;
        return put(buf, cap, "projects/UNSPECIFIED/regions/", b, (size_t)(e - b), "/disks/", id);
    case KP_MIG_AZURE_DISK:
    case KP_MIG_CINDER:
    case KP_MIG_PORTWORX: return put(buf, cap, "", "", 0, "", id);
    default: return -1;
    }
}
