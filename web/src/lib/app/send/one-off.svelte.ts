// A send's one-off PDF (docs/documents.md, "Sending"): the file, checked for its size here, stored by the server
// first (POST /api/documents/files: its id goes with the send), then its fields placed with the template
// builder's own model — one role to begin with. A refused or unreadable file says why (`error`).
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { appClient } from '$lib/shared/app-client';
import { fieldErrors } from '$lib/shared/field-errors';
import { requestErrorOf } from '$lib/shared/request-error';
import { followSessionAnswer } from '../errors.ts';
import { TemplateBuilder, type TemplateDetail } from '../templates/builder.svelte.ts';
import { base64Of, MAX_PDF_BYTES } from './send.ts';

export class OneOffDocument {
  readonly builder = new TemplateBuilder();
  fileId = $state('');
  fileName = $state('');
  bytes = $state<Uint8Array | undefined>();
  error = $state('');
  uploading = $state(false);

  /** Whether a file is stored and its pages can be drawn. */
  get ready(): boolean {
    return this.fileId !== '' && this.bytes !== undefined;
  }

  /** Stores the chosen file; its name (without .pdf) when stored, else undefined. */
  async upload(file: File): Promise<string | undefined> {
    const t = get(format);
    this.error = '';
    if (file.size > MAX_PDF_BYTES) {
      this.error = t('templates.pdfTooLarge');
      return undefined;
    }
    this.uploading = true;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const stored = await appClient.sending.uploadFile.mutate({
        filename: file.name,
        pdfBase64: base64Of(bytes),
      });
      this.builder.load({
        roles: [
          { name: t('send.defaultRole'), required: true, defaultRecipientType: 'Signer', signingOrder: 1 },
        ],
        fields: [],
        pages: stored.pages,
      } as unknown as TemplateDetail);
      this.fileId = stored.fileId;
      this.fileName = stored.filename;
      this.bytes = bytes;
      return stored.filename.replace(/\.pdf$/i, '');
    } catch (error) {
      if (!followSessionAnswer(error)) {
        this.error =
          fieldErrors(error).pdfBase64 ?? requestErrorOf(error).serverMessage ?? t('workspace.unreachable');
      }
      return undefined;
    } finally {
      this.uploading = false;
    }
  }

  /** The fields as the send from a file sends them (as a template saves them, but for their type's settings),
   * each with the value the sender gave it. */
  fields(given: (key: string) => unknown) {
    return this.builder.definition().fields.map(({ properties: _settings, ...field }, index) => {
      const value = given(this.builder.fields[index]?.key ?? '');
      return { ...field, ...(value === undefined ? {} : { value }) };
    });
  }
}
