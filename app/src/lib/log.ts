// Quiet failures (spec section 8): logged, never shown.
export function logQuiet(what: string, error: unknown): void {
  console.error(`[marketplace] ${what}`, error)
}
