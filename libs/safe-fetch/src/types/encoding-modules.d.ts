// Types for the two encoding packages (neither ships its own; both are CommonJS with one function each that we use).
declare module 'html-encoding-sniffer' {
  /** The HTML Standard's encoding sniffing: BOM, then the transport label, then a prescan of the first 1024 bytes. */
  export default function htmlEncodingSniffer(
    bytes: Uint8Array,
    options?: { transportLayerEncodingLabel?: string; defaultEncoding?: string },
  ): string;
}

declare module 'whatwg-encoding' {
  export function decode(bytes: Uint8Array, fallbackEncodingName: string): string;
  export function labelToName(label: string): string | null;
  export function isSupported(name: string): boolean;
  export function getBOMEncoding(bytes: Uint8Array): string | null;
}
