// Starts the real `plinth` binary for the suites: the shared node of
// global-setup.ts, a suite's own (own-plinth.ts) and the key-set nodes of
// auth-keys.test.ts all spawn, wait and read their keys through here.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { plinthBinary } from './binary'

const repo = resolve(import.meta.dirname, '../../..')

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

export interface FreshDatabase {
  databaseUrl: string
  /** Drops the database (connections and all). */
  drop(): Promise<void>
}

/** A new database on the test server (DATABASE_URL, else 127.0.0.1:5432). */
export async function freshDatabase(): Promise<FreshDatabase> {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const dbName = `plinth_node_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database "${dbName}"`)
  await admin.end()
  const u = new URL(serverUrl)
  u.pathname = `/${dbName}`
  return {
    databaseUrl: u.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: serverUrl })
      await cleanup.connect()
      await cleanup.query(`drop database if exists "${dbName}" with (force)`)
      await cleanup.end()
    },
  }
}

export interface SpawnedPlinth {
  url: string
  anonKey: string
  serviceRoleKey: string
  /** Ends the process (SIGINT, waiting up to 15 s) and removes its data directory. */
  stop(): Promise<void>
}

export interface SpawnOptions {
  databaseUrl: string
  /** Settings on top of the defaults (and of the test process's environment). */
  env: Record<string, string>
  /** Prefix of the temporary data directory. */
  dataDirPrefix: string
  /** How errors name the process. */
  name?: string
}

/** `plinth serve` on a free port, once it says it is ready. */
export async function spawnPlinth({
  databaseUrl,
  env,
  dataDirPrefix,
  name = 'plinth',
}: SpawnOptions): Promise<SpawnedPlinth> {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), dataDirPrefix))
  const child: ChildProcess = spawn(
    plinthBinary(),
    ['serve', '--port', String(port), '--migrations', join(repo, 'migrations'), '--policies', join(repo, 'policies')],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PLINTH_DATA_DIR: dataDir,
        PLINTH_APP_DIR: join(dataDir, 'no-app'),
        PLINTH_ENV_FILE: '/dev/null',
        RUST_LOG: process.env.RUST_LOG ?? 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const output: string[] = []
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start:\n${output.join('')}`)), 60_000)
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
      fail(new Error(`${name} exited with ${code}:\n${output.join('')}`))
    })
  })
  const text = output.join('')
  const key = (key: string) => {
    const match = text.match(new RegExp(`^${key}=(\\S+)$`, 'm'))
    if (!match) throw new Error(`no ${key} in ${name}'s output:\n${text}`)
    return match[1]
  }
  return {
    url: `http://127.0.0.1:${port}`,
    anonKey: key('ANON_KEY'),
    serviceRoleKey: key('SERVICE_ROLE_KEY'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((ok) => child.once('exit', ok))
        child.kill('SIGINT')
        let timer: NodeJS.Timeout | undefined
        await Promise.race([exited, new Promise((ok) => (timer = setTimeout(ok, 15_000)))])
        clearTimeout(timer)
      }
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
