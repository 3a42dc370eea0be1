// The baseline of `npm run bench:webhooks`: the least a workflow with one activity can cost on this Temporal
// server and worker (start, two workflow tasks, one activity task, completion), with no database and no HTTP.
// A webhook delivery is such a workflow plus its work; the ratio of the two is what our own code costs.
// floorLocalWorkflow runs the activity as a local activity (one workflow task, no activity task): the least a
// workflow per delivery could cost at all.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

export interface FloorActivities {
  floorNoop(id: string): Promise<string>;
}

const { floorNoop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

export async function floorWorkflow(id: string): Promise<string> {
  return await floorNoop(id);
}

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

export async function floorLocalWorkflow(id: string): Promise<string> {
  return await local.floorNoop(id);
}
