// What upstream's NodeFeatures setter puts in the node's status.features from the
// runtime's CRI Status features (runtimeState.runtimeFeatures), which its admission
// reads back from the node: today only supplementalGroupsPolicy (KEP 3619). Read
// once at start-up, after the runtime answered.
import type { Logger } from 'pino';
import type { NodeFeaturesForAdmission } from '../../shared/admission/admit-pod.js';
import type { CriClient } from '../../shared/cri/client.js';

export async function runtimeNodeFeatures(cri: Pick<CriClient, 'status'>, logger: Pick<Logger, 'warn'>): Promise<NodeFeaturesForAdmission> {
  try {
    const response = await cri.status({ verbose: false });
    return { supplementalGroupsPolicy: response.features?.supplemental_groups_policy === true };
  } catch (err) {
    // As a node whose status has no features yet: the policy counts as unsupported.
    logger.warn({ err }, 'Cannot read the runtime\'s features; supplementalGroupsPolicy Strict pods will be refused');
    return { supplementalGroupsPolicy: false };
  }
}
