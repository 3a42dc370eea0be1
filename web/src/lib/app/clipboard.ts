// Copying a value the page shows in a read-only field (a signing link, a secret shown once): the clipboard API
// where the page is a secure context, else the field's text selected and copied the old way. When neither works
// the field is left selected, for the user to copy by hand, and the promise rejects.
export async function copyFromField(text: string, field: HTMLInputElement | undefined): Promise<void> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
    } else {
      field?.select();
      if (!document.execCommand('copy')) throw new Error('copy refused');
    }
  } catch (error) {
    field?.select();
    throw error;
  }
}
