// A workflow interceptor for tests only: it lets every envelope Update through without its validator, as an
// envelope started on older code would have accepted a decline or cancel reason holding a NUL. The parking
// test (test/integration/projection-parking.test.ts) bundles the real workflow with it on a task queue of its
// own, so the projection meets text PostgreSQL cannot store and the workflow parks.
import type { WorkflowInboundCallsInterceptor, WorkflowInterceptorsFactory } from '@temporalio/workflow';

class SkipValidators implements WorkflowInboundCallsInterceptor {
  validateUpdate(): void {
    // Accept everything: the validator is not called.
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new SkipValidators()] });
