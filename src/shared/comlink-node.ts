// comlink's own Node adapter, from its ESM build (an ES module, so its default export
// is the function itself in Node and in TypeScript alike).
export { default as nodeEndpoint } from 'comlink/dist/esm/node-adapter.mjs';
