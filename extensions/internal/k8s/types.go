// Package k8s writes the Kubernetes manifests of a distributed mqbench run on the
// k6-operator (a ConfigMap with the entry script and the scenario, a TestRun, a results
// PersistentVolumeClaim and a merge Job), and checks manifests offline, strictly.
//
// The types below mirror only the subset of the Kubernetes and k6-operator (v1alpha1) API
// that the generator writes, with the API's own field names: core/v1 ConfigMap,
// PersistentVolumeClaim, Container, EnvVar, Volume…; batch/v1 Job; and k6.io/v1alpha1
// TestRun as declared in the operator's api/v1alpha1/testrun_types.go (v1.6.0). Decoding
// rejects any other field, so a typo such as `paralelism` (which the API server would
// silently drop, or reject only at apply time) fails here, offline. A hand-edited manifest
// that uses a valid field the generator never writes (tolerations, …) is rejected too: this
// checks the generator's output, it is not a general Kubernetes validator.
package k8s

// Meta is metav1.ObjectMeta, the fields the generator writes.
type Meta struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace,omitempty"`
	Labels    map[string]string `yaml:"labels,omitempty"`
}

// header is what every document starts with; it picks the type to decode the rest into.
type header struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
}

// ConfigMap is core/v1 ConfigMap. binaryData holds base64 (a payload file that is not UTF-8).
type ConfigMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   Meta              `yaml:"metadata"`
	Data       map[string]string `yaml:"data,omitempty"`
	BinaryData map[string]string `yaml:"binaryData,omitempty"`
}

// PVC is core/v1 PersistentVolumeClaim.
type PVC struct {
	APIVersion string  `yaml:"apiVersion"`
	Kind       string  `yaml:"kind"`
	Metadata   Meta    `yaml:"metadata"`
	Spec       PVCSpec `yaml:"spec"`
}

// PVCSpec is core/v1 PersistentVolumeClaimSpec. StorageClassName is a pointer: absent
// means the cluster's default class, "" would mean no class at all.
type PVCSpec struct {
	AccessModes      []string            `yaml:"accessModes"`
	StorageClassName *string             `yaml:"storageClassName,omitempty"`
	Resources        VolumeResourceLimit `yaml:"resources"`
}

// VolumeResourceLimit is core/v1 VolumeResourceRequirements.
type VolumeResourceLimit struct {
	Requests map[string]string `yaml:"requests"`
}

// Job is batch/v1 Job.
type Job struct {
	APIVersion string  `yaml:"apiVersion"`
	Kind       string  `yaml:"kind"`
	Metadata   Meta    `yaml:"metadata"`
	Spec       JobSpec `yaml:"spec"`
}

// JobSpec is batch/v1 JobSpec. Suspend (GA since Kubernetes 1.24) lets the merge Job be
// applied with everything else and started once the TestRun has finished.
type JobSpec struct {
	BackoffLimit *int32      `yaml:"backoffLimit,omitempty"`
	Suspend      *bool       `yaml:"suspend,omitempty"`
	Template     PodTemplate `yaml:"template"`
}

// PodTemplate is core/v1 PodTemplateSpec.
type PodTemplate struct {
	Metadata PodMeta `yaml:"metadata,omitempty"`
	Spec     PodSpec `yaml:"spec"`
}

