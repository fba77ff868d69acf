// A mistake in the command line: the CLI prints it with the usage and exits 2. Its own file so every flag parser
// (args, ciArgs, guardArgs) can throw it without importing args.ts, which imports them.
export class UsageError extends Error {}
