// Bulk send (/app/send/bulk, docs/bulk-send.md) in a real browser against a real Sigil app, Temporal workflow
// and worker: a sender opens "Send to many" on a published template, downloads the CSV columns it
// needs, sends both roles by manual link, checks a file with a bad email (the problem shown with its row and
// column, nothing started), then a 20-row file (20 rows said on screen), sends it and lands on the run's page,
// which follows the run to Completed without reloading: the progress bar reaches 20 of 20, every row links its
// envelope, and the 20 envelopes exist with the file's references, sent by the sender. The run is listed on the
// bulk page. A running run is stopped after a confirmation (its rows not sent yet are skipped, none has an
// envelope). Both pages in Hebrew (right to left) on a 375-pixel phone without horizontal scrolling; axe-core's
// WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { insertBulkSend } from '../../db/bulk-sends.ts';
import { Envelope } from '../../db/entities/index.ts';
import { startBulkSendWorkflow } from '../../temporal/bulk-sends.ts';
import { bulkSendWorkflowId } from '../../workflows/bulk-send-contracts.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signIn,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const HEADER = 'externalReference,Client.name,Client.email,Provider.name,Provider.email,Date';
const UUID_PATH = /^\/app\/send\/bulk\/[0-9a-f-]{36}$/;

/** A file of `count` rows, references `<prefix>-1`…; `broken` rows get an email that is not one. */
function csvOf(prefix: string, count: number, broken: number[] = []): string {
  const rows = Array.from({ length: count }, (_, index) => {
    const n = index + 1;
    const email = broken.includes(n) ? 'not-an-email' : `client${n}@example.com`;
    return `${prefix}-${n},Client ${n},${email},Provider ${n},provider${n}@example.com,2026-12-${String((n % 28) + 1).padStart(2, '0')}`;
  });
  return [HEADER, ...rows].join('\r\n');
}

/** An application route as a signed-in user (its cookie and the app's Origin); 200 expected. */

async function senderWithTemplate(
  language: 'en' | 'he' = 'en',
): Promise<{ sender: SignedInUser; templateId: string }> {
  const sender = await signedInUser(harness, { role: 'sender', fullName: 'Avi Sender' });
  await callAs(baseUrl, sender, 'PUT', '/api/auth/me/preferences', { language });
  const templateId = await documentTemplate(harness.ctx, sender.organization.id);
  return { sender, templateId };
}

async function runsOf(organizationId: string): Promise<number> {
  const [row] = await harness.ctx.orm.em
    .fork()
    .execute<{ count: number }[]>('select count(*)::int as count from bulk_send where organization_id = ?', [
      organizationId,
    ]);
  return row?.count ?? 0;
}

