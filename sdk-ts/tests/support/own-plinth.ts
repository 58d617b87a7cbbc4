// A plinth of a suite's own, for settings the shared one (global-setup.ts)
// does not have: the real binary on a fresh database of the test server,
// with extra environment; stop() ends it and drops the database.
import { freshDatabase, spawnPlinth } from './spawn-plinth'

export { freePort } from './spawn-plinth'

export interface OwnPlinth {
  url: string
  anonKey: string
  serviceRoleKey: string
  databaseUrl: string
  stop(): Promise<void>
}

export async function startOwnPlinth(env: Record<string, string>): Promise<OwnPlinth> {
  const database = await freshDatabase()
  const plinth = await spawnPlinth({
    databaseUrl: database.databaseUrl,
    dataDirPrefix: 'plinth-node-own-',
    env: {
      JWT_SECRET: 'own-plinth-secret-of-at-least-32-characters',
      GOTRUE_RATE_LIMIT_SIGN_IN_SIGN_UPS: '10000',
      ...env,
    },
  })
  return {
    url: plinth.url,
    anonKey: plinth.anonKey,
    serviceRoleKey: plinth.serviceRoleKey,
    databaseUrl: database.databaseUrl,
    async stop() {
      await plinth.stop()
      await database.drop()
    },
  }
}
