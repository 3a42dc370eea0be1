// One-time codes of OTP recipients and the signer sessions a verified code opens. Neither the code nor the
// session token is stored: only their hashes.
import { defineEntity, p } from '@mikro-orm/core';

export type OtpChannel = 'Sms' | 'WhatsApp';
/** Why a code can no longer be used. */
export type OtpClosedReason = 'verified' | 'superseded' | 'expired' | 'too_many_attempts';

export const OtpCodeSchema = defineEntity({
  name: 'OtpCode',
  tableName: 'otp_code',
  properties: {
    id: p.uuid().primary(),
    recipientId: p.uuid(),
    envelopeId: p.uuid(),
    organizationId: p.uuid(),
    channel: p.string().$type<OtpChannel>(),
    codeHash: p.string(),
    attempts: p.integer().default(0),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    closedAt: p.datetime().nullable(),
    closedReason: p.string().$type<OtpClosedReason>().nullable(),
  },
});
export class OtpCode extends OtpCodeSchema.class {}
OtpCodeSchema.setClass(OtpCode);

export const SignerSessionSchema = defineEntity({
  name: 'SignerSession',
  tableName: 'signer_session',
  properties: {
    tokenHash: p.string().primary(),
    recipientId: p.uuid(),
    envelopeId: p.uuid(),
    organizationId: p.uuid(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export class SignerSession extends SignerSessionSchema.class {}
SignerSessionSchema.setClass(SignerSession);
