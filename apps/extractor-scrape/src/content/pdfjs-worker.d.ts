// pdf.js ships no types for its worker module; we only import it for its side effect (see pdf-text.extractor.ts).
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
