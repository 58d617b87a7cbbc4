import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '../../..')

/** The plinth binary the suites run: PLINTH_BIN, else the cargo target folder's debug build. */
export function plinthBinary(): string {
  const candidates = [
    process.env.PLINTH_BIN,
    process.env.CARGO_TARGET_DIR && join(process.env.CARGO_TARGET_DIR, 'debug/plinth'),
    join(repo, 'target/debug/plinth'),
  ].filter((c): c is string => !!c)
  const found = candidates.find((c) => existsSync(c))
  if (!found) throw new Error(`no plinth binary (looked at ${candidates.join(', ')}); run cargo build -p plinth-server`)
  return found
}
