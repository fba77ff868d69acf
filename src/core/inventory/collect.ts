// Lists a server's tools, prompts and resources once, following `nextCursor`, inside bounds a hostile server cannot
// stretch: a page cap, an item cap, a repeated cursor, and one time budget for the whole listing.

import { toolDefinition, toolsInventory } from './fingerprint';
import type { CountInventory, Inventory, InventoryLimits, ListCapabilities, RawReply, ToolDefinition } from './types';

export interface InventoryRequester {
  /** Sends one request with `params` (the era's envelope is the requester's business) and its own timeout. */
  request(method: string, params: Record<string, unknown> | undefined, timeoutMs: number): Promise<RawReply>;
}

type ListKind = 'tools' | 'prompts' | 'resources';

interface Listed {
  readonly items: readonly unknown[];
  readonly problem: string | null;
}

/** Bounded walk over the pages of one list request. */
async function listAll(
  requester: InventoryRequester,
  kind: ListKind,
  limits: InventoryLimits,
  deadline: number,
  now: () => number,
): Promise<Listed> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= limits.maxPages) return { items, problem: `${kind}/list: stopped after ${limits.maxPages} pages` };
    const remaining = deadline - now();
    if (remaining <= 0) return { items, problem: `${kind}/list: not finished within ${limits.budgetMs} ms` };
    const reply = await requester.request(`${kind}/list`, cursor === undefined ? undefined : { cursor }, remaining);
    if (!reply.ok) return { items, problem: `${kind}/list: ${reply.error}` };
    const result = reply.result as Record<string, unknown> | null;
    const pageItems = result && typeof result === 'object' ? result[kind] : undefined;
    if (!Array.isArray(pageItems)) return { items, problem: `${kind}/list: the result has no "${kind}" array` };
    for (const item of pageItems) {
      if (items.length >= limits.maxItems) return { items, problem: `${kind}/list: stopped at ${limits.maxItems} items` };
      items.push(item);
    }
    const next = result?.nextCursor;
    if (next === undefined || next === null) return { items, problem: null };
    if (typeof next !== 'string') return { items, problem: `${kind}/list: nextCursor is not a string` };
    if (seen.has(next)) return { items, problem: `${kind}/list: the server repeated cursor ${JSON.stringify(next.slice(0, 40))}` };
    seen.add(next);
    cursor = next;
  }
}

export async function collectInventory(
  requester: InventoryRequester,
  capabilities: ListCapabilities,
  limits: InventoryLimits,
  now: () => number,
  wallNow: () => number,
): Promise<Inventory> {
  const deadline = now() + limits.budgetMs;
  const problems: string[] = [];
  let complete = true;
  let tools: Inventory['tools'] = null;
  let prompts: CountInventory | null = null;
  let resources: CountInventory | null = null;
  // One after another: a listing is a courtesy to the server, never a burst.
  if (capabilities.tools) {
    const listed = await listAll(requester, 'tools', limits, deadline, now);
    const definitions: ToolDefinition[] = [];
    for (const item of listed.items) {
      const definition = toolDefinition(item);
      if (definition) definitions.push(definition);
      else problems.push('tools/list: a tool without a name was skipped');
    }
    if (listed.problem) {
      problems.push(listed.problem);
      complete = false;
    }
    tools = toolsInventory(definitions, limits.maxKeptChars);
  }
  if (capabilities.prompts) {
    const listed = await listAll(requester, 'prompts', limits, deadline, now);
    if (listed.problem) {
      problems.push(listed.problem);
      complete = false;
    }
    prompts = { count: listed.items.length };
  }
  if (capabilities.resources) {
    const listed = await listAll(requester, 'resources', limits, deadline, now);
    if (listed.problem) {
      problems.push(listed.problem);
      complete = false;
    }
    resources = { count: listed.items.length };
  }
  return { tools, prompts, resources, complete, problems: [...new Set(problems)], listedAt: wallNow() };
}
