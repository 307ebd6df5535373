// Types for comlink's own ESM Node adapter: the package ships its declarations as
// .d.ts beside the .mjs, which NodeNext resolution does not pair with an .mjs import.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  import type { NodeEndpoint } from 'comlink/dist/esm/node-adapter.js';
  /** Turns a worker_threads MessagePort (or Worker) into a comlink endpoint. */
  export default function nodeEndpoint(nep: NodeEndpoint): Endpoint;
}
