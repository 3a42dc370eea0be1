// The envelope model's deadline warning, expiry notice and settings changes (docs/envelope-lifecycle.md,
// "Reminders and deadline warnings"): when the warning is due and to whom, that runs started before the
// warnings existed (no `sendsDeadlineNotices`) plan none and send no expiry notice, and what the settings Update
// accepts and changes.
import { describe, expect, it } from 'vitest';
import type { EnvelopeWorkflowInput } from '../../workflows/contracts.ts';
import { EnvelopeModel } from '../../workflows/envelope-model.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const DEADLINE = new Date(NOW + 10 * DAY).toISOString();

function envelope(
  options: Partial<EnvelopeWorkflowInput> = {},
  { notices = true, clock = { now: NOW } }: { notices?: boolean; clock?: { now: number } } = {},
): EnvelopeModel {
  const model = new EnvelopeModel(
    {
      envelopeId: 'e',
      organizationId: 'o',
      externalReference: null,
      workflowType: 'Sequential',
      expiresAt: DEADLINE,
      recipients: [
        { id: 'a', signingOrder: 1, type: 'Signer', required: true },
        { id: 'b', signingOrder: 2, type: 'Signer', required: true },
      ],
      ...options,
    },
    { now: () => clock.now, rendersFinalPdf: () => true, sendsDeadlineNotices: () => notices },
  );
  model.send();
  return model;
}

describe('the deadline warning', () => {
  it('is due expiringSoonDays before the deadline, before a later reminder, and goes to who may act', () => {
    const clock = { now: NOW };
    const model = envelope({ expiringSoonDays: 3, automaticReminders: { everyDays: 8, max: 1 } }, { clock });
    expect(model.nextWake()).toEqual({
      at: new Date(NOW + 7 * DAY).toISOString(),
      remind: false,
      warn: true,
    });
    clock.now = NOW + 7 * DAY;
    const decision = model.warnOfDeadline();
    expect(decision.messages).toEqual([{ kind: 'expiring_soon', recipientId: 'a', daysLeft: 3 }]);
    expect(decision.transitions.map((t) => [t.event.type, t.event.data])).toEqual([
      ['envelope.expiring_soon', { recipient_ids: ['a'], expires_at: DEADLINE, days_left: 3 }],
    ]);
    // Once per deadline: next is the reminder.
    expect(model.nextWake()).toEqual({ at: new Date(NOW + 8 * DAY).toISOString(), remind: true });
  });

  it('is not planned on runs started before the warnings, which also send no expiry notice', () => {
    const model = envelope({ expiringSoonDays: 3 }, { notices: false });
    expect(model.nextWake()).toEqual({ at: DEADLINE, remind: false });
    expect(model.deadlinePassed().messages).toEqual([]);
    expect(envelope({}, { notices: true }).deadlinePassed().messages).toEqual([
      { kind: 'expired', recipientId: 'a' },
    ]);
  });
});

describe('changing the settings', () => {
  it('a new reminder schedule counts from the change; bad values and closed envelopes are refused', () => {
    const clock = { now: NOW };
    const model = envelope({ automaticReminders: { everyDays: 3, max: 2 } }, { clock });
    clock.now = NOW + DAY;
    expect(model.whyCannotUpdateSettings({ automaticReminders: { everyDays: 0, max: 2 } })).toBe(
      'reminderIntervalDays must be a whole number from 1 to 365.',
    );
    expect(model.whyCannotUpdateSettings({ expiringSoonDays: 1.5 })).toMatch(/expiringSoonDays/);
    expect(model.whyCannotUpdateSettings({ automaticReminders: { everyDays: 5, max: 2 } })).toBeUndefined();
    model.updateSettings({ automaticReminders: { everyDays: 5, max: 2 } });
    expect(model.nextWake()).toEqual({ at: new Date(NOW + 6 * DAY).toISOString(), remind: true });
    model.updateSettings({ automaticReminders: null });
    expect(model.nextWake()).toEqual({ at: DEADLINE, remind: false });
    model.cancel({});
    expect(model.whyCannotUpdateSettings({ expiredExtensionGraceDays: 3 })).toBe(
      'The envelope is Cancelled. Its settings cannot change.',
    );
  });

  it('a lead time is refused on runs started before the warnings', () => {
    expect(envelope({}, { notices: false }).whyCannotUpdateSettings({ expiringSoonDays: 2 })).toMatch(
      /before deadline warnings existed/,
    );
  });
});
