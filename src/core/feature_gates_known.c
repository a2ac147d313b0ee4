/* Every feature gate name a v1.37 kubelet and kube-scheduler register on their --feature-gates
 * (and the kubelet on KubeletConfiguration.featureGates), with LockToDefault where the gate is
 * locked at 1.37. kprio models only the gates in feature_gates.c; the others are accepted and
 * change nothing ("unrecognized feature gate" is kept for names upstream does not register).
 *
 * Written by hand from (kubernetes/kubernetes and its staging repos):
 * - pkg/features/kube_features.go, defaultVersionedKubernetesFeatureGates (newest stored copy:
 *   its entries reach 1.36; it also registers apiserver's genericfeatures.*, apiextensions',
 *   kube-controller-manager's and zpages' gates, and client-go's through clientAdapter);
 * - the kube-scheduler feature file of the 1.37 line (SetupCurrentKubernetesSpecificFeatureGates,
 *   entries with Version 1.37: CompositePodGroup, DRADerivedAttributes, DRA* locks, ...);
 * - client-go/features/known_features.go (ClientsAllowCBOR ... WatchListClient);
 * - component-base logs/api/v1 (ContextualLogging, LoggingAlphaOptions, LoggingBetaOptions) and
 *   metrics/features (ComponentSLIs);
 * - the 1.36/1.37 notes and PRs for PodLevelResourcesFixKubeletQOSClass (#137150),
 *   PodLevelResourcesFixDefaulting, ReloadKubeletClientCAFile,
 *   InPlacePodVerticalScalingInitContainers (#137352), and the 1.36 kube_features.go entries
 *   WorkloadAwarePreemption, WorkloadWithJob, CRIListStreaming; component-base metrics'
 *   NativeHistograms (1.36).
 * - the v1.37.0-alpha.1 notes (CHANGELOG-1.37.md, commit 04666cc668c5): gates added, removed
 *   and locked in 1.37 (DeclarativeValidationTakeover locked off, #139212; LIFESPAN below).
 * Gates whose removal was only announced are kept (accepting a name a 1.37 binary dropped is
 * safer than refusing a real configuration); see docs/compat.md. */
#include <string.h>

#include "core/compat.h"
#include "core/feature_gates_known.h"

