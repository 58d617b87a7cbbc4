// A plinth of a suite's own, for settings the shared one (global-setup.ts)
// does not have: the real binary on a fresh database of the test server,
// with extra environment; stop() ends it and drops the database.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { plinthBinary } from './binary'

const repo = resolve(import.meta.dirname, '../../..')

export interface OwnPlinth {
  url: string
  anonKey: string
  serviceRoleKey: string
  databaseUrl: string
  stop(): Promise<void>
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => ok(port))
    })
  })
}

export async function startOwnPlinth(env: Record<string, string>): Promise<OwnPlinth> {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const dbName = `plinth_node_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database "${dbName}"`)
  await admin.end()
  const u = new URL(serverUrl)
  u.pathname = `/${dbName}`
  const databaseUrl = u.toString()
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'plinth-node-own-'))
  const child: ChildProcess = spawn(
    plinthBinary(),
    ['serve', '--port', String(port), '--migrations', join(repo, 'migrations'), '--policies', join(repo, 'policies')],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PLINTH_DATA_DIR: dataDir,
        JWT_SECRET: 'own-plinth-secret-of-at-least-32-characters',
        PLINTH_APP_DIR: join(dataDir, 'no-app'),
        PLINTH_ENV_FILE: '/dev/null',
        RUST_LOG: process.env.RUST_LOG ?? 'warn',
        GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS: '10000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const output: string[] = []
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`plinth did not start:\n${output.join('')}`)), 60_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString())
      if (output.join('').includes('Plinth is ready')) {
        clearTimeout(timer)
        ok()
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString())
      if (process.env.PLINTH_LOG) process.stderr.write(chunk)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      fail(new Error(`plinth exited with ${code}:\n${output.join('')}`))
    })
  })
  const text = output.join('')
  const key = (name: string) => {
    const match = text.match(new RegExp(`^${name}=(\\S+)$`, 'm'))
    if (!match) throw new Error(`no ${name} in plinth's output:\n${text}`)
    return match[1]
  }
  return {
    url: `http://127.0.0.1:${port}`,
    anonKey: key('ANON_KEY'),
    serviceRoleKey: key('SERVICE_ROLE_KEY'),
    databaseUrl,
    async stop() {
      const exited = new Promise((ok) => child.once('exit', ok))
      child.kill('SIGINT')
      let timer: NodeJS.Timeout | undefined
      await Promise.race([exited, new Promise((ok) => (timer = setTimeout(ok, 15_000)))])
      clearTimeout(timer)
      const cleanup = new pg.Client({ connectionString: serverUrl })
      await cleanup.connect()
      await cleanup.query(`drop database if exists "${dbName}" with (force)`)
      await cleanup.end()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
