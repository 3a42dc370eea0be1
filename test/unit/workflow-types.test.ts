// The workflow contracts (workflows/*contracts.ts) name each workflow and declare its signature, so the API,
// the use cases and the worker's sweeps start a workflow by its type name without importing its module (which
// imports its activities' types: docs/architecture.md, "Import rules"). This checks that every name is an
// export the worker registers (workflows/index.ts) and, when `tsc` checks this file, that every signature is
// the workflow function's own.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { BULK_SEND_WORKFLOW_TYPE, type BulkSendWorkflow } from '../../workflows/bulk-send-contracts.ts';
import { ENVELOPE_WORKFLOW_TYPE, type EnvelopeWorkflow } from '../../workflows/contracts.ts';
import * as workflows from '../../workflows/index.ts';
import {
  OBJECT_SWEEP_WORKFLOW_TYPE,
  type ObjectSweepWorkflow,
} from '../../workflows/object-sweep-contracts.ts';
import { RETENTION_WORKFLOW_TYPE, type RetentionWorkflow } from '../../workflows/retention-contracts.ts';
import {
  WEBHOOK_DELIVERY_WORKFLOW_TYPE,
  type WebhookDeliveryWorkflow,
} from '../../workflows/webhook-contracts.ts';

describe('workflow contracts', () => {
  it('name exactly the workflows the worker registers', () => {
    const names = [
      ENVELOPE_WORKFLOW_TYPE,
      WEBHOOK_DELIVERY_WORKFLOW_TYPE,
      BULK_SEND_WORKFLOW_TYPE,
      RETENTION_WORKFLOW_TYPE,
      OBJECT_SWEEP_WORKFLOW_TYPE,
    ];
    expect(Object.keys(workflows).sort()).toEqual(names.sort());
    for (const [name, exported] of Object.entries(workflows)) expect(typeof exported, name).toBe('function');
  });

  it('declare the signatures of the workflow functions', () => {
    expectTypeOf(workflows.envelopeWorkflow).toEqualTypeOf<EnvelopeWorkflow>();
    expectTypeOf(workflows.webhookDeliveryWorkflow).toEqualTypeOf<WebhookDeliveryWorkflow>();
    expectTypeOf(workflows.bulkSendWorkflow).toEqualTypeOf<BulkSendWorkflow>();
    expectTypeOf(workflows.retentionWorkflow).toEqualTypeOf<RetentionWorkflow>();
    expectTypeOf(workflows.objectSweepWorkflow).toEqualTypeOf<ObjectSweepWorkflow>();
  });
});
