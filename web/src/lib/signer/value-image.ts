// The image a field's value shows, whichever form it is in: just chosen in this page (base64, not saved yet or
// saved by this page) or saved earlier (`{ fileId, … }` from the server, fetched by FieldImage.svelte). One
// reading for the fields and the preview.

const IMAGE_TYPES = ['image/png', 'image/jpeg'];

export type ValueImage = { src: string } | { fileId: string };

/** A signature, initials or stamp image, or an uploaded PNG/JPEG; undefined for anything else (a PDF). */
export function valueImage(value: unknown): ValueImage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { imagePngBase64, fileBase64, fileId, contentType } = value as Record<string, unknown>;
  if (typeof imagePngBase64 === 'string') return { src: `data:image/png;base64,${imagePngBase64}` };
  const image = typeof contentType === 'string' && IMAGE_TYPES.includes(contentType);
  if (typeof fileBase64 === 'string')
    return image ? { src: `data:${contentType};base64,${fileBase64}` } : undefined;
  // A signer's image is `{ fileId, typedName }` (always a PNG); an upload names its type.
  if (typeof fileId === 'string' && (contentType === undefined || image)) return { fileId };
  return undefined;
}