static const struct {
    const char *name;
    kp__gate_lock lock;
} KNOWN[] = {
    {"APIResponseCompression", KP__GATE_FREE},
    {"APIServerIdentity", KP__GATE_FREE},
    {"APIServerTracing", KP__GATE_LOCKED_ON},
    {"APIServingWithRoutine", KP__GATE_FREE},
    {"AggregatedDiscoveryRemoveBetaType", KP__GATE_LOCKED_ON},
    {"AllowDNSOnlyNodeCSR", KP__GATE_FREE},
    {"AllowInsecureKubeletCertificateSigningRequests", KP__GATE_FREE},
    {"AllowOverwriteTerminationGracePeriodSeconds", KP__GATE_LOCKED_OFF},
    {"AllowParsingUserUIDFromCertAuth", KP__GATE_FREE},
    {"AllowUnsafeMalformedObjectDeletion", KP__GATE_FREE},
    {"AnonymousAuthConfigurableEndpoints", KP__GATE_LOCKED_ON},
    {"AnyVolumeDataSource", KP__GATE_LOCKED_ON},
    {"AuthorizeNodeWithSelectors", KP__GATE_LOCKED_ON},
    {"AuthorizePodWebsocketUpgradeCreatePermission", KP__GATE_FREE},
    {"AuthorizeWithSelectors", KP__GATE_LOCKED_ON},
    {"BtreeWatchCache", KP__GATE_LOCKED_ON},
    {"CBORServingAndStorage", KP__GATE_FREE},
    {"CPUManagerPolicyAlphaOptions", KP__GATE_FREE},
    {"CPUManagerPolicyBetaOptions", KP__GATE_FREE},
    {"CPUManagerPolicyOptions", KP__GATE_LOCKED_ON},
    {"CRDObservedGenerationTracking", KP__GATE_FREE},
    {"CRDValidationRatcheting", KP__GATE_LOCKED_ON},
    {"CRIListStreaming", KP__GATE_FREE},
    {"CSIMigrationPortworx", KP__GATE_LOCKED_ON},
    {"CSIServiceAccountTokenSecrets", KP__GATE_FREE},
    {"CSIVolumeHealth", KP__GATE_FREE},
    {"ChangeContainerStatusOnKubeletRestart", KP__GATE_FREE},
    {"ClearingNominatedNodeNameAfterBinding", KP__GATE_FREE},
    {"ClientsAllowCBOR", KP__GATE_FREE},
    {"ClientsPreferCBOR", KP__GATE_FREE},
    {"CloudControllerManagerWatchBasedRoutesReconciliation", KP__GATE_FREE},
    {"CloudControllerManagerWebhook", KP__GATE_FREE},
    {"ClusterTrustBundle", KP__GATE_FREE},
    {"ClusterTrustBundleProjection", KP__GATE_FREE},
    {"ComponentFlagz", KP__GATE_FREE},
    {"ComponentSLIs", KP__GATE_FREE},
    {"ComponentStatusz", KP__GATE_FREE},
    {"CompositePodGroup", KP__GATE_FREE},
    {"ConcurrentWatchObjectDecode", KP__GATE_FREE},
    {"ConsistentListFromCache", KP__GATE_LOCKED_ON},
    {"ConsistentListFromCacheSkipTimeoutFallback", KP__GATE_FREE},
    {"ConstrainedImpersonation", KP__GATE_FREE},
    {"ContainerCheckpoint", KP__GATE_FREE},
    {"ContainerRestartRules", KP__GATE_FREE},
    {"ContainerStopSignals", KP__GATE_FREE},
    {"ContextualLogging", KP__GATE_FREE},
    {"CoordinatedLeaderElection", KP__GATE_FREE},
    {"CrossNamespaceVolumeDataSource", KP__GATE_FREE},
    {"CustomCPUCFSQuotaPeriod", KP__GATE_FREE},
    {"CustomResourceFieldSelectors", KP__GATE_LOCKED_ON},
    {"DRAAdminAccess", KP__GATE_LOCKED_ON},
    {"DRAConsumableCapacity", KP__GATE_FREE},
    {"DRADerivedAttributes", KP__GATE_FREE},
    {"DRADeviceBindingConditions", KP__GATE_FREE},
    {"DRADeviceCompatibilityGroups", KP__GATE_FREE},
    {"DRADeviceTaintRules", KP__GATE_FREE},
    {"DRADeviceTaints", KP__GATE_FREE},
    {"DRAExtendedResource", KP__GATE_LOCKED_ON},
    {"DRAFractionalCapacityRange", KP__GATE_FREE},
    {"DRAListTypeAttributes", KP__GATE_FREE},
    {"DRANodeAllocatableResources", KP__GATE_FREE},
    {"DRAOptionalNodeOperations", KP__GATE_FREE},
    {"DRAPartitionableDevices", KP__GATE_FREE},
    {"DRAPrioritizedList", KP__GATE_LOCKED_ON},
    {"DRAResourceClaimDeviceStatus", KP__GATE_LOCKED_ON},
    {"DRASchedulerFilterTimeout", KP__GATE_FREE},
    {"DRAWorkloadResourceClaims", KP__GATE_FREE},
    {"DeclarativeValidation", KP__GATE_FREE},
    {"DeclarativeValidationTakeover", KP__GATE_LOCKED_OFF},
    {"DeploymentReplicaSetTerminatingReplicas", KP__GATE_FREE},
    {"DetectCacheInconsistency", KP__GATE_FREE},
    {"DisableAllocatorDualWrite", KP__GATE_LOCKED_ON},
    {"DisableCPUQuotaWithExclusiveCPUs", KP__GATE_FREE},
    {"DisableNodeKubeProxyVersion", KP__GATE_FREE},
    {"DynamicResourceAllocation", KP__GATE_LOCKED_ON},
    {"EnvFiles", KP__GATE_FREE},
    {"EtcdRangeStream", KP__GATE_FREE},
    {"EventedPLEG", KP__GATE_FREE},
    {"ExecProbeTimeout", KP__GATE_LOCKED_ON},
    {"ExternalServiceAccountTokenSigner", KP__GATE_FREE},
    {"GangScheduling", KP__GATE_FREE},
    {"GenericWorkload", KP__GATE_FREE},
    {"GitRepoVolumeDriver", KP__GATE_FREE},
    {"GracefulNodeShutdown", KP__GATE_FREE},
    {"GracefulNodeShutdownBasedOnPodPriority", KP__GATE_FREE},
    {"HPAConfigurableTolerance", KP__GATE_FREE},
    {"HPAScaleToZero", KP__GATE_FREE},
    {"HonorPVReclaimPolicy", KP__GATE_LOCKED_ON},
    {"HostnameOverride", KP__GATE_FREE},
    {"ImageMaximumGCAge", KP__GATE_LOCKED_ON},
    {"ImageVolume", KP__GATE_FREE},
    {"ImageVolumeWithDigest", KP__GATE_FREE},
    {"InOrderInformers", KP__GATE_FREE},
    {"InOrderInformersBatchProcess", KP__GATE_FREE},
    {"InPlacePodLevelResourcesVerticalScaling", KP__GATE_FREE},
    {"InPlacePodVerticalScaling", KP__GATE_LOCKED_ON},
    {"InPlacePodVerticalScalingAllocatedStatus", KP__GATE_FREE},
    {"InPlacePodVerticalScalingExclusiveCPUs", KP__GATE_FREE},
    {"InPlacePodVerticalScalingExclusiveMemory", KP__GATE_FREE},
    {"InPlacePodVerticalScalingInitContainers", KP__GATE_FREE},
    {"InPlacePodVerticalScalingSchedulerPreemption", KP__GATE_FREE},
    {"InTreePluginPortworxUnregister", KP__GATE_FREE},
    {"InformerResourceVersion", KP__GATE_FREE},
    {"InterPodAffinityHostnameFastPath", KP__GATE_FREE},
    {"JobBackoffLimitPerIndex", KP__GATE_LOCKED_ON},
    {"JobManagedBy", KP__GATE_LOCKED_ON},
    {"JobPodReplacementPolicy", KP__GATE_LOCKED_ON},
    {"JobSuccessPolicy", KP__GATE_LOCKED_ON},
    {"KMSv1", KP__GATE_FREE},
    {"KubeProxyIPVS", KP__GATE_FREE},
    {"KubeletCgroupDriverFromCRI", KP__GATE_LOCKED_ON},
    {"KubeletCrashLoopBackOffMax", KP__GATE_FREE},
    {"KubeletEnsureSecretPulledImages", KP__GATE_FREE},
    {"KubeletFineGrainedAuthz", KP__GATE_FREE},
    {"KubeletInUserNamespace", KP__GATE_FREE},
    {"KubeletPSI", KP__GATE_FREE},
    {"KubeletPodResourcesDynamicResources", KP__GATE_FREE},
    {"KubeletPodResourcesGet", KP__GATE_FREE},
    {"KubeletPodResourcesListUseActivePods", KP__GATE_FREE},
    {"KubeletRegistrationGetOnExistsOnly", KP__GATE_FREE},
    {"KubeletSeparateDiskGC", KP__GATE_FREE},
    {"KubeletServiceAccountTokenForCredentialProviders", KP__GATE_FREE},
    {"KubeletTracing", KP__GATE_LOCKED_ON},
    {"ListFromCacheSnapshot", KP__GATE_FREE},
    {"LocalStorageCapacityIsolationFSQuotaMonitoring", KP__GATE_FREE},
    {"LogarithmicScaleDown", KP__GATE_LOCKED_ON},
    {"LoggingAlphaOptions", KP__GATE_FREE},
    {"LoggingBetaOptions", KP__GATE_FREE},
    {"MatchLabelKeysInPodAffinity", KP__GATE_LOCKED_ON},
    {"MatchLabelKeysInPodTopologySpread", KP__GATE_FREE},
    {"MatchLabelKeysInPodTopologySpreadSelectorMerge", KP__GATE_FREE},
    {"MaxUnavailableStatefulSet", KP__GATE_FREE},
    {"MemoryManager", KP__GATE_LOCKED_ON},
    {"MemoryQoS", KP__GATE_FREE},
    {"MultiCIDRServiceAllocator", KP__GATE_LOCKED_ON},
    {"MutableCSINodeAllocatableCount", KP__GATE_FREE},
    {"MutablePVNodeAffinity", KP__GATE_FREE},
    {"MutablePodResourcesForSuspendedJobs", KP__GATE_FREE},
    {"MutableSchedulingDirectivesForSuspendedJobs", KP__GATE_FREE},
    {"MutatingAdmissionPolicy", KP__GATE_FREE},
    {"NFTablesProxyMode", KP__GATE_LOCKED_ON},
    {"NativeHistograms", KP__GATE_FREE},
    {"NodeDeclaredFeatures", KP__GATE_LOCKED_ON},
    {"NodeInclusionPolicyInPodTopologySpread", KP__GATE_LOCKED_ON},
    {"NodeLogQuery", KP__GATE_FREE},
    {"NodeSwap", KP__GATE_LOCKED_ON},
    {"NominatedNodeNameForExpectation", KP__GATE_FREE},
    {"OpenAPIEnums", KP__GATE_FREE},
    {"OpportunisticBatching", KP__GATE_FREE},
    {"OrderedNamespaceDeletion", KP__GATE_LOCKED_ON},
    {"PodAndContainerStatsFromCRI", KP__GATE_FREE},
    {"PodCertificateRequest", KP__GATE_FREE},
    {"PodDeletionCost", KP__GATE_FREE},
    {"PodGroupPreemptionPolicy", KP__GATE_FREE},
    {"PodLevelResources", KP__GATE_FREE},
    {"PodLevelResourcesFixDefaulting", KP__GATE_FREE},
    {"PodLevelResourcesFixKubeletQOSClass", KP__GATE_FREE},
    {"PodLifecycleSleepAction", KP__GATE_LOCKED_ON},
    {"PodLifecycleSleepActionAllowZero", KP__GATE_LOCKED_ON},
    {"PodLogsQuerySplitStreams", KP__GATE_FREE},
    {"PodObservedGenerationTracking", KP__GATE_LOCKED_ON},
    {"PodReadyToStartContainersCondition", KP__GATE_FREE},
    {"PodSchedulingReadiness", KP__GATE_LOCKED_ON},
    {"PodTopologyLabelsAdmission", KP__GATE_FREE},
    {"PortForwardWebsockets", KP__GATE_FREE},
    {"PreferSameTrafficDistribution", KP__GATE_LOCKED_ON},
    {"PreventStaticPodAPIReferences", KP__GATE_FREE},
    {"ProcMountType", KP__GATE_FREE},
    {"QOSReserved", KP__GATE_FREE},
    {"RecoverVolumeExpansionFailure", KP__GATE_LOCKED_ON},
    {"RecursiveReadOnlyMounts", KP__GATE_LOCKED_ON},
    {"ReduceDefaultCrashLoopBackOffDecay", KP__GATE_FREE},
    {"RelaxedDNSSearchValidation", KP__GATE_LOCKED_ON},
    {"RelaxedEnvironmentVariableValidation", KP__GATE_LOCKED_ON},
    {"RelaxedServiceNameValidation", KP__GATE_FREE},
    {"ReloadKubeletClientCAFile", KP__GATE_FREE},
    {"ReloadKubeletServerCertificateFile", KP__GATE_FREE},
    {"RemoteRequestHeaderUID", KP__GATE_FREE},
    {"ResilientWatchCacheInitialization", KP__GATE_LOCKED_ON},
    {"ResourceHealthStatus", KP__GATE_FREE},
    {"RestartAllContainersOnContainerExits", KP__GATE_FREE},
    {"RetryGenerateName", KP__GATE_LOCKED_ON},
    {"RotateKubeletServerCertificate", KP__GATE_FREE},
    {"RuntimeClassInImageCriAPI", KP__GATE_FREE},
    {"SELinuxChangePolicy", KP__GATE_FREE},
    {"SELinuxMount", KP__GATE_FREE},
    {"SELinuxMountReadWriteOncePod", KP__GATE_FREE},
    {"SchedulerAsyncAPICalls", KP__GATE_FREE},
    {"SchedulerAsyncPreemption", KP__GATE_FREE},
    {"SchedulerPopFromBackoffQ", KP__GATE_FREE},
    {"SchedulerPreQueueingHints", KP__GATE_FREE},
    {"SchedulerQueueingHints", KP__GATE_LOCKED_ON},
    {"SeparateCacheWatchRPC", KP__GATE_FREE},
    {"SeparateTaintEvictionController", KP__GATE_LOCKED_ON},
    {"ServiceAccountNodeAudienceRestriction", KP__GATE_FREE},
    {"ServiceAccountTokenJTI", KP__GATE_LOCKED_ON},
    {"ServiceAccountTokenNodeBinding", KP__GATE_LOCKED_ON},
    {"ServiceAccountTokenNodeBindingValidation", KP__GATE_LOCKED_ON},
    {"ServiceAccountTokenPodNodeInfo", KP__GATE_LOCKED_ON},
    {"ServiceTrafficDistribution", KP__GATE_LOCKED_ON},
    {"SidecarContainers", KP__GATE_LOCKED_ON},
    {"SizeBasedListCostEstimate", KP__GATE_FREE},
    {"StatefulSetSemanticRevisionComparison", KP__GATE_FREE},
    {"StorageCapacityScoring", KP__GATE_FREE},
    {"StorageNamespaceIndex", KP__GATE_FREE},
    {"StorageVersionAPI", KP__GATE_FREE},
    {"StorageVersionHash", KP__GATE_FREE},
    {"StorageVersionMigrator", KP__GATE_FREE},
    {"StreamingCollectionEncodingToJSON", KP__GATE_LOCKED_ON},
    {"StreamingCollectionEncodingToProtobuf", KP__GATE_LOCKED_ON},
    {"StrictIPCIDRValidation", KP__GATE_FREE},
    {"StructuredAuthenticationConfiguration", KP__GATE_LOCKED_ON},
    {"StructuredAuthenticationConfigurationEgressSelector", KP__GATE_FREE},
    {"StructuredAuthenticationConfigurationJWKSMetrics", KP__GATE_FREE},
    {"StructuredAuthorizationConfiguration", KP__GATE_LOCKED_ON},
    {"SupplementalGroupsPolicy", KP__GATE_LOCKED_ON},
    {"SystemdWatchdog", KP__GATE_LOCKED_ON},
    {"TaintTolerationComparisonOperators", KP__GATE_FREE},
    {"TokenRequestServiceAccountUIDValidation", KP__GATE_FREE},
    {"TopologyAwareHints", KP__GATE_LOCKED_ON},
    {"TopologyAwareWorkloadScheduling", KP__GATE_FREE},
    {"TopologyManagerPolicyAlphaOptions", KP__GATE_FREE},
    {"TopologyManagerPolicyBetaOptions", KP__GATE_FREE},
    {"TopologyManagerPolicyOptions", KP__GATE_FREE},
    {"TranslateStreamCloseWebsocketRequests", KP__GATE_FREE},
    {"UnauthenticatedHTTP2DOSMitigation", KP__GATE_FREE},
    {"UnknownVersionInteroperabilityProxy", KP__GATE_FREE},
    {"UserNamespacesHostNetworkSupport", KP__GATE_FREE},
    {"UserNamespacesSupport", KP__GATE_FREE},
    {"VolumeAttributesClass", KP__GATE_LOCKED_ON},
    {"VolumeLimitScaling", KP__GATE_FREE},
    {"WatchCacheInitializationPostStartHook", KP__GATE_FREE},
    {"WatchFromStorageWithoutResourceVersion", KP__GATE_LOCKED_OFF},
    {"WatchList", KP__GATE_FREE},
    {"WatchListClient", KP__GATE_FREE},
    {"WinDSR", KP__GATE_LOCKED_ON},
    {"WinOverlay", KP__GATE_LOCKED_ON},
    {"WindowsCPUAndMemoryAffinity", KP__GATE_FREE},
    {"WindowsGracefulNodeShutdown", KP__GATE_FREE},
    {"WindowsHostNetwork", KP__GATE_FREE},
    {"WorkloadAwarePreemption", KP__GATE_FREE},
    {"WorkloadWithJob", KP__GATE_FREE},
};

