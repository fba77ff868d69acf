// Replaces `@modelcontextprotocol/client/_shims` in the bundles (see esbuild.js). The SDK's Node shim brings the AJV
// JSON-schema validator (about 150 KB minified) to validate tool output schemas; a health monitor never calls a tool
// nor reads its output, so the validator would only weigh on every activation.

/** In Node a fetch TypeError is a real network error, never CORS (the SDK's own Node shim says the same). */
export const CORS_IS_POSSIBLE = false;

type ValidationResult<T> = { valid: true; data: T; errorMessage: undefined };

/** Accepts what it is given: nothing in MCP Health depends on a tool's output schema. */
export class DefaultJsonSchemaValidator {
  getValidator<T>(_schema: unknown): (input: unknown) => ValidationResult<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  }
}