// PodMeta is the metadata of a pod template (the operator's PodMetadata has the same two).
type PodMeta struct {
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// PodSpec is core/v1 PodSpec.
type PodSpec struct {
	RestartPolicy   string           `yaml:"restartPolicy"`
	SecurityContext *SecurityContext `yaml:"securityContext,omitempty"`
	Containers      []Container      `yaml:"containers"`
	Volumes         []Volume         `yaml:"volumes,omitempty"`
}

// SecurityContext is core/v1 PodSecurityContext.
type SecurityContext struct {
	RunAsUser           *int64 `yaml:"runAsUser,omitempty"`
	RunAsGroup          *int64 `yaml:"runAsGroup,omitempty"`
	RunAsNonRoot        *bool  `yaml:"runAsNonRoot,omitempty"`
	FSGroup             *int64 `yaml:"fsGroup,omitempty"`
	FSGroupChangePolicy string `yaml:"fsGroupChangePolicy,omitempty"`
}

// Container is core/v1 Container.
type Container struct {
	Name         string        `yaml:"name"`
	Image        string        `yaml:"image"`
	Command      []string      `yaml:"command,omitempty"`
	Args         []string      `yaml:"args,omitempty"`
	Env          []EnvVar      `yaml:"env,omitempty"`
	EnvFrom      []EnvFrom     `yaml:"envFrom,omitempty"`
	Resources    Resources     `yaml:"resources,omitempty"`
	VolumeMounts []VolumeMount `yaml:"volumeMounts,omitempty"`
}

// EnvVar is core/v1 EnvVar (plain values only).
type EnvVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// EnvFrom is core/v1 EnvFromSource: every key of a Secret becomes a variable.
type EnvFrom struct {
	SecretRef *LocalRef `yaml:"secretRef,omitempty"`
}

// LocalRef is core/v1 LocalObjectReference.
type LocalRef struct {
	Name string `yaml:"name"`
}

// Resources is core/v1 ResourceRequirements.
type Resources struct {
	Requests map[string]string `yaml:"requests,omitempty"`
	Limits   map[string]string `yaml:"limits,omitempty"`
}

// Volume is core/v1 Volume: a claim, or a ConfigMap.
type Volume struct {
	Name                  string    `yaml:"name"`
	PersistentVolumeClaim *ClaimRef `yaml:"persistentVolumeClaim,omitempty"`
	ConfigMap             *LocalRef `yaml:"configMap,omitempty"`
}

// ClaimRef is core/v1 PersistentVolumeClaimVolumeSource.
type ClaimRef struct {
	ClaimName string `yaml:"claimName"`
}

// VolumeMount is core/v1 VolumeMount.
type VolumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

// TestRun is the k6-operator's k6.io/v1alpha1 TestRun.
type TestRun struct {
	APIVersion string      `yaml:"apiVersion"`
	Kind       string      `yaml:"kind"`
	Metadata   Meta        `yaml:"metadata"`
	Spec       TestRunSpec `yaml:"spec"`
}

// TestRunSpec is v1alpha1.TestRunSpec. Args (exact argv, v1.6.0) wins over Arguments (a
// string split on whitespace); the generator writes Args only, the check reads both.
type TestRunSpec struct {
	Parallelism int32    `yaml:"parallelism"`
	Separate    bool     `yaml:"separate,omitempty"`
	Script      K6Script `yaml:"script"`
	Arguments   string   `yaml:"arguments,omitempty"`
	Args        []string `yaml:"args,omitempty"`
	Runner      OpPod    `yaml:"runner"`
	Initializer *OpPod   `yaml:"initializer,omitempty"`
	// Starter is the pod that resumes the runners with curl in `sh -c`; only its image is
	// ever set (the operator's default image is pulled from a public registry).
	Starter *StarterPod `yaml:"starter,omitempty"`
}

// StarterPod is the part of v1alpha1.Pod the generator sets for the starter.
type StarterPod struct {
	Image string `yaml:"image"`
}

// K6Script is v1alpha1.K6Script: only configMap is generated (mounted read-only at /test).
type K6Script struct {
	ConfigMap *ConfigMapRef `yaml:"configMap,omitempty"`
}

// ConfigMapRef is v1alpha1.K6Configmap.
type ConfigMapRef struct {
	Name string `yaml:"name"`
	File string `yaml:"file"`
}

// OpPod is v1alpha1.Pod, the operator's description of a runner or initializer pod.
type OpPod struct {
	Image           string           `yaml:"image"`
	Metadata        *PodMeta         `yaml:"metadata,omitempty"`
	Env             []EnvVar         `yaml:"env,omitempty"`
	EnvFrom         []EnvFrom        `yaml:"envFrom,omitempty"`
	Resources       Resources        `yaml:"resources,omitempty"`
	SecurityContext *SecurityContext `yaml:"securityContext,omitempty"`
	Volumes         []Volume         `yaml:"volumes,omitempty"`
	VolumeMounts    []VolumeMount    `yaml:"volumeMounts,omitempty"`
}
