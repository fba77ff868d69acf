// The id that names a server in the tree, in command links and in notifications' actions.

export const serverElementId = (serverId: string) => `server:${serverId}`;

/** A server id from a tree element, a command-link argument or a plain id. */
export function serverIdFromElement(element: unknown): string | undefined {
  if (typeof element !== 'string') {
    return undefined;
  }
  if (element.startsWith('server:')) {
    return element.slice('server:'.length);
  }
  return element.includes(':') && /^(group|file|detail|problem):/.test(element) ? undefined : element;
}
