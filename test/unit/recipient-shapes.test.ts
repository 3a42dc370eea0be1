// One schema per shape (docs/architecture.md, "Shapes"): every variant of a recipient is derived from the API's
// RecipientView, so its fields are RecipientView's own schemas, not copies that could drift from them (a limit
// or an enum value added to the view reaches every variant).
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BulkSendRowView, StoredBulkSendRequest } from '../../domain/bulk-send.ts';
import { DocumentListRecipient, DocumentRecipient } from '../../domain/document.ts';
import { NewRecipient, RecipientView } from '../../domain/envelope.ts';

const VIEW: Record<string, z.ZodType> = RecipientView.shape;

/** The fields of `shape` that RecipientView has too, and whether each is the view's own schema. */
function sharedFields(shape: Record<string, z.ZodType>): Record<string, boolean> {
  return Object.fromEntries(
    Object.entries(shape)
      .filter(([key]) => key in VIEW)
      .map(([key, schema]) => [key, schema === VIEW[key]]),
  );
}

function allTrue(keys: string[]): Record<string, boolean> {
  return Object.fromEntries(keys.map((key) => [key, true]));
}

describe('the shapes of a recipient', () => {
  const viewKeys = Object.keys(VIEW);

  it('a create writes the view’s fields but those the recipient’s progress sets', () => {
    const keys = viewKeys.filter((key) => !['id', 'status', 'completedAt'].includes(key));
    expect(Object.keys(NewRecipient.shape).sort()).toEqual([...keys].sort());
    expect(sharedFields(NewRecipient.shape)).toEqual(allTrue(keys));
  });

  it('the documents list and the envelope page take the view’s fields', () => {
    expect(sharedFields(DocumentListRecipient.shape)).toEqual(
      allTrue(['id', 'fullName', 'email', 'type', 'status']),
    );
    // The page shows the language too: the correction dialog starts from it.
    const pageKeys = viewKeys;
    expect(Object.keys(DocumentRecipient.shape).sort()).toEqual(
      [...pageKeys, 'round', 'signingLink', 'remind', 'correct'].sort(),
    );
    expect(sharedFields(DocumentRecipient.shape)).toEqual(allTrue(pageKeys));
  });

  it('a bulk send’s rows name recipients with the view’s fields', () => {
    const row = BulkSendRowView.shape.recipients.element.shape;
    expect(sharedFields(row)).toEqual(allTrue(['roleName', 'fullName']));
    const stored = StoredBulkSendRequest.shape.recipients.unwrap().element.shape;
    expect(sharedFields(stored)).toEqual({ roleName: true, fullName: true, email: false, phone: false });
    expect(stored.email.unwrap()).toBe(RecipientView.shape.email);
    expect(stored.phone.unwrap()).toBe(RecipientView.shape.phone);
  });

  it('a stored row’s request is read with its reference and recipients, whatever else it holds', () => {
    const request = StoredBulkSendRequest.parse({
      title: 'Lease',
      externalReference: 'row-7',
      recipients: [
        { roleName: 'Tenant', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'Email' },
        { roleName: 'Witness', fullName: 'Avi Cohen', phone: '+972501234567' },
      ],
      initialValues: [],
    });
    expect(request).toEqual({
      externalReference: 'row-7',
      recipients: [
        { roleName: 'Tenant', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Witness', fullName: 'Avi Cohen', phone: '+972501234567' },
      ],
    });
  });
});
