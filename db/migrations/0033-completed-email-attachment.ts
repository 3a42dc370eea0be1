// The organization setting "attach the final PDF to the completed email" (issue 32, docs/administration.md):
// off by default; when on, the `completed` email carries the final PDF as an attachment while it is at most
// COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES (domain/account.ts), and only the link above that.
import { Migration } from '@mikro-orm/migrations';

export class Migration0033CompletedEmailAttachment extends Migration {
  override name = '0033-completed-email-attachment';

  override up(): void {
    this.addSql(
      'alter table organization add column attach_final_pdf_to_completed_email boolean not null default false',
    );
  }
}
