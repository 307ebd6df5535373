// comlink's Node adapter ships as UMD (CommonJS at run time), whose default
// export TypeScript and Node see differently; this resolves it once, for every thread.
import nodeEndpointModule from 'comlink/dist/umd/node-adapter.js';

type NodeEndpointFn = typeof import('comlink/dist/umd/node-adapter.js').default;
const loaded = nodeEndpointModule as unknown as NodeEndpointFn | { default: NodeEndpointFn };

/** Turns a worker_threads MessagePort into a comlink endpoint. */
export const nodeEndpoint: NodeEndpointFn = typeof loaded === 'function' ? loaded : loaded.default;
