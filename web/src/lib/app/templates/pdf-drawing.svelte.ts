// The builder's PDF (BuilderPages.svelte): loaded with pdf.js (on demand, its worker a file of the build) from the
// template's address or from bytes the page holds, and every page drawn into its canvas at the zoom and the
// screen's pixel ratio — again, sharp, a moment after the zoom changes (the canvases are stretched meanwhile).
import type { PDFDocumentProxy } from 'pdfjs-dist';

/** How long after the last zoom change the pages are drawn again. */
const REDRAW_AFTER_MS = 120;

export class PdfDrawing {
  status = $state<'loading' | 'ready' | 'failed'>('loading');
  /** The canvas of each page, by index (bound by the component). */
  readonly canvases: HTMLCanvasElement[] = [];
  #pdf: PDFDocumentProxy | undefined;
  #destroy: (() => Promise<void>) | undefined;
  #cancelled = false;
  #drawing: Promise<void> | undefined;
  #drawnZoom = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #bytes: () => Promise<Uint8Array>;

  constructor(bytes: () => Promise<Uint8Array>) {
    this.#bytes = bytes;
  }

  /** Loads the PDF and draws it at `zoom` once the canvases are there (`drawn`: after the page is drawn). */
  async show(zoom: () => number, drawn: () => Promise<void>): Promise<void> {
    this.status = 'loading';
    try {
      const [pdfjs, worker, bytes] = await Promise.all([
        import('pdfjs-dist'),
        import('pdfjs-dist/build/pdf.worker.min.mjs?url'),
        this.#bytes(),
      ]);
      if (this.#cancelled) return;
      pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
      const task = pdfjs.getDocument({ data: bytes });
      this.#destroy = () => task.destroy();
      this.#pdf = await task.promise;
      this.status = 'ready';
      await drawn();
      await this.draw(zoom());
    } catch {
      if (!this.#cancelled) this.status = 'failed';
    }
  }

  /** Draws again at `zoom` a moment from now, unless the pages show it already. */
  redraw(zoom: number): void {
    if (this.status !== 'ready' || zoom === this.#drawnZoom) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.draw(zoom), REDRAW_AFTER_MS);
  }

  /** Every page into its canvas at `zoom` (CSS pixels per point) times the screen's pixel ratio. */
  async draw(zoom: number): Promise<void> {
    while (this.#drawing) await this.#drawing;
    const pdf = this.#pdf;
    if (!pdf || this.#cancelled) return;
    const run = (async () => {
      const ratio = Math.max(window.devicePixelRatio || 1, 1);
      this.#drawnZoom = zoom;
      for (let number = 1; number <= pdf.numPages; number += 1) {
        const canvas = this.canvases[number - 1];
        if (!canvas || this.#cancelled) continue;
        const page = await pdf.getPage(number);
        const viewport = page.getViewport({ scale: zoom * ratio });
        canvas.width = Math.floor(viewport.width);
        canvas.height = Math.floor(viewport.height);
        await page.render({ canvas, viewport }).promise;
        canvas.dataset.rendered = String(zoom);
      }
    })();
    this.#drawing = run;
    try {
      await run;
    } finally {
      this.#drawing = undefined;
    }
  }

  close(): void {
    this.#cancelled = true;
    clearTimeout(this.#timer);
    void this.#destroy?.();
  }
}
