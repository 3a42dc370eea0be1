// Round planning decides who is invited when; these tests pin the order recipients see.
import { describe, expect, it } from 'vitest';
import type { RecipientPlan } from '../../workflows/contracts.ts';
import { currentRoundIndex, planRounds } from '../../workflows/rounds.ts';

function recipient(id: string, signingOrder: number, type: RecipientPlan['type'] = 'Signer'): RecipientPlan {
  return { id, signingOrder, type, required: true };
}

describe('planRounds', () => {
  it('Sequential: one round per recipient, ordered by signingOrder rather than by input position', () => {
    const rounds = planRounds('Sequential', [recipient('c', 3), recipient('a', 1), recipient('b', 2)]);
    expect(rounds).toEqual([['a'], ['b'], ['c']]);
  });

  it('Sequential: gaps between orders do not create empty rounds', () => {
    const rounds = planRounds('Sequential', [
      recipient('late', 10),
      recipient('early', 1),
      recipient('mid', 5),
    ]);
    expect(rounds).toEqual([['early'], ['mid'], ['late']]);
  });

  it('Parallel: everyone in a single round whatever their signingOrder', () => {
    const rounds = planRounds('Parallel', [recipient('a', 3), recipient('b', 1), recipient('c', 2)]);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]).toEqual(['a', 'b', 'c']);
  });

  it('GroupedRounds: recipients sharing an order act together, rounds in ascending order', () => {
    const rounds = planRounds('GroupedRounds', [
      recipient('a', 2),
      recipient('b', 1),
      recipient('c', 2),
      recipient('d', 1),
      recipient('e', 3),
    ]);
    expect(rounds).toEqual([['b', 'd'], ['a', 'c'], ['e']]);
  });

  it.each(['Sequential', 'Parallel', 'GroupedRounds'] as const)(
    '%s: Cc recipients take part in no round',
    (workflowType) => {
      const rounds = planRounds(workflowType, [
        recipient('signer', 1),
        recipient('copy', 2, 'Cc'),
        recipient('approver', 3, 'Approver'),
      ]);
      expect(rounds.flat()).toEqual(['signer', 'approver']);
      expect(rounds.flat()).not.toContain('copy');
    },
  );

  it('an envelope of Cc recipients only has no rounds at all', () => {
    expect(planRounds('Sequential', [recipient('x', 1, 'Cc'), recipient('y', 2, 'Cc')])).toEqual([]);
    expect(planRounds('Parallel', [recipient('x', 1, 'Cc')])).toEqual([]);
  });

  it('every non-Cc recipient type acts in rounds', () => {
    const rounds = planRounds('Sequential', [
      recipient('signer', 1, 'Signer'),
      recipient('filler', 2, 'FormFiller'),
      recipient('approver', 3, 'Approver'),
      recipient('viewer', 4, 'Viewer'),
    ]);
    expect(rounds).toEqual([['signer'], ['filler'], ['approver'], ['viewer']]);
  });
});

describe('currentRoundIndex', () => {
  // Round 0: a (required). Round 1: b (required) and c (optional). Round 2: d (required).
  const rounds = [['a'], ['b', 'c'], ['d']];
  const required = new Set(['a', 'b', 'd']);

  it('starts at the first round', () => {
    expect(currentRoundIndex(rounds, required, new Set())).toBe(0);
  });

  it('moves on once every required recipient of the round has completed', () => {
    expect(currentRoundIndex(rounds, required, new Set(['a']))).toBe(1);
  });

  it('does not wait for an optional recipient who has not acted', () => {
    expect(currentRoundIndex(rounds, required, new Set(['a', 'b']))).toBe(2);
  });

  it('an optional recipient completing does not move a round on by itself', () => {
    expect(currentRoundIndex(rounds, required, new Set(['a', 'c']))).toBe(1);
  });

  it('skips a round made only of optional recipients', () => {
    const withOptionalRound = [['a'], ['optional'], ['b']];
    expect(currentRoundIndex(withOptionalRound, new Set(['a', 'b']), new Set(['a']))).toBe(2);
  });

  it('returns rounds.length when every required recipient has completed', () => {
    expect(currentRoundIndex(rounds, required, new Set(['a', 'b', 'd']))).toBe(3);
  });

  it('a later required recipient completing early does not skip an unfinished earlier round', () => {
    expect(currentRoundIndex(rounds, required, new Set(['d']))).toBe(0);
  });

  it('with no required recipients at all, nothing gates: the envelope is done', () => {
    expect(currentRoundIndex(rounds, new Set(), new Set())).toBe(rounds.length);
  });
});
