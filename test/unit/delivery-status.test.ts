// Reading RFC 3464 delivery status notifications (services/delivery-reports/read-delivery-status.ts) and the
// VERP addresses they come back to (notifications/bounce-address.ts).
import { describe, expect, it } from 'vitest';
import { bounceAddress, notificationIdOfBounceAddress } from '../../notifications/bounce-address.ts';
import {
  deliveryStatusDetail,
  readDeliveryStatus,
} from '../../services/delivery-reports/read-delivery-status.ts';
import { deliveryStatusNotification } from '../support/bounce-relay.ts';

const ID = '0b7c6f3e-5d2a-4c1b-9e8f-7a6b5c4d3e2f';

function report(action: string, status: string): Buffer {
  return Buffer.from(
    deliveryStatusNotification(
      `bounce+${ID}@bounces.example.com`,
      'sam@example.com',
      'Subject: Lease\r\n\r\n',
    )
      .replace('Action: failed', `Action: ${action}`)
      .replace('Status: 5.1.1', `Status: ${status}`),
  );
}

describe('delivery status notifications', () => {
  it('reads the failed recipient, its status and the unfolded diagnostic', async () => {
    const read = await readDeliveryStatus(report('failed', '5.1.1'));
    expect(read).toEqual({
      finalRecipient: 'sam@example.com',
      status: '5.1.1',
      diagnostic:
        '550 5.1.1 <sam@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
    });
    expect(deliveryStatusDetail(read as NonNullable<typeof read>)).toMatch(/^5\.1\.1 550 5\.1\.1 <sam@/);
  });

  it('takes no delay, relay or delivery report, and no message that is not a DSN, for a failure', async () => {
    expect(await readDeliveryStatus(report('delayed', '4.4.1'))).toBeNull();
    expect(await readDeliveryStatus(report('delivered', '2.0.0'))).toBeNull();
    expect(await readDeliveryStatus(report('failed', 'not-a-status'))).toBeNull();
    const autoReply = Buffer.from(
      'From: sam@example.com\r\nSubject: Away\r\n\r\nAction: failed\r\nStatus: 5.1.1\r\n',
    );
    expect(await readDeliveryStatus(autoReply)).toBeNull();
  });

  it('matches only VERP addresses of its own domain', () => {
    expect(bounceAddress(ID, 'bounces.example.com')).toBe(`bounce+${ID}@bounces.example.com`);
    expect(
      notificationIdOfBounceAddress(`BOUNCE+${ID.toUpperCase()}@Bounces.Example.com`, 'bounces.example.com'),
    ).toBe(ID);
    expect(notificationIdOfBounceAddress(`bounce+${ID}@other.example.com`, 'bounces.example.com')).toBeNull();
    expect(
      notificationIdOfBounceAddress('bounce+not-an-id@bounces.example.com', 'bounces.example.com'),
    ).toBeNull();
    expect(notificationIdOfBounceAddress(`postmaster@bounces.example.com`, 'bounces.example.com')).toBeNull();
  });
});
