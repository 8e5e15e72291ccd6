// The name Kubernetes gives a Deployment's pod: `<deployment>-<pod-template-hash>-<suffix>`. Both generated parts
// are drawn from apimachinery's alphabet without vowels, `bcdfghjklmnpqrstvwxz2456789` (k8s.io/apimachinery
// pkg/util/rand/rand.go: SafeEncodeString for the ReplicaSet's hash, String(5) for generateName's suffix,
// k8s.io/apiserver pkg/storage/names/generate.go), so two plain words are not taken for them.

const GENERATED = "[bcdfghjklmnpqrstvwxz2456789]";

/** A Deployment's pod name, as a regular expression's source (no anchors). */
export const DEPLOYMENT_POD_NAME = String.raw`[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?-${GENERATED}{6,10}-${GENERATED}{5}`;

/**
 * Any pod name a controller gives: a Deployment's; a DaemonSet's, a Job's or another `generateName` pod's,
 * `<name>-<5>` (the same alphabet); a StatefulSet's `<name>-<ordinal>`; a LeaderWorkerSet's leader
 * `<lws>-<group>` and worker `<lws>-<group>-<index>` (kubernetes-sigs/lws: the leaders are a StatefulSet named for
 * the set, each group's workers one named for its leader). As a regular expression's source, no anchors.
 */
export const CONTROLLER_POD_NAME = String.raw`(?:${DEPLOYMENT_POD_NAME}|[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?-(?:${GENERATED}{5}|\d{1,5}(?:-\d{1,5})?))`;

const WHOLE = new RegExp(`^${DEPLOYMENT_POD_NAME}$`);

/** True when `name` is a Deployment's pod name (`dynamo-frontend-7d9c8b6f5-x2kqp`). */
export function isDeploymentPodName(name: string): boolean {
  return WHOLE.test(name);
}
