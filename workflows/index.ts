// Workflow definitions registered on the worker. Deterministic code only: no I/O, no Node APIs.
export { bulkSendWorkflow } from './bulk-send.ts';
export { envelopeWorkflow } from './envelope.ts';
export { objectSweepWorkflow } from './object-sweep.ts';
export { retentionWorkflow } from './retention.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