async function chooseFile(page: Page, name: string, csv: string): Promise<void> {
  await page.locator('#bulk-file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
}

describe('the business app: bulk send', () => {
  it('checks a CSV file, refuses a bad row on screen, sends 20 rows and follows the run to Completed without reloading', async () => {
    const { sender, templateId } = await senderWithTemplate();
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);

    // The entry points: "Send to many from a CSV file" on the send page, "Send to many" on a published template.
    await page.goto(`${baseUrl}/app/send`);
    await eventually(() => page.getByRole('link', { name: 'Send to many from a CSV file' }).count()).toBe(1);
    await page.goto(`${baseUrl}/app/templates`);
    const bulk = page.getByRole('link', { name: 'Send to many: Demo services agreement' });
    await eventually(() => bulk.count()).toBe(1);
    await bulk.click();
    await waitForPath(page, '/app/send/bulk');
    await waitForLoaded(page);
    await eventually(() => page.locator('#bulk-template').inputValue()).toBe(templateId);
    expect(await page.locator('#bulk-title').inputValue()).toBe('Demo services agreement');
    expect(await page.getByText('No bulk send yet.').count()).toBe(1);

    // The CSV columns the template needs, as a download.
    const header = page.getByRole('link', { name: 'Download the CSV columns' });
    const [download] = await Promise.all([page.waitForEvent('download'), header.click()]);
    const downloaded = (await readFile(await download.path(), 'utf8')).replace(/^\ufeff/, '');
    expect(downloaded.split(/\r?\n/)[0]).toMatch(
      /^externalReference,Client\.name,Client\.email,Client\.phone,Provider\.name,Provider\.email,Provider\.phone,/,
    );

    // Both roles by manual link (nothing is emailed); the organization's default identity check.
    for (const role of ['Client', 'Provider']) {
      const card = page.getByTestId(`role-${role}`);
      expect(await card.getByLabel('Delivery').inputValue()).toBe('Email');
      expect(await card.getByLabel('Identity check').inputValue()).toBe('SecureLink');
      await card.getByLabel('Delivery').selectOption('ManualLink');
    }
    await page.locator('#bulk-title').fill('Annual renewal');
    // No file yet: said at the file's field, which gets the focus.
    await page.getByRole('button', { name: 'Check file' }).click();
    await eventually(() => page.locator('#bulk-file-error').textContent()).toBe('Choose a CSV file.');
    expect(await page.evaluate('document.activeElement?.id')).toBe('bulk-file');

    // A file with a bad email in its third row: the problem with its row and column, and nothing started.
    const prefix = `renewal-${randomUUID().slice(0, 8)}`;
    await chooseFile(page, 'broken.csv', csvOf(prefix, 20, [2]));
    await page.getByRole('button', { name: 'Check file' }).click();
    const problems = page.getByTestId('bulk-problems');
    await eventually(() => problems.count()).toBe(1);
    const problemRows = problems.locator('tbody tr');
    expect(await problemRows.count()).toBe(1);
    const cells = await problemRows.first().locator('td').allTextContents();
    expect(cells[0]?.trim()).toBe('3');
    expect(cells[1]?.trim()).toBe('Client.email');
    expect(cells[2]).toMatch(/email/i);
    expect(await problems.textContent()).toContain('Nothing was sent');
    expect(await page.getByRole('button', { name: /^Send \d+ envelopes?$/ }).count()).toBe(0);
    expect(await runsOf(sender.organization.id)).toBe(0);
    await expectAccessible(page, 'bulk send, a file with a problem');
    await browser.screenshot(page, 'app-bulk-send-problems-en-desktop');

    // The corrected file: 20 rows, the columns as read, what the plan has left.
    await chooseFile(page, 'renewals.csv', csvOf(prefix, 20));
    expect(await problems.count()).toBe(0);
    await page.getByRole('button', { name: 'Check file' }).click();
    const checked = page.getByTestId('bulk-checked');
    await eventually(() => page.getByTestId('bulk-rows').textContent()).toBe('20');
    expect(await checked.getByRole('heading', { level: 3 }).textContent()).toBe(
      'The file is ready: 20 envelopes',
    );
    expect(await page.getByTestId('bulk-columns').locator('li').count()).toBe(6);
    expect(await page.getByTestId('bulk-columns').textContent()).toMatch(
      // The role's name is kept in its own direction (an isolate), so a Hebrew page keeps the colon after it.
      /Client\.email\s+— \u2068Client\u2069: email/,
    );
    expect(await runsOf(sender.organization.id)).toBe(0);
    await expectAccessible(page, 'bulk send, file checked');
    await browser.screenshot(page, 'app-bulk-send-checked-en-desktop');

    // A setting changed after the check needs another check before sending.
    await page.getByTestId('role-Provider').getByLabel('Identity check').selectOption('SecureLink');
    await page.locator('#bulk-workflow').selectOption('Parallel');
    await eventually(() => page.getByText('check the file again before sending').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Send 20 envelopes' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Check file' }).click();
    const send = page.getByRole('button', { name: 'Send 20 envelopes' });
    await eventually(() => send.count()).toBe(1);

    // Sent: the run's page follows it without reloading until it has ended.
    await page.evaluate('window.sigilNoReload = true');
    await send.click();
    await waitForPath(page, UUID_PATH);
    const runId = new URL(page.url()).pathname.split('/').pop() as string;
    const bar = page.getByRole('progressbar');
    await eventually(() => bar.count()).toBe(1);
    expect(await bar.getAttribute('aria-valuemax')).toBe('20');
    const seen: number[] = [];
    await eventually(async () => {
      seen.push(Number(await bar.getAttribute('aria-valuenow')));
      return page.getByTestId('run-status').textContent();
    }, 60_000).toMatch(/^\s*Completed\s*$/);
    seen.push(Number(await bar.getAttribute('aria-valuenow')));
    // Whatever the page showed on the way, it never went back, and it ended at 20 of 20.
    expect(seen.every((value, index) => index === 0 || value >= (seen[index - 1] as number))).toBe(true);
    expect(seen.at(-1)).toBe(20);
    expect(await page.getByTestId('run-summary').textContent()).toBe('20 of 20 sent');
    expect(await bar.getAttribute('aria-valuetext')).toBe('20 of 20 sent');
    expect(await page.getByTestId('count-sent').textContent()).toBe('20');
    expect(await page.getByTestId('count-failed').textContent()).toBe('0');
    expect(await page.getByTestId('count-pending').textContent()).toBe('0');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Annual renewal');
    expect(await page.evaluate('window.sigilNoReload')).toBe(true);
    // No stop once it has ended; the screen reader heard the end.
    expect(await page.getByRole('button', { name: 'Stop sending' }).count()).toBe(0);
    await eventually(() => page.getByTestId('run-announcement').textContent()).toContain(
      'Completed: 20 of 20 sent',
    );

    // Every row is listed, in file order, Sent, each with its envelope.
    const rows = page.getByTestId('run-rows').locator('tbody tr');
    await eventually(() => rows.count()).toBe(20);
    const listed = await rows.evaluateAll((elements) =>
      elements.map((row) => ({
        row: row.getAttribute('data-row'),
        text: row.textContent ?? '',
        envelope: row.querySelector('a[href^="/app/documents/"]')?.getAttribute('href') ?? null,
      })),
    );
    expect(listed.map((item) => item.row)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 2)));
    for (const [index, item] of listed.entries()) {
      expect(item.text).toContain(`${prefix}-${index + 1}`);
      expect(item.text).toContain('Sent');
      expect(item.envelope).toMatch(/^\/app\/documents\/[0-9a-f-]{36}$/);
    }
    expect(new Set(listed.map((item) => item.envelope)).size).toBe(20);
    await expectAccessible(page, 'bulk send run, completed');
    await browser.screenshot(page, 'app-bulk-send-run-en-desktop');
    await page.setViewportSize(PHONE);
    await eventually(() => pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'bulk send run on a phone');
    await browser.screenshot(page, 'app-bulk-send-run-en-phone');
    await page.setViewportSize(DESKTOP);

    // The envelopes themselves: one per row, with the file's references, sent by the sender by manual link.
    const envelopes = await harness.ctx.orm.em
      .fork()
      .find(Envelope, { organizationId: sender.organization.id }, { orderBy: { externalReference: 'asc' } });
    expect(envelopes.map((envelope) => envelope.externalReference).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `${prefix}-${i + 1}`).sort(),
    );
    for (const envelope of envelopes) {
      expect(envelope.createdByUserId).toBe(sender.user.id);
      expect(envelope.title).toBe('Annual renewal');
      expect(envelope.workflowType).toBe('Parallel');
    }
    expect(listed.map((item) => item.envelope?.split('/').pop()).sort()).toEqual(
      envelopes.map((envelope) => envelope.id).sort(),
    );

    // A row's link opens its envelope; the bulk page lists the run.
    await rows.first().getByRole('link', { name: 'Open envelope: row 2' }).click();
    await waitForPath(page, /^\/app\/documents\/[0-9a-f-]{36}$/);
    await page.goto(`${baseUrl}/app/send/bulk`);
    await waitForLoaded(page);
    const run = page.getByTestId('bulk-runs').locator(`tr[data-run="${runId}"]`);
    await eventually(() => run.count()).toBe(1);
    expect(await run.textContent()).toContain('Annual renewal');
    expect(await run.textContent()).toContain('Completed');
    expect(await run.textContent()).toContain('20 of 20 sent');
    expect(await runsOf(sender.organization.id)).toBe(1);
    await page.setViewportSize(PHONE);
    await eventually(() => pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'bulk send page on a phone');
    await browser.screenshot(page, 'app-bulk-send-en-phone');
  });

  it('stops a running bulk send after a confirmation: the rows not sent yet are skipped', async () => {
    const { sender, templateId } = await senderWithTemplate();
    // A run as a start stores it, its workflow started only once the page shows it Running (so it is still
    // running, whatever the machine's speed, when the stop is confirmed).
    const id = randomUUID();
    const total = 300;
    const rows = Array.from({ length: total }, (_, i) => ({
      row: i + 2,
      request: {
        templateId,
        title: 'Large renewal',
        workflowType: 'Sequential',
        externalReference: `large-${id.slice(0, 8)}-${i + 1}`,
        recipients: [
          { roleName: 'Client', fullName: `Client ${i + 1}`, deliveryChannel: 'ManualLink' },
          { roleName: 'Provider', fullName: `Provider ${i + 1}`, deliveryChannel: 'ManualLink' },
        ],
        initialValues: [],
      },
    }));
    await harness.ctx.orm.em.fork().transactional((tx) =>
      insertBulkSend(
        tx,
        {
          id,
          organizationId: sender.organization.id,
          templateId,
          createdByUserId: sender.user.id,
          teamId: null,
          filename: 'large.csv',
          settings: { title: 'Large renewal' },
          workflowId: bulkSendWorkflowId(id),
        },
        rows,
      ),
    );

    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, sender.email, sender.password);
    await page.goto(`${baseUrl}/app/send/bulk/${id}`);
    await waitForLoaded(page);
    await eventually(() => page.getByTestId('run-status').textContent()).toMatch(/^\s*Sending\s*$/);
    expect(await page.getByTestId('run-summary').textContent()).toBe('0 of 300 sent');
    expect(await page.getByTestId('count-pending').textContent()).toBe('300');
    await page.evaluate('window.sigilNoReload = true');

    // The confirmation says what stopping does; Cancel leaves the run as it is.
    await page.getByRole('button', { name: 'Stop sending' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop this bulk send?' });
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('the 300 rows not sent yet are skipped');
    await expectAccessible(page, 'bulk send run, stop confirmation');
    await browser.screenshot(page, 'app-bulk-send-stop-en-desktop');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => dialog.isVisible()).toBe(false);
    expect(await page.getByTestId('run-status').textContent()).toMatch(/^\s*Sending\s*$/);

    await startBulkSendWorkflow(
      harness.ctx.temporal,
      { bulkSendId: id, organizationId: sender.organization.id, total, summary: 'Large renewal' },
      10_000,
    );
    await page.getByRole('button', { name: 'Stop sending' }).click();
    await eventually(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Stop sending' }).click();
    await eventually(() => dialog.isVisible()).toBe(false);
    await eventually(() => page.getByTestId('run-status').textContent(), 60_000).toMatch(/^\s*Stopped\s*$/);
    expect(await page.evaluate('window.sigilNoReload')).toBe(true);
    expect(await page.getByRole('button', { name: 'Stop sending' }).count()).toBe(0);
    expect(await page.getByText('Stopping').count()).toBe(0);
    await eventually(() => page.getByTestId('run-announcement').textContent()).toMatch(/^\s*Stopped: /);
    const count = async (name: string) => Number(await page.getByTestId(`count-${name}`).textContent());
    const [sent, failed, skipped, pending] = [
      await count('sent'),
      await count('failed'),
      await count('skipped'),
      await count('pending'),
    ];
    expect(skipped).toBeGreaterThan(0);
    expect(pending).toBe(0);
    expect(sent + failed + skipped).toBe(total);
    expect(await page.getByRole('progressbar').getAttribute('aria-valuenow')).toBe(String(total));
    expect(await harness.ctx.orm.em.fork().count(Envelope, { organizationId: sender.organization.id })).toBe(
      sent,
    );

    // Only the skipped rows, on request: none has an envelope.
    await page.locator('#rows-status').selectOption('Skipped');
    const shown = page.getByTestId('run-rows').locator('tbody tr');
    await eventually(() =>
      page.getByRole('navigation', { name: 'Pages of rows' }).locator('p').textContent(),
    ).toBe(`Rows 1–${Math.min(50, skipped)} of ${skipped}`);
    expect(await shown.count()).toBe(Math.min(50, skipped));
    expect(await shown.locator('a[href^="/app/documents/"]').count()).toBe(0);
    expect(await page.getByTestId('run-rows').locator('tbody .app-badge').allTextContents()).toEqual(
      Array.from({ length: Math.min(50, skipped) }, () => 'Skipped'),
    );
    await expectAccessible(page, 'bulk send run, stopped');
    await browser.screenshot(page, 'app-bulk-send-stopped-en-desktop');
  });

  it('shows the bulk page and a run in Hebrew, right to left, on a 375-pixel phone', async () => {
    const { sender, templateId } = await senderWithTemplate('he');
    const prefix = `he-${randomUUID().slice(0, 8)}`;
    const started = (await callAs(baseUrl, sender, 'POST', '/api/bulk-sends', {
      templateId,
      title: 'חידוש שנתי',
      roles: [
        { roleName: 'Client', deliveryChannel: 'ManualLink' },
        { roleName: 'Provider', deliveryChannel: 'ManualLink' },
      ],
      filename: 'חידושים.csv',
      csv: csvOf(prefix, 3),
    })) as { id: string };

    const page = await browser.newPage(PHONE);
    await signIn(page, baseUrl, sender.email, sender.password);
    await eventually(() => page.locator('html').getAttribute('dir')).toBe('rtl');

    await page.goto(`${baseUrl}/app/send/bulk?template=${templateId}`);
    await waitForLoaded(page);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'שליחה לנמענים רבים מקובץ CSV',
    );
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await eventually(() => page.getByTestId('role-Provider').count()).toBe(1);
    await chooseFile(page, 'שגוי.csv', csvOf(prefix, 3, [1]));
    await page.getByRole('button', { name: 'בדיקת הקובץ' }).click();
    await eventually(() => page.getByTestId('bulk-problems').count()).toBe(1);
    expect(await page.getByTestId('bulk-problems').textContent()).toContain('שום דבר לא נשלח');
    await eventually(() =>
      page.getByTestId('bulk-runs').locator(`tr[data-run="${started.id}"]`).count(),
    ).toBe(1);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'bulk send page in Hebrew on a phone');
    await browser.screenshot(page, 'app-bulk-send-he-phone');
    await chooseFile(page, 'חידושים.csv', csvOf(`${prefix}-b`, 2));
    await page.getByRole('button', { name: 'בדיקת הקובץ' }).click();
    await eventually(() => page.getByTestId('bulk-rows').textContent()).toBe('2');
    expect(await page.getByTestId('bulk-checked').getByRole('heading', { level: 3 }).textContent()).toBe(
      'הקובץ מוכן: שתי מעטפות',
    );
    expect(await page.getByRole('button', { name: 'שליחת שתי מעטפות' }).count()).toBe(1);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'bulk send page in Hebrew on a phone, file checked');
    await browser.screenshot(page, 'app-bulk-send-checked-he-phone');

    await page.getByRole('link', { name: 'חידוש שנתי' }).click();
    await waitForPath(page, UUID_PATH);
    await eventually(() => page.getByTestId('run-status').textContent(), 60_000).toMatch(/^\s*הושלמה\s*$/);
    expect(await page.getByTestId('run-summary').textContent()).toBe('3 מתוך 3 נשלחו');
    await eventually(() => page.getByTestId('run-rows').locator('tbody tr').count()).toBe(3);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'bulk send run in Hebrew on a phone');
    await browser.screenshot(page, 'app-bulk-send-run-he-phone');
    await page.setViewportSize(DESKTOP);
    await expectAccessible(page, 'bulk send run in Hebrew');
    await browser.screenshot(page, 'app-bulk-send-run-he-desktop');
    await page.getByRole('link', { name: 'כל השליחות לנמענים רבים' }).click();
    await waitForPath(page, '/app/send/bulk');
    await waitForLoaded(page);
    await eventually(() => page.getByTestId('bulk-runs').locator('tbody tr').count()).toBe(1);
    await expectAccessible(page, 'bulk send page in Hebrew');
    await browser.screenshot(page, 'app-bulk-send-he-desktop');
  });
});
