// Errors the renderers raise for input they refuse. The same input always fails the same way, so an activity
// retry policy should list 'PdfRenderError' among its non-retryable error types.

export class PdfRenderError extends Error {
  override name = 'PdfRenderError';
}
