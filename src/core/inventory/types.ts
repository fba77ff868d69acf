// What a server offers (tools, prompts, resources) and how its tools drifted from an accepted baseline. Pure data.

/** The fields of a tool that define what a model is told about it; a change in any of them is drift. */
export const TOOL_FIELDS = ['description', 'inputSchema', 'outputSchema', 'annotations'] as const;
export type ToolField = (typeof TOOL_FIELDS)[number];

/** The canonical subset of a tool definition: only the fields that are hashed, nothing the server added beside them. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

export interface ToolFingerprint {
  readonly name: string;
  /** sha256 of the canonical JSON of the whole definition. */
  readonly hash: string;
  /** sha256 per field, so drift can say which field changed without keeping the definitions. */
  readonly fields: Readonly<Record<ToolField, string>>;
}

export interface ToolsInventory {
  readonly count: number;
  /** sha256 over the sorted per-tool hashes: equal sets give equal hashes, whatever order the server lists them in. */
  readonly hash: string;
  readonly tools: readonly ToolFingerprint[];
  /** The definitions themselves, for before/after views and baseline files; null when they were too large to keep. */
  readonly definitions: readonly ToolDefinition[] | null;
}

export interface CountInventory {
  readonly count: number;
}

/** One listing of a server, taken once per connection. A capability the server did not declare is null. */
export interface Inventory {
  readonly tools: ToolsInventory | null;
  readonly prompts: CountInventory | null;
  readonly resources: CountInventory | null;
  /** False when a listing failed or hit a bound (pages, items, time): counts are then lower bounds, drift is not judged. */
  readonly complete: boolean;
  /** Why the listing is incomplete, one line each. */
  readonly problems: readonly string[];
  /** Wall clock of the listing. */
  readonly listedAt: number;
}

/** The tool set a server is compared against: accepted by the user, loaded from a file, or the first one seen. */
export type ToolsBaseline = ToolsInventory;

export interface ChangedTool {
  readonly name: string;
  readonly fields: readonly ToolField[];
}

export interface ToolDrift {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly ChangedTool[];
  readonly baselineHash: string;
  readonly currentHash: string;
}

/** The capabilities a server declared that have a list request. */
export interface ListCapabilities {
  readonly tools: boolean;
  readonly prompts: boolean;
  readonly resources: boolean;
}

/** A raw JSON-RPC exchange outside the probe path: the result as the server sent it, or why there is none. */
export type RawReply = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: string };

export interface InventoryLimits {
  /** Pages per list request; a server whose nextCursor never ends cannot hold the listing. */
  readonly maxPages: number;
  /** Items per list (tools, prompts or resources). */
  readonly maxItems: number;
  /** The whole listing (all three lists, every page), ms. */
  readonly budgetMs: number;
  /** Definitions above this many characters of canonical JSON are hashed but not kept. */
  readonly maxKeptChars: number;
}

export const defaultInventoryLimits: InventoryLimits = {
  maxPages: 50,
  maxItems: 5_000,
  budgetMs: 15_000,
  maxKeptChars: 1_000_000,
};