#define KNOWN_N (sizeof KNOWN / sizeof KNOWN[0])

/* The release a gate above first appeared in (since) or was removed in (removed; 0 = still in
 * 1.37), where known: each gate's first VersionedSpecs entry in the kube-scheduler feature list
 * (1.37 entries) and the 1.36 kube_features.go entries; the v1.37.0-alpha.1 notes for the gates
 * added (KubeProxyIPVS #139397, ConsistentListFromCacheSkipTimeoutFallback #138701,
 * EtcdRangeStream #136915) and removed in 1.37 (AnyVolumeDataSource #135336,
 * RelaxedDNSSearchValidation #139217, SidecarContainers #137755, the locked GA gates of #138907).
 * A gate not listed is taken to exist at every line (accepting is the safer error). */
static const struct {
    const char *name;
    uint8_t since, removed;
} LIFESPAN[] = {
    {"APIServerTracing", 0, 37},
    {"AnyVolumeDataSource", 0, 37},
    {"BtreeWatchCache", 0, 37},
    {"CRIListStreaming", 36, 0},
    {"CompositePodGroup", 37, 0},
    {"ConsistentListFromCache", 0, 37},
    {"ConsistentListFromCacheSkipTimeoutFallback", 37, 0},
    {"DRAConsumableCapacity", 34, 0},
    {"DRADerivedAttributes", 37, 0},
    {"DRADeviceBindingConditions", 34, 0},
    {"DRADeviceCompatibilityGroups", 37, 0},
    {"DRADeviceTaintRules", 35, 0},
    {"DRADeviceTaints", 33, 0},
    {"DRAExtendedResource", 34, 0},
    {"DRAFractionalCapacityRange", 37, 0},
    {"DRAListTypeAttributes", 36, 0},
    {"DRANodeAllocatableResources", 36, 0},
    {"DRAOptionalNodeOperations", 37, 0},
    {"DRAPartitionableDevices", 33, 0},
    {"DRAPrioritizedList", 33, 0},
    {"DRAResourceClaimDeviceStatus", 32, 0},
    {"DRASchedulerFilterTimeout", 34, 0},
    {"DRAWorkloadResourceClaims", 36, 0},
    {"EtcdRangeStream", 37, 0},
    {"GenericWorkload", 35, 0},
    {"InPlacePodVerticalScalingSchedulerPreemption", 37, 0},
    {"InterPodAffinityHostnameFastPath", 37, 0},
    {"KubeProxyIPVS", 37, 0},
    {"NativeHistograms", 36, 0},
    {"NodeDeclaredFeatures", 35, 0},
    {"NominatedNodeNameForExpectation", 34, 0},
    {"OpportunisticBatching", 35, 0},
    {"OrderedNamespaceDeletion", 0, 37},
    {"PodGroupPreemptionPolicy", 37, 0},
    {"RelaxedDNSSearchValidation", 0, 37},
    {"ResilientWatchCacheInitialization", 0, 37},
    {"RetryGenerateName", 0, 37},
    {"SchedulerAsyncAPICalls", 34, 0},
    {"SchedulerAsyncPreemption", 32, 0},
    {"SchedulerPopFromBackoffQ", 33, 0},
    {"SchedulerPreQueueingHints", 37, 0},
    {"SidecarContainers", 0, 37},
    {"StorageCapacityScoring", 33, 0},
    {"StreamingCollectionEncodingToJSON", 0, 37},
    {"StreamingCollectionEncodingToProtobuf", 0, 37},
    {"TaintTolerationComparisonOperators", 35, 0},
    {"TopologyAwareWorkloadScheduling", 36, 0},
    {"VolumeLimitScaling", 35, 0},
    {"WorkloadAwarePreemption", 36, 0},
    {"WorkloadWithJob", 36, 0},
};

