// The committed `src/database.ts` must be what `plinth gen types typescript`
// makes of the repository's schema now.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { plinthBinary } from './support/binary'

const repo = resolve(import.meta.dirname, '../..')

describe('generated types', () => {
  it('src/database.ts matches the schema (run scripts/gen when this fails)', async () => {
    const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
    const name = `plinth_types_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    await admin.query(`create database "${name}"`)
    try {
      const url = new URL(serverUrl)
      url.pathname = `/${name}`
      const generated = execFileSync(
        plinthBinary(),
        ['gen', 'types', 'typescript', '--migrations', join(repo, 'migrations'), '--policies', join(repo, 'policies')],
        { env: { ...process.env, DATABASE_URL: url.toString(), RUST_LOG: 'error', PLINTH_ENV_FILE: '/dev/null' }, encoding: 'utf8' },
      )
      expect(generated).toContain('export type Database = {')
      const committed = readFileSync(join(repo, 'sdk-ts/src/database.ts'), 'utf8')
      expect(committed).toBe(generated)
    } finally {
      await admin.query(`drop database if exists "${name}" with (force)`)
      await admin.end()
    }
  })
})
