// The PostgREST v14 case schema shared with the Rust suite
// (crates/rest/tests/postgrest/schema/*.sql): applies one area's file and
// waits until the schema cache, reloaded off the request path, answers the
// area's probe without an error.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from './context'

const SCHEMA_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../crates/rest/tests/postgrest/schema')

export async function applyCaseSchema(file: string, probe: () => PromiseLike<{ error: unknown }>): Promise<void> {
  await sql(readFileSync(join(SCHEMA_DIR, file), 'utf8'))
  await sql(`notify pgrst, 'reload schema'`)
  for (let i = 0; i < 100; i++) {
    const { error } = await probe()
    if (!error) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`the schema cache never saw ${file}`)
}
