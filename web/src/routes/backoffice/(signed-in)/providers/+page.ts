// /backoffice/providers: the settings the email, SMS and WhatsApp providers use now (never a secret).
import { backofficePage } from '$lib/backoffice/load';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = (event) =>
  backofficePage(event, async () => {
    const [smtp, sms, whatsapp] = await Promise.all([
      appClient.backofficeProviders.smtp.query(),
      appClient.backofficeProviders.sms.query(),
      appClient.backofficeProviders.whatsapp.query(),
    ]);
    return { smtp, sms, whatsapp };
  });
