// Round planning: which recipients act together, and in what order. Pure, shared by the workflow
// and the services that validate envelopes before sending.

import type { WorkflowType } from '../domain/vocabulary.ts';
import type { RecipientPlan } from './contracts.ts';

/** Recipients that take part in signing rounds; `Cc` recipients only receive the result. */
export function actsInRounds(recipient: Pick<RecipientPlan, 'type'>): boolean {
  return recipient.type !== 'Cc';
}

/**
 * Splits recipients into rounds. Parallel: one round with everyone. Sequential and GroupedRounds:
 * one round per distinct `signingOrder`, in ascending order (a Sequential envelope has distinct
 * orders, so each round holds one recipient).
 */
export function planRounds(workflowType: WorkflowType, recipients: readonly RecipientPlan[]): string[][] {
  const acting = recipients.filter(actsInRounds);
  if (acting.length === 0) return [];
  if (workflowType === 'Parallel') return [acting.map((r) => r.id)];
  const byOrder = new Map<number, string[]>();
  for (const recipient of [...acting].sort((a, b) => a.signingOrder - b.signingOrder)) {
    const round = byOrder.get(recipient.signingOrder) ?? [];
    round.push(recipient.id);
    byOrder.set(recipient.signingOrder, round);
  }
  return [...byOrder.values()];
}

/**
 * The index of the round now in turn: the first one with a required recipient who has not completed.
 * Only required recipients gate progress; optional recipients may act while their round or a later one
 * is in turn. Returns `rounds.length` when every required recipient has completed.
 */
export function currentRoundIndex(
  rounds: readonly string[][],
  required: ReadonlySet<string>,
  completed: ReadonlySet<string>,
): number {
  const index = rounds.findIndex((round) => round.some((id) => required.has(id) && !completed.has(id)));
  return index === -1 ? rounds.length : index;
}
