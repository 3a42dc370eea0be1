// SMS credits a platform administrator gave an organization (migration 0024, docs/backoffice.md "Credits"):
// each grant counts in the calendar month (UTC) it was given, on top of the plan's monthly credits
// (services/usage/sms-credits.ts).
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn, tenantKeys } from './columns.ts';

export const SmsCreditGrantSchema = defineEntity({
  name: 'SmsCreditGrant',
  tableName: 'sms_credit_grant',
  properties: {
    ...tenantKeys(),
    /** Credits given: a positive whole number. */
    amount: p.integer(),
    reason: p.text(),
    /** The administrator who gave it (their address is kept too, so the grant outlives their removal). */
    grantedByAdminId: p.uuid().nullable(),
    grantedByEmail: p.string().nullable(),
    ...createdAtColumn(),
  },
});
export class SmsCreditGrant extends SmsCreditGrantSchema.class {}
SmsCreditGrantSchema.setClass(SmsCreditGrant);
