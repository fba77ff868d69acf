// Tools, prompts and resources of a server, and drift of its tools from an accepted baseline.

export * from './types';
export { canonicalJson, hashOf, sha256 } from './canonical';
export { fingerprintTool, setHash, toolDefinition, toolsInventory } from './fingerprint';
export { describeDrift, diffTools } from './drift';
export { collectInventory, type InventoryRequester } from './collect';
export * from './baselineFile';
export { toolsDocumentText, totalTools } from './toolsDocument';
