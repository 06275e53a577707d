// client-node pointed at a kubelive-sim (or kubectl proxy in front of one): no
// credentials, as a kubeconfig's `user: {}` gives.
import * as k8s from '@kubernetes/client-node';

/** `{ kc, api }`: a KubeConfig for `server` and its CoreV1Api client. */
export function simClient(server) {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'sim', server, skipTLSVerify: true }],
    users: [{ name: 'sim' }],
    contexts: [{ name: 'sim', cluster: 'sim', user: 'sim' }],
    currentContext: 'sim',
  });
  return { kc, api: kc.makeApiClient(k8s.CoreV1Api) };
}