/* Whether KNOWN[i] is a gate of release line 1.line. */
static bool exists_at(size_t i, uint16_t line) {
    for (size_t k = 0; k < sizeof LIFESPAN / sizeof LIFESPAN[0]; k++) {
        if (strcmp(LIFESPAN[k].name, KNOWN[i].name) != 0) continue;
        return line >= LIFESPAN[k].since && (!LIFESPAN[k].removed || line < LIFESPAN[k].removed);
    }
    return true;
}

/* strcmp order of name[0..len) against a NUL-terminated s */
static int cmp_name(const char *name, size_t len, const char *s) {
    size_t n = strlen(s);
    int c = memcmp(name, s, len < n ? len : n);
    if (c != 0) return c;
    return len < n ? -1 : len > n ? 1 : 0;
}

kp__gate_lock kp__gate_known(const char *name, size_t len, uint16_t line) {
    size_t lo = 0, hi = KNOWN_N;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_name(name, len, KNOWN[mid].name);
        if (c == 0) {
            if (!exists_at(mid, line)) return KP__GATE_UNKNOWN;
            /* the locks are 1.37's: an older line's are not known, any value is accepted */
            return line >= KP_COMPAT_NEWEST ? KNOWN[mid].lock : KP__GATE_FREE;
        }
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return KP__GATE_UNKNOWN;
}

size_t kp__gate_known_count(void) { return KNOWN_N; }

const char *kp__gate_known_name(size_t i) { return i < KNOWN_N ? KNOWN[i].name : ""; }
